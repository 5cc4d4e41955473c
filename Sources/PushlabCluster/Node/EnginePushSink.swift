import Logging
import PushlabCore
import PushlabRedis
import PushlabStore
import Synchronization

/// A cluster node's `PushSink`: it decides nothing at once (`verdictNow` is nil), and the
/// answers wait for `decide`. Each push the rules accepted goes through the engine's intake
/// script on the master of its device's partition (410, the token's 429 window across nodes,
/// the append to the partition's log), all of a read's pushes at once on the pipelined
/// connections; a broadcast is appended for every node's phones; a channel change reaches every
/// node's world. An engine that cannot be reached makes the item a 500, accepted nowhere. The
/// phones get what was accepted from the engine's log (`PartitionDelivery`), not from here.
public final class EnginePushSink: PushSink {
    private let intake: EngineIntake
    private let logger: Logger
    /// Behind a reference: a `Mutex` holding the closure itself would wrap it in another
    /// reabstraction thunk at every access.
    private final class ChannelPublisher: Sendable {
        let publish: @Sendable (ChannelChange) async -> Bool
        init(_ publish: @escaping @Sendable (ChannelChange) async -> Bool) { self.publish = publish }
    }

    private let channelPublisher = Mutex<ChannelPublisher?>(nil)

    public init(intake: EngineIntake, logger: Logger = Logger(label: "pushlab.cluster")) {
        self.intake = intake
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
        let intake = intake
        let logger = logger
        let publisher = channelPublisher.withLock { $0 }
        Task {
            let verdicts = await withTaskGroup(of: (Int, AdmissionVerdict).self) { group in
                for index in items.indices {
                    let item = items[index]
                    group.addTask {
                        switch item {
                        case .push(let push): return (index, await Self.decide(push, limit: limit, intake: intake, logger: logger))
                        case .broadcast(let broadcast): return (index, await Self.append(broadcast, intake: intake, logger: logger))
                        case .channel(let change):
                            guard let publisher else { return (index, .accepted) }
                            return (index, await publisher.publish(change) ? .accepted : .failed)
                        }
                    }
                }
                var verdicts = [AdmissionVerdict](repeating: .failed, count: items.count)
                for await (index, verdict) in group { verdicts[index] = verdict }
                return verdicts
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

    private static func decide(_ push: AcceptedPush, limit: APNsPolicy.RateLimit?, intake: EngineIntake, logger: Logger) async -> AdmissionVerdict {
        do {
            let verdict = try await intake.accept(
                AcceptedPushEncoding.encode([push]), token: push.deviceToken, deviceID: push.deviceID, now: push.receivedAt, limit: limit
            )
            return AdmissionVerdict(verdict)
        } catch {
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
