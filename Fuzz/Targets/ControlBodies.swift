import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import PushlabControl
import PushlabCore
import PushlabScenario
import PushlabSimulator
import Synchronization

/// Requests to the control API, each with its own route and body, through the real router
/// against a small world made afresh for each input: every answer is JSON (but Prometheus
/// text and the dashboard's page and files), and a refusal is `{"error": …}` with a 4xx
/// status (a `ControlError`), never a 500 or a crash.
///
/// The bytes are up to eight requests separated by lines `%%`; each is a line `METHOD /path`
/// and then its body (Fuzz/corpus/control-body has one file per route of docs/CONTROL-API.md).
func fuzzControlBody(_ bytes: UnsafeRawBufferPointer) {
    let requests = ControlRequest.split(Array(bytes))
    guard !requests.isEmpty else { return }
    let answers = waitFor { await ControlWorld().send(requests) }
    for (request, answer) in zip(requests, answers) {
        if showAnswers { print("\(request.method) \(request.path) → \(answer.status) \(String(decoding: answer.body, as: UTF8.self))") }
        answer.check(for: request)
    }
}

/// PUSHLAB_FUZZ_SHOW=1 prints each request's answer (to replay an input by hand).
private let showAnswers = getenv("PUSHLAB_FUZZ_SHOW") != nil

/// One request of an input.
struct ControlRequest: Sendable {
    var method: HTTPRequest.Method
    /// Path and query, visible ASCII only (what an HTTP parser hands the router).
    var path: String
    var body: [UInt8]
    /// Prometheus text and the dashboard's page and files (`GET /`, `/dashboard/…`): the routes
    /// that answer something other than JSON.
    var answersText: Bool

    static let separator = Array("\n%%\n".utf8)
    static let mostPerInput = 8

    static func split(_ bytes: [UInt8]) -> [ControlRequest] {
        var requests: [ControlRequest] = []
        var rest = bytes[...]
        while requests.count < mostPerInput, !rest.isEmpty {
            let end = rest.firstRange(of: separator)
            if let request = ControlRequest(rest[..<(end?.lowerBound ?? rest.endIndex)]) { requests.append(request) }
            guard let end else { break }
            rest = rest[end.upperBound...]
        }
        return requests
    }

    /// `METHOD /path` on the first line, the body after it; nil for anything an HTTP server
    /// would not route, and for the two routes that do not end by themselves: the event stream
    /// and the stand-in backend (which waits as long as its rules say).
    init?(_ bytes: ArraySlice<UInt8>) {
        let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
        let line = bytes[..<lineEnd].split(separator: UInt8(ascii: " "), maxSplits: 1, omittingEmptySubsequences: false)
        guard line.count == 2, let method = HTTPRequest.Method(String(decoding: line[0], as: UTF8.self)) else { return nil }
        guard line[1].first == UInt8(ascii: "/"), line[1].allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        let path = String(decoding: line[1], as: UTF8.self)
        // As the router matches: by the path's non-empty components (`/v1//events/` too).
        let components = path.prefix { $0 != "?" && $0 != "#" }.split(separator: "/")
        guard components != ["v1", "events"], components.first != "stand-in" else { return nil }
        self.method = method
        self.path = path
        answersText = components.isEmpty || components == ["metrics"] || components.first == "dashboard"
        body = Array(bytes[(lineEnd == bytes.endIndex ? lineEnd : lineEnd + 1)...])
    }
}

/// What the control API answered.
struct ControlAnswer: Sendable {
    var status: Int
    var body: [UInt8]

    func check(for request: ControlRequest) {
        let what = "\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))"
        if status >= 500 { fatalError("\(what) answered \(status): \(String(decoding: body, as: UTF8.self))") }
        if request.answersText, status == 200 {
            if body.isEmpty { fatalError("\(what) answered 200 with nothing") }
            return
        }
        guard let json = try? JSONParser.parse(body) else {
            fatalError("\(what) answered \(status) with a body that is not JSON: \(String(decoding: body, as: UTF8.self))")
        }
        if status >= 400, json.objectKeys != ["error"] || json["error"]?.stringValue?.isEmpty != false {
            fatalError("\(what) answered \(status) without an error message: \(json.description)")
        }
    }
}

