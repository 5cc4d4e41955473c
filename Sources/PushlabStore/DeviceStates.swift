import PushlabSimulator

/// What the store needs of the simulated devices: the ones changed since it last asked (to save
/// them), and a way to replace them all with the saved ones (`load()`).
public protocol DeviceStates: AnyObject, Sendable {
    func takeChanges() -> DeviceSimulator.Changes
    func replaceAll(with devices: [SimulatedDevice]) throws(SimulatorError)
}

extension DeviceSimulator: DeviceStates {}
