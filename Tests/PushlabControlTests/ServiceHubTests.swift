import Foundation
import PushlabControl
import PushlabCore
import PushlabOpenSSL
import PushlabServices
import PushlabSimulator
import Testing

/// JPush's and GeTui's APIs as the hub answers them, with the phones' SDKs on a manual clock
/// (docs/SERVICES.md). No APNs listener runs: each notification's request fails to connect,
/// which the message log records; what goes over the services' own connections is observed.
struct HubFixture {
    static let start: EpochMilliseconds = 1_767_225_600_000
    static let bundle = "com.example.app"
    static let jpushApp = JPushApp(appKey: "jpkey00000000000000000001", masterSecret: "jpsecret", bundleID: bundle, apnsCredential: .certificate(path: "/nonexistent.p12", keyPath: nil, password: "x"))
    static let getuiApp = GeTuiApp(appID: "GtApp1", appKey: "GtKey1", masterSecret: "GtSecret1", bundleID: bundle, apnsCredential: .signingKey(path: "/nonexistent.p8", keyID: "K", teamID: "T"))
    static let basic = BasicAuthorization.header(user: jpushApp.appKey, password: jpushApp.masterSecret)

    let clock: ControlledClock
    let simulator: DeviceSimulator
    let hub: ServiceHub
    let log = InMemoryObservationLog()

    /// Phone `on` runs the app on screen, `away` in the background; both carry `sdk`'s SDK.
    init(_ sdk: ThirdPartySDK.Service) throws {
        clock = ControlledClock(manualStart: Self.start)
        simulator = DeviceSimulator(world: APNsWorld(apps: [AppRecord(bundleID: Self.bundle, teamID: "T")]), clock: clock, tokenSeed: 3)
        hub = ServiceHub(simulator: simulator, apps: ServiceApps(jpush: [Self.jpushApp], getui: [GeTuiPortalApp(app: Self.getuiApp, environment: .development)]))
        simulator.setThirdPartySDKConnector(hub)
        simulator.addSink(log)
        let appKey = sdk == .jpush ? Self.jpushApp.appKey : Self.getuiApp.appID
        func app(_ state: AppState, _ id: String) -> AppInstall {
            AppInstall(bundleID: Self.bundle, deviceToken: "", state: state, sdk: ThirdPartySDK(service: sdk, appKey: appKey, requestedID: id))
        }
        try simulator.replaceAll(with: [
            SimulatedDevice(id: "on", apps: [app(.foreground, sdk == .jpush ? "1a0018970a0000000a1" : "0a0000000000000000000000000000a1")]),
            SimulatedDevice(id: "away", apps: [app(.background, sdk == .jpush ? "1a0018970a0000000a2" : "0a0000000000000000000000000000a2")]),
        ])
    }

    func jpush(_ path: String, _ body: String = "", method: String = "POST", authorization: String? = HubFixture.basic, query: [String: String] = [:]) async -> (Int, JSONValue) {
        var headers: [String: String] = [:]
        if let authorization { headers["authorization"] = authorization }
        let answer = await hub.jpush(ServiceHTTPRequest(method: method, path: path, query: query, headers: headers, body: Array(body.utf8)))
        return (answer.status, answer.body.isEmpty ? .null : (try? JSONParser.parse(Array(answer.body.utf8))) ?? .string(answer.body))
    }

    func getui(_ path: String, _ body: String = "", method: String = "POST", token: String? = nil) async -> (Int, JSONValue) {
        let answer = await hub.getui(ServiceHTTPRequest(method: method, path: "/v2/GtApp1" + path, headers: token.map { ["token": $0] } ?? [:], body: Array(body.utf8)))
        return (answer.status, (try? JSONParser.parse(Array(answer.body.utf8))) ?? .string(answer.body))
    }

    func callbacks(_ device: String, _ callback: AppCallback) -> [Observation] {
        log.observations(device: device).filter {
            if case .callback(let seen, _, _) = $0.event { return seen == callback }
            return false
        }
    }

    func token() async throws -> String {
        let stamp = String(clock.now())
        let sign = Digest.sha256(Array(("GtKey1" + stamp + "GtSecret1").utf8)).map { String(format: "%02x", $0) }.joined()
        let (status, body) = await getui("/auth", #"{"sign":"\#(sign)","timestamp":"\#(stamp)","appkey":"GtKey1"}"#)
        #expect(status == 200)
        return try #require(body["data"]?["token"]?.stringValue)
    }
}

@Suite("JPush and GeTui: the hub")
struct ServiceHubTests {
    typealias Fixture = HubFixture
    static let start = HubFixture.start
    static let bundle = HubFixture.bundle
    static let jpushApp = HubFixture.jpushApp

