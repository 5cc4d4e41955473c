import PushlabCore
import PushlabServices
import PushlabSimulator
import Synchronization

/// JPush and GeTui, played for the simulated phones (docs/SERVICES.md): their server APIs (the
/// HTTPS listeners and the control API hand requests to `jpush(_:)` and `getui(_:)`), the
/// apps' SDKs registering and connecting (`ThirdPartySDKConnector`), the messages of each
/// service's own connection, and the notifications they send through Pushlab's APNs as the
/// providers they are. The rules are `PushlabServices`'s; this is the adapter around them.
public final class ServiceHub: ThirdPartySDKConnector, Sendable {
    let simulator: DeviceSimulator
    let apns: ServiceAPNsSender
    let state: Mutex<State>
    private let seed: UInt64

    struct State {
        var apps: ServiceApps
        var jpush: JPushService
        var getui: GeTuiService
        /// Where each SDK registration lives, and each app's id.
        var phones: [PhoneKey: PhoneAddress] = [:]
        var ids: [PhoneKey: String] = [:]
        /// `/push/list/message`'s pushes, by task id, for `/push/list/cid`.
        var listTasks: [String: (push: GeTuiPush, appID: String)] = [:]
        /// What each GeTui task did, for the report API.
        var getuiTasks: [String: GeTuiTaskCounts] = [:]
        var log = ServiceMessageLog()
        var rates: [String: (minute: EpochMilliseconds, count: Int)] = [:]
        /// The GeTui token each app's backend holds for `call`.
        var backendTokens: [String: String] = [:]
    }

    struct PhoneKey: Hashable {
        var service: ThirdPartySDK.Service
        var id: String
    }

    struct PhoneAddress: Equatable {
        var deviceID: String
        var bundleID: String

        /// The app's key in `ids`.
        func key(_ service: ThirdPartySDK.Service) -> PhoneKey { PhoneKey(service: service, id: deviceID + "\u{0}" + bundleID) }
    }

    /// `apps`: the portals' apps (a scenario's `services:`); `seed`: ids follow it.
    public init(simulator: DeviceSimulator, apps: ServiceApps = ServiceApps(), seed: UInt64 = 0x5EED_0048) {
        self.simulator = simulator
        self.seed = seed
        let clock = simulator.clock
        apns = ServiceAPNsSender(now: { clock.now() })
        state = Mutex(Self.fresh(apps, seed: seed))
    }

    private static func fresh(_ apps: ServiceApps, seed: UInt64) -> State {
        var jpush = JPushService(seed: seed)
        for app in apps.jpush { jpush.directory.add(app) }
        var getui = GeTuiService(seed: seed)
        for entry in apps.getui { getui.add(entry.app, environment: entry.environment) }
        return State(apps: apps, jpush: jpush, getui: getui)
    }

    /// Back to `apps` with nothing registered, kept or sent (a reset, a scenario loaded): the
    /// phones were reset too, and register again at their next launch.
    public func reset(to apps: ServiceApps) {
        state.withLock { $0 = Self.fresh(apps, seed: seed) }
    }

    public var apps: ServiceApps { state.withLock { $0.apps } }

    /// Adds (or replaces, by appKey or appId) a portal's app.
    public func add(jpush app: JPushApp) {
        state.withLock { state in
            state.apps.jpush.removeAll { $0.appKey == app.appKey }
            state.apps.jpush.append(app)
            state.jpush.directory.add(app)
        }
    }

    public func add(getui entry: GeTuiPortalApp) {
        state.withLock { state in
            state.apps.getui.removeAll { $0.app.appID == entry.app.appID }
            state.apps.getui.append(entry)
            state.getui.add(entry.app, environment: entry.environment)
        }
    }

    /// The APNs listeners the services connect to, once bound.
    public func setListeners(_ listeners: [APNsListener]) async {
        await apns.setListeners(listeners)
    }

    public func shutdown() async {
        await apns.closeAll()
    }

    /// The newest messages the services sent, newest last.
    public var messages: [ServiceMessage] { state.withLock { $0.log.messages } }

    var now: EpochMilliseconds { simulator.clock.now() }

    // MARK: The SDKs

    public func handle(_ events: [ThirdPartySDKEvent]) {
        for event in events {
            switch event.kind {
            case .launched: connect(event, up: false)
            case .connected: connect(event, up: true)
            case .disconnected: disconnect(event)
            }
        }
    }

