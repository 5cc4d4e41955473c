/// What a run of queued pushes observed, waiting to be published in one call
/// (`ObservationSink.record(batches:)`): per push, the sinks' locks, the metrics' counters and
/// the store's buffer cost more than the phone itself. The run's sessions append to one array
/// (`DeviceSimulator.runSession`): an array a push cost an allocation on the event loop and a
/// free on the store's thread. Bounded, so a settle after a long burst publishes as it goes
/// rather than holding millions of observations.
struct ObservationRun {
    /// Appended to by each session of the run, in order.
    var observations: [Observation] = []
    /// The room `makeRoom` makes: a full run and the push that ends it, or less when the run is
    /// known to be short (one read's pushes delivered at once).
    private let room: Int

    /// About as many observations as a delivery worker's turn of 64 pushes makes.
    static let limit = 512

    /// `pushes`: at most how many pushes join the run, when that is known.
    init(pushes: Int? = nil) {
        let joining = min(pushes ?? Self.limit, Self.limit)
        room = min(Self.limit + 64, max(1, joining) * 8)
    }

    var isFull: Bool { observations.count >= Self.limit }

    /// Room for the run, so that the array does not grow push by push; called before each push
    /// joins.
    mutating func makeRoom() {
        if observations.capacity == 0 { observations.reserveCapacity(room) }
    }

    /// The observations so far, as one batch, leaving the run empty; nil when there are none.
    mutating func take() -> [[Observation]]? {
        guard !observations.isEmpty else { return nil }
        var taken: [Observation] = []
        swap(&taken, &observations)
        return [taken]
    }
}
