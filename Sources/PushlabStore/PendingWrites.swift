import PushlabCore
import PushlabSimulator

/// What waits to be written: observations and requests as recorded, and each changed
/// device's newest state.
struct PendingWrites: Sendable {
    /// As the simulator handed them over, one array per call: recording keeps a reference to
    /// the caller's array instead of copying each observation on the event loop.
    private(set) var observationChunks: [[Observation]] = []
    private(set) var observationCount = 0
    /// As the request log published them, one array per batch (one connection's read), kept
    /// without a copy on the event loop.
    private(set) var requestChunks: [[RequestLog.Entry]] = []
    private(set) var requestCount = 0
    var devices = WaitingDevices()
    /// Accepted pushes as the delivery queue logged them: one read's array with its positions,
    /// kept without a copy. Every batch takes them all, as it takes the requests.
    private(set) var pushChunks: [(pushes: [AcceptedPush], positions: LoggedPositions)] = []
    private(set) var pushCount = 0
    /// Positions of the log the phones took, each committed with the observations made before
    /// it: ready once `chunksRemoved` reaches its `afterChunk`, the count of chunks ever appended
    /// when it came. Counted from the start rather than from the front, so that taking chunks off
    /// touches only the takings it releases: under a long load thousands wait.
    private var takings: [(afterChunk: Int, positions: [LoggedPushPosition])] = []
    private var takingsHead = 0
    /// Observation chunks ever taken off the front (taken, shed or dropped; less those put back).
    private var chunksRemoved = 0
    /// Positions whose observations are in this batch (or were shed): committed with it.
    private(set) var readyTakings: [LoggedPushPosition] = []

    var observations: FlattenSequence<[[Observation]]> { observationChunks.joined() }
    var requests: FlattenSequence<[[RequestLog.Entry]]> { requestChunks.joined() }
    /// The observations as the writer takes them: in sequence order (two threads' calls
    /// interleave), where they lie.
    var observationsInOrder: BatchItems<Observation> { BatchItems(observationChunks) { $0.pointee.sequence } }
    var requestItems: BatchItems<RequestLog.Entry> { BatchItems(requestChunks) }
    var count: Int { observationCount + requestCount + devices.count }
    var isEmpty: Bool {
        observationCount == 0 && requestCount == 0 && devices.isEmpty && pushCount == 0 && readyTakings.isEmpty && takingsHead == takings.count
    }

    mutating func append(_ observations: [Observation]) { append(batches: [observations]) }

    mutating func append(_ requests: [RequestLog.Entry]) { append(batches: [requests]) }

    mutating func append(pushes: [AcceptedPush], at positions: LoggedPositions) {
        pushChunks.append((pushes, positions))
        pushCount += pushes.count
    }

    /// Observations of a run of queued pushes, and the positions of the log those pushes reached.
    mutating func append(batches: [[Observation]], taking positions: [LoggedPushPosition]) {
        append(batches: batches)
        guard !positions.isEmpty else { return }
        if observationChunks.isEmpty {
            readyTakings += positions
        } else {
            takings.append((chunksRemoved + observationChunks.count, positions))
        }
    }

    /// Every position taken, ready or waiting for its observations.
    var allTakings: [LoggedPushPosition] { readyTakings + takings[takingsHead...].flatMap(\.positions) }

    /// Takings that wait for none of the observations still here become ready; the others
    /// count from the chunks that stay.
    private mutating func releaseTakings(afterRemovingChunks removed: Int) {
        chunksRemoved += removed
        while takingsHead < takings.count, takings[takingsHead].afterChunk <= chunksRemoved {
            readyTakings += takings[takingsHead].positions
            takingsHead += 1
        }
        if takingsHead == takings.count {
            takings.removeAll(keepingCapacity: takings.count <= 4096)
            takingsHead = 0
        } else if takingsHead > 1024, takingsHead * 2 > takings.count {
            takings.removeFirst(takingsHead)
            takingsHead = 0
        }
    }

    /// Each array as it was handed over; empty ones are left out.
    mutating func append(batches: [[Observation]]) {
        for batch in batches where !batch.isEmpty {
            observationChunks.append(batch)
            observationCount += batch.count
        }
    }

    mutating func append(batches: [[RequestLog.Entry]]) {
        for batch in batches where !batch.isEmpty {
            requestChunks.append(batch)
            requestCount += batch.count
        }
    }

