import PushlabRedis
import Synchronization

/// Group commit for the intake: one lane a Redis master, with at most one script call on it at
/// a time. Pushes that arrive while a call is out wait, and all of them go in the next one
/// (`EngineIntake.acceptTogether`), so that the busier a master, the more pushes each call
/// carries: every call costs the engine a script, a read of each partition's token states, an
/// append to each partition's log and, on the replica, a transaction around the appends,
/// whatever its number of pushes (Benchmarks/results/2026-12-03-intake-batches.md).
///
/// Within a lane, pushes reach the engine in the order they were handed over: two pushes to
/// one phone are logged in the order they were accepted.
public final class IntakeLanes: Sendable {
    public typealias Answer = Result<EngineIntake.Verdict, RedisError>

    public let intake: EngineIntake
    /// Most pushes in one script call: Lua's `unpack` takes at most about 8,000 values, and a
    /// call holds the master for as long as it runs.
    static let maximumCall = 512

    private struct Waiting {
        var submissions: [EngineIntake.Submission]
        var answer: @Sendable ([Answer]) -> Void
    }

    private struct Lane {
        var waiting: [Waiting] = []
        var busy = false
    }

    private let lanes = Mutex<[RedisEndpoint?: Lane]>([:])

    public init(intake: EngineIntake) {
        self.intake = intake
    }

    /// The engine's verdicts on `submissions`, in their order; each master's share in its lane,
    /// the masters at once. A call that fails fails its pushes (none of them was written).
    public func accept(_ submissions: [EngineIntake.Submission]) async -> [Answer] {
        guard !submissions.isEmpty else { return [] }
        let map = intake.client.slotMap
        var shares: [RedisEndpoint?: [Int]] = [:]
        for (index, submission) in submissions.enumerated() {
            shares[map?.master(ofSlot: intake.keys.slot(intake.partition(of: submission))), default: []].append(index)
        }
        if shares.count == 1, let master = shares.keys.first {
            return await accept(submissions, on: master)
        }
        return await withTaskGroup(of: ([Int], [Answer]).self) { group in
            for (master, indices) in shares {
                group.addTask { (indices, await self.accept(indices.map { submissions[$0] }, on: master)) }
            }
            var answers = [Answer](repeating: .failure(RedisError(.cluster, "not answered")), count: submissions.count)
            for await (indices, shareAnswers) in group {
                for (index, answer) in zip(indices, shareAnswers) { answers[index] = answer }
            }
            return answers
        }
    }

    private func accept(_ submissions: [EngineIntake.Submission], on master: RedisEndpoint?) async -> [Answer] {
        await withCheckedContinuation { continuation in
            let waiting = Waiting(submissions: submissions) { continuation.resume(returning: $0) }
            let starts = lanes.withLock { lanes -> Bool in
                var lane = lanes[master] ?? Lane()
                defer { lanes[master] = lane }
                if lane.busy {
                    lane.waiting.append(waiting)
                    return false
                }
                lane.busy = true
                return true
            }
            if starts { Task { await self.run([waiting], on: master) } }
        }
    }

    /// Calls the engine for `batch`, then for whatever waited meanwhile, until nothing waits.
    private func run(_ first: [Waiting], on master: RedisEndpoint?) async {
        var batch = first
        while !batch.isEmpty {
            let submissions = batch.flatMap(\.submissions)
            var answers: [Answer] = []
            answers.reserveCapacity(submissions.count)
            var start = 0
            while start < submissions.count {
                let call = Array(submissions[start..<min(submissions.count, start + Self.maximumCall)])
                do {
                    answers += try await intake.acceptTogether(call).map(Answer.success)
                } catch {
                    answers += Array(repeating: .failure(error), count: call.count)
                }
                start += call.count
            }
            var at = 0
            for waiting in batch {
                waiting.answer(Array(answers[at..<at + waiting.submissions.count]))
                at += waiting.submissions.count
            }
            batch = lanes.withLock { lanes in
                guard var lane = lanes[master] else { return [] }
                defer { lanes[master] = lane }
                if lane.waiting.isEmpty { lane.busy = false }
                defer { lane.waiting.removeAll(keepingCapacity: true) }
                return lane.waiting
            }
        }
    }
}
