import PushlabCore

/// What a run of pushes observed, waiting to be published in one call
/// (`ObservationSink.record(batches:)`): per push, the sinks' locks, the metrics' counters and
/// the store's buffer cost more than the phone itself. The run's sessions append to one array
/// (`DeviceSimulator.runSession`): an array a push cost an allocation on the event loop and a
/// free on the store's thread. Bounded, so a settle after a long burst publishes as it goes
/// rather than holding millions of observations.
public struct ObservationRun: Sendable {
    /// Appended to by each session of the run, in order.
    var observations: [Observation] = []
    /// What the run's sessions told the apps' SDKs' services, told once its observations are out.
    var sdkEvents: [ThirdPartySDKEvent] = []
    /// The last position of the log each partition's pushes in the run reached (one entry a
    /// partition; most runs have one).
    private(set) var taking: [LoggedPushPosition] = []
    /// The room `makeRoom` makes: a full run and the push that ends it, or less when the run is
    /// known to be short (one read's pushes delivered at once).
    private let room: Int

    /// About as many observations as a delivery worker's turn of 64 pushes makes.
    public static let limit = 512

    /// `pushes`: at most how many pushes join the run, when that is known.
    public init(pushes: Int? = nil) {
        let joining = min(pushes ?? Self.limit, Self.limit)
        room = min(Self.limit + 64, max(1, joining) * 8)
    }

    public var isFull: Bool { observations.count >= Self.limit }

    /// Whether the run has anything to publish: observations, or pushes taken.
    public var isEmpty: Bool { observations.isEmpty && taking.isEmpty && sdkEvents.isEmpty }

    /// A push of the log at `position` was taken in this run.
    public mutating func took(_ position: LoggedPushPosition) {
        if let index = taking.firstIndex(where: { $0.partition == position.partition }) {
            taking[index].offset = max(taking[index].offset, position.offset)
        } else {
            taking.append(position)
        }
    }

    /// Room for the run, so that the array does not grow push by push; called before each push
    /// joins.
    mutating func makeRoom() {
        if observations.capacity == 0 { observations.reserveCapacity(room) }
    }

    /// The observations so far, as one batch (none when there are none), and the positions
    /// taken, leaving the run empty; nil when it was empty.
    mutating func take() -> (batches: [[Observation]], taking: [LoggedPushPosition])? {
        guard !isEmpty else { return nil }
        var taken: [Observation] = []
        swap(&taken, &observations)
        var positions: [LoggedPushPosition] = []
        swap(&positions, &taking)
        return (taken.isEmpty ? [] : [taken], positions)
    }
}
