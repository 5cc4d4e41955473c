import PushlabCore

/// What must hold after a step: APNs's answer to a push, and what the devices observed while the
/// step ran.
public struct StepExpectation: Sendable, Equatable {
    public enum Timestamp: Sendable, Equatable {
        case present
        case exactly(EpochMilliseconds)
    }

    public var status: Int?
    public var reason: String?
    public var timestamp: Timestamp?
    /// Patterns that must match observations made during the step, in this order (others may
    /// come between them).
    public var observations: [ObservationPattern] = []
    /// Patterns no observation of the step may match.
    public var absent: [ObservationPattern] = []
    /// The step must cause no observation at all (on its device, when it has one).
    public var nothingObserved = false
    /// Seconds of real time to wait for the observations (an app's request to its backend is
    /// observed when the backend answers); 0 checks at once.
    public var withinSeconds: Double = 0
    /// What a `jpush` or `getui` step's service must answer: `{status, body}`, compared as an
    /// observation pattern is (objects as subsets).
    public var response: JSONValue?

    public init() {}

    var expectsAnswer: Bool { status != nil || reason != nil || timestamp != nil }
}

/// An observation as a step expects it: fields that must equal the observation's (as the
/// control API writes it). An object compares as a subset (`userInfo: {aps: {alert: Hi}}`
/// ignores other keys, but `{}` means empty); a `callback` may be a short name (`didReceiveResponse`).
public struct ObservationPattern: Sendable, Equatable, CustomStringConvertible {
    public var fields: [(key: String, value: JSONValue)]

    public static func == (lhs: ObservationPattern, rhs: ObservationPattern) -> Bool {
        JSONValue.object(lhs.fields) == JSONValue.object(rhs.fields)
    }

    public var description: String { JSONValue.object(fields).description }

    /// The device the pattern names (`deviceId`), if it names one.
    var deviceID: String? { JSONValue.object(fields)["deviceId"]?.stringValue }

    public func matches(_ observation: JSONValue) -> Bool {
        Self.contains(observation, JSONValue.object(fields))
    }

    /// Whether `actual` holds everything in `expected`: objects by their keys, arrays element by
    /// element, numbers by value.
    static func contains(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        switch (actual, expected) {
        case (.object(let members), .object(let wanted)):
            // `{}` asks for an empty object: a subset check would accept any.
            if wanted.isEmpty { return members.isEmpty }
            return wanted.allSatisfy { member in actual[member.key].map { contains($0, member.value) } ?? false }
        case let (.array(items), .array(wanted)):
            return items.count == wanted.count && zip(items, wanted).allSatisfy { contains($0, $1) }
        default:
            return actual == expected
        }
    }
}
