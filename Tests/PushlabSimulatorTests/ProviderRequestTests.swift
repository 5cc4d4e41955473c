@testable import PushlabCore
@testable import PushlabSimulator
import Synchronization
import Testing
import Foundation

/// Simulated apps calling their providers' backends (docs/SIMULATOR.md section 15).
@Suite("Provider requests")
struct ProviderRequestTests {
    final class Capture: ProviderRequestSender {
        let sent = Mutex<[ProviderRequest]>([])
        func send(_ requests: [ProviderRequest]) { sent.withLock { $0 += requests } }
        var all: [ProviderRequest] { sent.withLock { $0 } }
    }

    static let backend = ProviderBackend(baseURL: "https://backend.example/api/", requests: [
        ProviderRequestTemplate(event: .registered, path: "/devices/{deviceId}", headers: [ProviderHeader("x-bundle", "{bundleId}")],
                                body: .object([("token", .string("{deviceToken}")), ("env", .string("{environment}")), ("note", .string("token {deviceToken}"))])),
        ProviderRequestTemplate(event: .backgroundFetch, method: "GET", path: "/sync?since={userInfo.since}", timeoutSeconds: 90),
        ProviderRequestTemplate(event: .notificationResponse, path: "/replies", body: .object([
            ("text", .string("{typedText}")), ("action", .string("{actionIdentifier}")), ("id", .string("{notificationId}")), ("info", .string("{userInfo}")),
        ])),
    ])

    static func harness(_ state: AppState = .notRunning) throws -> (SimulatorHarness, Capture) {
        var app = AppInstall.testApp(state: state, categories: [NotificationCategory(identifier: "CHAT", actions: [
            NotificationCategory.Action(identifier: "REPLY", title: "Reply", activation: .background, destructive: false, authenticationRequired: false, textInput: true),
        ])])
        app.provider = backend
        let h = try SimulatorHarness(app)
        let capture = Capture()
        h.simulator.setProviderRequestSender(capture)
        return (h, capture)
    }

    @Test("The first launch registers the token with the backend, fields filled in")
    func registered() throws {
        let (h, capture) = try Self.harness()
        try h.change(.foreground)
        let request = try #require(capture.all.first)
        #expect(capture.all.map(\.event) == [.registered])
        #expect(request.url == "https://backend.example/api/devices/iphone-1")
        #expect(request.method == "POST" && request.headers == [ProviderHeader("x-bundle", Fixture.bundleID)])
        let body = try JSONParser.parse(try #require(request.body))
        #expect(body == .object([("token", .string(try h.token())), ("env", .string("development")), ("note", .string("token \(try h.token())"))]))
        #expect(!request.limitedByBackgroundTime && request.timeLimitMilliseconds == 60_000)
        try h.change(.background)
        try h.change(.foreground)
        #expect(capture.all.count == 1, "a token is registered once per install")
    }

    @Test("A silent push's fetch gets the background time; the app on screen gets its own timeout")
    func backgroundFetch() throws {
        let (h, capture) = try Self.harness(.background)
        try h.silent(#"{"aps":{"content-available":1},"since":"a b/c"}"#)
        let fetch = try #require(capture.all.last)
        #expect(fetch.event == .backgroundFetch && fetch.url == "https://backend.example/api/sync?since=a%20b%2Fc")
        #expect(fetch.limitedByBackgroundTime && fetch.timeLimitMilliseconds == 30_000 && fetch.body == nil)
        #expect(fetch.notificationID != nil)
    }

    @Test("A text reply posts the typed text and the notification's payload")
    func reply() throws {
        let (h, capture) = try Self.harness(.background)
        let id = try h.alert(#"{"aps":{"alert":"Lunch?","category":"CHAT"},"chat":9}"#)
        try h.tapAction("REPLY", on: id, text: "Yes")
        let reply = try #require(capture.all.last)
        #expect(reply.event == .notificationResponse && reply.notificationID == id)
        let body = try JSONParser.parse(try #require(reply.body))
        #expect(body["text"] == .string("Yes") && body["action"] == .string("REPLY") && body["id"] == .string(id))
        #expect(body["info"]?["chat"] == .number(9), "a field alone in a string keeps its JSON value")
        #expect(reply.limitedByBackgroundTime, "a background action has the background time")
    }

    @Test("The answer is recorded on the device; without a sender the request is recorded as not sent")
    func recorded() throws {
        let (h, capture) = try Self.harness()
        try h.change(.foreground)
        let request = try #require(capture.all.first)
        let seen = h.during {
            h.simulator.recordProviderResponse(ProviderResponse(
                event: .registered, method: "POST", url: request.url, status: 201, milliseconds: 12, excerpt: "ok", failure: nil, message: nil
            ), for: request)
        }
        #expect(seen.map(\.kind) == [.providerRequest])
        if case .providerRequest(let response) = seen.first?.event { #expect(response.status == 201) }
        h.simulator.setProviderRequestSender(nil)
        let unsent = try h.during { try h.simulator.reinstall(Fixture.bundleID, on: Fixture.deviceID); try h.change(.foreground) }
        let failure = unsent.compactMap { if case .providerRequest(let response) = $0.event { response.failure } else { nil } }
        #expect(failure == [.failed])
    }

    @Test("Spec mistakes are named")
    func specErrors() throws {
        func problem(_ json: String) -> String {
            do {
                _ = try AppSpec.decodeForTest(json).install(place: "app")
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(#"{"bundleId":"a","provider":{"baseURL":"ftp://x","requests":[]}}"#).contains("baseURL must be an http:// or https:// URL"))
        #expect(problem(#"{"bundleId":"a","provider":{"baseURL":"http://x","requests":[{"event":"boot","path":"/"}]}}"#).contains("event must be one of"))
        #expect(problem(#"{"bundleId":"a","provider":{"baseURL":"http://x","requests":[{"event":"launch","method":"GET","path":"/","body":{}}]}}"#).contains("a GET request has no body"))
        #expect(problem(#"{"bundleId":"a","provider":{"baseURL":"pushlab:stand-in","requests":[{"event":"launch","path":"/hello"}]}}"#) == "accepted")
    }
}

extension AppSpec {
    /// An app spec from control-API-style JSON.
    static func decodeForTest(_ json: String) throws -> AppSpec {
        try JSONDecoder().decode(AppSpec.self, from: Data(json.utf8))
    }
}
