// The cost of Pushlab's APNs core per request, without sockets, TLS or HTTP/2: what a request
// costs once the transport has parsed it. Runs requests shaped like Benchmarks/run.sh's through
// `APNsConnectionHandler.handle` on one thread and prints nanoseconds per request, with and
// without the store, and the transport-free floor (building the request alone) as reference.
//
//   pushlab-core-bench SCENARIO.yaml JWT [REQUESTS] [--store PATH]
//
// SCENARIO is Benchmarks/.work/scenario.yaml (tokens "be" + 62 hex digits); JWT from mint-jwt.sh.
import Foundation
import PushlabCore
import PushlabDelivery
import PushlabScenario
import PushlabSimulator
import PushlabStore

var arguments = Array(CommandLine.arguments.dropFirst())
var storePath: String?
if let flag = arguments.firstIndex(of: "--store"), flag + 1 < arguments.count {
    storePath = arguments[flag + 1]
    arguments.removeSubrange(flag...(flag + 1))
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: pushlab-core-bench SCENARIO.yaml JWT [REQUESTS] [--store PATH]\n".utf8))
    exit(2)
}
let scenario = try Scenario.load(path: arguments[0])
let jwt = arguments[1]
let total = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000

let world = APNsWorld()
let clock = SystemClock()
let simulator = DeviceSimulator(world: world, clock: clock, settings: scenario.simulatorSettings)
try scenario.install(into: world, simulator: simulator)
// As `pushlab serve` runs: the phones are simulated after the answers, from a queue.
let delivery = DeliveryPipeline(simulator: simulator)
delivery.queueDeliveries(capacity: 100_000_000) {}
let log = RequestLog()
let service = APNsProviderService(world: world, policy: scenario.policy, clock: clock, log: log, sink: delivery)
let store = try storePath.map { try PushlabStore(path: $0, devices: simulator) }
// As `pushlab serve` starts a store from a scenario: the scenario's devices are not written.
try store?.reseed(fromScenario: arguments[0])
_ = store?.connect(observations: simulator, requests: log)
_ = store.map(delivery.heed)

let tokens = world.tokens.map(\.token)
// The 250 bytes run.sh sends: an alert with a sound and a badge, so that a phone observes what it
// observes there (delivered, banner, sound, badge, Notification Center) and its badge changes.
let payloadFrame = (
    head: Array(#"{"aps":{"alert":{"title":"Pushlab benchmark","body":"Your order #1234 has shipped and will arrive tomorrow."},"sound":"default","badge":1},"custom":""#.utf8),
    tail: Array(#""}"#.utf8)
)
let payload = payloadFrame.head + Array(repeating: UInt8(ascii: "x"), count: 250 - payloadFrame.head.count - payloadFrame.tail.count) + payloadFrame.tail
let connection = service.makeConnectionHandler(for: ConnectionInfo(id: 1, listenerEnvironment: .development))

func request(_ index: Int) -> APNsRequest {
    APNsRequest(
        method: "POST", path: "/3/device/" + tokens[index % tokens.count], authority: "127.0.0.1:28444",
        headers: [("apns-topic", "com.pushlab.demo"), ("apns-push-type", "alert"), ("apns-priority", "10"), ("authorization", "bearer " + jwt)],
        body: payload
    )
}

/// CPU time of every thread of the process (the store's writer included), in nanoseconds.
func processCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func nanoseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e9 + Double(time.tv_usec) * 1e3 }
    return nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
}

func measure(_ label: String, _ count: Int, waitForWriter: Bool, _ body: (Int) -> Void) -> Double {
    let start = ContinuousClock.now
    let cpuStart = processCPU()
    for index in 0..<count { body(index) }
    let elapsed = ContinuousClock.now - start
    // The writer's last batches count as CPU, not as the calling thread's time.
    if waitForWriter { Thread.sleep(forTimeInterval: 0.3) }
    let cpu = processCPU() - cpuStart
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    let perRequest = nanoseconds / Double(count)
    print(String(format: "%@: %.0f ns/request on the calling thread, %.0f ns CPU/request in all threads", label, perRequest, cpu / Double(count)))
    return perRequest
}

var statuses = [Int: Int]()
var firstRejection: APNsResponse?
_ = connection.handle(request(0))
let floor = measure("building the request", total, waitForWriter: store != nil) { index in _ = request(index) }
let core = measure("building and handling it", total, waitForWriter: store != nil) { index in
    let outcome = connection.handle(request(index))
    statuses[outcome.response?.status ?? 0, default: 0] += 1
    if firstRejection == nil, let response = outcome.response, response.status != 200 { firstRejection = response }
    // One read's worth of requests is published at a time, as the transport does.
    if index % 100 == 99 { connection.flushRecords() }
}
connection.flushRecords()
let settleStart = ContinuousClock.now
let settleCPU = processCPU()
simulator.settle()
print("phones simulated (queued): \(ContinuousClock.now - settleStart), CPU \((processCPU() - settleCPU) / 1e9) s")
print(String(format: "core alone: %.0f ns/request; statuses %@", core - floor, statuses.description))
if let firstRejection {
    // An hour-old token turns the whole run into the 403 path: no phones, no store.
    let rejected = total - statuses[200, default: 0]
    let reason = firstRejection.reason.map { " \($0.rawValue)" } ?? ""
    FileHandle.standardError.write(Data("""
        warning: \(rejected) of \(total) requests were not accepted (the first: \(firstRejection.status)\(reason)): \
        these figures are not the phones' and the store's. A provider token lasts an hour: mint a new one \
        with Benchmarks/mint-jwt.sh.

        """.utf8))
}
// Before the `await`: the code after it may go on on another thread.
let mainThreadCPU = callingThreadCPU()
let closeStart = ContinuousClock.now
let closeCPU = processCPU()
try await store?.close()
print("store catch-up at close: \(ContinuousClock.now - closeStart), CPU \((processCPU() - closeCPU) / 1e9) s")

/// Seconds of CPU each of the process's threads used, by thread name (Linux: /proc/self/task).
func cpuByThread() -> [(name: String, seconds: Double)] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    var byName: [String: Double] = [:]
    for task in tasks {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { continue }
        let name = String(stat[stat.index(after: open)..<close])
        // After the name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        byName[name, default: 0] += (user + system) / ticks
    }
    return byName.map { ($0.key, $0.value) }.sorted { $0.seconds > $1.seconds }
}
/// CPU time of the calling thread, in seconds.
func callingThreadCPU() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
// The store's threads have ended by now: the process's CPU less this thread's is theirs.
print(String(format: "CPU: the main thread %.2f s, the other threads (the store's) %.2f s", mainThreadCPU, processCPU() / 1e9 - mainThreadCPU))
print("CPU by thread: " + cpuByThread().filter { $0.seconds >= 0.05 }.map { String(format: "%@ %.2f s", $0.name, $0.seconds) }.joined(separator: ", "))
