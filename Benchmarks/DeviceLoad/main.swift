// Loads N simulated devices (one app each, as a scenario's generatedDevices makes them) and
// reports how long it took and the resident memory each device costs, simulator and APNs
// world together. With --alerts N, every device then gets N alerts (one 250-byte payload, as a
// load test sends) and the memory each Notification Center entry costs is reported too. One
// JSON line on stdout.
//
//   swift run -c release --scratch-path .build-release pushlab-device-load [COUNT] [--alerts N]
import Foundation
import PushlabCore
import PushlabSimulator

/// glibc's, not in its Swift module: gives freed memory back to the system before measuring.
@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

func residentBytes() -> Int {
    // /proc/self/statm: size resident shared ... in pages.
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let resident = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

var arguments = Array(CommandLine.arguments.dropFirst())
var alerts = 0
if let flag = arguments.firstIndex(of: "--alerts"), flag + 1 < arguments.count {
    alerts = Int(arguments[flag + 1]) ?? 0
    arguments.removeSubrange(flag...(flag + 1))
}
let count = arguments.first.flatMap(Int.init) ?? 1_000_000
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
var alertFields = ""
if alerts > 0 {
    // What a load test sends: one payload, Pushlab's own apns-ids, no collapse id.
    let head = Array(#"{"aps":{"alert":{"title":"Pushlab benchmark","body":"Your order has shipped"},"sound":"default","badge":1},"custom":""#.utf8)
    let payload = PayloadBytes(head + Array(repeating: UInt8(ascii: "x"), count: 250 - head.count - 2) + Array(#""}"#.utf8))
    var ids = APNsIDGenerator(seed: 1)
    var tokens = world.tokens
    let alertStart = ContinuousClock.now
    for round in 0..<alerts {
        var batch: [AcceptedPush] = []
        batch.reserveCapacity(tokens.count)
        for token in tokens {
            batch.append(AcceptedPush(
                apnsID: APNsID(ids.nextUUID()), receivedAt: EpochMilliseconds(round), environment: .development, deviceToken: token.token,
                registration: token, topic: "com.pushlab.demo", bundleID: "com.pushlab.demo", pushType: .alert, priority: 10,
                expiration: nil, collapseID: nil, payload: nil, payloadBytes: payload, isDeliverable: true, connectionID: 1
            ))
        }
        simulator.accept(batch)
    }
    let alertElapsed = ContinuousClock.now - alertStart
    tokens = []
    _ = simulator.takeChanges()
    // What was freed on the way (the pushes, the token list) goes back before measuring.
    _ = mallocTrim(0)
    let withAlerts = residentBytes()
    let entries = simulator.devices.reduce(0) { $0 + $1.apps.reduce(0) { $0 + $1.notificationCenter.count } }
    let alertSeconds = Double(alertElapsed.components.seconds) + Double(alertElapsed.components.attoseconds) / 1e18
    alertFields = ",\"alertsPerDevice\":\(alerts),\"notificationCenterEntries\":\(entries),\"bytesPerEntry\":\(Int(Double(withAlerts - after) / Double(max(entries, 1)))),\"alertSeconds\":\(String(format: "%.2f", alertSeconds)),\"residentBytes\":\(withAlerts)"
}
print("{\"devices\":\(count),\"loadSeconds\":\(String(format: "%.2f", seconds)),\"bytesPerDevice\":\(Int(perDevice)),\"worldTokens\":\(world.tokenCount),\"simulatorDevices\":\(simulator.deviceCount)\(alertFields)}")
