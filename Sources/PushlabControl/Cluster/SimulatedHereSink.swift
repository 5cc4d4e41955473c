import PushlabSimulator

/// What a cluster node's events and metrics hear of its simulator: the observations of the
/// phones it simulates. Its copies of the other nodes' phones (kept for a failover, and moved
/// by the world's changes) observe too, but what they observe is no phone's.
struct SimulatedHereSink: ObservationSink {
    let base: any ObservationSink
    let routing: any ClusterRouting

    func record(_ observations: [Observation]) {
        let kept = observations.filter { routing.simulatesHere(device: $0.deviceID) }
        if !kept.isEmpty { base.record(kept) }
    }

    func record(batches: [[Observation]]) {
        let kept = batches.map { $0.filter { routing.simulatesHere(device: $0.deviceID) } }.filter { !$0.isEmpty }
        if !kept.isEmpty { base.record(batches: kept) }
    }
}
