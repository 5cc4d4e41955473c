@testable import PushlabCluster
import PushlabCore
import PushlabRedis
import PushlabSimulator
import RedisTestServers
import Testing

/// The phones' Notification Center entries in the engine, a field an entry: what a taking's
/// observations change, and what a gaining node reads back.
@Suite struct EngineNotificationCentersTests {
    static let app = "com.example.app"

    static func entry(_ id: String, at time: EpochMilliseconds, title: String) -> DeliveredNotification {
        DeliveredNotification(identifier: id, isLocal: false, collapseID: nil, content: NotificationContent(title: title), deliveredAt: time, trigger: "push")
    }

    static func added(_ entry: DeliveredNotification, on phone: String, sequence: Int64, app: String = app) -> Observation {
        Observation(
            sequence: sequence, time: entry.deliveredAt, deviceID: phone, bundleID: app, notificationIDValue: entry.notificationIDValue,
            event: .notificationCenter(.added, reason: nil, entry: entry)
        )
    }

    static func removed(_ entry: DeliveredNotification?, id: String, on phone: String, sequence: Int64, app: String = app) -> Observation {
        var observation = Observation(
            sequence: sequence, time: 0, deviceID: phone, bundleID: app, notificationIDValue: APNsID(id), event: .notificationCenter(.removed, reason: .dismissed)
        )
        observation.removedEntryDeliveredAt = entry?.deliveredAt
        return observation
    }

    /// The fields each write sets or removes, by kind.
    static func summary(_ writes: [EngineWrite]) -> (prefixes: [String], removed: [String], set: [String]) {
        var summary: ([String], [String], [String]) = ([], [], [])
        for write in writes {
            switch write {
            case .removeFieldsStarting(_, let prefixes): summary.0 += prefixes
            case .removeFields(_, let fields): summary.1 += fields
            case .setFields(_, let fields): summary.2 += fields.map(\.0)
            case .append: Issue.record("no stream is written")
            }
        }
        return summary
    }

