/// Reads RESP3 (and RESP2) values from bytes as they arrive: `next()` returns a whole value, or
/// nil until enough bytes are in; a value split across reads is read again from its start once
/// the rest is there. No I/O; the connection's handler feeds it.
public struct RESPParser: Sendable {
    /// Values nested deeper than this are refused: a hostile or broken peer cannot overflow the
    /// stack.
    public static let deepestNesting = 64
    /// The longest bulk string or aggregate accepted (Redis's own limit for a bulk string is 512 MB).
    public static let largestLength = 512 * 1024 * 1024

    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Bytes from the connection, in order.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received and not yet read as a value.
    public var unreadCount: Int { buffer.count - start }

    /// The next whole value, or nil until more bytes arrive. Throws on bytes that are not RESP:
    /// the connection cannot be read any further.
    public mutating func next() throws(RESPParseError) -> RESPValue? {
        var index = start
        guard let value = try read(at: &index, depth: 0) else { return nil }
        start = index
        return value
    }

    private func read(at index: inout Int, depth: Int) throws(RESPParseError) -> RESPValue? {
        guard depth <= Self.deepestNesting else { throw .tooDeep }
        guard index < buffer.count else { return nil }
        let type = buffer[index]
        index += 1
        guard let line = readLine(at: &index) else { return nil }
        switch type {
        case UInt8(ascii: "+"): return .simpleString(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"): return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"): return .integer(try Self.integer(line))
        case UInt8(ascii: "_"): return .null
        case UInt8(ascii: ","): return .double(try Self.double(line))
        case UInt8(ascii: "("): return .bigNumber(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "#"):
            guard line.count == 1, line.first == UInt8(ascii: "t") || line.first == UInt8(ascii: "f") else { throw .malformed("boolean") }
            return .boolean(line.first == UInt8(ascii: "t"))
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
            let length = try Self.integer(line)
            if length == -1, type == UInt8(ascii: "$") { return .null }  // RESP2's null bulk string
            guard let bytes = try readBlob(length: length, at: &index) else { return nil }
            if type == UInt8(ascii: "!") { return .error(String(decoding: bytes, as: UTF8.self)) }
            if type == UInt8(ascii: "=") {
                guard bytes.count >= 4, bytes[3] == UInt8(ascii: ":") else { throw .malformed("verbatim string") }
                return .verbatimString(format: String(decoding: bytes[0..<3], as: UTF8.self), text: Array(bytes[4...]))
            }
            return .bulkString(bytes)
        case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"):
            let count = try Self.integer(line)
            if count == -1, type == UInt8(ascii: "*") { return .null }  // RESP2's null array
            guard count >= 0, count <= Self.largestLength else { throw .malformed("aggregate length \(count)") }
            var values: [RESPValue] = []
            values.reserveCapacity(min(Int(count), 1024))
            for _ in 0..<count {
                guard let value = try read(at: &index, depth: depth + 1) else { return nil }
                values.append(value)
            }
            switch type {
            case UInt8(ascii: "~"): return .set(values)
            case UInt8(ascii: ">"): return .push(values)
            default: return .array(values)
            }
        case UInt8(ascii: "%"), UInt8(ascii: "|"):
            let count = try Self.integer(line)
            guard count >= 0, count <= Self.largestLength else { throw .malformed("map length \(count)") }
            var pairs: [(key: RESPValue, value: RESPValue)] = []
            for _ in 0..<count {
                guard let key = try read(at: &index, depth: depth + 1), let value = try read(at: &index, depth: depth + 1) else { return nil }
                pairs.append((key, value))
            }
            guard type == UInt8(ascii: "|") else { return .map(pairs) }
            guard let value = try read(at: &index, depth: depth + 1) else { return nil }
            return .attributed(pairs, value)
        default:
            throw .malformed("type byte \(type)")
        }
    }

    /// The line from `index` to its CRLF (left out), moving past the CRLF; nil without one yet.
    private func readLine(at index: inout Int) -> ArraySlice<UInt8>? {
        var end = index
        while end + 1 < buffer.count {
            if buffer[end] == 13, buffer[end + 1] == 10 {
                let line = buffer[index..<end]
                index = end + 2
                return line
            }
            end += 1
        }
        return nil
    }

    private func readBlob(length: Int64, at index: inout Int) throws(RESPParseError) -> [UInt8]? {
        guard length >= 0, length <= Self.largestLength else { throw .malformed("blob length \(length)") }
        let end = index + Int(length)
        guard end + 2 <= buffer.count else { return nil }
        guard buffer[end] == 13, buffer[end + 1] == 10 else { throw .malformed("blob without its CRLF") }
        let bytes = Array(buffer[index..<end])
        index = end + 2
        return bytes
    }

    private static func integer(_ line: ArraySlice<UInt8>) throws(RESPParseError) -> Int64 {
        guard let value = Int64(String(decoding: line, as: UTF8.self)) else { throw .malformed("integer \(String(decoding: line, as: UTF8.self))") }
        return value
    }

    private static func double(_ line: ArraySlice<UInt8>) throws(RESPParseError) -> Double {
        let text = String(decoding: line, as: UTF8.self)
        switch text {
        case "inf": return .infinity
        case "-inf": return -.infinity
        case "nan": return .nan
        default:
            guard let value = Double(text) else { throw .malformed("double \(text)") }
            return value
        }
    }
}

/// Bytes that are not RESP.
public enum RESPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case tooDeep

    public var description: String {
        switch self {
        case .malformed(let what): "Redis sent bytes that are not RESP (\(what))"
        case .tooDeep: "Redis sent a value nested more than \(RESPParser.deepestNesting) deep"
        }
    }
}
