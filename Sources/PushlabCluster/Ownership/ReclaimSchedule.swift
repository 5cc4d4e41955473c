/// Which partitions a node claims abandoned pushes of (`PartitionDelivery.reclaim`), and when.
///
/// A push is abandoned when a node read it and cannot take it: its lease ran out unawares (a
/// node paused, or cut off from the engine) while another node took the partition. The gain
/// itself claims what the last holder left (`PartitionDelivery.gain`); what a late reader reads
/// after that is left in its pending list, idle. Such a reader reads for at most one beat after
/// its lease ran out, so a gained partition is claimed at every beat for `window` (twice the
/// lease) after its gain. A reader paused longer than that is rarer still: every partition is
/// swept once per `sweep` (ten leases). Claiming every partition at every beat cost the engine
/// one `XAUTOCLAIM` per partition a second (Benchmarks/results/2026-12-02-idle-cluster.md).
struct ReclaimSchedule {
    let window: Duration
    let sweep: Duration
    private var gained: [Int: ContinuousClock.Instant] = [:]
    private var lastSweep: ContinuousClock.Instant

    init(lease: Duration, now: ContinuousClock.Instant = .now) {
        window = lease * 2
        sweep = lease * 10
        lastSweep = now
    }

    mutating func gain(_ partitions: [Int], at now: ContinuousClock.Instant = .now) {
        for partition in partitions { gained[partition] = now }
    }

    /// The partitions of `owned` to claim from now; sorted.
    mutating func due(owned: [Int], at now: ContinuousClock.Instant = .now) -> [Int] {
        let owning = Set(owned)
        gained = gained.filter { owning.contains($0.key) && now - $0.value <= window }
        if now - lastSweep >= sweep {
            lastSweep = now
            return owning.sorted()
        }
        return gained.keys.sorted()
    }
}
