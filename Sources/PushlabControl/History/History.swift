import PushlabCore
import PushlabSimulator
import PushlabStore
import Synchronization

/// What the control API lists: observations and requests since the last reset. A reset moves
/// the start past everything recorded so far (the store keeps it all; `pushlab observations`
/// still shows it).
final class History: Sendable {
    private struct Start {
        var observationsAfter: Int64 = 0
        var requestsAfter: Int64 = 0
    }

    let observationSource: any ObservationSource
    let requestSource: any RequestSource
    private let start = Mutex(Start())

    init(observations: any ObservationSource, requests: any RequestSource) {
        observationSource = observations
        requestSource = requests
    }

    func observations(deviceID: String? = nil, since: Int64 = 0, bundleID: String? = nil, kind: ObservationKind? = nil, limit: Int) throws(ControlError) -> [Observation] {
        let after = max(since, start.withLock { $0.observationsAfter })
        return try observationSource.readObservations(deviceID: deviceID, since: after, bundleID: bundleID, kind: kind, limit: limit)
    }

    func requests(deviceToken: String? = nil, status: Int? = nil, reason: APNsErrorReason? = nil, limit: Int) throws(ControlError) -> [RequestLog.Entry] {
        let after = start.withLock { $0.requestsAfter }
        // Newest first: whatever is older than the start is at the end, so dropping it leaves
        // the newest `limit` of those after it.
        return try requestSource.readRequests(deviceToken: deviceToken, status: status, reason: reason, limit: limit)
            .filter { $0.sequence > after }
    }

    /// Starts a new history after the newest observation and request recorded so far.
    func startAfresh(lastObservation: Int64) throws(ControlError) {
        let lastRequest = try requestSource.readRequests(deviceToken: nil, status: nil, reason: nil, limit: 1).first?.sequence ?? 0
        start.withLock { start in
            start.observationsAfter = max(start.observationsAfter, lastObservation)
            start.requestsAfter = max(start.requestsAfter, lastRequest)
        }
    }
}
