/// What one item of each kind cost the writer lately, in seconds of wall-clock time (a busy CPU
/// counts too), so that the next batch can be sized to commit within the schedule's budget.
///
/// A cost that went up counts at once; one that went down, a quarter at a time: one quick batch
/// must not make the next one too large. The starting costs are on the high side, so the first
/// batches under load are small rather than long.
struct WriteCosts: Sendable, Equatable {
    var perObservation = 20e-6
    var perRequest = 4e-6
    var perDevice = 200e-6
    /// What a commit costs besides its items: the transaction, the index rows, a trim or a WAL
    /// checkpoint now and then.
    var perCommit = 2e-3

    /// How long one committed batch took, by part.
    struct Measured: Sendable, Equatable {
        var observations = 0
        var requests = 0
        var devices = 0
        /// Writing the observations and their Notification Center entries.
        var observationSeconds = 0.0
        /// Indexing the batch (observations and requests alike, so shared by count) and writing
        /// the request chunks.
        var indexAndRequestSeconds = 0.0
        var deviceSeconds = 0.0
        /// The whole commit, from the start of the transaction to its end.
        var totalSeconds = 0.0
    }

    /// Learns from a committed batch (one that was not timed teaches nothing).
    mutating func learn(_ batch: Measured) {
        guard batch.totalSeconds > 0 else { return }
        let indexed = batch.observations + batch.requests
        let indexShare = indexed > 0 ? batch.indexAndRequestSeconds / Double(indexed) : 0
        if batch.observations > 0 {
            Self.update(&perObservation, with: batch.observationSeconds / Double(batch.observations) + indexShare)
        }
        if batch.requests > 0 { Self.update(&perRequest, with: indexShare) }
        if batch.devices > 0 { Self.update(&perDevice, with: batch.deviceSeconds / Double(batch.devices)) }
        let parts = batch.observationSeconds + batch.indexAndRequestSeconds + batch.deviceSeconds
        Self.update(&perCommit, with: max(0, batch.totalSeconds - parts))
    }

    private static func update(_ cost: inout Double, with sample: Double) {
        cost = sample >= cost ? sample : cost * 0.75 + sample * 0.25
    }

    /// How many items of a kind costing `perItem` fit in what is left of `budget` once `spent` is
    /// spent; at least `minimum`, so that what waits always moves on.
    static func fitting(_ budget: Duration, spent: Double, perItem: Double, minimum: Int) -> Int {
        let left = budget.seconds - spent
        guard left > 0, perItem > 0 else { return minimum }
        return max(minimum, Int(min(left / perItem, Double(Int.max / 2))))
    }

    /// Seconds for a commit of `requests` requests and nothing else.
    func requestsOnly(_ requests: Int) -> Double { perCommit + Double(requests) * perRequest }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
