/// Bounds on numbers the simulator's arithmetic takes as they come: past them it would overflow
/// (a crash) or run for ever, so the API refuses them with a 400.
enum InputLimits {
    /// Time zones are at most 18 hours from UTC (ISO 8601's limit; real ones span -12 to +14).
    static let utcOffsetSeconds = -64_800...64_800
    /// The longest clock advance or time-interval trigger: 100 years, in seconds.
    static let longestSpanSeconds: Double = 3_153_600_000

    static func checkUTCOffset(_ seconds: Int?, field: String) throws(ControlError) {
        if let seconds, !utcOffsetSeconds.contains(seconds) {
            throw .invalid("\(field) must be from \(utcOffsetSeconds.lowerBound) to \(utcOffsetSeconds.upperBound) seconds, not \(seconds)")
        }
    }

    static func checkSpan(_ seconds: Double, field: String) throws(ControlError) {
        guard seconds <= longestSpanSeconds else {
            throw .invalid("\(field) must be at most \(Int(longestSpanSeconds)) seconds (100 years), not \(seconds)")
        }
    }
}
