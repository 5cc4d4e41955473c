import PushlabCore

/// A phone's app as GeTui knows it: the SDK's client id (cid), the APNs token it forwards, the
/// badge it last set, and whether the app is connected to GeTui now (only while it runs).
public struct GeTuiDevice: Sendable, Equatable {
    public var clientID: String
    public var appID: String
    public var deviceToken: String?
    public var alias: String?
    public var badge = 0
    public var connected = false

    public init(clientID: String, appID: String) {
        self.clientID = clientID
        self.appID = appID
    }
}

/// A transmission as GeTui's SDK hands it to the app (its payload callback): `offline` when it
/// waited for the app to connect, which after an APNs notification it always did [DOC: "可通过…
/// offLine 的值来判断是否经过APNs通道"].
public struct GeTuiTransmission: Sendable, Equatable {
    public var taskID: String
    public var messageID: String
    public var clientID: String
    public var payload: String
    public var offline: Bool
}

/// GeTui as a whole, without I/O: apps, their tokens and phones, and the transmissions waiting
/// for apps that are not connected. The adapter sends the APNs requests a push makes and tells
/// their answers back (`apnsAnswered`: strategy 4 falls back to GeTui's own connection).
public struct GeTuiService: Sendable {
    public private(set) var apps: [String: GeTuiApp] = [:]
    /// The APNs environment each app's portal is set to (the certificate it pushes with).
    public private(set) var environments: [String: APNsEnvironment] = [:]
    public var tokens: [String: GeTuiTokens] = [:]
    public private(set) var devices: [String: GeTuiDevice] = [:]
    private var inboxes: [String: OfflineMessages<GeTuiTransmission>] = [:]
    /// Transmissions sent through APNs under strategy 4, by task and cid, until APNs answers.
    private var awaitingAPNs: [String: (push: GeTuiPush, transmission: GeTuiTransmission)] = [:]
    private let seed: UInt64
    /// Cids, task ids and message ids, the same sequence for the same seed.
    private var ids: APNsIDGenerator

    public init(seed: UInt64) {
        self.seed = seed
        ids = APNsIDGenerator(seed: seed)
    }

    public mutating func add(_ app: GeTuiApp, environment: APNsEnvironment) {
        apps[app.appID] = app
        environments[app.appID] = environment
        tokens[app.appID] = GeTuiTokens(seed: seed ^ FNV1a(app.appID).state)
    }

    /// The SDK's first start of an app on a phone: its cid (32 hexadecimal characters), or
    /// `requested` (a scenario's) when no other phone has it.
    public mutating func register(appID: String, requested: String? = nil) -> GeTuiDevice? {
        guard apps[appID] != nil else { return nil }
        let cid = requested.flatMap { devices[$0] == nil ? $0 : nil } ?? ids.hex(bytes: 16)
        devices[cid] = GeTuiDevice(clientID: cid, appID: appID)
        return devices[cid]
    }

    public mutating func update(_ clientID: String, _ change: (inout GeTuiDevice) -> Void) {
        guard devices[clientID] != nil else { return }
        change(&devices[clientID]!)
    }

    public struct PushResult: Sendable {
        public var taskID: String
        /// Each cid's answer: `successed_online` (over GeTui's connection now) or
        /// `successed_offline` (through APNs, or kept for the app's next start) [DOC].
        public var statuses: [(clientID: String, status: String)]
        public var apnsRequests: [(clientID: String, plan: APNsRequestPlan)]
        public var deliveredNow: [GeTuiTransmission]

        /// `{"code":0,"msg":"","data":{"$taskid":{"$cid":"$status"}}}` [DOC].
        public var body: String {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("code", Int64(0))
            writer.field("msg", "")
            writer.key("data")
            writer.beginObject()
            writer.key(taskID)
            writer.beginObject()
            for (cid, status) in statuses { writer.field(cid, status) }
            writer.endObject()
            writer.endObject()
            writer.endObject()
            return writer.text
        }
    }

