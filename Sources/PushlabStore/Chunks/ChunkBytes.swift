import Foundation

/// Appends the pieces a chunk is made of: LEB128 varints (zig-zag for signed values), raw words
/// and length-prefixed text.
struct ChunkWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func unsigned(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func signed(_ value: Int64) {
        unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ value: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: value)
    }

    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Reads what `ChunkWriter` wrote; every read is bounds-checked, so a damaged blob is reported,
/// never read past its end.
struct ChunkReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// What the blob is, for error messages.
    private let what: String

    init(_ bytes: UnsafeRawBufferPointer, what: String) {
        self.bytes = bytes
        self.what = what
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(StoreError) -> UInt8 {
        guard offset < bytes.count else { throw damaged("ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func unsigned() throws(StoreError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw damaged("holds a number longer than 64 bits") }
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() throws(StoreError) -> Int64 {
        let zigZag = try unsigned()
        return Int64(bitPattern: zigZag >> 1) ^ -Int64(bitPattern: zigZag & 1)
    }

    /// A count or length, which must fit in what is left of the blob.
    mutating func count() throws(StoreError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.count - offset) else { throw damaged("claims \(value) items or bytes with \(bytes.count - offset) bytes left") }
        return Int(value)
    }

    mutating func word() throws(StoreError) -> UInt64 {
        guard bytes.count - offset >= 8 else { throw damaged("ends early") }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// `count` bytes as they are (the caller read `count` with `count()`, so they are there).
    mutating func bytes(count: Int) throws(StoreError) -> [UInt8] {
        guard bytes.count - offset >= count else { throw damaged("ends early") }
        defer { offset += count }
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
    }

    mutating func text() throws(StoreError) -> String {
        let length = try count()
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }

    func damaged(_ problem: String) -> StoreError {
        StoreError(.unreadable, "\(what) \(problem) (at byte \(offset) of \(bytes.count))")
    }
}

extension Data {
    /// The blob's bytes, read by `decode`: `withUnsafeBytes` throws untyped errors, so any that is
    /// not a `StoreError` becomes one saying that `what` cannot be read.
    func decodedChunk<Decoded>(_ what: String, _ decode: (UnsafeRawBufferPointer) throws(StoreError) -> Decoded) throws(StoreError) -> Decoded {
        do {
            return try withUnsafeBytes { bytes in try decode(bytes) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unreadable, "\(what) cannot be read: \(error)")
        }
    }
}
