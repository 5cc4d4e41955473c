import PushlabCore

/// The messages a push service keeps for one app on one phone while the app is not connected to
/// it (JPush's custom messages, GeTui's transmissions): each until its time to live runs out, at
/// most `limit` of them (the oldest dropped for a newer one). They are handed over, flagged
/// offline, when the app next connects, which it does only while it runs.
public struct OfflineMessages<Message: Sendable>: Sendable {
    public struct Kept: Sendable {
        public var message: Message
        public var sentAt: EpochMilliseconds
        public var expiresAt: EpochMilliseconds
    }

    public let limit: Int?
    public private(set) var kept: [Kept] = []

    /// `limit`: JPush keeps 5 [DOC]; nil keeps every one within its time to live.
    public init(limit: Int?) {
        self.limit = limit
    }

    public enum Outcome: Sendable, Equatable {
        case kept
        /// A time to live of 0: only a connected app gets it, so it is gone.
        case dropped
        /// Kept, and the oldest kept message made room for it.
        case keptReplacingOldest
    }

    /// Keeps `message` for `timeToLiveMilliseconds` from `now`.
    public mutating func keep(_ message: Message, at now: EpochMilliseconds, timeToLiveMilliseconds: Int64) -> Outcome {
        forgetExpired(now: now)
        guard timeToLiveMilliseconds > 0 else { return .dropped }
        kept.append(Kept(message: message, sentAt: now, expiresAt: now + timeToLiveMilliseconds))
        if let limit, kept.count > limit {
            kept.removeFirst(kept.count - limit)
            return .keptReplacingOldest
        }
        return .kept
    }

    /// What an app that connects at `now` receives, oldest first; the inbox is then empty.
    public mutating func handOver(at now: EpochMilliseconds) -> [Kept] {
        forgetExpired(now: now)
        defer { kept.removeAll() }
        return kept
    }

    /// Messages whose time ran out: never delivered.
    @discardableResult
    public mutating func forgetExpired(now: EpochMilliseconds) -> [Kept] {
        let expired = kept.filter { $0.expiresAt <= now }
        if !expired.isEmpty { kept.removeAll { $0.expiresAt <= now } }
        return expired
    }
}
