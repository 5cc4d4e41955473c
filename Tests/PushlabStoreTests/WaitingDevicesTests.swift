@testable import PushlabSimulator
@testable import PushlabStore
import Testing

/// Device states waiting for the store: the newest per device, the longest waiting first.
@Suite struct WaitingDevicesTests {
    private func saved(_ id: String, badge: Int = 0) -> DeviceChange {
        .saved(SimulatedDevice(id: id, apps: [AppInstall(bundleID: "com.example.app", deviceToken: "", badge: badge)]))
    }

    private func badge(_ change: DeviceChange?) -> Int? {
        guard case .saved(let device)? = change else { return nil }
        return device.apps.first?.badge
    }

    @Test func statesAreTakenInTheOrderTheirDevicesBeganToWait() {
        var waiting = WaitingDevices()
        for index in 0..<10 { waiting.set(saved("phone-\(index)"), for: "phone-\(index)") }
        waiting.set(saved("phone-0", badge: 5), for: "phone-0")
        #expect(waiting.count == 10, "a newer state replaces the one waiting")
        let first = waiting.take(limit: 3, includingRemovals: false)
        #expect(first.keys.sorted() == ["phone-0", "phone-1", "phone-2"])
        #expect(badge(first["phone-0"]) == 5, "the newest state, in the place of the first")
        waiting.set(saved("phone-0", badge: 6), for: "phone-0")
        let second = waiting.take(limit: 7, includingRemovals: false)
        #expect(second.keys.sorted() == (3..<10).map { "phone-\($0)" }, "a device waiting again goes last")
        #expect(badge(waiting.take(limit: 1, includingRemovals: false)["phone-0"]) == 6)
        #expect(waiting.isEmpty)
    }

    @Test func removalsStayFirstInLineUntilABatchMayTakeThem() {
        var waiting = WaitingDevices()
        waiting.set(saved("a"), for: "a")
        waiting.set(.removed, for: "gone")
        waiting.set(saved("b"), for: "b")
        waiting.set(saved("c"), for: "c")
        #expect(waiting.take(limit: 2, includingRemovals: false).keys.sorted() == ["a", "b"])
        #expect(waiting.take(limit: 5, includingRemovals: false).keys.sorted() == ["c"])
        #expect(waiting.count == 1)
        waiting.set(saved("d"), for: "d")
        let last = waiting.take(limit: 1, includingRemovals: true)
        guard case .removed? = last["gone"] else {
            Issue.record("the removal waited longest and goes first")
            return
        }
        #expect(waiting.take(limit: nil, includingRemovals: true).keys.sorted() == ["d"])
    }

    @Test func aFailedBatchGoesBackAheadAndNewerStatesWin() {
        var waiting = WaitingDevices()
        for id in ["a", "b", "c"] { waiting.set(saved(id), for: id) }
        let failed = WaitingDevices(waiting.take(limit: 2, includingRemovals: true))
        waiting.set(saved("a", badge: 9), for: "a")
        waiting.putBack(failed)
        #expect(waiting.count == 3)
        #expect(badge(waiting.changes["a"]) == 9, "the state taken since the failure is newer")
        let next = waiting.take(limit: 1, includingRemovals: true)
        #expect(next.keys.sorted() == ["b"], "the failed batch's other state waited longest")
        #expect(waiting.take(limit: 1, includingRemovals: true).keys.sorted() == ["c"])
        #expect(badge(waiting.take(limit: 1, includingRemovals: true)["a"]) == 9)
    }

    @Test func aLongWaitOfManyDevicesKeepsEveryNewestState() {
        var waiting = WaitingDevices()
        var taken: [String: Int] = [:]
        for round in 0..<40 {
            for index in 0..<700 {
                let id = "phone-\((round * 700 + index) % 20_000)"
                waiting.set(saved(id, badge: round), for: id)
            }
            for (id, change) in waiting.take(limit: 300, includingRemovals: true) { taken[id] = badge(change) }
        }
        for (id, change) in waiting.take(limit: nil, includingRemovals: true) { taken[id] = badge(change) }
        #expect(taken.count == 20_000)
        #expect(taken["phone-0"] == 28 && taken["phone-19999"] == 28, "each device's last state")
    }
}
