/// Where observations go as they happen: the store, the event stream, tests.
public protocol ObservationSink: Sendable {
    /// A batch from one device, in sequence order. Called without the simulator's locks held.
    func record(_ observations: [Observation])
}
