/// A request the simulator cannot carry out, with a message for the user.
public struct SimulatorError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No such device, app or notification (HTTP 404).
        case notFound
        /// It already exists, or the device's state forbids it now (HTTP 409).
        case conflict
        /// The request itself is wrong (HTTP 400).
        case invalid
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    static func unknownDevice(_ id: String) -> SimulatorError { .init(.notFound, "No device \(id)") }
    static func unknownApp(_ bundleID: String, _ deviceID: String) -> SimulatorError {
        .init(.notFound, "App \(bundleID) is not installed on device \(deviceID)")
    }
}
