import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("Compacting the Notification Center log keeps exactly what a replay of it gives")
struct NotificationLogCompactionTests {
    private let devices = ["phone-1", "phone-2", "phone-3"]
    private let bundles = ["com.example.a", "com.example.b"]
    private let identifiers = (1...6).map { String(format: "8C1E4C5A-5E1A-4D8F-9B6E-2B7F0C9A1D%02d", $0) } + ["local-1"]
    private let contents = ["one", "two", "three"].map { NotificationContent(title: $0, body: "body") }

    /// A Notification Center as a replay must give it: (identifier, time, content) oldest first.
    private typealias Model = [String: [String: [(identifier: String, deliveredAt: Int64, content: Int)]]]

    /// Random changes, batch after batch, with a compaction due after three removals and slices
    /// of a single blob: after every batch the replay equals a model of the changes, and after
    /// a whole compaction the log holds only what is there and each content counts its users.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func aReplayAfterAnyCompactionEqualsTheChanges(seed: UInt64) throws {
        let database = try DatabaseQueue()
        try StoreSchema.migrator.migrate(database)
        var log = NotificationLog(compactionThreshold: 3, smallestSlice: 1)
        var random = SplitMix64(seed: seed)
        var model: Model = [:]
        var sequence: Int64 = 0
        for _ in 0..<120 {
            var observations: [Observation] = []
            for _ in 0..<random.next(below: 6) {
                sequence += 1
                let device = devices[random.next(below: devices.count)], bundle = bundles[random.next(below: bundles.count)]
                let live = model[device]?[bundle] ?? []
                // Times from a few milliseconds: the same entry comes back, and goes, more than once.
                let deliveredAt = Int64(1_000 + random.next(below: 3))
                let identifier = identifiers[random.next(below: identifiers.count)]
                switch random.next(below: 10) {
                // An entry listed twice in one millisecond keeps both records until both go
                // (`aCompactionMayMoveTheOlderOfTwoListingsAfterTheNewer`).
                case 0..<5 where !live.contains(where: { $0.identifier == identifier && $0.deliveredAt == deliveredAt }):
                    let content = random.next(below: contents.count)
                    let entry = DeliveredNotification(
                        identifier: identifier, isLocal: false, collapseID: nil, content: contents[content], deliveredAt: deliveredAt, trigger: "push"
                    )
                    observations.append(observation(sequence, device, bundle, identifier, .notificationCenter(.added, reason: nil, entry: entry)))
                    model[device, default: [:]][bundle, default: []].removeAll { $0.identifier == identifier && $0.deliveredAt == deliveredAt }
                    model[device, default: [:]][bundle, default: []].append((identifier, deliveredAt, content))
                case 5..<9 where !live.isEmpty:
                    let gone = live[random.next(below: live.count)]
                    var removal = observation(sequence, device, bundle, gone.identifier, .notificationCenter(.removed, reason: .dismissed))
                    removal.removedEntryDeliveredAt = gone.deliveredAt
                    observations.append(removal)
                    model[device]?[bundle]?.removeAll { $0.identifier == gone.identifier && $0.deliveredAt == gone.deliveredAt }
                default:
                    // Not recorded by a session today: every entry of the identifier goes.
                    observations.append(observation(sequence, device, bundle, identifier, .notificationCenter(.removed, reason: .clearedAll)))
                    model[device]?[bundle]?.removeAll { $0.identifier == identifier }
                }
            }
            let compactingAll = random.next(below: 10) == 0
            try database.write { db in
                let logged = try log.append(BatchItems([observations]), in: db)
                if random.next(below: 12) == 0 {
                    let device = devices[random.next(below: devices.count)]
                    try log.removeDevices([device], in: db)
                    model[device] = nil
                }
                try log.compactIfDue(logged: logged, compactingAll: compactingAll, in: db)
            }
            let (got, want) = (try replay(database), flattened(model))
            try #require(got == want, "seed \(seed), sequence \(sequence): \(got) != \(want)")
            if compactingAll { try expectOnlyLiveEntriesAndCountedContents(database, model) }
        }
        try database.write { db in try log.compactIfDue(logged: 0, compactingAll: true, in: db) }
        try expectOnlyLiveEntriesAndCountedContents(database, model)
        // What it knows is what a writer that starts over would read from the log.
        var reread = NotificationLog(compactionThreshold: 3, smallestSlice: 1)
        try database.write { db in try reread.compactIfDue(logged: 0, compactingAll: false, in: db) }
        #expect(reread.counts == log.counts)
    }

    @Test func aCompactionStartsAtAQuarterOfTheEntriesAndMovesOnASliceABatch() throws {
        let database = try DatabaseQueue()
        try StoreSchema.migrator.migrate(database)
        var log = NotificationLog(compactionThreshold: 2, smallestSlice: 1)
        let entries = (0..<8).map { index in
            DeliveredNotification(
                identifier: identifiers[index % 6], isLocal: false, collapseID: nil, content: contents[0], deliveredAt: Int64(index), trigger: "push"
            )
        }
        var sequence: Int64 = 0
        func batch(_ observations: [Observation]) throws -> Int {
            try database.write { db in
                let logged = try log.append(BatchItems([observations]), in: db)
                try log.compactIfDue(logged: logged, compactingAll: false, in: db)
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notificationLog") ?? 0
            }
        }
        for entry in entries {
            sequence += 1
            _ = try batch([observation(sequence, "phone-1", bundles[0], entry.identifier, .notificationCenter(.added, reason: nil, entry: entry))])
        }
        sequence += 1
        var first = observation(sequence, "phone-1", bundles[0], entries[0].identifier, .notificationCenter(.removed, reason: .limit))
        first.removedEntryDeliveredAt = 0
        #expect(try batch([first]) == 9, "one removal of eight entries: no compaction")
        #expect(log.counts == (added: 8, removals: 1))
        sequence += 1
        var second = observation(sequence, "phone-1", bundles[0], entries[1].identifier, .notificationCenter(.removed, reason: .limit))
        second.removedEntryDeliveredAt = 1
        // Two removals, a quarter of the entries: the compaction starts. This batch reads four
        // times what it logged: the four oldest blobs, two entries dropped and two kept in one.
        #expect(try batch([second]) == 7)
        #expect(log.counts == (added: 6, removals: 2))
        // Then a blob a batch, until the blobs there were at its start are all read.
        #expect(try batch([]) == 7)
        for _ in 0..<6 { _ = try batch([]) }
        #expect(log.counts == (added: 6, removals: 0))
        let left = try database.read { db in try Data.fetchAll(db, sql: "SELECT records FROM notificationLog ORDER BY id") }
        #expect(try left.flatMap { try NotificationLogReplay.decode($0) }.count == 6)
        let replayed = try database.read { db in try NotificationLogReplay.all(in: db) }
        #expect(replayed["phone-1"]?[bundles[0]] == Array(entries.dropFirst(2)), "in their order, though moved")
        let refs = try database.read { db in try Int.fetchAll(db, sql: "SELECT refs FROM notificationContents") }
        #expect(refs == [6], "the dropped entries released their content")
    }

    @Test func aCompactionMayMoveTheOlderOfTwoListingsAfterTheNewer() throws {
        let database = try DatabaseQueue()
        try StoreSchema.migrator.migrate(database)
        var log = NotificationLog(compactionThreshold: 1, smallestSlice: 1)
        let (older, newer) = (contents[0], contents[1])
        func added(_ sequence: Int64, _ content: NotificationContent, device: String = "phone-1") -> Observation {
            let entry = DeliveredNotification(
                identifier: identifiers[0], isLocal: false, collapseID: nil, content: content, deliveredAt: 1_000, trigger: "push"
            )
            return observation(sequence, device, bundles[0], identifiers[0], .notificationCenter(.added, reason: nil, entry: entry))
        }
        var removal = observation(3, "phone-2", bundles[0], identifiers[0], .notificationCenter(.removed, reason: .dismissed))
        removal.removedEntryDeliveredAt = 1_000
        try database.write { db in
            for batch in [[added(1, older)], [added(2, newer)], [added(3, older, device: "phone-2"), removal]] {
                try log.append(BatchItems([batch]), in: db)
            }
            // Read the first blob only: the older listing moves to the log's end.
            try log.compactIfDue(logged: 0, compactingAll: false, in: db)
        }
        let order = try database.read { db in
            try Data.fetchAll(db, sql: "SELECT records FROM notificationLog ORDER BY id").flatMap { try NotificationLogReplay.decode($0) }
        }.compactMap { if case .added(let entry) = $0, entry.deviceID == "phone-1" { entry.sequence } else { nil } }
        #expect(order == [2, 1], "moved after the newer")
        let replayed = try database.read { db in try NotificationLogReplay.all(in: db) }
        #expect(replayed["phone-1"]?[bundles[0]]?.map(\.content) == [newer], "the newer listing is the one kept")
        #expect(replayed["phone-2"]?[bundles[0]] ?? [] == [])
    }

    @Test func aDamagedBlobIsReportedNotReadPastItsEnd() throws {
        let entry = LoggedEntry(
            sequence: 3, deliveredAt: 1_000, deviceID: "phone-1", bundleID: bundles[0], id: APNsID(identifiers[0]), fields: "", contentID: 4
        )
        let bytes = NotificationLogChunk.encode([
            .added(entry), .removed(deviceID: "phone-1", bundleID: bundles[0], identifier: identifiers[0], deliveredAt: 1_000),
            .removed(deviceID: "phone-1", bundleID: bundles[0], identifier: "local-1", deliveredAt: nil), .deviceRemoved(deviceID: "phone-1"),
        ])
        #expect(try bytes.withUnsafeBytes { try NotificationLogChunk.decode($0) }.count == 4)
        for length in 0..<bytes.count {
            #expect(throws: StoreError.self) { try Array(bytes.prefix(length)).withUnsafeBytes { try NotificationLogChunk.decode($0) } }
        }
        #expect(throws: StoreError.self) { try (bytes + [0]).withUnsafeBytes { try NotificationLogChunk.decode($0) } }
        var negative = entry
        negative.contentID = -1
        #expect(throws: StoreError.self) { try NotificationLogChunk.encode([.added(negative)]).withUnsafeBytes { try NotificationLogChunk.decode($0) } }
    }

    private func observation(_ sequence: Int64, _ device: String, _ bundle: String, _ identifier: String, _ event: ObservationEvent) -> Observation {
        Observation(sequence: sequence, time: 1_000, deviceID: device, bundleID: bundle, notificationID: identifier, event: event)
    }

    private func replay(_ database: DatabaseQueue) throws -> [String: [String: [String]]] {
        try database.read { db in try NotificationLogReplay.all(in: db) }
            .mapValues { $0.mapValues { $0.map { "\($0.identifier)@\($0.deliveredAt):\($0.content.title ?? "")" } }.filter { !$0.value.isEmpty } }
            .filter { !$0.value.isEmpty }
    }

    private func flattened(_ model: Model) -> [String: [String: [String]]] {
        model.mapValues { $0.mapValues { $0.map { "\($0.identifier)@\($0.deliveredAt):\(contents[$0.content].title ?? "")" } }.filter { !$0.value.isEmpty } }
            .filter { !$0.value.isEmpty }
    }

    private func expectOnlyLiveEntriesAndCountedContents(_ database: DatabaseQueue, _ model: Model) throws {
        let (records, refs) = try database.read { db in
            (
                try Data.fetchAll(db, sql: "SELECT records FROM notificationLog").flatMap { try NotificationLogReplay.decode($0) },
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT json, refs FROM notificationContents").map { ($0[0] as String, $0[1] as Int) })
            )
        }
        let live = model.values.flatMap { $0.values.flatMap { $0 } }
        #expect(records.count == live.count)
        #expect(records.allSatisfy { if case .added = $0 { true } else { false } })
        var users: [String: Int] = [:]
        for entry in live { users[contents[entry.content].jsonText, default: 0] += 1 }
        #expect(refs == users, "a content counts its entries, and goes with the last")
    }
}

extension SplitMix64 {
    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
