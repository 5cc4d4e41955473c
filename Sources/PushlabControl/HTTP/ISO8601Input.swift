import Foundation
import PushlabCore

/// Reads the times people write in bodies and queries: ISO 8601 with or without fractional
/// seconds, with a zone (`2026-01-01T09:30:00Z`, `2026-01-01T09:30:00.250+02:00`).
enum ISO8601Input {
    static func parse(_ text: String) -> EpochMilliseconds? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = fractional.date(from: text) ?? ISO8601DateFormatter().date(from: text) else { return nil }
        return EpochMilliseconds((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The time, or a 400 naming the field.
    static func require(_ text: String, field: String) throws(ControlError) -> EpochMilliseconds {
        guard let time = parse(text) else {
            throw .invalid("\(field) must be an ISO 8601 time like 2026-01-01T00:00:00Z, not \(text)")
        }
        return time
    }
}
