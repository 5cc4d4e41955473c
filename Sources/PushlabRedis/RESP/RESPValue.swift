/// One RESP3 value as Redis sends it (https://redis.io/docs/latest/develop/reference/protocol-spec/).
/// Strings stay bytes: keys and values are binary-safe, and most callers read only a few as text.
public enum RESPValue: Sendable, Equatable {
    case simpleString(String)
    /// `-ERR …`, `!<len>` (blob error): the error's first word is its code (`MOVED`, `ASK`,
    /// `WRONGTYPE`, …).
    case error(String)
    case integer(Int64)
    case bulkString([UInt8])
    case verbatimString(format: String, text: [UInt8])
    case double(Double)
    case boolean(Bool)
    case bigNumber(String)
    case null
    case array([RESPValue])
    case set([RESPValue])
    case map([(key: RESPValue, value: RESPValue)])
    /// Out-of-band data (`>`): pub/sub messages, client-side caching invalidations. Never an
    /// answer to a command.
    case push([RESPValue])
    /// `|`: attributes about the value that follows; kept with it.
    indirect case attributed([(key: RESPValue, value: RESPValue)], RESPValue)

    public static func == (lhs: RESPValue, rhs: RESPValue) -> Bool {
        switch (lhs, rhs) {
        case (.simpleString(let a), .simpleString(let b)), (.error(let a), .error(let b)), (.bigNumber(let a), .bigNumber(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bulkString(let a), .bulkString(let b)): a == b
        case (.verbatimString(let f1, let t1), .verbatimString(let f2, let t2)): f1 == f2 && t1 == t2
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.boolean(let a), .boolean(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)), (.set(let a), .set(let b)), (.push(let a), .push(let b)): a == b
        case (.map(let a), .map(let b)): Self.same(a, b)
        case (.attributed(let a1, let v1), .attributed(let a2, let v2)): Self.same(a1, a2) && v1 == v2
        default: false
        }
    }

    private static func same(_ a: [(key: RESPValue, value: RESPValue)], _ b: [(key: RESPValue, value: RESPValue)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension RESPValue {
    /// The value as text: simple, bulk and verbatim strings, and numbers as Redis writes them.
    public var text: String? {
        switch self {
        case .simpleString(let text), .bigNumber(let text): text
        case .bulkString(let bytes), .verbatimString(_, let bytes): String(decoding: bytes, as: UTF8.self)
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .attributed(_, let value): value.text
        default: nil
        }
    }

    public var bytes: [UInt8]? {
        switch self {
        case .bulkString(let bytes), .verbatimString(_, let bytes): bytes
        case .simpleString(let text): Array(text.utf8)
        case .attributed(_, let value): value.bytes
        default: nil
        }
    }

    /// An integer, or a string that holds one (RESP2 servers and some commands answer so).
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .simpleString, .bulkString, .bigNumber: text.flatMap { Int64($0) }
        case .attributed(_, let value): value.integer
        default: nil
        }
    }

    /// The elements of an array, set or push; nil for anything else (`.null` included).
    public var elements: [RESPValue]? {
        switch self {
        case .array(let values), .set(let values), .push(let values): values
        case .attributed(_, let value): value.elements
        default: nil
        }
    }

    /// A map's pairs; a RESP2 array of alternating keys and values reads as one too.
    public var pairs: [(key: RESPValue, value: RESPValue)]? {
        switch self {
        case .map(let pairs): return pairs
        case .array(let values) where values.count % 2 == 0:
            return stride(from: 0, to: values.count, by: 2).map { (values[$0], values[$0 + 1]) }
        case .attributed(_, let value): return value.pairs
        default: return nil
        }
    }

    /// The value of `key` in a map (or an alternating array), by its text.
    public subscript(key: String) -> RESPValue? {
        pairs?.first { $0.key.text == key }?.value
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The error's text, if the value is one.
    public var errorMessage: String? {
        if case .error(let message) = self { return message }
        return nil
    }
}
