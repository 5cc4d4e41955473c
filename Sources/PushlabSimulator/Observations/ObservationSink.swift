import PushlabCore

/// Where observations go as they happen: the store, the event stream, tests.
public protocol ObservationSink: Sendable {
    /// A batch in sequence order: one device's, or a run of queued pushes' to many devices.
    /// Called without the devices' locks held, but possibly while queued pushes are being
    /// delivered: do not call back into the simulator.
    func record(_ observations: [Observation])

    /// Several batches at once, each as `record(_:)` would get it, the whole in sequence order:
    /// queued deliveries hand over what a run of pushes observed in one call, so that a sink
    /// takes its lock once per run instead of once per push. By default, one `record(_:)` call a
    /// batch.
    func record(batches: [[Observation]])

    /// The same, from a run of queued pushes that its phones have taken: every push of the log
    /// up to each position in `taking` (one per partition). A log of accepted pushes that is also
    /// a sink (the store) commits the two together, so that a restart never finds one without
    /// the other. By default `taking` is ignored.
    func record(batches: [[Observation]], taking: [LoggedPushPosition])
}

extension ObservationSink {
    public func record(batches: [[Observation]]) {
        for batch in batches { record(batch) }
    }

    public func record(batches: [[Observation]], taking: [LoggedPushPosition]) {
        record(batches: batches)
    }
}
