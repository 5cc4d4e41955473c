/// A parsed JSON document. Objects keep their keys in order, so a payload can be shown as sent.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value of `key` in an object (the first, if a key repeats).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// Integers, and strings that hold one (APNSwift sends `"iat": "1712345678"`).
    public var integerValue: Int64? {
        switch self {
        case .number(let value) where value.rounded() == value && abs(value) < 9.0e15: Int64(value)
        case .string(let text): Int64(text)
        default: nil
        }
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    public var objectKeys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.text
    }
}

/// Writes compact JSON as UTF-8 bytes, without building a `JSONValue` first: the store encodes
/// every observation's details with it, so it must cost less than the push that made them.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init() {
        bytes.reserveCapacity(128)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `"key":` inside an object; the value follows.
    public mutating func key(_ name: String) {
        separate()
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func field(_ name: String, _ text: String?) {
        guard let text else { return }
        key(name)
        separate()
        string(text)
        needsComma = true
    }

    public mutating func field(_ name: String, _ number: Int64?) {
        guard let number else { return }
        key(name)
        bytes += String(number).utf8
        needsComma = true
    }

    public mutating func field(_ name: String, _ flag: Bool) {
        key(name)
        bytes += (flag ? "true" : "false").utf8
        needsComma = true
    }

    public mutating func field(_ name: String, _ json: JSONValue?) {
        guard let json else { return }
        key(name)
        value(json)
    }

    /// `"key":` and a value written before as JSON text (by another writer): what many values
    /// share is written once.
    public mutating func field(_ name: String, json text: [UInt8]) {
        key(name)
        bytes += text
        needsComma = true
    }

    public mutating func value(_ json: JSONValue) {
        separate()
        switch json {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .number(let number):
            // Every integer a double holds exactly (to 2^53) as digits: ids such as JPush's msg_id.
            if number.rounded() == number && abs(number) <= 9_007_199_254_740_992 { bytes += String(Int64(number)).utf8 } else { bytes += String(number).utf8 }
        case .string(let text): string(text)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            needsComma = false
            for element in values { value(element) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            needsComma = false
            for member in members {
                key(member.key)
                value(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func string(_ text: String) {
        Self.appendString(text, to: &bytes)
    }

    /// `text` as a JSON string literal, appended to `bytes` (the store's snapshot encoder writes
    /// its strings with it too).
    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most text needs no escaping: copy it whole, through its contiguous UTF-8 (the
        // generic `utf8.contains(where:)` was a large part of the store writer's time).
        var text = text
        let copied = text.withUTF8 { utf8 in
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default:
                bytes.append(byte)  // UTF-8 multi-byte sequences pass through whole
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
