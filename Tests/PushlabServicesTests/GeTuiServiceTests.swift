import PushlabCore
@testable import PushlabServices
import Testing

/// GeTui end to end without I/O: each strategy's path for a connected and a disconnected app,
/// transmissions kept for the app's next start and flagged offline.
@Suite struct GeTuiServiceTests {
    static let app = GeTuiApp(
        appID: "aaaaa", appKey: "myAppKey", masterSecret: "myMasterSecret", bundleID: "com.example.app",
        apnsCredential: .signingKey(path: "AuthKey.p8", keyID: "KEY1", teamID: "TEAM1")
    )
    static let now: EpochMilliseconds = 1_795_950_000_000   // 2026-11-29T11:00:00Z

    /// Two phones: the first app connected (running), the second not.
    static func service() -> (GeTuiService, online: String, offline: String) {
        var service = GeTuiService(seed: 5)
        service.add(app, environment: .development)
        let online = service.register(appID: app.appID)!.clientID
        let offline = service.register(appID: app.appID)!.clientID
        for (index, cid) in [online, offline].enumerated() {
            service.update(cid) { $0.deviceToken = String(repeating: "\(index + 1)", count: 64) }
        }
        _ = service.connect(online, at: now)
        return (service, online, offline)
    }

    static func push(strategy: Int, ttl: Int64 = 7_200_000) -> GeTuiPush {
        try! GeTuiPush.parse(Array("""
        {"request_id":"0123456789ab","audience":{"cid":["x"]},"settings":{"ttl":\(ttl),"strategy":{"ios":\(strategy)}},
         "push_message":{"transmission":"order 7"},"push_channel":{"ios":{"aps":{"alert":"Your order"},"payload":"order 7"}}}
        """.utf8), for: .single)
    }

    @Test func strategyOneUsesGeTuisConnectionWhenConnectedAndAPNsOtherwise() throws {
        var (service, online, offline) = Self.service()
        let result = try service.send(Self.push(strategy: 1), app: Self.app, clientIDs: [online, offline], at: Self.now).get()
        #expect(result.taskID.hasPrefix("RASL_1129_") && result.taskID.count == 42)
        #expect(result.statuses.map(\.status) == ["successed_online", "successed_offline"])
        #expect(result.deliveredNow.map(\.clientID) == [online] && !result.deliveredNow[0].offline)
        #expect(result.apnsRequests.map(\.clientID) == [offline] && result.apnsRequests[0].plan.environment == .development)
        let later = service.connect(offline, at: Self.now + 7_199_999)
        #expect(later.map(\.payload) == ["order 7"] && later[0].offline, "the transmission again, after the APNs notification, flagged offline")
        #expect(result.body.hasPrefix(#"{"code":0,"msg":"","data":{"\#(result.taskID)":{"\#(online)":"successed_online","#))
    }

    @Test func strategyTwoIsAPNsOnlyAndThreeIsGeTuisConnectionOnly() throws {
        var (service, online, offline) = Self.service()
        let apnsOnly = try service.send(Self.push(strategy: 2), app: Self.app, clientIDs: [online], at: Self.now).get()
        #expect(apnsOnly.apnsRequests.count == 1 && apnsOnly.deliveredNow.isEmpty && apnsOnly.statuses[0].status == "successed_offline")
        let getuiOnly = try service.send(Self.push(strategy: 3), app: Self.app, clientIDs: [offline], at: Self.now).get()
        #expect(getuiOnly.apnsRequests.isEmpty && getuiOnly.deliveredNow.isEmpty)
        #expect(service.connect(offline, at: Self.now + 7_200_000).isEmpty, "kept two hours, no longer")
    }

    @Test func strategyFourFallsBackToGeTuisConnectionWhenAPNsRefuses() throws {
        var (service, online, offline) = Self.service()
        let result = try service.send(Self.push(strategy: 4), app: Self.app, clientIDs: [online, offline], at: Self.now).get()
        #expect(result.apnsRequests.count == 2 && result.deliveredNow.isEmpty)
        #expect(service.apnsAnswered(taskID: result.taskID, clientID: online, status: 200, at: Self.now) == nil, "APNs took it")
        let fallback = service.apnsAnswered(taskID: result.taskID, clientID: offline, status: 400, at: Self.now)
        #expect(fallback == nil, "not connected: kept")
        #expect(service.connect(offline, at: Self.now + 1).map(\.payload) == ["order 7"])
    }

    @Test func aTimeToLiveOfMinusOneKeepsNothingAndAStrangersCidIsRefused() throws {
        var (service, _, offline) = Self.service()
        _ = try service.send(Self.push(strategy: 3, ttl: -1), app: Self.app, clientIDs: [offline], at: Self.now).get()
        #expect(service.connect(offline, at: Self.now + 1).isEmpty)
        let stranger = service.send(Self.push(strategy: 1), app: Self.app, clientIDs: ["0123456789abcdef0123456789abcdef"], at: Self.now)
        guard case .failure(let error) = stranger else {
            Issue.record("a cid of no phone was accepted")
            return
        }
        #expect(error.message == "target user is invalid" && error.httpStatus == 400)
    }
}
