import Logging
import PushlabCore
import PushlabRedis
import PushlabStore
import Synchronization

/// A node's `PushAdmission`: each push the rules accepted goes through the engine's intake
/// script on the master of its device's partition (410, the token's 429 window across nodes,
/// the append to the partition's log), all of a read's pushes at once on the pipelined
/// connections. An engine that cannot be reached makes the push a 500, accepted nowhere.
public final class EngineAdmission: PushAdmission {
    private let intake: EngineIntake
    public let faultCounts: EngineFaultCounts
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
        faultCounts = EngineFaultCounts(client: intake.client, keys: intake.keys)
        self.logger = logger
    }

    public func check(faults checks: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void) {
        let counts = faultCounts
        let logger = logger
        Task {
            do {
                done(try await counts.check(checks))
            } catch {
                logger.warning("The engine did not count \(checks.count) request(s) for fault rules: answered 500", metadata: ["error": "\(error)"])
                done([])
            }
        }
    }

    public func admit(_ pushes: [AcceptedPush], limit: APNsPolicy.RateLimit?, done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
        let intake = intake
        let logger = logger
        Task {
            let verdicts = await withTaskGroup(of: (Int, AdmissionVerdict).self) { group in
                for index in pushes.indices {
                    let push = pushes[index]
                    group.addTask {
                        do {
                            let verdict = try await intake.accept(
                                AcceptedPushEncoding.encode([push]), token: push.deviceToken, deviceID: push.deviceID, now: push.receivedAt, limit: limit
                            )
                            return (index, AdmissionVerdict(verdict))
                        } catch {
                            logger.warning("The engine did not take a push: answered 500", metadata: ["error": "\(error)"])
                            return (index, .failed)
                        }
                    }
                }
                var verdicts = [AdmissionVerdict](repeating: .failed, count: pushes.count)
                for await (index, verdict) in group { verdicts[index] = verdict }
                return verdicts
            }
            done(verdicts)
        }
    }

    /// Where channels created or deleted on this node go: the node, which publishes them to
    /// every other (`ClusterNode.publish(channel:)`).
    public func publishChannels(with publisher: @escaping @Sendable (ChannelChange) async -> Bool) {
        channelPublisher.withLock { $0 = ChannelPublisher(publisher) }
    }

    public func admit(channel change: ChannelChange, done: @escaping @Sendable (AdmissionVerdict) -> Void) {
        guard let publisher = channelPublisher.withLock({ $0 })?.publish else { return done(.accepted) }
        Task { done(await publisher(change) ? .accepted : .failed) }
    }

    public func admit(broadcast: AcceptedBroadcast, done: @escaping @Sendable (AdmissionVerdict) -> Void) {
        let intake = intake
        let logger = logger
        Task {
            do {
                try await intake.appendBroadcast(BroadcastJSON.encode(broadcast))
                done(.accepted)
            } catch {
                logger.warning("The engine did not take broadcast \(broadcast.requestID.text): answered 500", metadata: ["error": "\(error)"])
                done(.failed)
            }
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