    /// A push to `clientIDs` (every phone of the app for `/push/all`), by the push's strategy for
    /// iOS: 1, GeTui's connection if the app is connected, else APNs and the transmission kept;
    /// 2, APNs only; 3, GeTui's connection only (kept if not connected); 4, APNs, and GeTui's
    /// connection if APNs refuses [DOC].
    /// `taskID`: the one `/push/list/message` gave out (`newTaskID`), for its `/push/list/cid`.
    public mutating func send(_ push: GeTuiPush, app: GeTuiApp, clientIDs: [String]?, taskID: String? = nil, at now: EpochMilliseconds) -> Result<PushResult, GeTuiError> {
        let targets: [GeTuiDevice]
        if let clientIDs {
            var found: [GeTuiDevice] = []
            for cid in clientIDs {
                guard let device = devices[cid], device.appID == app.appID else { return .failure(GeTuiError(.invalidParameter, "target user is invalid")) }
                found.append(device)
            }
            targets = found
        } else {
            targets = devices.values.filter { $0.appID == app.appID }.sorted { $0.clientID < $1.clientID }
        }
        let taskID = taskID ?? newTaskID(clientIDs == nil ? "RASA" : clientIDs!.count == 1 ? "RASS" : "RASL", at: now)
        var result = PushResult(taskID: taskID, statuses: [], apnsRequests: [], deliveredNow: [])
        let strategy = push.iosStrategy
        for device in targets {
            let messageID = ids.hex(bytes: 8)
            let transmission: GeTuiTransmission? = if case .transmission(let payload) = push.message {
                GeTuiTransmission(taskID: taskID, messageID: messageID, clientID: device.clientID, payload: payload, offline: false)
            } else {
                nil
            }
            let viaAPNs = strategy == 2 || strategy == 4 || (strategy == 1 && !device.connected)
            var plan: APNsRequestPlan?
            if viaAPNs, let token = device.deviceToken,
               let made = push.apnsRequest(
                   for: token, topic: app.bundleID, environment: environments[app.appID] ?? .production, taskID: taskID, messageID: messageID, storedBadge: device.badge
               ) {
                plan = made.plan
                result.apnsRequests.append((device.clientID, made.plan))
            }
            if strategy != 2, let transmission {
                if strategy == 4 && plan != nil {
                    awaitingAPNs["\(taskID):\(device.clientID)"] = (push, transmission)
                } else if device.connected {
                    result.deliveredNow.append(transmission)
                } else {
                    keep(transmission, for: push, at: now)
                }
            }
            result.statuses.append((device.clientID, device.connected && strategy != 2 && strategy != 4 ? "successed_online" : "successed_offline"))
        }
        return .success(result)
    }

    /// A task id as GeTui makes them: `RASS` (single), `RASL` (list) or `RASA` (all), the day
    /// and 32 hexadecimal digits.
    public mutating func newTaskID(_ prefix: String, at now: EpochMilliseconds) -> String {
        "\(prefix)_\(Self.monthDay(now))_\(ids.hex(bytes: 16))"
    }

    /// APNs answered a push's request for a phone. Under strategy 4 a refusal sends the
    /// transmission over GeTui's connection instead (now, or when the app connects).
    public mutating func apnsAnswered(taskID: String, clientID: String, status: Int, at now: EpochMilliseconds) -> GeTuiTransmission? {
        guard let (push, transmission) = awaitingAPNs.removeValue(forKey: "\(taskID):\(clientID)"), status != 200 else { return nil }
        if devices[clientID]?.connected == true { return transmission }
        keep(transmission, for: push, at: now)
        return nil
    }

    /// The app connected (it started or came to the foreground): the transmissions kept for it,
    /// oldest first, flagged offline.
    public mutating func connect(_ clientID: String, at now: EpochMilliseconds) -> [GeTuiTransmission] {
        update(clientID) { $0.connected = true }
        return inboxes[clientID]?.handOver(at: now).map(\.message) ?? []
    }

    public mutating func disconnect(_ clientID: String) {
        update(clientID) { $0.connected = false }
    }

    private mutating func keep(_ transmission: GeTuiTransmission, for push: GeTuiPush, at now: EpochMilliseconds) {
        guard let ttl = push.timeToLiveMilliseconds else { return }
        var offline = transmission
        offline.offline = true
        _ = inboxes[transmission.clientID, default: OfflineMessages(limit: nil)].keep(offline, at: now, timeToLiveMilliseconds: ttl)
    }

    /// `MMdd` of a time, in UTC, as GeTui's task ids carry it (`RASS_1129_…`).
    static func monthDay(_ time: EpochMilliseconds) -> String {
        let (_, month, day) = CivilTime.civil(fromDays: Int(time / 86_400_000))
        return (month < 10 ? "0" : "") + String(month) + (day < 10 ? "0" : "") + String(day)
    }
}