    /// Takes the oldest whole chunks of observations off while at least `keeping` stay: past a
    /// history limit they would be written only to be deleted. What was taken goes back to the
    /// caller, to be released outside its lock.
    mutating func shedObservations(keeping: Int) -> (chunks: [[Observation]], count: Int) {
        let shed = Self.shed(&observationChunks, count: &observationCount, keeping: keeping)
        // The phones took those pushes all the same.
        releaseTakings(afterRemovingChunks: shed.chunks.count)
        return shed
    }

    /// The same for requests.
    mutating func shedRequests(keeping: Int) -> (chunks: [[RequestLog.Entry]], count: Int) {
        Self.shed(&requestChunks, count: &requestCount, keeping: keeping)
    }

    private static func shed<Item>(_ chunks: inout [[Item]], count: inout Int, keeping: Int) -> (chunks: [[Item]], count: Int) {
        var taken = 0, takenItems = 0
        while taken < chunks.count, count - takenItems - chunks[taken].count >= keeping {
            takenItems += chunks[taken].count
            taken += 1
        }
        let shed = Array(chunks[..<taken])
        chunks.removeFirst(taken)
        count -= takenItems
        return (shed, takenItems)
    }

    /// Moves every request and the oldest observations, whole chunks up to `observationLimit`
    /// (nil: all of them; a first chunk larger than a limit above 0 still goes, so that what
    /// waits moves on), into a batch of their own. Device states stay.
    mutating func takeBatch(observationLimit: Int?) -> PendingWrites {
        var taken = PendingWrites()
        swap(&taken.requestChunks, &requestChunks)
        swap(&taken.requestCount, &requestCount)
        swap(&taken.pushChunks, &pushChunks)
        swap(&taken.pushCount, &pushCount)
        guard let observationLimit else {
            releaseTakings(afterRemovingChunks: observationChunks.count)
            swap(&taken.readyTakings, &readyTakings)
            swap(&taken.observationChunks, &observationChunks)
            swap(&taken.observationCount, &observationCount)
            return taken
        }
        var chunks = 0, items = 0
        while chunks < observationChunks.count, observationLimit > 0,
              chunks == 0 || items + observationChunks[chunks].count <= observationLimit {
            items += observationChunks[chunks].count
            chunks += 1
        }
        taken.observationChunks = Array(observationChunks[..<chunks])
        taken.observationCount = items
        observationChunks.removeFirst(chunks)
        observationCount -= items
        releaseTakings(afterRemovingChunks: chunks)
        swap(&taken.readyTakings, &readyTakings)
        return taken
    }

    /// Takes up to `limit` device states out (nil: all of them), the longest waiting first;
    /// without `includingRemovals`, removed devices stay.
    mutating func takeDevices(limit: Int?, includingRemovals: Bool = true) -> [String: DeviceChange] {
        devices.take(limit: limit, includingRemovals: includingRemovals)
    }

    /// A failed batch's items, when keeping them would pass the backlog limit.
    mutating func dropItems() {
        // The phones took those pushes all the same; the log's pushes are kept, as promised.
        releaseTakings(afterRemovingChunks: observationChunks.count)
        observationChunks = []
        observationCount = 0
        requestChunks = []
        requestCount = 0
    }

    mutating func add(_ changes: DeviceSimulator.Changes) {
        for device in changes.changed { devices.set(.saved(device), for: device.id) }
        for id in changes.removed { devices.set(.removed, for: id) }
    }

    /// Puts a batch that failed back in front: its items are older than anything recorded
    /// since, but a device's state taken since is newer than the batch's.
    mutating func putBack(_ older: PendingWrites) {
        // Every taking now waits for the older batch's observations, which come first again: a
        // position is never committed before the observations of the pushes up to it.
        let olderChunks = older.observationChunks.count
        let ready = older.readyTakings + readyTakings
        // The waiting takings count chunks from the start: putting chunks back in front moves
        // the start, not them.
        chunksRemoved -= olderChunks
        if olderChunks == 0 {
            readyTakings = ready
        } else {
            readyTakings = []
            if !ready.isEmpty {
                takings.insert((chunksRemoved + olderChunks, ready), at: takingsHead)
            }
        }
        pushChunks = older.pushChunks + pushChunks
        pushCount += older.pushCount
        observationChunks = older.observationChunks + observationChunks
        observationCount += older.observationCount
        requestChunks = older.requestChunks + requestChunks
        requestCount += older.requestCount
        devices.putBack(older.devices)
    }
}
