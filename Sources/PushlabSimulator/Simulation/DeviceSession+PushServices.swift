import PushlabCore

/// The push types beyond alerts, silent pushes and Live Activities: PushKit VoIP with CallKit,
/// location pushes, Push to Talk, File Provider, widgets, controls, complications and MDM
/// (docs/SIMULATOR.md section 14 gives each rule's source).
extension DeviceSession {
    /// A push of one of those types that reached the device for `app`.
    mutating func receiveService(_ push: PendingPush, app: Int) {
        let services = device.apps[app].services
        let payload = push.content.userInfo
        switch push.pushType {
        case .voip:
            guard let voip = services?.voip, push.token == voip.token else { return notSetUp(push, app: app, "PushKit VoIP (a PKPushRegistry with the voIP type)", kind: .voip) }
            receiveVoIP(push, voip: voip, app: app)
        case .location:
            guard let location = services?.location, push.token == location.token else { return notSetUp(push, app: app, "a Location Push Service Extension", kind: .location) }
            guard location.entitlement else {
                return record(app, push.apnsIDValue, .dropped(.missingEntitlement, message: "The app lacks the com.apple.developer.location.push entitlement: the location push extension is never launched."))
            }
            guard location.authorization == .always else {
                return record(app, push.apnsIDValue, .dropped(.locationNotAlwaysAuthorized, message: "Location authorization is \(location.authorization.rawValue): a Location Push Service Extension runs only with Always authorization."))
            }
            call(app, .didReceiveLocationPushPayload, push.apnsIDValue, CallbackArguments(userInfo: payload))
        case .pushtotalk:
            guard let talk = services?.pushToTalk, push.token == talk.token else { return notSetUp(push, app: app, "a Push to Talk channel manager", kind: .pushToTalk) }
            guard talk.inChannel else {
                return record(app, push.apnsIDValue, .dropped(.notInChannel, message: "The user is in no Push to Talk channel: the ephemeral push token is inactive until they join one."))
            }
            receivePushToTalk(push, talk: talk, app: app)
        case .fileprovider:
            guard let provider = services?.fileProvider, push.token == provider.token else { return notSetUp(push, app: app, "a File Provider extension", kind: .fileProvider) }
            let container = payload["container-identifier"]?.stringValue ?? payload["aps"]?["container-identifier"]?.stringValue
                ?? "NSFileProviderWorkingSetContainerItemIdentifier"
            var details: [(key: String, value: JSONValue)] = [("container", .string(container))]
            if let domain = payload["domain"]?.stringValue { details.append(("domain", .string(domain))) }
            record(app, push.apnsIDValue, .system(SystemEvent(.enumeratorSignalled, message: "signalEnumerator(for: \(container))", details: .object(details))))
            call(app, .fileProviderEnumerateChanges, push.apnsIDValue, CallbackArguments(userInfo: payload))
        case .widgets:
            guard var widgets = services?.widgets, push.token == widgets.token else { return notSetUp(push, app: app, "widgets configured for WidgetKit push (iOS 26)", kind: .widgets) }
            let admitted = SlidingWindow(limit: settings.widgetReloadsPerDay, length: SlidingWindow.day).admit(&widgets.reloads, now: now)
            device.apps[app].services!.widgets = widgets
            guard admitted else {
                return record(app, push.apnsIDValue, .dropped(.widgetReloadBudget, message: "The widget used its reload budget (\(settings.widgetReloadsPerDay) in 24 hours): WidgetKit does not reload it."))
            }
            record(app, push.apnsIDValue, .system(SystemEvent(.widgetsReloaded, message: "WidgetKit reloads the app's widget timelines.", details: .object([("reloadsToday", .number(Double(widgets.reloads.count)))]))))
        case .controls:
            guard let controls = services?.controls, push.token == controls.token else { return notSetUp(push, app: app, "controls configured for push (ControlPushHandler, iOS 18)", kind: .controls) }
            record(app, push.apnsIDValue, .system(SystemEvent(.controlsReloaded, message: "The system reloads the control.")))
        case .complication:
            guard var watch = services?.complication, push.token == watch.token else { return notSetUp(push, app: app, "a watchOS complication (PushKit complication type)", kind: .complication) }
            guard watch.onActiveWatchFace else {
                return record(app, push.apnsIDValue, .dropped(.complicationNotOnWatchFace, message: "The complication is not on the watch's active face: watchOS does not deliver the push."))
            }
            let admitted = SlidingWindow(limit: settings.complicationPushesPerDay, length: SlidingWindow.day).admit(&watch.deliveries, now: now)
            device.apps[app].services!.complication = watch
            guard admitted else {
                return record(app, push.apnsIDValue, .dropped(.complicationBudget, message: "Over \(settings.complicationPushesPerDay) complication pushes today: watchOS does not deliver more."))
            }
            record(app, push.apnsIDValue, .system(SystemEvent(.complicationUpdated, message: "The paired watch updates the complication.", details: .object([("pushesToday", .number(Double(watch.deliveries.count)))]))))
        default:
            record(app, push.apnsIDValue, .dropped(.serviceNotSetUp, message: "An \(push.pushType.rawValue) push goes to a device's MDM token, not to an app."))
        }
    }

