import PushlabCore
import PushlabSimulator

/// A wait that ended without the observation. Its description is the failure message a test
/// shows: what was awaited, everything the device did observe, and how APNs answered the pushes
/// to its tokens (a refused push is the usual reason nothing arrived).
public struct ObservationWaitTimeout: Error, CustomStringConvertible {
    public let device: String
    /// What was awaited, in words: "a callback application:didBecomeActive:".
    public let awaited: String
    public let timeout: Duration
    /// Whether the device existed when the wait gave up.
    public let deviceExists: Bool
    /// The device's observations after the wait's `since`, oldest first.
    public let observed: [Observation]
    /// APNs's answers to requests for the device's tokens, oldest first.
    public let answers: [RequestLog.Entry]

    public var description: String {
        var lines = ["Waited \(timeout) for \(awaited) on device \(device), and it did not come."]
        guard deviceExists else {
            lines.append("There is no device \(device); add it with addDevice first.")
            return lines.joined(separator: "\n")
        }
        if observed.isEmpty {
            lines.append("Device \(device) observed nothing.")
        } else {
            lines.append("Device \(device) observed \(observed.count):")
            lines += observed.map { "  " + Self.line($0) }
        }
        if answers.isEmpty {
            lines.append("APNs had no request for its tokens.")
        } else {
            lines.append("APNs answered \(answers.count) request(s) for its tokens:")
            lines += answers.map { "  " + Self.line($0) }
        }
        return lines.joined(separator: "\n")
    }

    /// `#3  2026-01-01T00:00:00.000Z  com.pushlab.demo  banner  7C3B…  {"body":"hi","actions":[]}`
    static func line(_ observation: Observation) -> String {
        [
            "#\(observation.sequence)", ISO8601Milliseconds.format(observation.time), observation.bundleID,
            observation.kind.rawValue, observation.notificationID ?? "-", observation.event.detailsText,
        ].joined(separator: "  ")
    }

    /// `400 BadTopic  topic com.example.app  apns-id 7C3B…`
    static func line(_ answer: RequestLog.Entry) -> String {
        let outcome = answer.reason.map { "\(answer.status) \($0.rawValue)" } ?? "\(answer.status)"
        return "\(outcome)  \(answer.environment.rawValue)  topic \(answer.topic ?? "-")  apns-id \(answer.apnsID)"
    }
}
