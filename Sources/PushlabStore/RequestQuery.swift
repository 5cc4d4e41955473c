import PushlabCore
import GRDB

/// The filters of `PushlabStore.requests(...)`: one test for buffered entries and for those
/// decoded from saved chunks.
struct RequestQuery {
    let deviceToken: String?
    var status: Int?
    /// APNs's reason text, e.g. `BadDeviceToken`.
    var reason: String?
    var limit: Int
    /// `deviceToken` packed once, not for every entry compared.
    private let tokenKey: DeviceTokenKey?

    init(deviceToken: String?, status: Int?, reason: String?, limit: Int) {
        self.deviceToken = deviceToken
        self.status = status
        self.reason = reason
        self.limit = limit
        tokenKey = deviceToken.map(DeviceTokenKey.init)
    }

    func matches(_ request: RequestLog.Entry) -> Bool {
        (tokenKey == nil || request.deviceTokenKey == tokenKey)
            && (status == nil || request.status == status)
            && (reason == nil || request.reason?.rawValue == reason)
    }

    /// The saved requests that match, newest first. One token's are found through the batch
    /// index; otherwise chunks are read newest first until no older one can hold a newer match.
    func fetch(in db: Database) throws -> [RequestLog.Entry] {
        var found = NewestMatches(limit: limit)
        if let tokenKey {
            // Only the chunks that hold a match are decoded, each once.
            var decoded: [Int64: RequestLog.Entry] = [:]
            var decodedChunks = Set<Int64>()
            for location in try BatchIndexRows.requestLocations(deviceToken: tokenKey, in: db) {
                if decoded[location.sequence] == nil {
                    for chunk in try RequestRows.chunks(covering: location.sequence, inBatch: location.batch, in: db)
                    where decodedChunks.insert(chunk.id).inserted {
                        for entry in try RequestRows.decode(chunk.records) where decoded[entry.sequence] == nil { decoded[entry.sequence] = entry }
                    }
                }
                // The index key is a hash: another token's request under it is dropped here.
                guard let entry = decoded[location.sequence], matches(entry) else { continue }
                found.add(entry)
                if found.isFull { break }
            }
            return found.newestFirst
        }
        let chunks = try RequestRows.newestChunksFirst(in: db)
        while let row = try chunks.next() {
            let lastSequence: Int64 = row[0]
            if let oldestKept = found.oldestIfFull, lastSequence < oldestKept { break }
            for entry in try RequestRows.decode(row[1]) where matches(entry) { found.add(entry) }
        }
        return found.newestFirst
    }
}

/// The `limit` newest entries seen, each sequence once (two stores writing one file could both
/// have saved it).
private struct NewestMatches {
    let limit: Int
    private var entries: [RequestLog.Entry] = []
    private var sequences = Set<Int64>()

    init(limit: Int) { self.limit = limit }

    var isFull: Bool { entries.count >= limit }

    /// The lowest sequence kept, once there are `limit`: nothing older can make the cut.
    var oldestIfFull: Int64? {
        guard isFull else { return nil }
        return newestFirst.last?.sequence
    }

    var newestFirst: [RequestLog.Entry] {
        Array(entries.sorted { $0.sequence > $1.sequence }.prefix(limit))
    }

    mutating func add(_ entry: RequestLog.Entry) {
        guard sequences.insert(entry.sequence).inserted else { return }
        entries.append(entry)
        // Keeps the work bounded on a long scan: trim back to `limit` once it doubles.
        if entries.count >= 2 * max(limit, 64) {
            entries = newestFirst
            sequences = Set(entries.map(\.sequence))
        }
    }
}