    /// The SDK starts: it registers when it has no id (or one the service does not know, after
    /// the service was reset) and uploads the device token; once `up` (on screen), it takes
    /// what was kept for it.
    private func connect(_ event: ThirdPartySDKEvent, up: Bool) {
        let time = now
        let address = PhoneAddress(deviceID: event.deviceID, bundleID: event.bundleID)
        var registration: (id: String?, errorCode: Int?)?
        let kept: [ThirdPartySDKMessage] = state.withLock { state in
            switch event.service {
            case .jpush:
                var id = event.registrationID.flatMap { state.jpush.directory.devices[$0] == nil ? nil : $0 } ?? state.ids[address.key(.jpush)]
                // Registration is the SDK's start's; a connection without an id adopts the one the phone kept.
                if id == nil, up, event.registrationID == nil { return [] }
                if id == nil {
                    guard let device = state.jpush.register(appKey: event.appKey, requested: event.registrationID ?? event.requestedID, at: time) else {
                        // The SDK's client error 1005: "AppKey 不存在" [DOC].
                        registration = (nil, 1005)
                        return []
                    }
                    id = device.registrationID
                    if event.registrationID != device.registrationID { registration = (device.registrationID, nil) }
                }
                state.jpush.directory.update(id!) { $0.deviceToken = event.deviceToken }
                state.phones[PhoneKey(service: .jpush, id: id!)] = address
                state.ids[address.key(.jpush)] = id
                guard up else { return [] }
                let handed = state.jpush.connect(id!, at: time)
                state.log.handedOver(handed.map { (String($0.messageID), $0.registrationID) }, service: .jpush)
                return handed.map(Self.sdkMessage)
            case .getui:
                var id = event.registrationID.flatMap { state.getui.devices[$0] == nil ? nil : $0 } ?? state.ids[address.key(.getui)]
                if id == nil, up, event.registrationID == nil { return [] }
                if id == nil {
                    // An unknown appId: the SDK never logs in (`GeTuiSdkDidOccurError:`, not observed).
                    guard let device = state.getui.register(appID: event.appKey, requested: event.registrationID ?? event.requestedID) else { return [] }
                    id = device.clientID
                    if event.registrationID != device.clientID { registration = (device.clientID, nil) }
                }
                state.getui.update(id!) { $0.deviceToken = event.deviceToken }
                state.phones[PhoneKey(service: .getui, id: id!)] = address
                state.ids[address.key(.getui)] = id
                guard up else { return [] }
                let handed = state.getui.connect(id!, at: time)
                state.log.handedOver(handed.map { ($0.taskID, $0.clientID) }, service: .getui)
                for transmission in handed { state.getuiTasks[transmission.taskID]?.received += 1 }
                return handed.map(Self.sdkMessage)
            }
        }
        if let registration {
            try? simulator.registerSDK(deviceID: event.deviceID, bundleID: event.bundleID, registrationID: registration.id, errorCode: registration.errorCode)
        }
        for message in kept {
            _ = try? simulator.deliverSDKMessage(deviceID: event.deviceID, bundleID: event.bundleID, message)
        }
    }

    private func disconnect(_ event: ThirdPartySDKEvent) {
        guard let id = event.registrationID else { return }
        let time = now
        state.withLock { state in
            switch event.service {
            case .jpush: state.jpush.disconnect(id, at: time)
            case .getui: state.getui.disconnect(id)
            }
        }
    }

    /// Logs a new message for `targets` (each phone's id and its message's way), with the phones
    /// they are on.
    func log(_ service: ThirdPartySDK.Service, app: String, id: String, at time: EpochMilliseconds, targets: [(id: String, channel: ServiceMessage.Channel?)]) {
        state.withLock { state in
            var entry = ServiceMessage(service: service, appKey: app, id: id, time: time, targets: [])
            for (target, channel) in targets {
                var row = ServiceMessage.Target(id: target, channel: channel)
                let address = state.phones[PhoneKey(service: service, id: target)]
                row.deviceID = address?.deviceID
                row.bundleID = address?.bundleID
                entry.targets.append(row)
            }
            state.log.add(entry)
        }
    }

