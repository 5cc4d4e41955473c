import CNGHTTP2

/// An owned HPACK encoder (`nghttp2_hd_deflater`) with its own dynamic table.
public final class HPACKEncoder {
    private let pointer: OpaquePointer

    public init(maxDynamicTableSize: Int = 4096) throws {
        var deflater: OpaquePointer?
        let result = nghttp2_hd_deflate_new(&deflater, maxDynamicTableSize)
        guard result == 0, let deflater else { throw NGHTTP2Error(result, "nghttp2_hd_deflate_new") }
        pointer = deflater
    }

    deinit { nghttp2_hd_deflate_del(pointer) }

    /// Encodes one header block.
    public func encode(_ headers: HTTP2HeaderList) throws -> [UInt8] {
        let scratch = UnsafeMutablePointer<nghttp2_nv>.allocate(capacity: max(headers.count, 1))
        defer { scratch.deallocate() }
        return try headers.withNameValues(scratch: scratch) { nameValues, count in
            let bound = nghttp2_hd_deflate_bound(pointer, nameValues, count)
            var output = [UInt8](repeating: 0, count: bound)
            let written = nghttp2_hd_deflate_hd(pointer, &output, output.count, nameValues, count)
            if written < 0 { throw NGHTTP2Error(Int32(written), "HPACK encoding") }
            return Array(output.prefix(written))
        }
    }

    public var dynamicTableSize: Int { nghttp2_hd_deflate_get_dynamic_table_size(pointer) }
}

/// An owned HPACK decoder (`nghttp2_hd_inflater`).
public final class HPACKDecoder {
    private let pointer: OpaquePointer

    public init() throws {
        var inflater: OpaquePointer?
        let result = nghttp2_hd_inflate_new(&inflater)
        guard result == 0, let inflater else { throw NGHTTP2Error(result, "nghttp2_hd_inflate_new") }
        pointer = inflater
    }

    deinit { nghttp2_hd_inflate_del(pointer) }

    /// Decodes one complete header block.
    public func decode(_ block: [UInt8]) throws -> HTTP2HeaderList {
        var headers = HTTP2HeaderList()
        try block.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var nameValue = nghttp2_nv()
                var flags: Int32 = 0
                let consumed = nghttp2_hd_inflate_hd2(
                    pointer, &nameValue, &flags, input.baseAddress.map { $0 + offset }, input.count - offset, 1
                )
                if consumed < 0 { throw NGHTTP2Error(Int32(consumed), "HPACK decoding") }
                offset += consumed
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                    let name = UnsafeBufferPointer(start: nameValue.name, count: nameValue.namelen)
                    let value = UnsafeBufferPointer(start: nameValue.value, count: nameValue.valuelen)
                    headers.append(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                    nghttp2_hd_inflate_end_headers(pointer)
                    break
                }
                if consumed == 0 && offset >= input.count { break }
            }
        }
        return headers
    }

    public var dynamicTableSize: Int { nghttp2_hd_inflate_get_dynamic_table_size(pointer) }
}
