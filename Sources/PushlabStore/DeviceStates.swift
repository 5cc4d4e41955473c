import PushlabSimulator

/// What the store needs of the simulated devices: the ones changed since it last asked (to save
/// them), and ways to put saved ones back (`load()`).
public protocol DeviceStates: AnyObject, Sendable {
    func takeChanges() -> DeviceSimulator.Changes
    /// Devices whose held pushes changed since they were last taken: saved with the next batch.
    var hasUnsavedHeldPushes: Bool { get }
    func takeHeldPushChanges() -> DeviceSimulator.Changes
    func discardChanges()
    func device(_ id: String) -> SimulatedDevice?
    /// Saved devices on top of a scenario's: the ones saved replace theirs, the removed go.
    func restore(_ saved: [SimulatedDevice], removing removed: [String], progress: LoadProgress?) throws(SimulatorError)
    /// Saved devices instead of all there are (a store written before its rows were changes).
    func replaceAll(with devices: [SimulatedDevice], progress: LoadProgress?) throws(SimulatorError)
}

extension DeviceSimulator: DeviceStates {}
