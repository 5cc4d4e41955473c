import PushlabCore

/// JPush as a whole, without I/O: its apps and phones, the custom messages waiting for apps that
/// are not connected, and what it counted for each message (the report API). The adapter sends
/// the APNs requests a push makes, tells the answers back (`apnsAnswered`), and hands the
/// custom messages to the phones' SDKs.
public struct JPushService: Sendable {
    public var directory: JPushDirectory
    /// Registrations and connections, for the report API's user statistics.
    public private(set) var users = JPushUserStatistics()
    private var inboxes: [String: OfflineMessages<JPushCustomMessageDelivery>] = [:]
    private var counts: [Int64: JPushMessageCounts] = [:]
    /// Pushes by their `cid`: the same cid again answers the first push's ids, and sends nothing.
    private var pushesByCID: [String: JPushPushResult.IDs] = [:]
    private var nextMessageID: Int64

    public init(seed: UInt64) {
        directory = JPushDirectory(seed: seed)
        // Message ids are long numbers, as JPush's are, kept below 2^53 so that JSON numbers (the
        // SDK's `_j_msgid`) hold them exactly; the seed only moves where they start.
        nextMessageID = 1_100_000_000_000_000 + Int64(seed % 1_000_000) * 1_000_000_000
    }

    /// The SDK's first start on a phone (`JPushDirectory.register`), counted as a new user.
    public mutating func register(appKey: String, requested: String? = nil, at now: EpochMilliseconds) -> JPushDevice? {
        guard let device = directory.register(appKey: appKey, requested: requested) else { return nil }
        users.registered(device.registrationID, appKey: appKey, at: now)
        return device
    }

    /// `POST /v3/push` from `app`: the APNs requests to make now, the custom messages to hand to
    /// connected apps now; the others wait. `validate`: the same checks, nothing sent or kept.
    public mutating func send(_ push: JPushPush, from app: JPushApp, at now: EpochMilliseconds, validate: Bool = false) -> Result<JPushPushResult, JPushError> {
        let sendNo = push.options.sendNo.map(String.init) ?? "0"
        if let cid = push.cid, let earlier = pushesByCID[cid] {
            return .success(JPushPushResult(ids: earlier, apnsRequests: [], deliveredNow: [], kept: [], repeated: true))
        }
        let devices: [JPushDevice]
        switch directory.resolve(push.audience, appKey: app.appKey) {
        case .success(let found): devices = push.platforms.contains(.ios) ? found : []
        case .failure(let error): return .failure(error)
        }
        if devices.isEmpty { return .failure(JPushError(.noTarget)) }
        let messageID = nextMessageID
        nextMessageID += 1
        let ids = JPushPushResult.IDs(sendNo: sendNo, messageID: messageID)
        if validate { return .success(JPushPushResult(ids: ids, apnsRequests: [], deliveredNow: [], kept: [])) }
        if let cid = push.cid { pushesByCID[cid] = ids }

        var result = JPushPushResult(ids: ids, apnsRequests: [], deliveredNow: [], kept: [])
        var count = JPushMessageCounts()
        for device in devices {
            if let token = device.deviceToken,
               let (plan, _) = push.apnsRequest(for: token, topic: app.bundleID, messageID: messageID, userID: device.userID, storedBadge: device.badge) {
                result.apnsRequests.append((device.registrationID, plan))
                count.apnsTarget += 1
            }
            guard let message = push.message else { continue }
            count.messageTarget += 1
            let delivery = JPushCustomMessageDelivery(messageID: messageID, message: message, registrationID: device.registrationID, offline: false)
            if device.connected {
                result.deliveredNow.append(delivery)
                count.messagesReceived += 1
            } else {
                var delivery = delivery
                delivery.offline = true
                let outcome = inboxes[device.registrationID, default: OfflineMessages(limit: JPushRules.offlineMessagesKept)]
                    .keep(delivery, at: now, timeToLiveMilliseconds: push.options.timeToLive * 1000)
                // A time to live of 0 reaches connected apps only [DOC].
                if outcome != .dropped { result.kept.append(device.registrationID) }
            }
        }
        counts[messageID] = count
        return .success(result)
    }

    /// APNs answered one of a message's requests: a 200 counts as sent (`ios_apns_sent`).
    public mutating func apnsAnswered(messageID: Int64, status: Int) {
        guard status == 200 else { return }
        counts[messageID]?.apnsSent += 1
    }

    /// The app connected to JPush (it started, or came back to the foreground): the custom
    /// messages kept for it, oldest first, each flagged offline.
    public mutating func connect(_ registrationID: String, at now: EpochMilliseconds) -> [JPushCustomMessageDelivery] {
        directory.update(registrationID) { $0.connected = true }
        users.connected(registrationID, at: now)
        let handed = inboxes[registrationID]?.handOver(at: now).map(\.message) ?? []
        for delivery in handed { counts[delivery.messageID]?.messagesReceived += 1 }
        return handed
    }

    public mutating func disconnect(_ registrationID: String, at now: EpochMilliseconds) {
        directory.update(registrationID) { $0.connected = false }
        users.disconnected(registrationID, at: now)
    }

    /// What the report API says of a message; nil for a message id JPush never gave out.
    public func counts(of messageID: Int64) -> JPushMessageCounts? { counts[messageID] }
}

public struct JPushPushResult: Sendable {
    public struct IDs: Sendable, Equatable {
        public var sendNo: String
        public var messageID: Int64

        /// `{"sendno":"0","msg_id":"…"}`: both strings in a success [DOC].
        public var body: String {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("sendno", sendNo)
            writer.field("msg_id", String(messageID))
            writer.endObject()
            return writer.text
        }
    }

    public var ids: IDs
    public var apnsRequests: [(registrationID: String, plan: APNsRequestPlan)]
    public var deliveredNow: [JPushCustomMessageDelivery]
    /// Registration ids whose custom message waits for the app to connect.
    public var kept: [String]
    /// The push's `cid` had been used: these are the first push's ids, and nothing was sent.
    public var repeated = false
}

/// A custom message as JPush's SDK hands it to the app (`kJPFNetworkDidReceiveMessageNotification`):
/// `offline` when it waited for the app to connect.
public struct JPushCustomMessageDelivery: Sendable, Equatable {
    public var messageID: Int64
    public var message: JPushPush.CustomMessage
    public var registrationID: String
    public var offline: Bool
}

/// A message's figures as the report API gives them (`/v3/received`).
public struct JPushMessageCounts: Sendable, Equatable {
    public var apnsTarget = 0
    /// Requests APNs answered 200 (`ios_apns_sent`).
    public var apnsSent = 0
    public var messageTarget = 0
    /// Custom messages handed to the app (`ios_msg_received`).
    public var messagesReceived = 0
}