/// The world each input starts from: `ControlWorld.scenario`'s devices, apps and key on a
/// manual clock, with one notification in eve's Notification Center and one Live Activity.
final class ControlWorld: Sendable {
    let simulator: DeviceSimulator
    let api: ControlAPI

    /// 2026-01-01T00:00:00Z.
    static let start: EpochMilliseconds = 1_767_225_600_000

    static let scenario: Scenario = {
        let yaml = """
            apps:
              - { bundleId: com.example.app, teamId: DEF123GHIJ }
              - { bundleId: com.pushlab.delivery, teamId: DEF123GHIJ }
            devices:
              - id: eve
                name: Eve's iPhone
                apps:
                  - bundleId: com.example.app
                    state: background
                    categories:
                      - id: MESSAGE
                        actions: [{ id: REPLY, title: Reply, textInput: true }]
                    voip: { reportsCall: immediately }
                  - bundleId: com.pushlab.delivery
                    state: foreground
                    liveActivities:
                      activities:
                        - { attributesType: DeliveryAttributes, attributes: { order: "42" }, contentState: { eta: 10 }, pushType: token }
              - id: ben
                apps: [{ bundleId: com.example.app, api: legacy, state: notRunning }]
            """
        do {
            return try Scenario.parse(yaml: yaml, source: "control-body-fuzz.yaml")
        } catch {
            fatalError("the fuzz world's scenario does not load: \(error)")
        }
    }()

    init() {
        let clock = ControlledClock(manualStart: Self.start)
        let world = APNsWorld()
        let simulator = DeviceSimulator(world: world, clock: clock, tokenSeed: 1)
        let scenario = Self.scenario
        do {
            try scenario.install(into: world, simulator: simulator)
            let welcome = LocalNotification(
                identifier: "welcome", content: NotificationContent(title: "Welcome", category: "MESSAGE"),
                trigger: .timeInterval(seconds: 1, repeats: false)
            )
            _ = try simulator.presentLocalNow(welcome, app: "com.example.app", on: "eve")
        } catch {
            fatalError("the fuzz world cannot be set up: \(error)")
        }
        self.simulator = simulator
        let reset: ControlAPI.Reset = {
            clock.set(Self.start)
            scenario.install(into: world)
            try simulator.replaceAll(with: scenario.devices)
        }
        api = ControlAPI(simulator: simulator, requestLog: RequestLog(), faults: FaultRules(seed: 7), scenarioName: "fuzz", reset: reset)
    }

    /// Sends the requests in turn, as one client would.
    func send(_ requests: [ControlRequest]) async -> [ControlAnswer] {
        let disconnect = api.connect()
        defer { disconnect() }
        let responder = api.router().buildResponder()
        let channel = EmbeddedChannel()
        var answers: [ControlAnswer] = []
        for request in requests {
            let head = HTTPRequest(method: request.method, scheme: "http", authority: "localhost", path: request.path)
            let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: Self.logger))
            do {
                let response = try await responder.respond(
                    to: Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: request.body))), context: context
                )
                let collector = BodyCollector()
                try await response.body.write(collector)
                answers.append(ControlAnswer(status: Int(response.status.code), body: collector.bytes.withLock { $0 }))
            } catch {
                // The error middleware answers every failure; one that escapes it is a bug.
                fatalError("\(request.method) \(request.path) threw past the error middleware: \(error)")
            }
        }
        return answers
    }

    /// Routes log their 500s; the fuzzer reports them itself.
    private static let logger = Logger(label: "pushlab-fuzz") { _ in SwiftLogNoOpLogHandler() }
}

/// Gathers a response body.
private final class BodyCollector: ResponseBodyWriter, Sendable {
    let bytes = Mutex<[UInt8]>([])

    func write(_ buffer: ByteBuffer) async throws {
        bytes.withLock { $0 += buffer.readableBytesView }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Runs async work to its end from libFuzzer's synchronous callback.
private func waitFor<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
    let result = Mutex<Value?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await work()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}