    /// Hands messages to the phones' SDKs now (the service saw them connected).
    func deliver(_ messages: [(key: PhoneKey, message: ThirdPartySDKMessage)]) {
        let addressed = state.withLock { state in messages.map { (state.phones[$0.key], $0.message) } }
        for (address, message) in addressed {
            guard let address else { continue }
            _ = try? simulator.deliverSDKMessage(deviceID: address.deviceID, bundleID: address.bundleID, message)
        }
    }

    static func sdkMessage(_ delivery: JPushCustomMessageDelivery) -> ThirdPartySDKMessage {
        // The SDK's userInfo: content, title, content_type, extras and _j_msgid [DOC; content_type INF].
        var userInfo: [(key: String, value: JSONValue)] = [("content", .string(delivery.message.content))]
        if let title = delivery.message.title { userInfo.append(("title", .string(title))) }
        if let type = delivery.message.contentType { userInfo.append(("content_type", .string(type))) }
        userInfo.append(("extras", delivery.message.extras ?? .object([])))
        userInfo.append(("_j_msgid", .number(Double(delivery.messageID))))
        return ThirdPartySDKMessage(messageID: String(delivery.messageID), userInfo: .object(userInfo), offline: delivery.offline)
    }

    static func sdkMessage(_ transmission: GeTuiTransmission) -> ThirdPartySDKMessage {
        // `GeTuiSdkDidReceiveSlience`'s userInfo is {"payload": the transmission} [IMPL].
        ThirdPartySDKMessage(
            messageID: transmission.messageID, userInfo: .object([("payload", .string(transmission.payload))]), taskID: transmission.taskID,
            offline: transmission.offline
        )
    }

    /// JPush's 600 calls a minute per app (`X-Rate-Limit-*` on every answer) [DOC]; nil when the
    /// call is over the limit.
    func rateLimitHeaders(for appKey: String, limit: Int = 600) -> [(name: String, value: String)]? {
        let time = now
        return state.withLock { state in
            var window = state.rates[appKey] ?? (time - time % 60_000, 0)
            if time - window.minute >= 60_000 { window = (time - time % 60_000, 0) }
            window.count += 1
            state.rates[appKey] = window
            let reset = max(1, (window.minute + 60_000 - time + 999) / 1000)
            let headers = [("X-Rate-Limit-Limit", String(limit)), ("X-Rate-Limit-Remaining", String(max(0, limit - window.count))), ("X-Rate-Limit-Reset", String(reset))]
            return window.count > limit ? nil : headers
        }
    }
}

/// What a GeTui task did, for `/report/push/task` (`total` and the `gt` and `ios` channels).
struct GeTuiTaskCounts: Sendable {
    var appID: String
    var target = 0
    /// Transmissions handed to the SDK.
    var received = 0
    var apnsTarget = 0
    var apnsSent = 0
}

/// A phone's registration with a service, as `GET /v1/services` lists it.
public struct ServiceRegistration: Sendable {
    public var service: ThirdPartySDK.Service
    /// The registration id or cid.
    public var id: String
    public var appKey: String
    public var deviceID: String?
    public var bundleID: String?
    public var deviceToken: String?
    public var connected: Bool
    public var alias: String?
    public var tags: [String]
    /// The badge the service keeps for `"+1"` and `auto_badge`.
    public var badge: Int
}

extension ServiceHub {
    /// Every registration, JPush's then GeTui's, each in the order of its id.
    public var registrations: [ServiceRegistration] {
        state.withLock { state in
            let jpush = state.jpush.directory.devices.values.sorted { $0.userID < $1.userID }.map { device in
                let address = state.phones[PhoneKey(service: .jpush, id: device.registrationID)]
                return ServiceRegistration(
                    service: .jpush, id: device.registrationID, appKey: device.appKey, deviceID: address?.deviceID, bundleID: address?.bundleID,
                    deviceToken: device.deviceToken, connected: device.connected, alias: device.alias, tags: device.tags.sorted(), badge: device.badge
                )
            }
            let getui = state.getui.devices.values.sorted { $0.clientID < $1.clientID }.map { device in
                let address = state.phones[PhoneKey(service: .getui, id: device.clientID)]
                return ServiceRegistration(
                    service: .getui, id: device.clientID, appKey: device.appID, deviceID: address?.deviceID, bundleID: address?.bundleID,
                    deviceToken: device.deviceToken, connected: device.connected, alias: device.alias, tags: [], badge: device.badge
                )
            }
            return jpush + getui
        }
    }
}
