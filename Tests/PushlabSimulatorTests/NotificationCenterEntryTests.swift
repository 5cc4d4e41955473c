import Foundation
@testable import PushlabCore
@testable import PushlabSimulator
import Testing

@Suite("Notification Center entries: compact, one content per payload")
struct NotificationCenterEntryTests {
    private static let other = "com.example.other"

    /// A push with the apns-id given as text (so its case is the test's choice).
    private func push(_ lab: SimulatorHarness, apnsID: String, to bundleID: String = Fixture.bundleID, collapseID: String? = nil, payload: String = Fixture.alertPayload) throws {
        let app = try lab.app(bundleID)
        lab.simulator.accept(AcceptedPush(
            apnsID: APNsID(apnsID), receivedAt: lab.now, environment: app.environment, deviceToken: app.deviceToken,
            registration: lab.world.token(app.deviceToken), topic: bundleID, bundleID: bundleID, pushType: .alert, priority: 10,
            expiration: nil, collapseID: collapseID, payload: nil, rawPayload: Array(payload.utf8), isDeliverable: true, connectionID: 1
        ))
    }

    @Test func entriesOfOnePayloadShareItsContentAcrossApps() throws {
        let lab = try SimulatorHarness(apps: [.testApp(), .testApp(Self.other)])
        try push(lab, apnsID: "B0000000-0000-4000-8000-000000000001")
        try push(lab, apnsID: "B0000000-0000-4000-8000-000000000002", to: Self.other)
        let first = try #require(try lab.app().notificationCenter.first)
        let second = try #require(try lab.app(Self.other).notificationCenter.first)
        #expect(first.sharesContent(with: second))
        #expect(first.identifier == "B0000000-0000-4000-8000-000000000001")
        #expect(second.identifier == "B0000000-0000-4000-8000-000000000002")
        #expect(first.content.title == "Hello" && first.content.userInfo["orderID"] == .number(42))
        #expect(MemoryLayout<DeliveredNotification>.size == 32, "an entry is the id's 128 bits, its time and one reference")
    }

