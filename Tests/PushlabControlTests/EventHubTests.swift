@testable import PushlabControl
import PushlabCore
import PushlabSimulator
import Testing

@Suite("The event stream's buffers: slow clients lose events, never the server's time")
struct EventHubTests {
    func observation(_ sequence: Int64) -> Observation {
        Observation(sequence: sequence, time: 0, deviceID: "phone", bundleID: "app", notificationID: nil, event: .badge(Int(sequence)))
    }

    func text(_ item: EventSubscriber.Item) -> String { String(decoding: item.bytes, as: UTF8.self) }

    @Test func aSlowClientIsToldHowManyEventsItLost() async {
        let hub = EventHub(bufferSize: 2, heartbeat: .seconds(3600))
        let client = hub.subscribe()
        hub.record((1...5).map(observation))
        #expect(hub.droppedEvents == 3)
        var items = client.items.makeAsyncIterator()
        #expect(await items.next().map(text)?.contains(#""sequence":1"#) == true)
        #expect(await items.next().map(text)?.contains(#""sequence":2"#) == true)
        hub.record([observation(6)])
        let notice = await items.next().map(text) ?? ""
        #expect(notice.hasPrefix("event: dropped\ndata: {\"dropped\":3,"))
        #expect(await items.next().map(text)?.contains(#""sequence":6"#) == true)
        hub.unsubscribe(client)
        #expect(hub.connectedClients == 0)
        #expect(await items.next() == nil)
    }

    /// A run of queued pushes goes out as items of up to 16 events; a full buffer drops whole
    /// items and counts every event in them.
    @Test func aRunGoesOutInItemsOfSeveralEvents() async {
        let hub = EventHub(bufferSize: 2, heartbeat: .seconds(3600))
        let client = hub.subscribe()
        hub.record(batches: [(1...20).map(observation), [], (21...40).map(observation)])
        #expect(hub.droppedEvents == 8)
        var items = client.items.makeAsyncIterator()
        let first = await items.next().map(text) ?? ""
        let second = await items.next().map(text) ?? ""
        #expect(first.components(separatedBy: "event: observation\n").count - 1 == 16)
        #expect(first.hasPrefix("event: observation\ndata: {\"sequence\":1,") && first.contains(#""sequence":16"#))
        #expect(second.hasPrefix("event: observation\ndata: {\"sequence\":17,") && second.contains(#""sequence":32"#))
        hub.record([observation(41)])
        #expect(await items.next().map(text)?.hasPrefix("event: dropped\ndata: {\"dropped\":8,") == true)
        #expect(await items.next().map(text)?.contains(#""sequence":41"#) == true)
        hub.unsubscribe(client)
    }

    @Test func eventsAreServerSentEventText() {
        let event = ServerSentEvent(name: "observation", data: observation(9).json)
        let text = String(decoding: event.bytes, as: UTF8.self)
        #expect(text.hasPrefix("event: observation\ndata: {\"sequence\":9,"))
        #expect(text.hasSuffix("}\n\n"))
        #expect(text.filter { $0 == "\n" }.count == 3, "one data line")
    }

    @Test func closingEndsEveryStreamAndRefusesNewOnes() async {
        let hub = EventHub()
        let client = hub.subscribe()
        hub.close()
        var items = client.items.makeAsyncIterator()
        #expect(await items.next() == nil)
        var late = hub.subscribe().items.makeAsyncIterator()
        #expect(await late.next() == nil)
        #expect(hub.connectedClients == 0)
    }

    @Test func heartbeatsKeepAnIdleStreamAlive() async {
        let hub = EventHub(heartbeat: .milliseconds(20))
        let client = hub.subscribe()
        var items = client.items.makeAsyncIterator()
        #expect(await items.next().map(text) == ": keep-alive\n\n")
        hub.unsubscribe(client)
    }
}

extension EventSubscriber.Item: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes == rhs.bytes }
}
