import Synchronization

/// The APNs provider API, rule for rule: one `APNsProviderConnection` per connection, sharing
/// the world, the clock, the request log, the rate limiter and the sink (which has the last
/// word on what the rules accept: at once in a single process, in a cluster's engine).
public final class APNsProviderService: APNsConnectionFactory {
    public let world: APNsWorld
    public let clock: any PushlabClock
    public let log: RequestLog
    public let sink: any PushSink
    public let faults: (any FaultInjector)?
    /// The provider report, which connections tell while it records.
    public let report: ProviderReportRecorder?
    private let currentPolicy: Mutex<APNsPolicy>
    private let rateLimiter = Mutex<DeviceTokenRateLimiter?>(nil)
    /// Counts replacements of the rate limiter, so a connection keeps the one it has until this
    /// moves instead of taking the lock on every request.
    private let rateLimiterChanges = Atomic<UInt64>(0)

    public init(
        world: APNsWorld, policy: APNsPolicy = APNsPolicy(), clock: any PushlabClock = SystemClock(),
        log: RequestLog = RequestLog(), sink: any PushSink = DiscardingPushSink(), faults: (any FaultInjector)? = nil,
        report: ProviderReportRecorder? = nil
    ) {
        self.report = report
        self.world = world
        self.clock = clock
        self.log = log
        self.sink = sink
        self.faults = faults
        self.currentPolicy = Mutex(policy)
        rateLimiter.withLock { $0 = policy.deviceTokenRateLimit.map(DeviceTokenRateLimiter.init) }
    }

    /// The policy new connections start with; existing connections keep theirs.
    public var policy: APNsPolicy {
        get { currentPolicy.withLock { $0 } }
        set {
            currentPolicy.withLock { $0 = newValue }
            rateLimiter.withLock { $0 = newValue.deviceTokenRateLimit.map(DeviceTokenRateLimiter.init) }
            rateLimiterChanges.add(1, ordering: .releasing)
        }
    }

    var deviceTokenRateLimiter: DeviceTokenRateLimiter? { rateLimiter.withLock { $0 } }
    var rateLimiterGeneration: UInt64 { rateLimiterChanges.load(ordering: .acquiring) }

    public func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler {
        APNsProviderConnection(info: connection, service: self, policy: policy)
    }
}