    @Test func anIdentifiersCaseAndTextComeBackAsSent() throws {
        let lab = try SimulatorHarness()
        try push(lab, apnsID: "c0000000-0000-4000-8000-00000000000a")
        try push(lab, apnsID: "C0000000-0000-4000-8000-00000000000B")
        try push(lab, apnsID: "c0000000-0000-4000-8000-00000000000C")
        #expect(try lab.notificationCenterIDs() == [
            "c0000000-0000-4000-8000-00000000000a", "C0000000-0000-4000-8000-00000000000B", "c0000000-0000-4000-8000-00000000000C",
        ])
        let entries = try lab.app().notificationCenter
        #expect(!entries[0].sharesContent(with: entries[1]), "the two cases of one payload need a part each")
        #expect(!entries[2].sharesContent(with: entries[0]), "mixed case is kept as text, in a part of its own")
    }

    @Test func aCollapsedPushIsListedWithItsOwnCollapseID() throws {
        let lab = try SimulatorHarness()
        try push(lab, apnsID: "D0000000-0000-4000-8000-000000000001", collapseID: "score")
        try push(lab, apnsID: "D0000000-0000-4000-8000-000000000002", collapseID: "score", payload: #"{"aps":{"alert":"2-1"}}"#)
        let entries = try lab.app().notificationCenter
        #expect(entries.map(\.identifier) == ["D0000000-0000-4000-8000-000000000002"])
        #expect(entries.first?.collapseID == "score" && entries.first?.content.body == "2-1")
    }

    @Test func changingOneEntryLeavesTheEntriesItSharedWithAlone() throws {
        let lab = try SimulatorHarness(apps: [.testApp(), .testApp(Self.other)])
        try push(lab, apnsID: "E0000000-0000-4000-8000-000000000001")
        try push(lab, apnsID: "E0000000-0000-4000-8000-000000000002", to: Self.other)
        var changed = try #require(try lab.app().notificationCenter.first)
        let untouched = try #require(try lab.app(Self.other).notificationCenter.first)
        changed.content.title = "Changed"
        changed.collapseID = "new"
        #expect(changed.content.title == "Changed" && changed.collapseID == "new")
        #expect(untouched.content.title == "Hello" && untouched.collapseID == nil)
        #expect(changed.identifier == "E0000000-0000-4000-8000-000000000001", "the identifier stays")
    }

    @Test func localAndNonUUIDIdentifiersAreKeptAsText() {
        let local = DeliveredNotification(identifier: "reminder-1", isLocal: true, collapseID: nil, content: NotificationContent(body: "x"), deliveredAt: 5, trigger: "calendar")
        let odd = DeliveredNotification(identifier: "not-a-uuid", isLocal: false, collapseID: "c", content: NotificationContent(body: "y"), deliveredAt: 6, trigger: "push")
        #expect(local.identifier == "reminder-1" && local.isLocal && local.trigger == "calendar")
        #expect(odd.identifier == "not-a-uuid" && !odd.isLocal && odd.collapseID == "c")
        #expect(local != odd)
    }

    @Test func anEntryIsCodedAsItsPlainFields() throws {
        let entry = DeliveredNotification(
            identifier: "F0000000-0000-4000-8000-000000000001", isLocal: false, collapseID: "k",
            content: NotificationContent(title: "T", body: "B", userInfo: try Fixture.json(#"{"aps":{},"z":1}"#)), deliveredAt: 42, trigger: "push"
        )
        let data = try JSONEncoder().encode(entry)
        let fields = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(fields.keys) == ["identifier", "isLocal", "collapseID", "content", "deliveredAt", "trigger"])
        #expect(try JSONDecoder().decode(DeliveredNotification.self, from: data) == entry)
    }

    @Test func anEntryTellsItsIdentifierWithoutSpellingIt() {
        func entry(_ identifier: String, isLocal: Bool = false) -> DeliveredNotification {
            DeliveredNotification(identifier: identifier, isLocal: isLocal, collapseID: nil, content: NotificationContent(title: "t"), deliveredAt: 1, trigger: "push")
        }
        let lower = entry("b0000000-0000-4000-8000-00000000000a")
        #expect(lower.hasIdentifier("b0000000-0000-4000-8000-00000000000a"))
        #expect(!lower.hasIdentifier("B0000000-0000-4000-8000-00000000000A"), "the same bits in the other case are another text")
        #expect(!lower.hasIdentifier("b0000000-0000-4000-8000-00000000000b"))
        #expect(!lower.hasIdentifier(nil))
        let digits = entry("10000000-0000-4000-8000-000000000001")
        #expect(digits.hasIdentifier("10000000-0000-4000-8000-000000000001"))
        let local = entry("reminder-1", isLocal: true)
        #expect(local.hasIdentifier("reminder-1"))
        #expect(!local.hasIdentifier("reminder-2"))
        #expect(!entry("not-a-uuid").hasIdentifier("not-a-uuid!"))
    }

    /// The same answers for an id as an observation carries it, and the id it hands over is
    /// the one its text reads as.
    @Test func anEntryComparesAndHandsOverItsIdentifierAsAValue() {
        func entry(_ identifier: String, isLocal: Bool = false) -> DeliveredNotification {
            DeliveredNotification(identifier: identifier, isLocal: isLocal, collapseID: nil, content: NotificationContent(title: "t"), deliveredAt: 1, trigger: "push")
        }
        let texts = [
            "b0000000-0000-4000-8000-00000000000a", "B0000000-0000-4000-8000-00000000000A", "10000000-0000-4000-8000-000000000001",
            "reminder-1", "B0000000-0000-4000-8000-00000000000a",
        ]
        for text in texts {
            for isLocal in [false, true] {
                let shown = entry(text, isLocal: isLocal)
                #expect(shown.notificationIDValue == APNsID(text), "\(text), local: \(isLocal)")
                for other in texts {
                    #expect(shown.hasIdentifier(APNsID(other)) == (other == text), "\(text) against \(other), local: \(isLocal)")
                }
            }
        }
    }

    @Test func anEntryHandsItsIdentifierOverAsTheUUIDItHolds() {
        func entry(_ identifier: String, isLocal: Bool = false) -> DeliveredNotification {
            DeliveredNotification(identifier: identifier, isLocal: isLocal, collapseID: nil, content: NotificationContent(title: "t"), deliveredAt: 1, trigger: "push")
        }
        for identifier in ["b0000000-0000-4000-8000-00000000000a", "B0000000-0000-4000-8000-00000000000A", "10000000-0000-4000-8000-000000000001"] {
            let uuid = entry(identifier).canonicalIdentifier
            #expect(uuid == CanonicalUUID(identifier))
            #expect(uuid?.text == identifier, "in the case it came in")
        }
        #expect(entry("reminder-1", isLocal: true).canonicalIdentifier == nil)
        #expect(entry("not-a-uuid").canonicalIdentifier == nil)
    }
}
