import PushlabSimulator
import PushlabStore

/// Where the control API reads observations from: the store when there is one (it sees
/// buffered observations too), otherwise an in-memory log of the newest ones.
protocol ObservationSource: Sendable {
    /// Oldest first, after `since`, optionally filtered; at most `limit`.
    func readObservations(deviceID: String?, since: Int64, bundleID: String?, kind: ObservationKind?, limit: Int) throws(ControlError) -> [Observation]
}

extension PushlabStore: ObservationSource {
    func readObservations(deviceID: String?, since: Int64, bundleID: String?, kind: ObservationKind?, limit: Int) throws(ControlError) -> [Observation] {
        do {
            return try observations(deviceID: deviceID, since: since, bundleID: bundleID, kind: kind, limit: limit)
        } catch {
            throw ControlError(error)
        }
    }
}

extension InMemoryObservationLog: ObservationSource {
    func readObservations(deviceID: String?, since: Int64, bundleID: String?, kind: ObservationKind?, limit: Int) throws(ControlError) -> [Observation] {
        observations(device: deviceID, since: since, bundleID: bundleID, kind: kind, limit: limit)
    }
}
