@testable import PushlabCore
import Synchronization
import Testing

/// A sink that decides later (a cluster's engine, `PushSink.verdictNow` nil): a push the rules
/// accept waits for it, and its verdict makes the answer, its record, the error charge and the
/// stream limit. The same sink counts fault rules, as the engine does.
@Suite("A sink that decides later")
struct DecidingSinkTests {
    /// Hands out verdicts chosen by the test, keeping what it was asked.
    final class ScriptedSink: PushSink, FaultCounter {
        private let state = Mutex<(asked: [[SinkItem]], limits: [APNsPolicy.RateLimit?], done: [@Sendable ([AdmissionVerdict]) -> Void])>(([], [], []))

        /// Broadcasts and channels get these when their `decide` is answered.
        let broadcastVerdict: AdmissionVerdict
        let channelVerdict: AdmissionVerdict

        init(broadcastVerdict: AdmissionVerdict = .accepted, channelVerdict: AdmissionVerdict = .accepted, checkResults: [FaultCheckResult]? = []) {
            self.broadcastVerdict = broadcastVerdict
            self.channelVerdict = channelVerdict
            self.checkResults = Mutex(checkResults)
        }

        func accept(_ push: AcceptedPush) {
            Issue.record("a sink that decides later is never handed a decided push")
        }

        func verdictNow(tokenAdmitted: () -> Bool?) -> AdmissionVerdict? { nil }
        func verdictNow(on item: SinkItem) -> AdmissionVerdict? { nil }

        func decide(_ items: [SinkItem], limit: APNsPolicy.RateLimit?, done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
            state.withLock {
                $0.asked.append(items)
                $0.limits.append(limit)
                $0.done.append(done)
            }
        }

        /// Fault checks are answered at once, each with the next of these; nil: the counter
        /// cannot be asked.
        private let checkResults: Mutex<[FaultCheckResult]?>
        private let checks = Mutex<[FaultCheck]>([])
        var askedChecks: [FaultCheck] { checks.withLock { $0 } }

        func check(_ faults: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void) {
            checks.withLock { $0 += faults }
            let results = checkResults.withLock { results -> [FaultCheckResult] in
                guard let all = results else { return [] }
                results = Array(all.dropFirst(faults.count))
                return Array(all.prefix(faults.count))
            }
            done(results)
        }

        private var items: [SinkItem] { state.withLock { $0.asked.flatMap { $0 } } }
        /// The pushes of each `decide`, in order.
        var asked: [[AcceptedPush]] {
            state.withLock { $0.asked }.map { $0.compactMap { if case .push(let push) = $0 { push } else { nil } } }
        }
        var askedBroadcasts: [AcceptedBroadcast] { items.compactMap { if case .broadcast(let broadcast) = $0 { broadcast } else { nil } } }
        var askedChannels: [ChannelChange] { items.compactMap { if case .channel(let change) = $0 { change } else { nil } } }
        var limits: [APNsPolicy.RateLimit?] { state.withLock { $0.limits } }

        /// Answers the oldest `decide` not answered, if any: its pushes get `verdicts` in order,
        /// its broadcasts and channels the preset ones. The answer stops at the first push
        /// `verdicts` leaves out, as a short answer would.
        func answer(_ verdicts: [AdmissionVerdict]) {
            guard let (items, done) = state.withLock({ state in state.done.isEmpty ? nil : (state.asked[state.asked.count - state.done.count], state.done.removeFirst()) }) else { return }
            var next = verdicts.makeIterator()
            var answered: [AdmissionVerdict] = []
            for item in items {
                switch item {
                case .push:
                    guard let verdict = next.next() else { return done(answered) }
                    answered.append(verdict)
                case .broadcast: answered.append(broadcastVerdict)
                case .channel: answered.append(channelVerdict)
                }
            }
            done(answered)
        }
    }

    /// Requests the verdicts on what is held, has the sink answer, and returns the outcomes.
    private func admit(_ harness: Harness, _ sink: ScriptedSink, verdicts: [AdmissionVerdict]) throws -> [APNsOutcome] {
        let answered = Mutex<(AnswerTicket, [AdmissionVerdict])?>(nil)
        let ticket = try #require(harness.connection.requestVerdicts { ticket, verdicts in answered.withLock { $0 = (ticket, verdicts) } })
        sink.answer(verdicts)
        let (got, given) = try #require(answered.withLock { $0 })
        #expect(got == ticket)
        return harness.connection.finishHeldAnswers(ticket, verdicts: given)
    }

