import CNGHTTP2

/// A reusable list of header fields stored in one contiguous byte buffer.
///
/// Responses are written many thousands of times a second; keeping one list per connection
/// and calling `removeAll()` between uses means building a header block allocates nothing.
public struct HTTP2HeaderList: Sendable {
    struct Entry: Sendable {
        var nameStart: Int
        var nameLength: Int
        var valueStart: Int
        var valueLength: Int
        var neverIndex: Bool
    }

    var storage: [UInt8] = []
    var entries: [Entry] = []

    public init() {
        storage.reserveCapacity(256)
        entries.reserveCapacity(8)
    }

    public init(_ fields: [(String, String)]) {
        self.init()
        for (name, value) in fields { append(name: name, value: value) }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    /// `neverIndex` marks values HPACK must not add to its table (tokens, secrets).
    public mutating func append(name: String, value: String, neverIndex: Bool = false) {
        // A response is built from a few Strings many thousands of times a second: copy their
        // UTF-8 in one memcpy each instead of iterating a generic view.
        var value = value
        value.withUTF8 { append(name: name, utf8Value: UnsafeRawBufferPointer($0), neverIndex: neverIndex) }
    }

    /// A value given as its bytes (formatted on the caller's stack, with no String made).
    public mutating func append(name: String, utf8Value value: UnsafeRawBufferPointer, neverIndex: Bool = false) {
        var name = name
        let nameStart = storage.count
        name.withUTF8 { storage.append(contentsOf: $0) }
        let valueStart = storage.count
        storage.append(contentsOf: value)
        entries.append(Entry(
            nameStart: nameStart, nameLength: valueStart - nameStart,
            valueStart: valueStart, valueLength: storage.count - valueStart,
            neverIndex: neverIndex
        ))
    }

    public subscript(index: Int) -> (name: String, value: String) {
        let entry = entries[index]
        return (
            String(decoding: storage[entry.nameStart..<entry.nameStart + entry.nameLength], as: UTF8.self),
            String(decoding: storage[entry.valueStart..<entry.valueStart + entry.valueLength], as: UTF8.self)
        )
    }

    public var fields: [(name: String, value: String)] { (0..<count).map { self[$0] } }

    /// The first value of `name`, if present.
    public func value(of name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Points `scratch[0..<count]` at this list's bytes and calls `body`; the pointers are valid
    /// only during the call, which is enough because nghttp2 copies names and values.
    func withNameValues<Result>(
        scratch: UnsafeMutablePointer<nghttp2_nv>,
        _ body: (UnsafePointer<nghttp2_nv>, Int) throws -> Result
    ) rethrows -> Result {
        try storage.withUnsafeBytes { storage in
            for (index, entry) in entries.enumerated() {
                scratch[index] = nghttp2_nv(
                    name: UnsafeRawBufferPointer(rebasing: storage[entry.nameStart..<entry.nameStart + entry.nameLength]),
                    value: UnsafeRawBufferPointer(rebasing: storage[entry.valueStart..<entry.valueStart + entry.valueLength]),
                    neverIndex: entry.neverIndex
                )
            }
            return try body(scratch, entries.count)
        }
    }
}
