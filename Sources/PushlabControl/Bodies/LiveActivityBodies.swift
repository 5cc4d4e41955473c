import PushlabCore
import PushlabSimulator

/// `POST /v1/devices/{id}/apps/{bundleId}/activities`: what the app passes to `Activity.request`.
extension ActivitySpec: ControlBody {
    static let shape = SpecShapes.activity
    static let example = #"{"attributesType":"DeliveryAttributes","attributes":{"order":"42"},"contentState":{"eta":10},"pushType":"token"}"#
}

/// `PATCH …/activities/{activityId}`: `activity.update(_:)`.
struct ActivityUpdateBody: ControlBody {
    var contentState: FreeJSON
    /// Epoch seconds, as `stale-date` in a push.
    var staleDate: Double?

    static let shape = BodyShape.fields(["contentState", "staleDate"])
    static let example = #"{"contentState":{"eta":5}}"#

    func staleMilliseconds() throws(ControlError) -> EpochMilliseconds? {
        guard let staleDate else { return nil }
        guard staleDate.isFinite, staleDate >= 0, staleDate < 1e11 else { throw .invalid("staleDate must be epoch seconds, not \(staleDate)") }
        return EpochMilliseconds((staleDate * 1000).rounded())
    }
}

/// `POST …/activities/{activityId}/end`: `activity.end(_:dismissalPolicy:)`.
struct ActivityEndBody: ControlBody {
    var contentState: FreeJSON?
    /// `default` (up to four hours on the Lock Screen), `immediate`, or an ISO 8601 time (`.after`).
    var dismissalPolicy: String?

    static let shape = BodyShape.fields(["contentState", "dismissalPolicy"])
    static let example = #"{"contentState":{"eta":0},"dismissalPolicy":"immediate"}"#

    /// nil for the default policy.
    func dismissal(now: EpochMilliseconds) throws(ControlError) -> EpochMilliseconds? {
        switch dismissalPolicy {
        case nil, "default": nil
        case "immediate": now
        case let time?: try ISO8601Input.require(time, field: "dismissalPolicy (default, immediate or an ISO 8601 time)")
        }
    }
}

/// `PATCH …/live-activities`: the user's switches in Settings.
struct LiveActivitySwitchesBody: ControlBody {
    var enabled: Bool?
    var frequentUpdatesEnabled: Bool?

    static let shape = BodyShape.fields(["enabled", "frequentUpdatesEnabled"])
    static let example = #"{"enabled":false}"#
}
