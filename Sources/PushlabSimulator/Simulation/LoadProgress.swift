/// How far a long load of devices has come, for a progress line: a million generated devices
/// take seconds. The loader calls it on its own thread every `stride` devices and at the end of
/// each step; what to show, and how often, is the caller's.
public struct LoadProgress: Sendable {
    public enum Step: String, Sendable {
        /// A scenario's `generatedDevices` being made.
        case generatingDevices = "Generating devices"
        /// Devices joining the simulator: their tokens registered with APNs.
        case registeringDevices = "Registering devices"
        /// Devices a store saved being read back.
        case readingSavedDevices = "Reading saved devices"
    }

    /// Devices between two reports.
    public static let stride = 16_384

    @usableFromInline let report: @Sendable (_ step: Step, _ done: Int, _ total: Int) -> Void

    public init(_ report: @escaping @Sendable (_ step: Step, _ done: Int, _ total: Int) -> Void) {
        self.report = report
    }

    /// Called for each device done; reports every `stride` devices and at the last one.
    @inlinable
    public func count(_ step: Step, done: Int, of total: Int) {
        if done % Self.stride == 0 || done == total { report(step, done, total) }
    }
}
