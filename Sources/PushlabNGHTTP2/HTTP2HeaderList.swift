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
    public mutating func append(name: some StringProtocol, value: some StringProtocol, neverIndex: Bool = false) {
        let nameStart = storage.count
        storage.append(contentsOf: name.utf8)
        let valueStart = storage.count
        storage.append(contentsOf: value.utf8)
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
}
