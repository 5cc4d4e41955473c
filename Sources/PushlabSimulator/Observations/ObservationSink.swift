/// Where observations go as they happen: the store, the event stream, tests.
public protocol ObservationSink: Sendable {
    /// A batch from one device, in sequence order. Called without the devices' locks held, but
    /// possibly while queued pushes are being delivered: do not call back into the simulator.
    func record(_ observations: [Observation])
}