    // MARK: JPush

    @Test("Registration at launch: both phones have their ids, only the one on screen is connected")
    func jpushRegistrations() throws {
        let test = try Fixture(.jpush)
        let registrations = test.hub.registrations
        #expect(registrations.map(\.id) == ["1a0018970a0000000a1", "1a0018970a0000000a2"])
        #expect(registrations.map(\.connected) == [true, false])
        #expect(registrations.allSatisfy { $0.deviceToken?.count == 64 })
        #expect(test.callbacks("away", .jpushRegistrationID).count == 1)
    }

    @Test("Authentication fails with each API's code, always with an error object")
    func jpushAuthentication() async throws {
        let test = try Fixture(.jpush)
        let wrong = BasicAuthorization.header(user: Self.jpushApp.appKey, password: "nope")
        let (status, body) = await test.jpush("/v3/push", "{}", authorization: wrong)
        #expect(status == 401 && body["error"]?["code"] == .number(1004))
        let (deviceStatus, deviceBody) = await test.jpush("/v3/devices/1a0018970a0000000a1", method: "GET", authorization: nil)
        #expect(deviceStatus == 401 && deviceBody["error"]?["code"] == .number(7001))
        let (reportStatus, reportBody) = await test.jpush("/v3/received", method: "GET", authorization: wrong, query: ["msg_ids": "1"])
        #expect(reportStatus == 401 && reportBody["error"]?["code"] == .number(3001))
        let (getStatus, getBody) = await test.jpush("/v3/push", method: "GET")
        #expect(getStatus == 405 && getBody["error"]?["code"] == .number(1001))
    }

    @Test("A custom message: at once on screen, kept for the app away and handed over offline, counted in the report")
    func jpushCustomMessages() async throws {
        let test = try Fixture(.jpush)
        let (status, body) = await test.jpush("/v3/push", #"{"platform":"all","audience":"all","message":{"msg_content":"sync","extras":{"n":1}},"options":{"time_to_live":60}}"#)
        #expect(status == 200)
        let messageID = try #require(body["msg_id"]?.stringValue)
        let now = test.callbacks("on", .jpushDidReceiveMessage)
        #expect(now.count == 1)
        #expect(test.callbacks("away", .jpushDidReceiveMessage).isEmpty)
        let (_, report) = await test.jpush("/v3/received", method: "GET", query: ["msg_ids": messageID])
        #expect(report.array.first?["ios_msg_received"] == .number(1))

        try test.simulator.interact(.tapAppIcon(bundleID: Self.bundle), on: "away")
        let later = test.callbacks("away", .jpushDidReceiveMessage)
        #expect(later.count == 1)
        guard case .callback(_, _, let arguments)? = later.first?.event else { return }
        #expect(arguments.sdk?["offLine"] == .bool(true))
        #expect(arguments.userInfo?["content"] == .string("sync"))
        #expect(arguments.userInfo?["extras"] == .object([("n", .number(1))]))
        let (_, after) = await test.jpush("/v3/received", method: "GET", query: ["msg_ids": messageID])
        #expect(after.array.first?["ios_msg_received"] == .number(2))
        let (_, status2) = await test.jpush("/v3/status/message", #"{"msg_id":\#(messageID),"registration_ids":["1a0018970a0000000a2","nobody"]}"#)
        #expect(status2["1a0018970a0000000a2"]?["status"] == .number(0))
        #expect(status2["nobody"]?["status"] == .number(2))
    }

    @Test("The report API's message details and user statistics, on Beijing days")
    func jpushMessageDetailsAndUsers() async throws {
        let test = try Fixture(.jpush)
        let (_, body) = await test.jpush("/v3/push", #"{"platform":"all","audience":"all","notification":{"alert":"a"},"message":{"msg_content":"m"}}"#)
        let messageID = try #require(body["msg_id"]?.stringValue)
        let (status, details) = await test.jpush("/v3/messages/detail", method: "GET", query: ["msg_ids": messageID])
        #expect(status == 200)
        let ios = details.array.first?["ios"]
        // No APNs listener runs here: both requests fail, so nothing counts as sent.
        #expect(ios?["apns_target"] == .number(2) && ios?["apns_sent"] == .number(0) && ios?["apns_click"] == .null)
        #expect(ios?["msg_target"] == .number(2) && ios?["msg_received"] == .number(1))
        #expect(details.array.first?["msg_id"] == .number(Double(messageID)!))

        // The clock starts at 08:00 on 1 January in Beijing; the app away is opened on the 2nd.
        try test.simulator.advanceClock(milliseconds: 86_400_000)
        try test.simulator.interact(.tapAppIcon(bundleID: Self.bundle), on: "away")
        let (usersStatus, users) = await test.jpush("/v3/users", method: "GET", query: ["time_unit": "DAY", "start": "2025-12-31", "duration": "3"])
        #expect(usersStatus == 200)
        #expect(users["time_unit"] == .string("DAY") && users["duration"] == .number(3))
        #expect(users["items"] == .array([
            .object([("time", .string("2025-12-31"))]),
            .object([("time", .string("2026-01-01")), ("ios", .object([("new", .number(2)), ("online", .number(1)), ("active", .number(1))]))]),
            .object([("time", .string("2026-01-02")), ("ios", .object([("online", .number(2)), ("active", .number(1))]))]),
        ]))
        let (refused, error) = await test.jpush("/v3/users", method: "GET", query: ["time_unit": "DAY", "start": "2026-01-01 08", "duration": "1"])
        #expect(refused == 400 && error["error"]?["code"] == .number(3004))
    }

