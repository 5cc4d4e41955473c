/// Header values read in place from a request's bytes: what `Int64(value.trimmingSpaces)` and
/// `APNsPushType(rawValue:)` decide, without making a string per request.
enum HeaderValueParsing {
    /// The value without the spaces and tabs around it.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// A decimal integer as Swift's `Int64(_: String)` reads one (an optional sign, then digits
    /// only), after trimming; nil when it is not one or does not fit.
    static func integer(_ value: UnsafeRawBufferPointer) -> Int64? {
        let bytes = trimmed(value)
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var result: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? shifted.subtractingReportingOverflow(Int64(digit)) : shifted.addingReportingOverflow(Int64(digit))
            guard !overflowA, !overflowB else { return nil }
            result = next
            index += 1
        }
        return result
    }

    /// The push type the value names exactly (the common case, compared in place); other
    /// spellings go through the lenient string path.
    static func pushType(_ value: UnsafeRawBufferPointer) -> APNsPushType? {
        for (type, name) in pushTypeNames where name.holdsSameBytes(as: value) { return type }
        let text = String(decoding: value, as: UTF8.self)
        return APNsPushType(rawValue: text.trimmingSpaces.lowercased())
    }

    private static let pushTypeNames: [(APNsPushType, [UInt8])] = APNsPushType.allCases.map { ($0, Array($0.rawValue.utf8)) }
}
