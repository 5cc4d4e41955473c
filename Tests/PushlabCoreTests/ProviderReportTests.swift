@testable import PushlabCore
import Testing

/// The provider report (`ProviderReportRecorder`), fed by real connections on the manual clock:
/// each finding provoked as a misbehaving provider would, and a well-behaved one left alone.
@Suite struct ProviderReportTests {
    static func harness(_ tweak: (inout APNsPolicy) -> Void = { _ in }, mode: AuthMode = .token) throws -> (Harness, ProviderReportRecorder) {
        var policy = APNsPolicy()
        tweak(&policy)
        let recorder = ProviderReportRecorder(recording: true, now: Harness.start)
        return (try Harness(mode, policy: policy, report: recorder), recorder)
    }

    static func provider(_ recorder: ProviderReportRecorder, now: EpochMilliseconds = Harness.start) throws -> ProviderReport.Provider {
        let report = recorder.report(now: now)
        return try #require(report.providers.first { $0.provider != .unauthenticated })
    }

    static func finding(_ kind: ProviderFinding.Kind, in provider: ProviderReport.Provider) -> ProviderFinding? {
        provider.findings.first { $0.kind == kind }
    }

    static func body(_ number: Int) -> String { #"{"aps":{"alert":"push \#(number)"}}"# }

    @Test func aWellBehavedProviderHasNoFindings() throws {
        let (harness, recorder) = try Self.harness()
        for number in 0..<10 {
            harness.send(body: Self.body(number), answeredAfterNanoseconds: 35_000_000)
            harness.clock.advance(milliseconds: 100)
        }
        harness.connection.flushRecords()
        let provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(provider.provider == .key(keyID: "TEAMKEY001", teamID: TestWorld.team))
        #expect(provider.requests == 10 && provider.statuses == [200: 10])
        #expect(provider.connectionsOpened == 1 && provider.connectionsOpen == 1)
        #expect(provider.latency.count == 10)
        let p50 = try #require(provider.latencyMilliseconds(0.5))
        #expect(abs(p50 - 35) < 35 * 0.07, "\(p50)")
        #expect(provider.providerTokens.distinct == 1 && provider.retries.total == 0)
        #expect(provider.findings.isEmpty, "\(provider.findings)")
        #expect(provider.meanRate == 10, "ten pushes within a second (a span shorter than a second counts as one)")
    }

    @Test func nothingIsRecordedUntilRecordingStarts() throws {
        let recorder = ProviderReportRecorder()
        let harness = try Harness(report: recorder)
        harness.send()
        #expect(recorder.report(now: Harness.start).providers.isEmpty)
        recorder.start(at: Harness.start)
        harness.send(body: Self.body(1))
        #expect(try Self.provider(recorder).requests == 1)
        recorder.stop()
        harness.send(body: Self.body(2))
        #expect(try Self.provider(recorder).requests == 1, "stopped")
    }

    @Test func aConnectionPerPushIsFound() throws {
        let (harness, recorder) = try Self.harness()
        for number in 0..<4 {
            harness.reconnect(id: UInt64(10 + number))
            harness.send(body: Self.body(number))
            harness.connection.connectionDidClose()
        }
        let provider = try Self.provider(recorder)
        #expect(provider.connectionsOpened == 4 && provider.connectionsOpen == 0)
        let finding = try #require(Self.finding(.connectionPerPush, in: provider))
        #expect(finding.count == 4 && finding.examples.count == 3)
        #expect(provider.requestsPerConnection == ProviderReport.Summary([1, 1, 1, 1]))
    }

    @Test func aConnectionThatWaitedBeforeItClosedIsNoConnectionPerPush() throws {
        let (harness, recorder) = try Self.harness()
        for number in 0..<4 {
            harness.reconnect(id: UInt64(10 + number))
            harness.send(body: Self.body(number))
            harness.clock.advance(milliseconds: ProviderReportRules.shortConnectionMilliseconds)
            harness.connection.connectionDidClose()
        }
        #expect(Self.finding(.connectionPerPush, in: try Self.provider(recorder, now: harness.clock.now())) == nil)
    }

    @Test func twoClosedConnectionsAreNotYetAPattern() throws {
        let (harness, recorder) = try Self.harness()
        for number in 0..<2 {
            harness.reconnect(id: UInt64(10 + number))
            harness.send(body: Self.body(number))
            harness.connection.connectionDidClose()
        }
        #expect(Self.finding(.connectionPerPush, in: try Self.provider(recorder)) == nil)
    }

    /// A pool of long connections that replaced a few near the end of a run, each closed with the
    /// pool a push later: short connections, but a minority of the closed ones.
    @Test func aPoolsLastReplacementsAreNoConnectionPerPushUntilTheyAreHalf() throws {
        let (harness, recorder) = try Self.harness()
        func connection(_ id: UInt64, pushes: Int, lasting milliseconds: Int64) {
            harness.reconnect(id: id)
            for number in 0..<pushes { harness.send(body: Self.body(Int(id) * 100 + number)) }
            harness.clock.advance(milliseconds: milliseconds)
            harness.connection.connectionDidClose()
        }
        for id in UInt64(10)..<14 { connection(id, pushes: 50, lasting: 30_000) }
        for id in UInt64(20)..<23 { connection(id, pushes: 1, lasting: 200) }
        var provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(provider.connectionsOpened == 7)
        #expect(Self.finding(.connectionPerPush, in: provider) == nil, "3 of 7 closed connections")
        connection(23, pushes: 1, lasting: 200)
        provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(Self.finding(.connectionPerPush, in: provider)?.count == 4, "4 of 8: half")
    }

    @Test func tokensSignedForAPushLessThanTwentyMinutesApartAreFound() throws {
        let (harness, recorder) = try Self.harness()
        for (index, issuedAt) in [0, 60, 25 * 60].enumerated() {
            harness.clock.set(Harness.start + Int64(issuedAt) * 1000)
            harness.reconnect(id: UInt64(10 + index))
            harness.providerToken = try harness.world.token(issuedAt: Harness.start / 1000 + Int64(issuedAt))
            harness.send(body: Self.body(index))
        }
        let provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(provider.providerTokens.distinct == 3)
        #expect(provider.providerTokens.issuedTooSoon == 2, "the first two, a minute apart; the third is 24 minutes from the second")
        #expect(provider.providerTokens.shortestIntervalMilliseconds == 60_000)
        let finding = try #require(Self.finding(.tokenRefreshedTooOften, in: provider))
        #expect(finding.count == 2 && finding.examples.first?.contains("carried 1 request; another was issued 60 s apart") == true)
    }

    @Test func aPoolOfConnectionsEachKeepingItsTokenIsFine() throws {
        let (harness, recorder) = try Self.harness()
        for id in 10..<14 {
            harness.reconnect(id: UInt64(id))
            harness.providerToken = try harness.world.token(issuedAt: Harness.start / 1000)
            for number in 0..<5 { harness.send(body: Self.body(id * 10 + number)) }
        }
        let provider = try Self.provider(recorder)
        #expect(provider.providerTokens.distinct == 4 && provider.providerTokens.issuedTooSoon == 0)
        #expect(provider.findings.isEmpty, "\(provider.findings)")
    }

    @Test func pushesToATokenAnswered410AreFound() throws {
        let (harness, recorder) = try Self.harness()
        for _ in 0..<3 { harness.send(token: TestWorld.unregisteredToken) }
        let provider = try Self.provider(recorder)
        #expect(provider.statuses == [410: 3])
        #expect(provider.pushesAfter410 == 2 && provider.retries.after410 == 2)
        #expect(Self.finding(.pushedAfter410, in: provider)?.count == 2)
    }

    @Test func theSamePushAgainAfterA200IsADuplicateAndAfterA400ARefusalRetried() throws {
        let (harness, recorder) = try Self.harness()
        harness.send()
        harness.clock.advance(milliseconds: 500)
        harness.send()
        harness.send(headers: [("apns-priority", "7")], body: Self.body(7))
        harness.send(headers: [("apns-priority", "7")], body: Self.body(7))
        harness.clock.advance(milliseconds: ProviderReportRules.retryWindowMilliseconds + 1)
        harness.send()
        let provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(provider.retries.afterSuccess == 1 && provider.retries.afterRefusal == 1, "\(provider.retries)")
        #expect(Self.finding(.duplicatePush, in: provider)?.count == 1)
        #expect(Self.finding(.retriedRefusal, in: provider)?.count == 1)
    }

    @Test func aCorrectedRequestIsNoRetry() throws {
        let (harness, recorder) = try Self.harness()
        harness.send(headers: [("apns-priority", "7")])
        harness.send(headers: [("apns-priority", "10")])
        let provider = try Self.provider(recorder)
        #expect(provider.statuses == [400: 1, 200: 1] && provider.retries.total == 0, "\(provider.statuses) \(provider.reasons) \(provider.retries)")
    }

    @Test func aRefusedTokenIsStillItsKeysRequest() throws {
        let (harness, recorder) = try Self.harness()
        harness.providerToken = try harness.world.token(issuedAt: Harness.start / 1000 - 7200)
        harness.send()
        harness.send()
        let provider = try Self.provider(recorder)
        #expect(provider.provider == .key(keyID: "TEAMKEY001", teamID: TestWorld.team))
        #expect(Self.finding(.expiredProviderToken, in: provider)?.count == 2)
        #expect(recorder.report(now: Harness.start).providers.count == 1, "nothing is put down to an unauthenticated provider")
    }

    @Test func pushesRightAfterA429AreFoundAndSoIsARateThatRoseAfterThem() throws {
        let (harness, recorder) = try Self.harness { $0.deviceTokenRateLimit = .init(requests: 2, perSeconds: 60) }
        for number in 0..<4 { harness.send(body: Self.body(number)) }
        harness.clock.advance(milliseconds: 1000)
        for number in 4..<10 { harness.send(body: Self.body(number)) }
        harness.clock.advance(milliseconds: 1500)
        harness.send(body: Self.body(10))
        let provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(provider.tooManyRequests.answers == 9)
        #expect(provider.tooManyRequests.pushesTooSoon == 1 + 6, "the 4th at once, and the next second's six within a second of a 429")
        #expect(provider.tooManyRequests.fasterSeconds == 1, "4 requests with 429s, then 6")
        #expect(Self.finding(.ignored429, in: provider)?.count == 7)
        #expect(Self.finding(.fasterAfter429, in: provider)?.count == 1)
    }

    @Test func backgroundPushesAtPriority10AndExpirationsInMillisecondsAreFound() throws {
        let (harness, recorder) = try Self.harness()
        harness.send(headers: [("apns-push-type", "background"), ("apns-priority", "10")], body: #"{"aps":{"content-available":1}}"#)
        harness.send(headers: [("apns-push-type", "background"), ("apns-priority", "5")], body: #"{"aps":{"content-available":1},"n":2}"#)
        harness.send(headers: [("apns-expiration", String(Harness.start + 3_600_000))], body: Self.body(3))
        harness.send(headers: [("apns-expiration", String(Harness.start / 1000 + 3600))], body: Self.body(4))
        let provider = try Self.provider(recorder)
        #expect(Self.finding(.backgroundPriority10, in: provider)?.count == 1)
        #expect(Self.finding(.expirationBeyondStorage, in: provider)?.count == 1)
    }

    @Test func aConnectionThatFillsItsStreamsIsFoundAndSoIsOneClosedForErrors() throws {
        let (harness, recorder) = try Self.harness { policy in
            policy.maxConcurrentStreams = 3
            policy.errorBudgetPerConnection = 2
            policy.throttleStreamsAfterRejection = false
        }
        for number in 0..<3 { harness.send(body: Self.body(number), answeredAfterNanoseconds: nil) }
        #expect(recorder.report(now: Harness.start).providers.isEmpty, "a busy connection tells the recorder every 100 ms")
        harness.clock.advance(milliseconds: APNsProviderConnection.reportBatch.milliseconds)
        harness.connection.flushRecords()
        var provider = try Self.provider(recorder, now: harness.clock.now())
        #expect(provider.peakConcurrency == 3 && provider.streamLimit == 3)
        #expect(Self.finding(.streamLimitReached, in: provider)?.count == 1, "open, at its limit")
        for _ in 0..<3 { harness.connection.answerWasSent(afterNanoseconds: 1_000_000) }
        harness.connection.streamLimitWasExceeded()
        harness.send(topic: nil)
        harness.send(topic: nil)
        harness.connection.connectionDidClose()
        provider = try Self.provider(recorder)
        #expect(Self.finding(.streamLimitExceeded, in: provider)?.count == 1)
        #expect(Self.finding(.closedForErrors, in: provider)?.count == 1)
        let connection = try #require(recorder.report(now: Harness.start).connections.first)
        #expect(connection.goAway == .missingTopic && connection.closedForErrors && connection.closedAt != nil)
    }

    @Test func streamsRefusedBeforeTheFirstRequestAreThatProvidersOnceItIsKnown() throws {
        let (harness, recorder) = try Self.harness()
        harness.connection.peerWasActive()
        for _ in 0..<99 { harness.connection.streamLimitWasExceeded() }
        harness.send()
        let report = recorder.report(now: Harness.start)
        #expect(report.providers.count == 1, "nothing is left to an unauthenticated provider")
        let finding = try #require(Self.finding(.streamLimitExceeded, in: try Self.provider(recorder)))
        #expect(finding.count == 99 && finding.examples.count == 1)
        #expect(finding.examples[0].contains("99 streams refused"))
    }

    @Test func aCertificateIsItsOwnProvider() throws {
        let (harness, recorder) = try Self.harness(mode: .certificate)
        harness.send()
        let provider = try Self.provider(recorder)
        guard case .certificate(let subject) = provider.provider else { Issue.record("\(provider.provider)"); return }
        #expect(provider.provider.matches("com.example.app") && subject.contains("com.example.app"))
        #expect(recorder.report(now: Harness.start).narrowed(to: "TEAMKEY001").providers.isEmpty)
    }

    @Test func clearingForgetsWhatWasRecordedButFollowsOpenConnections() throws {
        let (harness, recorder) = try Self.harness()
        harness.send(token: TestWorld.unregisteredToken)
        recorder.clear(at: Harness.start + 1)
        harness.send(token: TestWorld.unregisteredToken)
        let report = recorder.report(now: Harness.start + 1)
        let provider = try #require(report.providers.first)
        #expect(provider.requests == 1 && provider.pushesAfter410 == 0, "the 410 before the clear is forgotten")
        #expect(provider.connectionsOpened == 1 && report.connections.first?.requests == 1)
    }

    @Test func aConnectionUsedBeforeAClearIsNoConnectionPerPush() throws {
        let (harness, recorder) = try Self.harness()
        let connections = (10..<13).map { id in
            harness.service.makeConnectionHandler(for: ConnectionInfo(id: UInt64(id), listenerEnvironment: .development))
        }
        func send(on connection: any APNsConnectionHandler, _ number: Int) {
            let headers = [(name: "apns-topic", value: TestWorld.app), (name: "authorization", value: "bearer \(harness.providerToken)")]
            connection.peerWasActive()
            _ = connection.handle(APNsRequest(method: "POST", path: "/3/device/\(TestWorld.devToken)", headers: headers, body: Array(Self.body(number).utf8)))
            connection.flushRecords()
        }
        for (index, connection) in connections.enumerated() {
            for number in 0..<5 { send(on: connection, index * 10 + number) }
        }
        recorder.clear(at: Harness.start)
        for (index, connection) in connections.enumerated() {
            send(on: connection, index * 10 + 9)
            connection.connectionDidClose()
        }
        let provider = try Self.provider(recorder)
        #expect(provider.requests == 3 && provider.connectionsOpened == 3)
        #expect(Self.finding(.connectionPerPush, in: provider) == nil, "\(provider.findings)")
        #expect(provider.requestsPerConnection?.min == 6)
    }
}

@Suite struct LatencyHistogramTests {
    @Test func percentilesAreWithinABucketOfTheTruth() {
        var histogram = LatencyHistogram()
        for value in 1...10_000 { histogram.record(microseconds: UInt32(value * 10)) }
        for fraction in [0.5, 0.9, 0.99] {
            let truth = fraction * 100_000
            let estimate = histogram.percentile(fraction)!
            #expect(abs(estimate - truth) / truth < 0.07, "p\(Int(fraction * 100)): \(estimate) for \(truth)")
        }
        #expect(histogram.maxMicroseconds == 100_000 && histogram.count == 10_000)
        #expect(histogram.meanMicroseconds == 50_005)
    }

    @Test func everyValueHasABucketThatHoldsIt() {
        for value: UInt32 in [0, 1, 7, 8, 9, 15, 16, 1000, 123_456, 4_000_000_000, .max] {
            let (low, high) = LatencyHistogram.bounds(of: LatencyHistogram.bucket(of: value))
            #expect(Double(value) >= low && (Double(value) < high || value > 3_000_000_000), "\(value): [\(low), \(high))")
        }
    }

    @Test func anEmptyHistogramHasNoPercentiles() {
        #expect(LatencyHistogram().percentile(0.5) == nil && LatencyHistogram().meanMicroseconds == nil)
    }
}

@Suite struct RecentWindowTests {
    @Test func aValueIsRememberedForAWindowAndForgottenAfterTwo() {
        var window = RecentWindow<Int>(windowMilliseconds: 1000, capacity: 10)
        window.keep(1, 42, at: 0)
        #expect(window.recent(1, now: 999)?.value == 42)
        #expect(window.recent(1, now: 1001) == nil, "older than a window")
        window.keep(2, 7, at: 1500)
        #expect(window.recent(2, now: 2400)?.value == 7, "kept across a turnover")
        #expect(window.recent(2, now: 5000) == nil)
    }

    @Test func aFullGenerationTakesNoMore() {
        var window = RecentWindow<Int>(windowMilliseconds: 1000, capacity: 2)
        for key in 0..<3 { window.keep(key, key, at: 10) }
        #expect(window.recent(2, now: 20) == nil && window.recent(1, now: 20)?.value == 1)
    }
}

@Suite struct RecentRequestsTests {
    @Test func theSameRequestWithinTheWindowIsFoundAndOnlyAfterItsTime() {
        let recent = RecentRequests(windowMilliseconds: 1000, slots: 8)
        #expect(recent.exchange(42, time: 100, status: 200, reason: nil) == nil, "first seen")
        let earlier = recent.exchange(42, time: 600, status: 400, reason: .badPriority)
        #expect(earlier?.time == 100 && earlier?.status == 200)
        #expect(recent.exchange(42, time: 500, status: 200, reason: nil) == nil, "told out of order: no retry of a later push")
        #expect(recent.exchange(42, time: 1700, status: 200, reason: nil) == nil, "past the window")
        #expect(recent.exchange(42 + 8, time: 1701, status: 200, reason: nil) == nil, "another request in the same slot")
        #expect(recent.exchange(42, time: 1702, status: 200, reason: nil) == nil, "pushed out of its slot: missed")
    }

    @Test func aSlotKeepsTheAnswerAndTimeAcrossTheTimeFieldsWrap() {
        let recent = RecentRequests(windowMilliseconds: 60_000, slots: 1 << 10)
        let fingerprint = RequestFingerprint.finish(7)
        let wrap: EpochMilliseconds = 1 << 30
        for (offset, status, reason) in [(0, 429, APNsErrorReason.tooManyRequests), (1, 503, .serviceUnavailable), (2, 418, nil)] {
            let base = 1_767_225_600_000 + Int64(offset) * 1_000_000
            _ = recent.exchange(fingerprint, time: wrap * 5 - 10 + base % wrap, status: status, reason: reason)
            let earlier = recent.exchange(fingerprint, time: wrap * 5 + 20 + base % wrap, status: 200, reason: nil)
            #expect(earlier?.time == wrap * 5 - 10 + base % wrap, "30 ms earlier")
            #expect(earlier?.status == (status == 418 ? 0 : status), "a status APNs never answers is kept as 0")
            #expect(earlier?.reason == reason)
        }
    }

    /// Both event loops replace slots at once: every retry of a request told once is found once.
    @Test func loopsSharingTheTableFindEachRetryOnce() async {
        let recent = RecentRequests(windowMilliseconds: 60_000, slots: 1 << 16)
        let found = await withTaskGroup(of: Int.self) { group in
            for loop in 0..<2 {
                group.addTask {
                    var retries = 0
                    for number in 0..<5_000 {
                        let fingerprint = RequestFingerprint.finish(UInt64(loop * 1_000_000 + number))
                        if recent.exchange(fingerprint, time: 1_000, status: 200, reason: nil) != nil { retries += 1 }
                        if recent.exchange(fingerprint, time: 1_001, status: 200, reason: nil) != nil { retries += 1 }
                    }
                    return retries
                }
            }
            return await group.reduce(0, +)
        }
        // A few requests share a slot with the other loop's and push each other out: 10,000 in 65,536 slots.
        #expect(found > 9_800 && found <= 10_000, "\(found)")
    }

    @Test func fingerprintsTellRequestsApart() {
        func fingerprint(_ text: String) -> UInt64 {
            Array(text.utf8).withUnsafeBytes { RequestFingerprint.finish(RequestFingerprint.mix(RequestFingerprint.start, $0)) }
        }
        let bodies = (0..<10_000).map { #"{"aps":{"alert":"Order #\#($0) has shipped"}}"# }
        #expect(Set(bodies.map(fingerprint)).count == bodies.count)
        #expect(fingerprint("abc") == fingerprint("abc") && fingerprint("abc") != fingerprint("abd"))
        #expect(RequestFingerprint.of(DeviceTokenKey(TestWorld.devToken)) != RequestFingerprint.of(DeviceTokenKey(TestWorld.prodToken)))
    }
}