    @Test func aTakingWritesWhatItsObservationsLeftInTheNotificationCenters() {
        let one = Self.entry("one", at: 1_000, title: "1"), two = Self.entry("two", at: 2_000, title: "2")
        let three = Self.entry("three", at: 3_000, title: "3")
        let field = { (entry: DeliveredNotification, phone: String) in
            EngineNotificationCenters.field(deviceID: phone, bundleID: Self.app, identifier: entry.notificationIDValue.text, deliveredAt: entry.deliveredAt)
        }
        let writes = EngineNotificationCenters.writes(hash: "nc", observations: [
            Self.added(one, on: "phone-1", sequence: 1),
            Self.added(two, on: "phone-1", sequence: 2),
            Self.removed(two, id: "two", on: "phone-1", sequence: 3),
            Self.removed(one, id: "earlier", on: "phone-1", sequence: 4),
            Self.added(three, on: "phone-2", sequence: 5),
            Self.removed(nil, id: "untimed", on: "phone-1", sequence: 6),
        ], removedDevices: ["phone-2"])
        let (prefixes, removed, set) = Self.summary(writes)
        #expect(set == [field(one, "phone-1")], "added and removed in one taking: never written; a removed phone's: dropped")
        #expect(removed == [field(two, "phone-1"), EngineNotificationCenters.field(deviceID: "phone-1", bundleID: Self.app, identifier: "earlier", deliveredAt: 1_000)])
        #expect(prefixes == [
            EngineNotificationCenters.entryPrefix(deviceID: "phone-1", bundleID: Self.app, identifier: "untimed"),
            EngineNotificationCenters.devicePrefix("phone-2"),
        ])
        #expect(EngineNotificationCenters.writes(hash: "nc", observations: [], removedDevices: []).isEmpty)
    }

    @Test func aPhonesFieldsShareAPrefixNoOtherPhonesFieldHas() {
        let field = EngineNotificationCenters.field(deviceID: "phone-1", bundleID: Self.app, identifier: "x", deliveredAt: 5)
        #expect(field.hasPrefix(EngineNotificationCenters.devicePrefix("phone-1")))
        #expect(!field.hasPrefix(EngineNotificationCenters.devicePrefix("phone-")))
        #expect(!EngineNotificationCenters.field(deviceID: "phone-10", bundleID: Self.app, identifier: "x", deliveredAt: 5)
            .hasPrefix(EngineNotificationCenters.devicePrefix("phone-1")))
    }

    @Test func entriesReadBackByPhoneAndAppInTheirOrder() throws {
        let odd = "ph:one*[1]é"
        let entries = [Self.entry("b", at: 2_000, title: "later"), Self.entry("a", at: 2_000, title: "earlier")]
        let writes = EngineNotificationCenters.writes(hash: "nc", observations: [
            Self.added(entries[1], on: odd, sequence: 7),
            Self.added(entries[0], on: odd, sequence: 9),
            Self.added(Self.entry("c", at: 1, title: "other app"), on: odd, sequence: 8, app: "com.example.other"),
        ], removedDevices: [])
        guard case .setFields(_, let fields) = try #require(writes.last) else {
            Issue.record("the entries are set")
            return
        }
        let (read, unreadable) = EngineNotificationCenters.entries(fields.reversed().map { ($0.0, $0.1) } + [("5:x", [1, 2])])
        #expect(unreadable == 1)
        #expect(read[odd]?[Self.app]?.map(\.content.title) == ["earlier", "later"], "in the order the phone observed them")
        #expect(read[odd]?["com.example.other"]?.map(\.identifier) == ["c"])
    }

    @Test func anEntryReadsBackAsItWasField() throws {
        let content = NotificationContent(
            title: "Goal \"quoted\"", subtitle: "2–1", body: "line\nbreak", sound: "ping.caf", badge: 3, category: "MATCH", threadID: "t-1",
            contentAvailable: true, mutableContent: true, interruptionLevel: "time-sensitive",
            userInfo: .object([("aps", .object([("alert", .string("x"))])), ("match", .number(42)), ("tags", .array([.string("a"), .null]))])
        )
        let entries = [
            DeliveredNotification(identifier: "local-1", isLocal: true, collapseID: "score", content: content, deliveredAt: 7, trigger: "calendar"),
            DeliveredNotification(identifier: "8D3C7A6E-0000-4000-8000-000000000001", isLocal: false, collapseID: nil, content: content, deliveredAt: 8, trigger: "push"),
        ]
        let writes = EngineNotificationCenters.writes(
            hash: "nc", observations: entries.enumerated().map { Self.added($1, on: "phone-1", sequence: Int64($0)) }, removedDevices: []
        )
        guard case .setFields(_, let fields) = try #require(writes.last) else {
            Issue.record("the entries are set")
            return
        }
        #expect(EngineNotificationCenters.entries(fields.map { ($0.0, $0.1) }).entries["phone-1"]?[Self.app] == entries)
    }

    /// The take script against Redis: entries set, removed one by one and by prefix, a prefix
    /// with a glob's characters matched as it is.
    @Test func theTakeScriptSetsAndRemovesEntries() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        let keys = EngineKeys(prefix: "nc-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 1))
        let log = EnginePushLog(client: client, keys: keys)
        let hash = keys.notificationCenters(0)
        let phones = ["phone-[1]*", "phone-11", "phone-?"]
        var observations: [Observation] = []
        for (number, phone) in phones.enumerated() {
            for n in 0..<3 {
                observations.append(Self.added(Self.entry("\(phone)-\(n)", at: Int64(n), title: "\(n)"), on: phone, sequence: Int64(number * 3 + n)))
            }
        }
        try await log.take(partition: 0, ids: [], by: nil, writes: EngineNotificationCenters.writes(hash: hash, observations: observations, removedDevices: []))
        try await log.take(partition: 0, ids: [], by: nil, writes: EngineNotificationCenters.writes(hash: hash, observations: [
            Self.removed(Self.entry("phone-11-1", at: 1, title: ""), id: "phone-11-1", on: "phone-11", sequence: 20),
        ], removedDevices: ["phone-[1]*"]))
        let answer = try await client.send(RESPCommand("HGETALL", RESPArgument(hash)), slot: keys.slot(0))
        let pairs = (answer.pairs ?? []).compactMap { field, value in field.text.flatMap { text in value.bytes.map { (text, $0) } } }
        let (read, unreadable) = EngineNotificationCenters.entries(pairs)
        #expect(unreadable == 0)
        #expect(read["phone-[1]*"] == nil, "the removed phone's entries are gone")
        #expect(read["phone-11"]?[Self.app]?.map(\.identifier) == ["phone-11-0", "phone-11-2"])
        #expect(read["phone-?"]?[Self.app]?.count == 3, "a glob's characters in another phone's id match nothing else")
    }
}
