/// What a run of queued pushes observed, device by device, waiting to be published in one call
/// (`ObservationSink.record(batches:)`): per push, the sinks' locks, the metrics' counters and
/// the store's buffer cost more than the phone itself. Bounded, so a settle after a long burst
/// publishes as it goes rather than holding millions of observations.
struct ObservationRun {
    private var batches: [[Observation]] = []
    private var count = 0

    /// About as many observations as a delivery worker's turn of 64 pushes makes.
    static let limit = 512

    var isFull: Bool { count >= Self.limit }

    mutating func add(_ observations: [Observation]) {
        guard !observations.isEmpty else { return }
        if batches.isEmpty { batches.reserveCapacity(Self.limit / 4) }
        batches.append(observations)
        count += observations.count
    }

    /// The batches so far, leaving the run empty; nil when there are none.
    mutating func take() -> [[Observation]]? {
        guard !batches.isEmpty else { return nil }
        defer { count = 0 }
        var taken: [[Observation]] = []
        swap(&taken, &batches)
        return taken
    }
}
