@testable import PushlabCore
@testable import PushlabSimulator
import Testing

/// `devices(limit:)` is what the control API pages through: the first devices by id, whether
/// the page is kept while looking (small pages) or everything is sorted (deep pages).
@Suite struct DevicePageTests {
    private func simulator(deviceCount: Int) throws -> (DeviceSimulator, [String]) {
        let simulator = DeviceSimulator(world: APNsWorld(), clock: ManualClock())
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<deviceCount).map { "phone-\(String($0, radix: 7))" }
        try simulator.addDevices(ids.shuffled(using: &generator).map { SimulatedDevice(id: $0) })
        return (simulator, ids.sorted())
    }

    @Test func aPageIsTheFirstDevicesByID() throws {
        let (simulator, sorted) = try simulator(deviceCount: 300)
        for limit in [1, 2, 50, 299, 300, 301, 1_000] {
            #expect(simulator.devices(limit: limit).map(\.id) == Array(sorted.prefix(limit)), "limit \(limit)")
        }
        #expect(simulator.devices(limit: 0).isEmpty)
    }

    @Test func aDeepPageIsTheFirstDevicesByIDToo() throws {
        let (simulator, sorted) = try simulator(deviceCount: FirstByID.largestPage + 100)
        let limit = FirstByID.largestPage + 50
        #expect(simulator.devices(limit: limit).map(\.id) == Array(sorted.prefix(limit)))
        #expect(simulator.devices(limit: FirstByID.largestPage).map(\.id) == Array(sorted.prefix(FirstByID.largestPage)))
    }

    /// A search: the page of the devices it accepts, and how many it accepts in all.
    @Test func aSearchPagesThroughTheDevicesItAccepts() throws {
        let (simulator, sorted) = try simulator(deviceCount: FirstByID.largestPage * 2)
        let accepted = { (device: SimulatedDevice) in device.id.hasSuffix("3") }
        let wanted = sorted.filter { $0.hasSuffix("3") }
        #expect(wanted.count > FirstByID.largestPage / 4)
        for limit in [0, 1, 20, wanted.count, FirstByID.largestPage + 1] {
            let found = simulator.devices(limit: limit, where: accepted)
            #expect(found.devices.map(\.id) == Array(wanted.prefix(limit)), "limit \(limit)")
            #expect(found.matching == wanted.count, "limit \(limit)")
        }
        #expect(simulator.devices(limit: 10) { _ in false } == ([], 0))
    }

    @Test func keepingAPageHoldsOnlyThePage() {
        var first = FirstByID(limit: 3)
        for id in ["e", "b", "f", "a", "d", "c", "a2"] { first.offer(SimulatedDevice(id: id)) }
        #expect(first.devices.map(\.id) == ["a", "a2", "b"])
    }
}
