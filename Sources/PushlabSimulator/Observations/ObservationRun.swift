/// What a run of queued pushes observed, waiting to be published in one call
/// (`ObservationSink.record(batches:)`): per push, the sinks' locks, the metrics' counters and
/// the store's buffer cost more than the phone itself. The run's sessions append to one array
/// (`DeviceSimulator.runSession`): an array a push cost an allocation on the event loop and a
/// free on the store's thread. Bounded, so a settle after a long burst publishes as it goes
/// rather than holding millions of observations.
struct ObservationRun {
    /// Appended to by each session of the run, in order.
    var observations: [Observation] = []

    /// About as many observations as a delivery worker's turn of 64 pushes makes.
    static let limit = 512

    var isFull: Bool { observations.count >= Self.limit }

    /// Room for a full run and the push that ends it, so that the array does not grow push by
    /// push; called before each push joins.
    mutating func makeRoom() {
        if observations.capacity == 0 { observations.reserveCapacity(Self.limit + 64) }
    }

    /// The observations so far, as one batch, leaving the run empty; nil when there are none.
    mutating func take() -> [[Observation]]? {
        guard !observations.isEmpty else { return nil }
        var taken: [Observation] = []
        swap(&taken, &observations)
        return [taken]
    }
}