    // MARK: VoIP

    private mutating func receiveVoIP(_ push: PendingPush, voip: VoIPService, app: Int) {
        let bundleID = device.apps[app].bundleID
        guard !voip.deliveryStopped else {
            record(app, push.apnsIDValue, .dropped(.voipDeliveryStopped, message: "Application \(bundleID) will not be launched because it failed to report an incoming call too many times (or repeatedly crashed.)"))
            return
        }
        // PushKit launches the app whatever its state, force-quit included.
        wakeInBackground(app, launchOptions: .object([]))
        call(app, .pushRegistryDidReceiveIncomingPush, push.apnsIDValue, CallbackArguments(userInfo: push.content.userInfo))
        switch voip.reportsCall {
        case .immediately:
            let caller = Self.caller(in: push.content.userInfo, key: voip.callerKey)
            let presentation = device.locked ? "fullScreen" : "banner"
            record(app, push.apnsIDValue, .system(SystemEvent(
                .incomingCall, message: "Incoming call from \(caller ?? "an unknown caller")",
                details: .object([("caller", caller.map(JSONValue.string) ?? .null), ("presentation", .string(presentation))])
            )))
        case .late, .never:
            var failed = voip
            failed.failedReports += 1
            record(app, push.apnsIDValue, .system(SystemEvent(
                .appTerminated, message: "Killing app because it never posted an incoming call to the system after receiving a PushKit VoIP push.",
                details: .object([("reportsCall", .string(voip.reportsCall.rawValue)), ("failedReports", .number(Double(failed.failedReports)))])
            )))
            terminate(app, by: .system)
            if settings.voipFailuresBeforeStop > 0, failed.failedReports >= settings.voipFailuresBeforeStop {
                failed.deliveryStopped = true
                record(app, push.apnsIDValue, .system(SystemEvent(
                    .voipDeliveryStopped, message: "Application \(bundleID) will not be launched because it failed to report an incoming call too many times (or repeatedly crashed.)"
                )))
            }
            device.apps[app].services!.voip = failed
        }
    }

    /// The caller as the app would pass it to `CXHandle`: the configured key, else the usual ones.
    static func caller(in payload: JSONValue, key: String?) -> String? {
        for name in key.map { [$0] } ?? ["caller", "handle", "from", "callerName"] {
            if let value = payload[name] {
                if let text = value.stringValue { return text }
                if let name = value["name"]?.stringValue ?? value["handle"]?.stringValue { return name }
            }
        }
        return nil
    }

    // MARK: Push to Talk

    private mutating func receivePushToTalk(_ push: PendingPush, talk: PushToTalkService, app: Int) {
        wakeInBackground(app, launchOptions: .object([]))
        call(app, .pushToTalkIncomingPush, push.apnsIDValue, CallbackArguments(userInfo: push.content.userInfo))
        switch talk.result {
        case .activeRemoteParticipant:
            let speaker = push.content.userInfo["activeSpeaker"]?.stringValue ?? push.content.userInfo["speaker"]?.stringValue
            record(app, push.apnsIDValue, .system(SystemEvent(
                .pushToTalkAudio, message: "The system shows \(speaker ?? "the remote participant") speaking and activates the audio session.",
                details: .object([("speaker", speaker.map(JSONValue.string) ?? .null)])
            )))
        case .leaveChannel:
            device.apps[app].services!.pushToTalk!.inChannel = false
            call(app, .pushToTalkDidLeaveChannel, push.apnsIDValue)
            record(app, push.apnsIDValue, .system(SystemEvent(.pushToTalkLeftChannel, message: "The app returned leaveChannel: the user leaves the channel and its token stops receiving pushes.")))
        }
    }

