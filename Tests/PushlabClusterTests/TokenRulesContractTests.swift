import PushlabCluster
import PushlabCore
import PushlabRedis
import RedisTestServers
import Testing

/// The 410 and 429 of a push are written twice: in Swift (`APNsWorld`'s token states and
/// `DeviceTokenRateLimiter`, which a single process's connections apply) and in the engine's
/// intake script (`EngineIntake`, which a cluster's nodes share so that the answer is atomic).
/// The same cases go through both here, and must answer alike: a change to one rule that the
/// other does not follow fails one side.
@Suite struct TokenRulesContractTests {
    /// What either side answers for a push.
    enum Verdict: Equatable, CustomStringConvertible {
        case accepted
        case unregistered(since: EpochMilliseconds)
        case expired(since: EpochMilliseconds)
        case tooManyRequests

        var description: String {
            switch self {
            case .accepted: "200"
            case .unregistered(let since): "410 Unregistered @\(since)"
            case .expired(let since): "410 ExpiredToken @\(since)"
            case .tooManyRequests: "429"
            }
        }
    }

    /// One side of the contract: a token's state and its rate-limit window.
    protocol Rules: Sendable {
        func push(token: String, at now: EpochMilliseconds) async throws -> Verdict
        func unregister(token: String, at time: EpochMilliseconds) async throws
        func expire(token: String, at time: EpochMilliseconds) async throws
        func reactivate(token: String) async throws
    }

    /// The Swift rules, in the order a connection applies them: the token's state (410) first,
    /// then its window (429); a push refused by either is not counted.
    struct SwiftRules: Rules {
        let world: APNsWorld
        let limiter: DeviceTokenRateLimiter?

        init(tokens: [String], limit: APNsPolicy.RateLimit?) {
            world = APNsWorld(keys: [], apps: [], tokens: tokens.map {
                DeviceTokenRecord(token: $0, bundleID: "com.example.app", environment: .development, deviceID: "phone-\($0)")
            })
            limiter = limit.map(DeviceTokenRateLimiter.init)
        }

        func push(token: String, at now: EpochMilliseconds) -> Verdict {
            switch world.token(token)?.state {
            case .unregistered(let since): return .unregistered(since: since)
            case .expired(let since): return .expired(since: since)
            case .active, nil: break
            }
            guard let limiter else { return .accepted }
            return limiter.admit(DeviceTokenKey(token), now: now) ? .accepted : .tooManyRequests
        }

        func unregister(token: String, at time: EpochMilliseconds) { world.unregister(token: token, at: time) }
        func expire(token: String, at time: EpochMilliseconds) { world.expire(token: token, at: time) }
        func reactivate(token: String) { world.reactivate(token: token) }
    }

    /// The engine's intake script on a real Redis Cluster, each case under a prefix of its own.
    struct EngineRules: Rules {
        let intake: EngineIntake
        let limit: APNsPolicy.RateLimit?

        func push(token: String, at now: EpochMilliseconds) async throws -> Verdict {
            switch try await intake.accept([1], token: token, deviceID: Self.device(token), now: now, limit: limit) {
            case .accepted: .accepted
            case .unregistered(let since): .unregistered(since: since)
            case .expired(let since): .expired(since: since)
            case .tooManyRequests: .tooManyRequests
            }
        }

        func unregister(token: String, at time: EpochMilliseconds) async throws {
            try await intake.unregister(token: token, deviceID: Self.device(token), since: time)
        }

        func expire(token: String, at time: EpochMilliseconds) async throws {
            try await intake.expire(token: token, deviceID: Self.device(token), since: time)
        }

        func reactivate(token: String) async throws {
            try await intake.reactivate(token: token, deviceID: Self.device(token))
        }

        static func device(_ token: String) -> String { "phone-\(token)" }
    }

    /// A step of a case, and what both sides must answer.
    enum Step: CustomStringConvertible {
        case push(String, at: EpochMilliseconds, expect: Verdict)
        case unregister(String, at: EpochMilliseconds)
        case expire(String, at: EpochMilliseconds)
        case reactivate(String)

