#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request's path and regular headers as they arrived: every byte in one array, where each
/// one starts in another. Receiving, copying and reusing a request then counts no references per
/// header (a list of string pairs is retained and released pair by pair), and the names APNs
/// reads are recognised once, as they arrive.
public struct RequestFields: Sendable {
    struct Span: Sendable {
        var nameStart: Int32
        var nameCount: Int32
        var valueStart: Int32
        var valueCount: Int32
        /// Which APNs header the name is: an `APNsHeaderFields.Field` raw value, or one below.
        var field: Int8

        static let other: Int8 = -1
        /// An `apns-` name APNs does not define: it still may not come twice.
        static let otherAPNs: Int8 = -2
    }

    private var bytes: [UInt8] = []
    private(set) var spans: [Span] = []
    private var pathStart: Int32 = -1
    private var pathCount: Int32 = 0

    public init() {}

    public init(path: String?, headers: [(name: String, value: String)]) {
        if let path { setPath(path) }
        for (name, value) in headers { appendHeader(name: name, value: value) }
    }

    public mutating func reserveCapacity(headers: Int, bytes byteCount: Int) {
        spans.reserveCapacity(headers)
        bytes.reserveCapacity(byteCount)
    }

    /// Empties the record for another request, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        pathStart = -1
        pathCount = 0
    }

    // MARK: Filled by the transport

    public mutating func setPath(_ value: UnsafeRawBufferPointer) {
        pathStart = Int32(truncatingIfNeeded: bytes.count)
        pathCount = Int32(truncatingIfNeeded: value.count)
        bytes.append(contentsOf: value)
    }

    public mutating func appendHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let nameStart = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: name)
        let valueStart = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: value)
        spans.append(Span(
            nameStart: nameStart, nameCount: Int32(truncatingIfNeeded: name.count),
            valueStart: valueStart, valueCount: Int32(truncatingIfNeeded: value.count),
            field: Self.classify(name)
        ))
    }

    public mutating func setPath(_ value: String) {
        var value = value
        value.withUTF8 { setPath(UnsafeRawBufferPointer($0)) }
    }

    public mutating func appendHeader(name: String, value: String) {
        var name = name, value = value
        name.withUTF8 { name in value.withUTF8 { appendHeader(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
    }

    // MARK: Read as text (tests, logs, rare paths)

    public var path: String? {
        pathStart < 0 ? nil : text(start: pathStart, count: pathCount)
    }

    public var headerCount: Int { spans.count }

    public var headers: [(name: String, value: String)] {
        spans.map { (text(start: $0.nameStart, count: $0.nameCount), text(start: $0.valueStart, count: $0.valueCount)) }
    }

    public func name(at index: Int) -> String { text(start: spans[index].nameStart, count: spans[index].nameCount) }
    public func value(at index: Int) -> String { text(start: spans[index].valueStart, count: spans[index].valueCount) }

    private func text(start: Int32, count: Int32) -> String {
        withBytes(start: start, count: count) { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Read in place (the rules, per request)

    /// The path's bytes, or nil without a `:path`.
    public func withPath<Result>(_ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        if pathStart < 0 { return body(nil) }
        return withBytes(start: pathStart, count: pathCount, body)
    }

    func withValue<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withBytes(start: spans[index].valueStart, count: spans[index].valueCount, body)
    }

    func nameEquals(at index: Int, nameAt other: Int) -> Bool {
        let a = spans[index], b = spans[other]
        guard a.nameCount == b.nameCount else { return false }
        return withBytes(start: a.nameStart, count: a.nameCount) { first in
            withBytes(start: b.nameStart, count: b.nameCount) { second in
                first.count == 0 || memcmp(first.baseAddress!, second.baseAddress!, first.count) == 0
            }
        }
    }

    private func withBytes<Result>(start: Int32, count: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(start)..<Int(start + count)])) }
    }

    /// The APNs header a name is, by its length first: at most two comparisons with constant bytes.
    static func classify(_ name: UnsafeRawBufferPointer) -> Int8 {
        guard let base = name.baseAddress else { return Span.other }
        func matches(_ candidate: StaticString) -> Bool { memcmp(candidate.utf8Start, base, name.count) == 0 }
        typealias Field = APNsHeaderFields.Field
        let field: Field? = switch name.count {
        case 7: matches("apns-id") ? .apnsID : nil
        case 10: matches("apns-topic") ? .topic : nil
        case 13: matches("apns-priority") ? .priority : matches("authorization") ? .authorization : nil
        case 14: matches("apns-push-type") ? .pushType : nil
        case 15: matches("apns-expiration") ? .expiration : nil
        case 16: matches("apns-collapse-id") ? .collapseID : nil
        default: nil
        }
        if let field { return Int8(field.rawValue) }
        return name.count >= 5 && memcmp(base, "apns-", 5) == 0 ? Span.otherAPNs : Span.other
    }
}

extension [UInt8] {
    /// Whether these bytes are exactly `other`'s; an empty array matches nothing (it stands for
    /// "none yet" where a connection remembers the last header that passed).
    func holdsSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count, count > 0 else { return false }
        return withUnsafeBytes { memcmp($0.baseAddress!, other.baseAddress!, count) == 0 }
    }
}
