import PushlabCore
import PushlabSimulator
import Prometheus
import Synchronization

/// What `/metrics` shows, in Prometheus's text format. Counters move as things happen (each
/// request from the request log, each observation from the simulator, each connection and
/// answer time from `MeasuredConnectionFactory`); gauges are read when scraped.
public final class ControlMetrics: ObservationSink, Sendable {
    private let registry: PrometheusCollectorRegistry

    /// One counter per environment and outcome (200, or each reason), made up front so that a
    /// request costs one atomic increment and no lookup under a lock.
    private let requestCounters: [Counter]
    private let reasonIndex: [APNsErrorReason: Int]
    private let accepted: Counter
    private let observationCounters: [Counter]
    private let kindIndex: [ObservationKind: Int]
    private let answerTime: AnswerTimeHistogram
    private let connectionsOpened: Counter
    private let openConnections = Atomic<Int>(0)
    private let connectionGauge: Gauge
    private let gauges: Mutex<[String: Gauge]> = Mutex([:])

    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        let reasons = APNsErrorReason.allCases
        reasonIndex = Dictionary(uniqueKeysWithValues: reasons.enumerated().map { ($1, $0 + 1) })
        var counters: [Counter] = []
        for environment in APNsEnvironment.allCases {
            let outcomes: [(status: Int, reason: String)] = [(200, "")] + reasons.map { ($0.status, $0.rawValue) }
            for outcome in outcomes {
                counters.append(registry.makeCounter(
                    descriptor: Self.name("apns_requests", "total", "APNs requests answered, by environment, HTTP status and reason (empty for 200)"),
                    labels: [("environment", environment.rawValue), ("status", String(outcome.status)), ("reason", outcome.reason)]
                ))
            }
        }
        requestCounters = counters
        accepted = registry.makeCounter(descriptor: Self.name("apns_accepted", "total", "Pushes APNs accepted (200)"))
        kindIndex = Dictionary(uniqueKeysWithValues: ObservationKind.allCases.enumerated().map { ($1, $0) })
        observationCounters = ObservationKind.allCases.map { kind in
            registry.makeCounter(
                descriptor: Self.name("observations", "total", "Observations the simulated devices recorded, by kind"),
                labels: [("kind", kind.rawValue)]
            )
        }
        answerTime = AnswerTimeHistogram(
            name: "pushlab_apns_answer_seconds",
            help: "Time the APNs rules took to answer a request, plus any delay a fault rule or the latency profile added (TLS and network not included)"
        )
        connectionsOpened = registry.makeCounter(descriptor: Self.name("apns_connections", "total", "APNs connections opened"))
        connectionGauge = registry.makeGauge(descriptor: Self.name("apns_open_connections", "", "APNs connections open now"))
    }

    /// `pushlab_<name>_<unit>`.
    private static func name(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "pushlab", metricName: name, unitName: unit, helpText: help)
    }

    // MARK: Recording

    /// Called with every batch of requests the APNs rules answered (a request-log observer).
    /// A batch is mostly one outcome: runs of it are counted first, then added at once.
    func record(_ entries: [RequestLog.Entry]) {
        let outcomesPerEnvironment = reasonIndex.count + 1
        var counter = -1
        var run = 0
        var acceptedCount = 0
        // By index, reading three fields in place: `for entry in` would copy (retain) each entry.
        for position in entries.indices {
            let environment = entries[position].environment == .development ? 0 : 1
            let index = environment * outcomesPerEnvironment + (entries[position].reason.flatMap { reasonIndex[$0] } ?? 0)
            if index != counter {
                if run > 0 { requestCounters[counter].increment(by: Int64(run)) }
                counter = index
                run = 0
            }
            run += 1
            if entries[position].status == 200 { acceptedCount += 1 }
        }
        if run > 0 { requestCounters[counter].increment(by: Int64(run)) }
        if acceptedCount > 0 { accepted.increment(by: Int64(acceptedCount)) }
    }

    /// The simulator's sink: counts observations by kind.
    public func record(_ observations: [Observation]) {
        record(batches: [observations])
    }

    /// Counted here and added once per kind: a counter's increment takes a lock, and a busy
    /// server records about five observations a push.
    public func record(batches: [[Observation]]) {
        // Tallied by a look through the few kinds met so far, each kind read where the
        // observation lies: through the array's getter, each observation was copied to ask it.
        var tally: [(kind: ObservationKind, count: Int64)] = []
        for batch in batches {
            batch.withUnsafeBufferPointer { observations in
                for index in observations.indices {
                    let kind = observations[index].kind
                    if let slot = tally.firstIndex(where: { $0.kind == kind }) {
                        tally[slot].count += 1
                    } else {
                        tally.append((kind, 1))
                    }
                }
            }
        }
        for (kind, count) in tally { observationCounters[kindIndex[kind] ?? 0].increment(by: count) }
    }

    /// A connection's answer times since its last publish.
    func addAnswerTimes(_ counts: inout AnswerTimeHistogram.Counts) {
        answerTime.add(&counts)
    }

    func connectionOpened() {
        connectionsOpened.increment()
        openConnections.add(1, ordering: .relaxed)
    }

    func connectionClosed() {
        openConnections.subtract(1, ordering: .relaxed)
    }

    /// APNs connections open now (counted by `MeasuredConnectionFactory`).
    public var connections: Int { openConnections.load(ordering: .relaxed) }

    // MARK: Scraping

    /// A gauge read at scrape time; `name` without the `pushlab_` prefix.
    struct Reading {
        var name: String
        var help: String
        var value: Int
    }

    /// The text `/metrics` answers, with `readings` set just before.
    func render(_ readings: [Reading]) -> [UInt8] {
        connectionGauge.set(Int64(connections))
        for reading in readings {
            let gauge = gauges.withLock { gauges in
                if let gauge = gauges[reading.name] { return gauge }
                let gauge = registry.makeGauge(descriptor: Self.name(reading.name, "", reading.help))
                gauges[reading.name] = gauge
                return gauge
            }
            gauge.set(Int64(reading.value))
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        answerTime.render(into: &buffer)
        return buffer
    }
}
