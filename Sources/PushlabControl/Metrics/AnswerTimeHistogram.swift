#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// `pushlab_apns_answer_seconds`. Each connection counts its answers in its own `Counts` and adds
/// them here when it publishes its records (once per read), so an answer costs two clock reads
/// and an increment on the event loop, and the loops share no lock or counter per request.
final class AnswerTimeHistogram: Sendable {
    /// Upper bounds in nanoseconds, with their `le` labels as Prometheus clients print them.
    static let bounds: [(nanoseconds: Int64, label: String)] = [
        (50_000, "0.00005"), (100_000, "0.0001"), (250_000, "0.00025"), (500_000, "0.0005"),
        (1_000_000, "0.001"), (2_500_000, "0.0025"), (5_000_000, "0.005"), (10_000_000, "0.01"),
        (25_000_000, "0.025"), (50_000_000, "0.05"), (100_000_000, "0.1"), (250_000_000, "0.25"),
        (500_000_000, "0.5"), (1_000_000_000, "1.0"), (2_500_000_000, "2.5"), (5_000_000_000, "5.0"),
        (10_000_000_000, "10.0"),
    ]

    /// Answers per bucket (not cumulative; the last one is above every bound), their total time
    /// and number.
    struct Counts: Sendable {
        fileprivate var buckets = [Int](repeating: 0, count: AnswerTimeHistogram.bounds.count + 1)
        fileprivate var sumNanoseconds: Int64 = 0
        fileprivate(set) var count = 0

        mutating func record(nanoseconds: Int64) {
            var index = 0
            while index < AnswerTimeHistogram.bounds.count, nanoseconds > AnswerTimeHistogram.bounds[index].nanoseconds { index += 1 }
            buckets[index] += 1
            sumNanoseconds += nanoseconds
            count += 1
        }

        mutating func removeAll() {
            for index in buckets.indices { buckets[index] = 0 }
            sumNanoseconds = 0
            count = 0
        }
    }

    private let name: String
    private let help: String
    private let total = Mutex(Counts())

    init(name: String, help: String) {
        self.name = name
        self.help = help
    }

    /// Adds `counts` and empties them.
    func add(_ counts: inout Counts) {
        guard counts.count > 0 else { return }
        total.withLock { total in
            for index in total.buckets.indices { total.buckets[index] += counts.buckets[index] }
            total.sumNanoseconds += counts.sumNanoseconds
            total.count += counts.count
        }
        counts.removeAll()
    }

    /// The histogram in Prometheus's text format (cumulative buckets, sum in seconds).
    func render(into buffer: inout [UInt8]) {
        let counts = total.withLock { $0 }
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (index, bound) in Self.bounds.enumerated() {
            cumulative += counts.buckets[index]
            text += "\(name)_bucket{le=\"\(bound.label)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(counts.count)\n"
        text += "\(name)_sum \(Double(counts.sumNanoseconds) / 1e9)\n"
        text += "\(name)_count \(counts.count)\n"
        buffer.append(contentsOf: text.utf8)
    }

    /// Monotonic time in nanoseconds: what the answer time is measured with.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
