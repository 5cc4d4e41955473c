import Logging
import PushlabCore
import PushlabRedis
import PushlabStore
import Synchronization

/// A cluster node's `PushSink`: it decides nothing at once (`verdictNow` is nil), and the
/// answers wait for `decide`. Each push the rules accepted goes through the engine's intake
/// script on the master of its device's partition (410, the token's 429 window across nodes,
/// the append to the partition's log); a broadcast is appended for every node's phones; a channel change reaches every
/// node's world. An engine that cannot be reached makes the item a 500, accepted nowhere. The
/// phones get what was accepted from the engine's log (`PartitionDelivery`), not from here.
///
/// The pushes go through `IntakeLanes`: a read's pushes, and every other read's that arrive
/// while a master is busy, in one script call a master.
public final class EnginePushSink: PushSink {
    private let lanes: IntakeLanes
    private let logger: Logger
    /// Behind a reference: a `Mutex` holding the closure itself would wrap it in another
    /// reabstraction thunk at every access.
    private final class ChannelPublisher: Sendable {
        let publish: @Sendable (ChannelChange) async -> Bool
        init(_ publish: @escaping @Sendable (ChannelChange) async -> Bool) { self.publish = publish }
    }

    private let channelPublisher = Mutex<ChannelPublisher?>(nil)

    public init(intake: EngineIntake, logger: Logger = Logger(label: "pushlab.cluster")) {
        lanes = IntakeLanes(intake: intake)
        self.logger = logger
    }

    /// The payload goes to the engine as the provider sent it; the phone's node parses it.
    public var needsPayload: Bool { false }

    /// Every push the rules accepted, a bare token's too: its 429 window is counted in the engine.
    public func takesPushes(toDevice deviceID: String?) -> Bool { true }

    /// Never handed a push as decided: every verdict is `decide`'s.
    public func accept(_ push: AcceptedPush) {}

    public func verdictNow(tokenAdmitted: () -> Bool?) -> AdmissionVerdict? { nil }

    public func verdictNow(on item: SinkItem) -> AdmissionVerdict? { nil }

    public func decide(_ items: [SinkItem], limit: APNsPolicy.RateLimit?, done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
        let lanes = lanes
        let logger = logger
        let publisher = channelPublisher.withLock { $0 }
        Task {
            var verdicts = [AdmissionVerdict](repeating: .failed, count: items.count)
            var pushes: [Int] = []
            var submissions: [EngineIntake.Submission] = []
            var others: [Int] = []
            for (index, item) in items.enumerated() {
                guard case .push(let push) = item else {
                    others.append(index)
                    continue
                }
                pushes.append(index)
                submissions.append(EngineIntake.Submission(
                    push: AcceptedPushEncoding.encode([push]), token: push.deviceToken, deviceID: push.deviceID, now: push.receivedAt, limit: limit
                ))
            }
            let pushIndices = pushes, pushSubmissions = submissions
            await withTaskGroup(of: [(Int, AdmissionVerdict)].self) { group in
                if !pushSubmissions.isEmpty {
                    group.addTask {
                        let answers = await lanes.accept(pushSubmissions)
                        return zip(pushIndices, answers).map { index, answer in (index, Self.verdict(answer, logger: logger)) }
                    }
                }
                for index in others {
                    let item = items[index]
                    group.addTask {
                        switch item {
                        case .push: return []
                        case .broadcast(let broadcast): return [(index, await Self.append(broadcast, intake: lanes.intake, logger: logger))]
                        case .channel(let change):
                            guard let publisher else { return [(index, .accepted)] }
                            return [(index, await publisher.publish(change) ? .accepted : .failed)]
                        }
                    }
                }
                for await decided in group {
                    for (index, verdict) in decided { verdicts[index] = verdict }
                }
            }
            done(verdicts)
        }
    }

    /// Where channels created or deleted on this node go: the node, which publishes them to
    /// every other (`ClusterNode.publish(channel:)`). Until it is set, a change stays this
    /// node's.
    public func publishChannels(with publisher: @escaping @Sendable (ChannelChange) async -> Bool) {
        channelPublisher.withLock { $0 = ChannelPublisher(publisher) }
    }

    private static func verdict(_ answer: IntakeLanes.Answer, logger: Logger) -> AdmissionVerdict {
        switch answer {
        case .success(let verdict):
            return AdmissionVerdict(verdict)
        case .failure(let error):
            logger.warning("The engine did not take a push: answered 500", metadata: ["error": "\(error)"])
            return .failed
        }
    }

    private static func append(_ broadcast: AcceptedBroadcast, intake: EngineIntake, logger: Logger) async -> AdmissionVerdict {
        do {
            try await intake.appendBroadcast(BroadcastJSON.encode(broadcast))
            return .accepted
        } catch {
            logger.warning("The engine did not take broadcast \(broadcast.requestID.text): answered 500", metadata: ["error": "\(error)"])
            return .failed
        }
    }
}

extension AdmissionVerdict {
    init(_ verdict: EngineIntake.Verdict) {
        switch verdict {
        case .accepted: self = .accepted
        case .unregistered(let since): self = .unregistered(since: since)
        case .expired(let since): self = .expired(since: since)
        case .tooManyRequests: self = .tooManyRequests
        }
    }
}
