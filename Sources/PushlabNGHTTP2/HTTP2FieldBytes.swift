import CNGHTTP2

/// One header field as bytes that the caller keeps alive for the duration of a submit call
/// (nghttp2 copies them), so an answer built on the stack reaches nghttp2 without an array or a
/// string.
public struct HTTP2FieldBytes {
    public var name: UnsafeRawBufferPointer
    public var value: UnsafeRawBufferPointer
    /// HPACK must not add the value to its table (a fresh id, a secret).
    public var neverIndex: Bool

    public init(name: StaticString, value: UnsafeRawBufferPointer, neverIndex: Bool = false) {
        self.name = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        self.value = value
        self.neverIndex = neverIndex
    }

    public init(name: StaticString, value: StaticString) {
        self.init(name: name, value: UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }
}

extension nghttp2_nv {
    /// The one place a field becomes what nghttp2 reads (it copies the bytes during the call).
    init(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, neverIndex: Bool) {
        self.init(
            name: UnsafeMutablePointer(mutating: name.baseAddress?.assumingMemoryBound(to: UInt8.self)),
            value: UnsafeMutablePointer(mutating: value.baseAddress?.assumingMemoryBound(to: UInt8.self)),
            namelen: name.count,
            valuelen: value.count,
            flags: UInt8(neverIndex ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue)
        )
    }
}