    // MARK: MDM

    /// A push to the device's MDM token: the MDM agent checks in if the PushMagic matches.
    mutating func receiveMDM(_ push: PendingPush) {
        guard let mdm = device.mdm else { return }
        guard device.online else {
            if push.expiresAt <= now {
                let reason: DiscardReason = push.expiresAt == push.receivedAt ? .deliverOnce : .expired
                return record(bundleID: mdm.topic, push.apnsIDValue, .discarded(reason, replacedBy: nil))
            }
            if let older = mdm.storedWhileOffline { record(bundleID: mdm.topic, older.apnsIDValue, .discarded(.replaced, replacedBy: push.apnsID)) }
            device.mdm!.storedWhileOffline = push
            return record(bundleID: mdm.topic, push.apnsIDValue, .stored(expiresAt: push.expiresAt, replacing: mdm.storedWhileOffline?.apnsID))
        }
        record(bundleID: mdm.topic, push.apnsIDValue, .delivered(pushType: push.pushType.rawValue, priority: push.priority))
        let magic = push.content.userInfo["mdm"]?.stringValue
        guard magic == mdm.pushMagic else {
            record(bundleID: mdm.topic, push.apnsIDValue, .dropped(.pushMagicMismatch, message: "The push's mdm value \(magic.map { "\"\($0)\"" } ?? "is missing"): the device's PushMagic is \"\(mdm.pushMagic)\"; the MDM agent ignores it."))
            return
        }
        record(bundleID: mdm.topic, push.apnsIDValue, .system(SystemEvent(.mdmCheckIn, message: "The device connects to its MDM server and asks for commands.")))
    }

    /// Back online: the MDM push APNs held arrives, unless it expired.
    mutating func deliverStoredMDM() {
        guard let stored = device.mdm?.storedWhileOffline else { return }
        device.mdm!.storedWhileOffline = nil
        if stored.expiresAt <= now {
            record(bundleID: device.mdm!.topic, stored.apnsIDValue, .discarded(.expired, replacedBy: nil))
        } else {
            receiveMDM(stored)
        }
    }

    // MARK: Tokens

    /// At launch the app sets up PushKit, location pushes and Push to Talk again and is handed their
    /// tokens; WidgetKit and controls hand theirs over once after the install.
    mutating func announceServiceTokens(_ app: Int, firstLaunch: Bool) {
        guard let services = device.apps[app].services else { return }
        if let voip = services.voip { call(app, .pushRegistryDidUpdateCredentials, nil, CallbackArguments(deviceToken: voip.token)) }
        if let location = services.location, location.entitlement {
            call(app, .locationPushToken, nil, CallbackArguments(deviceToken: location.token))
        }
        if let talk = services.pushToTalk, talk.inChannel { call(app, .pushToTalkEphemeralToken, nil, CallbackArguments(deviceToken: talk.token)) }
        guard firstLaunch else { return }
        if let widgets = services.widgets { call(app, .widgetPushTokenDidChange, nil, CallbackArguments(deviceToken: widgets.token)) }
        if let controls = services.controls { call(app, .controlPushTokensDidChange, nil, CallbackArguments(deviceToken: controls.token)) }
    }

    private mutating func notSetUp(_ push: PendingPush, app: Int, _ part: String, kind: DeviceTokenRecord.Kind) {
        let why = device.apps[app].services?.tokens.contains { $0.kind == kind } == true
            ? "The push went to another token of the app, not its \(kind.rawValue) token."
            : "The app has no \(part)."
        record(app, push.apnsIDValue, .dropped(.serviceNotSetUp, message: why))
    }
}