        var description: String {
            switch self {
            case .push(let token, let at, let verdict): "push \(token) at \(at) → \(verdict)"
            case .unregister(let token, let at): "unregister \(token) at \(at)"
            case .expire(let token, let at): "expire \(token) at \(at)"
            case .reactivate(let token): "reactivate \(token)"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var limit: APNsPolicy.RateLimit?
        var steps: [Step]
        var testDescription: String { name }
    }

    static let a = String(repeating: "a1", count: 32)
    static let b = String(repeating: "b2", count: 32)
    static let minute = APNsPolicy.RateLimit(requests: 3, perSeconds: 60)

    static let cases: [Case] = [
        Case(name: "the limit's pushes in a window are accepted, the next is 429", limit: minute, steps: [
            .push(a, at: 1_000, expect: .accepted), .push(a, at: 1_001, expect: .accepted), .push(a, at: 1_002, expect: .accepted),
            .push(a, at: 1_003, expect: .tooManyRequests), .push(a, at: 60_999, expect: .tooManyRequests),
        ]),
        Case(name: "a window ends at its length from its first push, and a new one starts there", limit: minute, steps: [
            .push(a, at: 1_000, expect: .accepted), .push(a, at: 30_000, expect: .accepted), .push(a, at: 50_000, expect: .accepted),
            .push(a, at: 60_999, expect: .tooManyRequests),
            .push(a, at: 61_000, expect: .accepted), .push(a, at: 61_001, expect: .accepted), .push(a, at: 61_002, expect: .accepted),
            .push(a, at: 61_003, expect: .tooManyRequests),
        ]),
        Case(name: "a push refused with 429 is not counted", limit: minute, steps: [
            .push(a, at: 0, expect: .accepted), .push(a, at: 1, expect: .accepted), .push(a, at: 2, expect: .accepted),
            .push(a, at: 3, expect: .tooManyRequests), .push(a, at: 4, expect: .tooManyRequests), .push(a, at: 5, expect: .tooManyRequests),
            .push(a, at: 60_000, expect: .accepted), .push(a, at: 60_001, expect: .accepted), .push(a, at: 60_002, expect: .accepted),
            .push(a, at: 60_003, expect: .tooManyRequests),
        ]),
        Case(name: "each token has a window of its own", limit: minute, steps: [
            .push(a, at: 0, expect: .accepted), .push(a, at: 1, expect: .accepted), .push(a, at: 2, expect: .accepted),
            .push(b, at: 3, expect: .accepted), .push(a, at: 4, expect: .tooManyRequests), .push(b, at: 5, expect: .accepted),
        ]),
        Case(name: "without a limit no push is 429", limit: nil, steps: (0..<20).map { .push(a, at: Int64($0), expect: .accepted) }),
        Case(name: "an unregistered token answers 410 with the time it was unregistered", limit: minute, steps: [
            .push(a, at: 1_000, expect: .accepted), .unregister(a, at: 1_500),
            .push(a, at: 2_000, expect: .unregistered(since: 1_500)), .push(b, at: 2_001, expect: .accepted),
        ]),
        Case(name: "410 comes before 429, and a push refused with 410 is not counted", limit: minute, steps: [
            .push(a, at: 0, expect: .accepted), .push(a, at: 1, expect: .accepted), .unregister(a, at: 2),
            .push(a, at: 3, expect: .unregistered(since: 2)), .push(a, at: 4, expect: .unregistered(since: 2)),
            .push(a, at: 5, expect: .unregistered(since: 2)), .reactivate(a),
            .push(a, at: 6, expect: .accepted), .push(a, at: 7, expect: .tooManyRequests),
        ]),
        Case(name: "an expired token answers 410 ExpiredToken with its time, until reactivated", limit: nil, steps: [
            .expire(a, at: 7_000), .push(a, at: 8_000, expect: .expired(since: 7_000)), .reactivate(a), .push(a, at: 9_000, expect: .accepted),
        ]),
        Case(name: "a later unregistration's time is the one answered", limit: nil, steps: [
            .unregister(a, at: 100), .push(a, at: 150, expect: .unregistered(since: 100)), .reactivate(a),
            .push(a, at: 200, expect: .accepted), .unregister(a, at: 300), .push(a, at: 400, expect: .unregistered(since: 300)),
        ]),
    ]

    static func run(_ steps: [Step], on rules: some Rules) async throws -> [Verdict] {
        var verdicts: [Verdict] = []
        for step in steps {
            switch step {
            case .push(let token, let at, _): verdicts.append(try await rules.push(token: token, at: at))
            case .unregister(let token, let at): try await rules.unregister(token: token, at: at)
            case .expire(let token, let at): try await rules.expire(token: token, at: at)
            case .reactivate(let token): try await rules.reactivate(token: token)
            }
        }
        return verdicts
    }

    static func expected(_ steps: [Step]) -> [Verdict] {
        steps.compactMap { if case .push(_, _, let verdict) = $0 { verdict } else { nil } }
    }

    @Test("The Swift rules answer each case as it expects", arguments: cases)
    func swiftRules(_ contract: Case) async throws {
        let swift = SwiftRules(tokens: [Self.a, Self.b], limit: contract.limit)
        #expect(try await Self.run(contract.steps, on: swift) == Self.expected(contract.steps))
    }

    /// The engine's rules with each run of pushes between state changes in one intake call, as
    /// `IntakeLanes` sends a busy master's pushes.
    struct BatchedEngineRules {
        let engine: EngineRules

        func run(_ steps: [Step]) async throws -> [Verdict] {
            var verdicts: [Verdict] = []
            var run: [EngineIntake.Submission] = []
            func flush() async throws {
                guard !run.isEmpty else { return }
                for verdict in try await engine.intake.acceptTogether(run) {
                    switch verdict {
                    case .accepted: verdicts.append(.accepted)
                    case .unregistered(let since): verdicts.append(.unregistered(since: since))
                    case .expired(let since): verdicts.append(.expired(since: since))
                    case .tooManyRequests: verdicts.append(.tooManyRequests)
                    }
                }
                run.removeAll()
            }
            for step in steps {
                switch step {
                case .push(let token, let at, _):
                    run.append(EngineIntake.Submission(push: [1], token: token, deviceID: EngineRules.device(token), now: at, limit: engine.limit))
                    continue
                default:
                    try await flush()
                }
                switch step {
                case .push: break
                case .unregister(let token, let at): try await engine.unregister(token: token, at: at)
                case .expire(let token, let at): try await engine.expire(token: token, at: at)
                case .reactivate(let token): try await engine.reactivate(token: token)
                }
            }
            try await flush()
            return verdicts
        }
    }

    @Test("The engine answers each case alike when a run of pushes goes in one call", arguments: cases)
    func batchedEngineRules(_ contract: Case) async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        defer { Task { await client.close() } }
        let prefix = "contract-batch-\(UInt32.random(in: 0...UInt32.max))"
        // One partition, so that both tokens' pushes are on one master.
        let engine = EngineRules(intake: EngineIntake(client: client, keys: EngineKeys(prefix: prefix, partitions: DevicePartitions(count: 1))), limit: contract.limit)
        #expect(try await BatchedEngineRules(engine: engine).run(contract.steps) == Self.expected(contract.steps))
    }

    @Test("The engine's intake script answers each case as the Swift rules do", arguments: cases)
    func engineRules(_ contract: Case) async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        defer { Task { await client.close() } }
        let prefix = "contract-\(UInt32.random(in: 0...UInt32.max))"
        let engine = EngineRules(intake: EngineIntake(client: client, keys: EngineKeys(prefix: prefix, partitions: DevicePartitions(count: 4))), limit: contract.limit)
        let swift = SwiftRules(tokens: [Self.a, Self.b], limit: contract.limit)
        let engineVerdicts = try await Self.run(contract.steps, on: engine)
        #expect(engineVerdicts == (try await Self.run(contract.steps, on: swift)))
        #expect(engineVerdicts == Self.expected(contract.steps))
    }
}
