/// Answer times in microseconds, in logarithmic buckets (eight per power of two, so a percentile
/// is within 7% of the truth), with the exact count, sum and maximum.
public struct LatencyHistogram: Sendable, Equatable {
    private static let subBuckets = 8
    private static let bucketCount = 30 * 8
    /// Made at the first answer: a batch's tally that records none allocates nothing.
    private var counts: [UInt64] = []
    public private(set) var count: UInt64 = 0
    public private(set) var sumMicroseconds: UInt64 = 0
    public private(set) var maxMicroseconds: UInt32 = 0

    public init() {}

    public mutating func record(microseconds: UInt32) {
        if counts.isEmpty { counts = [UInt64](repeating: 0, count: Self.bucketCount) }
        counts[Self.bucket(of: microseconds)] += 1
        count += 1
        sumMicroseconds &+= UInt64(microseconds)
        maxMicroseconds = max(maxMicroseconds, microseconds)
    }

    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if counts.isEmpty {
            counts = other.counts
        } else {
            for index in counts.indices { counts[index] += other.counts[index] }
        }
        count += other.count
        sumMicroseconds &+= other.sumMicroseconds
        maxMicroseconds = max(maxMicroseconds, other.maxMicroseconds)
    }

    /// The value below which `fraction` of the answers fall: the middle of its bucket, never
    /// above the maximum. nil when nothing was recorded.
    public func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, UInt64((fraction * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank {
                let (low, high) = Self.bounds(of: index)
                return min(Double(maxMicroseconds), (low + high) / 2)
            }
        }
        return Double(maxMicroseconds)
    }

    public var meanMicroseconds: Double? { count == 0 ? nil : Double(sumMicroseconds) / Double(count) }

    static func bucket(of value: UInt32) -> Int {
        if value < UInt32(subBuckets) { return Int(value) }
        let exponent = 31 - value.leadingZeroBitCount
        let mantissa = Int(value >> UInt32(exponent - 3)) & (subBuckets - 1)
        return min((exponent - 2) * subBuckets + mantissa, bucketCount - 1)
    }

    /// The values bucket `index` holds: [low, high).
    static func bounds(of index: Int) -> (Double, Double) {
        if index < subBuckets { return (Double(index), Double(index + 1)) }
        let exponent = index / subBuckets + 2
        let mantissa = index % subBuckets
        let step = Double(1 << (exponent - 3))
        let low = Double(1 << exponent) + Double(mantissa) * step
        return (low, low + step)
    }
}
