/// How the background writer is doing, for metrics.
public struct StoreStatistics: Sendable, Equatable {
    /// Transactions committed.
    public var batchesWritten = 0
    /// Observations, requests and device states committed.
    public var itemsWritten = 0
    public var largestBatch = 0
    /// Batches over the store's `largeBatchSize`: still written whole, in one transaction, and
    /// counted here because they mean recording outpaces the disk.
    public var largeBatches = 0
    /// Transactions that failed; their items stay buffered and are tried again.
    public var failedBatches = 0
    /// Observations and requests thrown away because the backlog was at its limit.
    public var droppedItems = 0
    /// Saved observations deleted as older than the store's history limit.
    public var trimmedObservations = 0
    /// Saved requests deleted as older than the store's history limit.
    public var trimmedRequests = 0
    /// Observations and requests shed before they were written, because more than the history
    /// limit (and its slack) waited: the store could not keep pace. Counted as trimmed too.
    public var shedItems = 0
    public var lastError: StoreError?
    /// The longest a request can have waited to be committed, over every batch: from the take
    /// before its batch to the end of its commit. What a `kill -9` could have lost, measured.
    public var longestRequestWait = Duration.zero

    public init() {}
}
