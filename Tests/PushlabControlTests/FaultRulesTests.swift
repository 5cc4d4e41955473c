import PushlabCore
import Testing

@Suite("FaultRules: which requests a rule picks, and when it expires")
struct FaultRulesTests {
    static let token = String(repeating: "ab", count: 32)
    static let other = String(repeating: "cd", count: 32)
    let connection = ConnectionInfo(id: 1, listenerEnvironment: .development)

    func request(token: String = FaultRulesTests.token, topic: String? = "com.example.app") -> APNsRequest {
        APNsRequest(path: "/3/device/\(token)", headers: topic.map { [("apns-topic", $0)] } ?? [])
    }

    func faults(_ rules: FaultRules, _ requests: [APNsRequest]) -> [Fault?] {
        requests.map { rules.fault(for: $0, connection: connection, now: 0) }
    }

    @Test func noRulesLetEverythingThrough() {
        #expect(FaultRules().fault(for: request(), connection: connection, now: 0) == nil)
        #expect(!FaultRules().mayFault, "a connection does not even hand the request over")
    }

    @Test func deviceTokenAndTopicNarrowTheRule() throws {
        let rules = FaultRules()
        try rules.add(FaultRule(deviceToken: Self.token.uppercased(), topic: "com.example.app", fault: .respond(.internalServerError)))
        #expect(rules.fault(for: request(), connection: connection, now: 0) == .respond(.internalServerError), "tokens compare in any case")
        #expect(rules.fault(for: request(token: Self.other), connection: connection, now: 0) == nil)
        #expect(rules.fault(for: request(topic: "com.example.other"), connection: connection, now: 0) == nil)
        #expect(rules.fault(for: request(topic: nil), connection: connection, now: 0) == nil)
        #expect(rules.fault(for: APNsRequest(path: "/3/nonsense"), connection: connection, now: 0) == nil)
        #expect(rules.rules.first?.matched == 1 && rules.rules.first?.fired == 1)
    }

    @Test func everyNthCountsOnlySelectedRequests() throws {
        let rules = FaultRules()
        try rules.add(FaultRule(deviceToken: Self.token, everyNth: 3, fault: .resetStream))
        let seen = faults(rules, [request(), request(token: Self.other), request(), request(), request(), request(), request()])
        #expect(seen == [nil, nil, nil, .resetStream, nil, nil, .resetStream])
        #expect(rules.rules.first?.matched == 6)
        #expect(rules.rules.first?.fired == 2)
    }

    @Test func countExpiresTheRule() throws {
        let rules = FaultRules()
        let added = try rules.add(FaultRule(count: 2, fault: .closeConnection))
        #expect(added.id == "fault-1" && added.remaining == 2)
        #expect(rules.mayFault)
        #expect(faults(rules, [request(), request(), request()]) == [.closeConnection, .closeConnection, nil])
        #expect(rules.rules.isEmpty)
        #expect(!rules.mayFault, "a used-up rule stops the per-request check")
    }

    @Test func theFirstRuleThatFiresDecidesAndLaterRulesDoNotSeeTheRequest() throws {
        let rules = FaultRules()
        try rules.add(FaultRule(everyNth: 2, fault: .delay(milliseconds: 250)))
        try rules.add(FaultRule(fault: .goAway(.shutdown)))
        #expect(faults(rules, [request(), request(), request()]) == [.goAway(.shutdown), .delay(milliseconds: 250), .goAway(.shutdown)])
        #expect(rules.rules.map(\.fired) == [1, 2])
        #expect(rules.rules.map(\.matched) == [3, 2])
    }

    @Test func probabilityIsRepeatableWithASeed() throws {
        func draw(seed: UInt64) throws -> [Fault?] {
            let rules = FaultRules(seed: seed)
            try rules.add(FaultRule(probability: 0.5, fault: .respond(.serviceUnavailable)))
            return faults(rules, Array(repeating: request(), count: 200))
        }
        let first = try draw(seed: 42)
        #expect(try draw(seed: 42) == first)
        let fired = first.compactMap { $0 }.count
        #expect((70...130).contains(fired), "about half of 200, got \(fired)")
        #expect(try draw(seed: 43) != first)
    }

    @Test func probabilityZeroNeverAndOneAlways() throws {
        let never = FaultRules(seed: 1)
        try never.add(FaultRule(probability: 0, fault: .resetStream))
        #expect(faults(never, Array(repeating: request(), count: 50)).allSatisfy { $0 == nil })
        let always = FaultRules(seed: 1)
        try always.add(FaultRule(probability: 1, fault: .resetStream))
        #expect(faults(always, Array(repeating: request(), count: 50)).allSatisfy { $0 == .resetStream })
    }

    @Test(arguments: [
        (FaultRule(everyNth: 0, fault: .resetStream), "everyNth must be from 1 to 9007199254740991, not 0"),
        (FaultRule(everyNth: Int.max, fault: .resetStream), "everyNth must be from 1 to 9007199254740991"),
        (FaultRule(count: 9_007_199_254_740_992, fault: .resetStream), "count must be from 1 to 9007199254740991"),
        (FaultRule(probability: 1.5, fault: .resetStream), "probability must be between 0 and 1"),
        (FaultRule(count: 0, fault: .resetStream), "count must be from 1 to 9007199254740991, not 0"),
        (FaultRule(fault: .delay(milliseconds: -1)), "delayMs must be from 0 to 3600000"),
        (FaultRule(fault: .delay(milliseconds: 3_600_001)), "delayMs must be from 0 to 3600000"),
        (FaultRule(deviceToken: "", fault: .resetStream), "deviceToken must not be empty"),
        (FaultRule(topic: "", fault: .resetStream), "topic must not be empty"),
    ])
    func unusableRulesAreRefused(rule: FaultRule, message: String) {
        #expect(throws: FaultRules.Problem.self) { try FaultRules().add(rule) }
        #expect(rule.problem?.contains(message) == true, "\(rule.problem ?? "no problem")")
    }

    @Test func removeOneOrAll() throws {
        let rules = FaultRules()
        let first = try rules.add(FaultRule(fault: .resetStream))
        try rules.add(FaultRule(fault: .closeConnection))
        #expect(rules.remove(id: first.id))
        #expect(!rules.remove(id: first.id))
        #expect(faults(rules, [request()]) == [.closeConnection])
        rules.removeAll()
        #expect(faults(rules, [request()]) == [nil])
        #expect(!rules.mayFault)
    }

    @Test func manyEventLoopsAtOnceCountEveryRequest() async throws {
        let rules = FaultRules()
        try rules.add(FaultRule(everyNth: 10, fault: .resetStream))
        let request = request()
        let connection = connection
        let fired = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<1000).filter { _ in rules.fault(for: request, connection: connection, now: 0) != nil }.count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(fired == 800)
        #expect(rules.rules.first?.matched == 8000)
    }

    @Test func splitMixIsTheReferenceSequence() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }
}
