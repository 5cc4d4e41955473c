// Loads N simulated devices (one app each, as a scenario's generatedDevices makes them) and
// reports how long it took and the resident memory each device costs, simulator and APNs
// world together. One JSON line on stdout.
//
//   swift run -c release --scratch-path .build-release pushlab-device-load [COUNT]
import Foundation
import PushlabCore
import PushlabSimulator

func residentBytes() -> Int {
    // /proc/self/statm: size resident shared ... in pages.
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let resident = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let world = APNsWorld()
let simulator = DeviceSimulator(world: world, clock: ManualClock())
let template = AppInstall(bundleID: "com.pushlab.demo", deviceToken: "", state: .background)

let before = residentBytes()
let start = ContinuousClock.now
var devices: [SimulatedDevice] = []
devices.reserveCapacity(count)
for number in 0..<count {
    let digits = String(number, radix: 16)
    var app = template
    app.deviceToken = "be" + String(repeating: "0", count: 62 - digits.count) + digits
    devices.append(SimulatedDevice(id: "device-\(number)", apps: [app]))
}
try simulator.addDevices(devices)
devices = []
let elapsed = ContinuousClock.now - start
_ = simulator.takeChanges()  // what a store would have taken: not part of the steady state
let after = residentBytes()

let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let perDevice = Double(after - before) / Double(max(count, 1))
print("{\"devices\":\(count),\"loadSeconds\":\(String(format: "%.2f", seconds)),\"bytesPerDevice\":\(Int(perDevice)),\"worldTokens\":\(world.tokenCount),\"simulatorDevices\":\(simulator.deviceCount)}")
