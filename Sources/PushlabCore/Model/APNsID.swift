/// An `apns-id` as the hot path carries it: a canonical UUID as 128 bits (what Pushlab makes and
/// what well-behaved providers send), or, rarely, text kept as the request sent it. Answers, log
/// entries and observations hold it without making a 36-byte string per request; an observation
/// of a local notification holds the notification's identifier, any text, the same way.
public struct APNsID: Sendable, Hashable, CustomStringConvertible {
    /// One case or the other, never both: 17 bytes, where two optionals took 40 in every
    /// observation, answer and log entry.
    private enum Storage: Sendable, Hashable {
        case uuid(CanonicalUUID)
        case other(String)
    }

    private let storage: Storage

    public init(_ text: String) {
        storage = CanonicalUUID(text).map(Storage.uuid) ?? .other(text)
    }

    /// A provider's `apns-id` if APNs takes it (8-4-4-4-12 hex digits; with `lowerCaseOnly`, no
    /// upper-case letters), else nil. Mixed case is kept as the text it came as.
    public init?(requested text: String, lowerCaseOnly: Bool) {
        guard let scan = CanonicalUUID.scan(text), !(lowerCaseOnly && scan.hasUpper) else { return nil }
        if scan.hasUpper && scan.hasLower {
            self.init(text)
        } else {
            self.init(CanonicalUUID(high: scan.high, low: scan.low, isLowercase: scan.hasLower))
        }
    }

    public init(_ uuid: CanonicalUUID) {
        storage = .uuid(uuid)
    }

    /// Set when the id is a canonical UUID in one case.
    public var canonical: CanonicalUUID? {
        if case .uuid(let uuid) = storage { return uuid }
        return nil
    }

    public var text: String {
        switch storage {
        case .uuid(let uuid): uuid.text
        case .other(let text): text
        }
    }

    public var description: String { text }

    /// The id's text as bytes, formatted on the stack.
    public func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let uuid: CanonicalUUID
        switch storage {
        case .uuid(let canonical): uuid = canonical
        case .other(var text): return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        }
        // 40 bytes in five words: a fixed-size value stays on the stack, where a temporary
        // allocation in a generic context may not.
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return try withUnsafeMutableBytes(of: &words) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            uuid.write(into: bytes)
            return try body(UnsafeRawBufferPointer(rebasing: raw[0..<CanonicalUUID.textLength]))
        }
    }
}

/// Coded as its text, the form every saved file and JSON body has.
extension APNsID: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// A value that carries an `apns-id` packed (an answer, a log entry, an accepted push) and shows
/// it as text only when asked.
public protocol CarriesAPNsID {
    var apnsIDValue: APNsID { get set }
}

extension CarriesAPNsID {
    public var apnsID: String {
        get { apnsIDValue.text }
        set { apnsIDValue = APNsID(newValue) }
    }
}