    @Test func aPushTheRulesAcceptWaitsForTheEngineAndIsRecordedAsItDecides() throws {
        let engine = ScriptedSink()
        let harness = try Harness(.token, decidingSink: engine)
        let first = harness.send(body: #"{"aps":{"alert":"one"}}"#)
        let second = harness.send(body: #"{"aps":{"alert":"two"}}"#)
        let refused = harness.send(topic: TestWorld.rivalApp)
        #expect(first.isHeld && second.isHeld && first.response?.status == 200)
        #expect(!refused.isHeld && refused.response?.status == 400, "what the rules refuse is answered at once")
        #expect(harness.log.entries().map(\.status) == [400], "nothing recorded before the verdict")
        #expect(harness.sink.accepted.isEmpty, "the engine's log, not the local sink, takes the pushes")

        let outcomes = try admit(harness, engine, verdicts: [.accepted, .unregistered(since: 1_767_000_000_000)])
        #expect(engine.asked.first?.map(\.deviceToken) == [TestWorld.devToken, TestWorld.devToken])
        #expect(engine.limits.first == APNsPolicy().deviceTokenRateLimit, "the policy's limit goes to the engine")
        #expect(outcomes.map(\.response?.status) == [200, 410])
        #expect(outcomes[0].response?.apnsIDValue == first.response?.apnsIDValue)
        #expect(outcomes[1].response?.reason == .unregistered && outcomes[1].response?.timestamp == 1_767_000_000_000)
        #expect(harness.connection.requestVerdicts { _, _ in } == nil, "nothing left to send")
        harness.connection.flushRecords()
        #expect(harness.log.entries().map(\.status).sorted() == [200, 400, 410])
    }

    /// 429 counts against the connection's error budget and throttles its streams, as a 429 of
    /// the rules does; a failed engine answers 500, which a provider retries.
    @Test func aRefusalByTheEngineIsAnErrorConditionLikeTheRules() throws {
        let engine = ScriptedSink()
        var policy = APNsPolicy()
        policy.errorBudgetPerConnection = 2
        let harness = try Harness(.token, policy: policy, decidingSink: engine)
        for _ in 0..<3 { harness.send() }
        let outcomes = try admit(harness, engine, verdicts: [.tooManyRequests, .failed, .expired(since: 5)])
        #expect(outcomes.map(\.response?.reason) == [.tooManyRequests, .internalServerError, .expiredToken])
        #expect(outcomes[0].actions.contains(.setMaxConcurrentStreams(1)), "a rejection throttles the streams")
        #expect(outcomes[1].actions.contains(.goAway(.internalServerError)), "the second error spends the budget")
        #expect(outcomes[2].response?.timestamp == 5 && !outcomes[2].actions.contains { if case .goAway = $0 { true } else { false } }, "410 is no error condition")
    }

    /// Verdicts missing from an engine's answer never make a 200: those pushes are 500s.
    @Test func aShortAnswerFailsThePushesItLeftOut() throws {
        let engine = ScriptedSink()
        let harness = try Harness(.token, decidingSink: engine)
        harness.send()
        harness.send()
        let outcomes = try admit(harness, engine, verdicts: [.accepted])
        #expect(outcomes.map(\.response?.status) == [200, 500])
    }

    /// The per-token limit is the engine's, across nodes: this node does not count it.
    @Test func theLocalRateLimiterStepsAside() throws {
        let engine = ScriptedSink()
        var policy = APNsPolicy()
        policy.deviceTokenRateLimit = APNsPolicy.RateLimit(requests: 1, perSeconds: 60)
        let harness = try Harness(.token, policy: policy, decidingSink: engine)
        #expect(harness.send().isHeld && harness.send().isHeld)
    }

    /// A broadcast reaches every node's phones through the engine: its 200 waits for the engine
    /// like a push's, in its place among the pushes, and the local sink never sees it.
    @Test(arguments: [AdmissionVerdict.accepted, .failed])
    func aBroadcastWaitsForTheEngineInItsPlace(verdict: AdmissionVerdict) throws {
        let engine = ScriptedSink(broadcastVerdict: verdict)
        let harness = try Harness(.token, decidingSink: engine)
        let channel = try harness.newChannel()
        harness.send()
        let broadcast = harness.broadcast(channel: channel)
        harness.send()
        #expect(broadcast.isHeld && broadcast.response?.status == 200)
        let outcomes = try admit(harness, engine, verdicts: [.accepted, .tooManyRequests])
        #expect(engine.askedBroadcasts.map(\.channelID) == [channel])
        #expect(engine.asked.first?.count == 2, "the pushes go to the engine together")
        // The channel's creation waited for the engine too (201).
        #expect(outcomes.map(\.response?.status) == [201, 200, verdict == .accepted ? 200 : 500, 429])
        #expect(outcomes[2].response?.apnsID == broadcast.response?.apnsID, "the broadcast keeps its request id")
        harness.connection.flushRecords()
        #expect(harness.sink.acceptedBroadcasts.isEmpty, "the engine's logs, not the local sink, take it")
        // With the channel's creation (201).
        #expect(harness.log.entries().map(\.status).sorted() == [201, 200, 429, verdict == .accepted ? 200 : 500].sorted())
    }

    /// A channel made on one node is every node's before its 201 goes; one the engine did not
    /// take is undone here and answered 500.
    @Test(arguments: [AdmissionVerdict.accepted, .failed])
    func aChannelIsEveryNodesBeforeItsAnswer(verdict: AdmissionVerdict) throws {
        let engine = ScriptedSink(channelVerdict: verdict)
        let harness = try Harness(.token, decidingSink: engine)
        let created = harness.connection.handle(APNsRequest(
            method: "POST", path: "/1/apps/\(TestWorld.app)/channels",
            headers: [("authorization", "bearer \(harness.providerToken)")],
            body: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)
        ))
        #expect(created.isHeld && created.response?.status == 201)
        let channelID = try #require(created.response?.channelID)
        let outcomes = try admit(harness, engine, verdicts: [])
        #expect(engine.askedChannels.map { if case .created(let channel) = $0 { channel.id } else { "" } } == [channelID])
        #expect(outcomes.map(\.response?.status) == [verdict == .accepted ? 201 : 500])
        #expect((harness.world.world.channels.channel(channelID, environment: .development) != nil) == (verdict == .accepted))
    }

    /// A fault rule with a count or an everyNth counts every node's requests: the engine says
    /// whether it fires, and the request waits for it; the rules after it, and APNs's, see the
    /// request only when it does not fire.
    @Test func aCountedFaultRuleIsTheEnginesToCount() throws {
        let engine = ScriptedSink(checkResults: [.firesLast, .passes])
        let faults = FaultRules()
        faults.count(in: engine)
        try faults.add(FaultRule(count: 1, fault: .respond(.serviceUnavailable)))
        try faults.add(FaultRule(fault: .delay(milliseconds: 5)))
        let harness = try Harness(.token, faults: faults, decidingSink: engine)
        let first = harness.send()
        let second = harness.send()
        #expect(first.isHeld && first.response == nil && second.isHeld, "both wait for the engine's count")
        let checked = try admit(harness, engine, verdicts: [])
        #expect(engine.askedChecks == Array(repeating: FaultCheck(rule: "fault-1", everyNth: nil, count: 1, lucky: true, fault: .respond(.serviceUnavailable)), count: 2))
        #expect(checked[0].response?.reason == .serviceUnavailable && !checked[0].isHeld, "it fired: its answer")
        #expect(faults.rules.map(\.id) == ["fault-2"], "fired its count on the nodes: gone here too")
        // It passed: the next rule (a delay) and APNs's rules; the 200 waits for the push's verdict.
        #expect(checked[1].isHeld && checked[1].response?.status == 200 && checked[1].delayMilliseconds == 5)
        #expect(try admit(harness, engine, verdicts: [.accepted]).map(\.response?.status) == [200])
        harness.connection.flushRecords()
        #expect(harness.log.entries().map(\.status).sorted() == [200, 503])
    }

    /// An engine that cannot count makes the request a 500, which a provider retries; a rule
    /// without a count or everyNth is decided on the node, before a counted one.
    @Test func anEngineThatCannotCountFailsTheRequest() throws {
        let engine = ScriptedSink(checkResults: nil)
        let faults = FaultRules()
        faults.count(in: engine)
        try faults.add(FaultRule(topic: "com.example.nothing", fault: .respond(.badTopic)))
        try faults.add(FaultRule(everyNth: 2, fault: .resetStream))
        let harness = try Harness(.token, faults: faults, decidingSink: engine)
        harness.send()
        let outcomes = try admit(harness, engine, verdicts: [])
        #expect(engine.askedChecks.map(\.rule) == ["fault-2"] && engine.askedChecks.first?.everyNth == 2)
        #expect(outcomes.map(\.response?.reason) == [.internalServerError])
        #expect(faults.rules.count == 2)
    }

    /// Without a cluster the rules count on their own, as ever.
    @Test func withoutAnEngineTheRulesCountHere() throws {
        let faults = FaultRules()
        try faults.add(FaultRule(count: 1, fault: .respond(.serviceUnavailable)))
        let harness = try Harness(.token, faults: faults)
        #expect(harness.send().response?.reason == .serviceUnavailable)
        #expect(harness.send().response?.status == 200 && faults.rules.isEmpty)
    }
}
