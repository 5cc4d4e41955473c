import PushlabCore

/// One APNs request as the store keeps it: `RequestLog.Entry`'s fields, with a sequence that
/// keeps growing across runs.
///
/// A type of its own because `RequestLog.Entry` has no public initializer, so nothing outside
/// PushlabCore can rebuild one from a saved row.
public struct StoredRequest: Sendable, Equatable {
    /// The request log's sequence plus the newest sequence saved before this run: the log starts
    /// again at 1 in every process, the store's numbering does not.
    public var sequence: Int64
    public var time: EpochMilliseconds
    public var connectionID: UInt64
    public var environment: APNsEnvironment
    public var deviceToken: String?
    public var topic: String?
    public var pushType: String?
    public var status: Int
    public var reason: APNsErrorReason?
    public var apnsID: String

    public init(
        sequence: Int64, time: EpochMilliseconds, connectionID: UInt64, environment: APNsEnvironment,
        deviceToken: String?, topic: String?, pushType: String?, status: Int, reason: APNsErrorReason?, apnsID: String
    ) {
        self.sequence = sequence
        self.time = time
        self.connectionID = connectionID
        self.environment = environment
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
    }

    /// `entry` as saved by a store whose previous runs ended at `sequenceBase`.
    public init(_ entry: RequestLog.Entry, sequenceBase: Int64 = 0) {
        self.init(
            sequence: sequenceBase + entry.sequence, time: entry.time, connectionID: entry.connectionID,
            environment: entry.environment, deviceToken: entry.deviceToken, topic: entry.topic,
            pushType: entry.pushType, status: entry.status, reason: entry.reason, apnsID: entry.apnsID
        )
    }
}