    @Test("time_to_live 0 keeps nothing, and a message past its time to live is dropped")
    func jpushTimeToLive() async throws {
        let test = try Fixture(.jpush)
        _ = await test.jpush("/v3/push", #"{"platform":["ios"],"audience":{"registration_id":["1a0018970a0000000a2"]},"message":{"msg_content":"a"},"options":{"time_to_live":0}}"#)
        _ = await test.jpush("/v3/push", #"{"platform":["ios"],"audience":{"registration_id":["1a0018970a0000000a2"]},"message":{"msg_content":"b"},"options":{"time_to_live":10}}"#)
        try test.simulator.advanceClock(milliseconds: 11_000)
        try test.simulator.interact(.tapAppIcon(bundleID: Self.bundle), on: "away")
        #expect(test.callbacks("away", .jpushDidReceiveMessage).isEmpty)
    }

    @Test("A notification's APNs request that cannot be made is in the message log; the API still answers 200")
    func jpushNotificationWithoutAPNs() async throws {
        let test = try Fixture(.jpush)
        let (status, _) = await test.jpush("/v3/push", #"{"platform":["ios"],"audience":{"registration_id":["1a0018970a0000000a2"]},"notification":{"ios":{"alert":"hi"}}}"#)
        #expect(status == 200)
        let target = try #require(test.hub.messages.last?.targets.first)
        #expect(target.deviceID == "away")
        #expect(target.apns == nil && target.apnsFailure?.contains("No APNs listener serves production") == true)
        let (none, body) = await test.jpush("/v3/push", #"{"platform":["ios"],"audience":{"registration_id":["unknown0000"]},"notification":{"ios":{"alert":"hi"}}}"#)
        #expect(none == 400 && body["error"]?["code"] == .number(1011))
    }

    @Test("The device API: tags and alias change the audience")
    func jpushDeviceAPI() async throws {
        let test = try Fixture(.jpush)
        let (set, _) = await test.jpush("/v3/devices/1a0018970a0000000a2", #"{"tags":{"add":["vip"]},"alias":"ann"}"#)
        #expect(set == 200)
        let (_, device) = await test.jpush("/v3/devices/1a0018970a0000000a2", method: "GET")
        #expect(device == .object([("tags", .array([.string("vip")])), ("alias", .string("ann")), ("mobile", .null)]))
        let (_, alias) = await test.jpush("/v3/aliases/ann", method: "GET")
        #expect(alias["registration_ids"] == .array([.string("1a0018970a0000000a2")]))
        let (_, held) = await test.jpush("/v3/tags/vip/registration_ids/1a0018970a0000000a2", method: "GET")
        #expect(held["result"] == .bool(true))
        let (_, pushed) = await test.jpush("/v3/push", #"{"platform":["ios"],"audience":{"tag":["vip"]},"message":{"msg_content":"x"}}"#)
        #expect(pushed["msg_id"] != nil)
        #expect(test.hub.messages.last?.targets.map(\.id) == ["1a0018970a0000000a2"])
        let (bad, error) = await test.jpush("/v3/devices/1a0018970a0000000a2", #"{"tags":{"add":"vip"}}"#)
        #expect(bad == 400 && error["error"]?["code"] == .number(7002))
    }

    @Test("600 calls a minute, then 2002; the next minute starts over")
    func jpushRateLimit() async throws {
        let test = try Fixture(.jpush)
        for _ in 0..<600 { _ = await test.jpush("/v3/tags", method: "GET") }
        let (status, body) = await test.jpush("/v3/tags", method: "GET")
        #expect(status == 429 && body["error"]?["code"] == .number(2002))
        test.clock.set(Self.start + 60_000)
        let (again, _) = await test.jpush("/v3/tags", method: "GET")
        #expect(again == 200)
    }

    // MARK: GeTui

    @Test("Auth: a good sign gives a token; without one every call is 10001")
    func getuiAuth() async throws {
        let test = try Fixture(.getui)
        let (status, body) = await test.getui("/push/all", #"{"request_id":"abcdefghij","audience":"all","push_message":{"transmission":"x"}}"#)
        #expect(status == 401 && body["code"] == .number(10001))
        let (bad, badBody) = await test.getui("/auth", #"{"sign":"00","timestamp":"\#(Self.start)","appkey":"GtKey1"}"#)
        #expect(bad != 200 && badBody["msg"]?.stringValue?.contains("sign") == true)
        _ = try await test.token()
    }

    @Test("Strategy 1: online over GeTui's connection, offline kept and handed over flagged offline")
    func getuiStrategyOne() async throws {
        let test = try Fixture(.getui)
        let token = try await test.token()
        for (cid, request) in [("0a0000000000000000000000000000a1", "request-0001"), ("0a0000000000000000000000000000a2", "request-0002")] {
            let (status, body) = await test.getui("/push/single/cid", #"{"request_id":"\#(request)","audience":{"cid":["\#(cid)"]},"push_message":{"transmission":"t"}}"#, token: token)
            #expect(status == 200)
            guard case .object(let tasks)? = body["data"], let statuses = tasks.first?.value else { Issue.record("no task: \(body)"); return }
            #expect(statuses[cid] == .string(cid.hasSuffix("a1") ? "successed_online" : "successed_offline"))
        }
        #expect(test.callbacks("on", .getuiDidReceiveSilence).count == 1)
        #expect(test.callbacks("away", .getuiDidReceiveSilence).isEmpty)
        try test.simulator.interact(.tapAppIcon(bundleID: Self.bundle), on: "away")
        let handed = test.callbacks("away", .getuiDidReceiveSilence)
        guard case .callback(_, _, let arguments)? = handed.first?.event else { Issue.record("nothing handed over"); return }
        #expect(arguments.sdk?["offLine"] == .bool(true) && arguments.sdk?["fromGetui"] == .bool(true))
        let (_, status) = await test.getui("/user/status/0a0000000000000000000000000000a2", method: "GET", token: token)
        #expect(status["data"]?["0a0000000000000000000000000000a2"]?["status"] == .string("online"))
    }

    @Test("toList: a task id, then its cids; the report counts the task")
    func getuiList() async throws {
        let test = try Fixture(.getui)
        let token = try await test.token()
        let (_, created) = await test.getui("/push/list/message", #"{"push_message":{"transmission":"t"}}"#, token: token)
        let task = try #require(created["data"]?["taskid"]?.stringValue)
        #expect(task.hasPrefix("RASL_"))
        let (status, _) = await test.getui("/push/list/cid", #"{"audience":{"cid":["0a0000000000000000000000000000a1","0a0000000000000000000000000000a2"]},"taskid":"\#(task)"}"#, token: token)
        #expect(status == 200)
        let (_, report) = await test.getui("/report/push/task/\(task)", method: "GET", token: token)
        #expect(report["data"]?[task]?["total"]?["target_num"] == .number(2))
        #expect(report["data"]?[task]?["gt"]?["receive_num"] == .number(1))
        let (unknown, body) = await test.getui("/push/list/cid", #"{"audience":{"cid":["0a0000000000000000000000000000a1"]},"taskid":"RASL_0101_none"}"#, token: token)
        #expect(unknown == 400 && body["code"] == .number(22002))
    }

    @Test("call() adds the app's credentials: a GeTui token is made once and reused")
    func calls() async throws {
        let test = try Fixture(.getui)
        let first = try await test.hub.call(.getui, app: "GtApp1", method: "GET", path: "/user/status/0a0000000000000000000000000000a1", body: [])
        let second = try await test.hub.call(.getui, app: "GtApp1", method: "GET", path: "/user/status/0a0000000000000000000000000000a1", body: [])
        #expect(first.status == 200 && second.status == 200)
        let jpush = try await test.hub.call(.jpush, app: Self.jpushApp.appKey, method: "GET", path: "/v3/tags", body: [])
        #expect(jpush.status == 200)
        await #expect(throws: ServiceCallError.self) { try await test.hub.call(.jpush, app: "unknown", method: "GET", path: "/v3/tags", body: []) }
    }
}
