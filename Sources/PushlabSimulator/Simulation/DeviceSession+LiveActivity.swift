import PushlabCore

/// ActivityKit on the device: push-to-start, updates and ends by token or broadcast, the
/// budget, and the clock's stale dates, eight-hour limit and dismissals (docs/SIMULATOR.md,
/// "Live Activities", gives each rule's source).
extension DeviceSession {
    /// A `liveactivity` push that reached the device for `app`.
    mutating func receiveLiveActivity(_ push: PendingPush, app: Int) {
        guard let support = device.apps[app].liveActivities else {
            ignore(app, push.apnsIDValue, nil, .notSupported, "The app does not declare NSSupportsLiveActivities: iOS has no Live Activity to give the push to.")
            return
        }
        let aps = push.content.userInfo["aps"] ?? .object([])
        let token = push.token ?? device.apps[app].deviceToken
        if token == support.pushToStartToken {
            startByPush(push, aps: aps, app: app)
        } else if let activity = support.activityIndex(token: token) {
            apply(push, aps: aps, app: app, activity: activity, countsAgainstBudget: true)
        } else {
            ignore(app, push.apnsIDValue, nil, .notAnActivityToken, "The token is not a push-to-start token or a Live Activity's push token (it is the app's device token, or the activity is gone).")
        }
    }

    /// A broadcast on `channelID`: every live activity of the app subscribed to it takes it.
    mutating func receiveBroadcast(_ push: PendingPush, channelID: String, app: Int) {
        guard let activities = device.apps[app].liveActivities?.activities else { return }
        let aps = push.content.userInfo["aps"] ?? .object([])
        // By id: an end may dismiss an activity, which shifts the ones after it.
        for id in activities.filter({ $0.channelID == channelID }).map(\.id) {
            guard let index = device.apps[app].liveActivities?.activityIndex(id: id) else { continue }
            apply(push, aps: aps, app: app, activity: index, countsAgainstBudget: false)
        }
    }

    // MARK: Start

    private mutating func startByPush(_ push: PendingPush, aps: JSONValue, app: Int) {
        let event = aps["event"]?.stringValue
        guard event == "start" else {
            ignore(app, push.apnsIDValue, nil, .notStartEvent, "A push-to-start token only takes event \"start\", not \(event.map { "\"\($0)\"" } ?? "a push without event"): updates and ends go to the activity's own token or channel.")
            return
        }
        let support = device.apps[app].liveActivities!
        guard support.enabled else {
            ignore(app, push.apnsIDValue, nil, .disabledByUser, "The user turned Live Activities off for the app in Settings: push-to-start does nothing.")
            return
        }
        if device.apps[app].state == .notRunning, device.apps[app].terminatedBy == .user {
            ignore(app, push.apnsIDValue, nil, .appForceQuit, "The user force-quit the app: iOS does not start its Live Activities by push until the app is opened again.")
            return
        }
        guard aps["alert"] != nil, let type = aps["attributes-type"]?.stringValue, let attributes = aps["attributes"], attributes.isObject,
              let content = aps["content-state"], content.isObject else {
            ignore(app, push.apnsIDValue, nil, .missingStartFields, "A start needs alert, attributes-type, attributes and content-state in aps.")
            return
        }
        guard support.attributesTypes.isEmpty || support.attributesTypes.contains(type) else {
            ignore(app, push.apnsIDValue, nil, .unknownAttributesType, "attributes-type \(type) is none of the app's ActivityAttributes types (\(support.attributesTypes.joined(separator: ", "))).")
            return
        }
        guard support.activities.filter(\.isLive).count < settings.liveActivitiesPerApp else {
            ignore(app, push.apnsIDValue, nil, .tooManyActivities, "The app already has \(settings.liveActivitiesPerApp) Live Activities (targetMaximumExceeded).")
            return
        }
        guard SlidingWindow(limit: settings.pushToStartPerHour, length: SlidingWindow.hour).admit(&device.apps[app].liveActivities!.startDeliveries, now: now) else {
            ignore(app, push.apnsIDValue, nil, .pushToStartBudget, "Push-to-start budget exceeded (\(settings.pushToStartPerHour) an hour): iOS does not start the activity.")
            return
        }
        var activity = LiveActivity(
            id: newActivityID(), attributesType: type, attributes: attributes, contentState: content,
            staleDate: Self.milliseconds(aps["stale-date"]), relevanceScore: aps["relevance-score"]?.numberValue, origin: .push,
            startedAt: now, contentTimestamp: Self.milliseconds(aps["timestamp"])
        )
        if let stale = activity.staleDate, stale <= now { activity.state = .stale }
        if aps["input-push-token"]?.numberValue == 1 { activity.pushToken = issueActivityToken(app) }
        if let channel = aps["input-push-channel"]?.stringValue { activity.channelID = channel }
        begin(activity, app: app, notificationID: push.apnsIDValue, launchInBackground: true)
        if let alert = aps["alert"] { presentActivityAlert(alert, app: app, notificationID: push.apnsIDValue) }
    }

    /// The app's own `Activity.request`: the same rules as a push start, thrown as errors.
    mutating func startByApp(_ activity: LiveActivity, app: Int) throws(SimulatorError) -> LiveActivity {
        guard let support = device.apps[app].liveActivities else {
            throw SimulatorError(.conflict, "\(device.apps[app].bundleID) does not declare NSSupportsLiveActivities (set liveActivities on the app)")
        }
        guard support.enabled else { throw SimulatorError(.conflict, "ActivityAuthorizationError.denied: the user turned Live Activities off for \(device.apps[app].bundleID)") }
        guard device.apps[app].state == .foreground else {
            throw SimulatorError(.conflict, "ActivityAuthorizationError.visibility: an app starts a Live Activity only in the foreground (\(device.apps[app].bundleID) is \(device.apps[app].state.rawValue))")
        }
        guard support.attributesTypes.isEmpty || support.attributesTypes.contains(activity.attributesType) else {
            throw SimulatorError(.invalid, "\(activity.attributesType) is none of the app's ActivityAttributes types (\(support.attributesTypes.joined(separator: ", ")))")
        }
        guard support.activities.filter(\.isLive).count < settings.liveActivitiesPerApp else {
            throw SimulatorError(.conflict, "ActivityAuthorizationError.targetMaximumExceeded: \(device.apps[app].bundleID) already has \(settings.liveActivitiesPerApp) Live Activities")
        }
        var started = activity
        started.id = newActivityID()
        started.startedAt = now
        started.state = .active
        if let given = started.pushToken {
            started.pushToken = given.isEmpty ? issueActivityToken(app) : register(activityToken: given, app: app)
        }
        started.origin = .app
        begin(started, app: app, notificationID: nil, launchInBackground: false)
        return started
    }

    private mutating func begin(_ activity: LiveActivity, app: Int, notificationID: APNsID?, launchInBackground: Bool) {
        device.apps[app].liveActivities!.activities.append(activity)
        record(app, notificationID, .liveActivity(LiveActivityChange(.started, activityID: activity.id, state: .active, contentState: activity.contentState)))
        // ActivityKit gives a push-started activity background time to hand its token over.
        if launchInBackground { wakeInBackground(app, launchOptions: .object([])) }
        guard device.apps[app].state != .notRunning else { return }
        call(app, .activityUpdates, notificationID, arguments(activity))
        if let token = activity.pushToken {
            var withToken = arguments(activity)
            withToken.deviceToken = token
            call(app, .pushTokenUpdates, notificationID, withToken)
        }
    }

    // MARK: Update and end

    private mutating func apply(_ push: PendingPush, aps: JSONValue, app: Int, activity index: Int, countsAgainstBudget: Bool) {
        let activity = device.apps[app].liveActivities!.activities[index]
        guard activity.isLive else {
            ignore(app, push.apnsIDValue, activity.id, .activityEnded, "The Live Activity has ended: iOS ignores pushes that arrive after that.")
            return
        }
        let event = aps["event"]?.stringValue
        switch event {
        case "update", "end": break
        case "start":
            ignore(app, push.apnsIDValue, activity.id, .startToActivityToken, "event \"start\" goes to the app's push-to-start token; an activity's token only takes update and end.")
            return
        default:
            ignore(app, push.apnsIDValue, activity.id, .unknownEvent, "aps.event must be start, update or end, not \(event.map { "\"\($0)\"" } ?? "absent").")
            return
        }
        let timestamp = Self.milliseconds(aps["timestamp"])
        // Apple engineers report that an end is applied whatever its timestamp.
        if event == "update", let timestamp, let shown = activity.contentTimestamp, timestamp <= shown {
            ignore(app, push.apnsIDValue, activity.id, .olderTimestamp, "timestamp \(timestamp / 1000) is not newer than the content shown (\(shown / 1000)): iOS keeps the newer content.")
            return
        }
        let content = aps["content-state"]
        if event == "update", content?.isObject != true {
            ignore(app, push.apnsIDValue, activity.id, .missingContentState, "An update needs content-state in aps.")
            return
        }
        if countsAgainstBudget, push.priority >= 10, !admitUpdate(app) {
            record(app, push.apnsIDValue, .liveActivity(LiveActivityChange(
                .throttled, activityID: activity.id, state: activity.state, reason: .budgetExhausted,
                message: "Over the hourly budget of priority-10 ActivityKit pushes (\(updateBudget(app))): iOS drops the update silently; priority 5 does not count."
            )))
            return
        }
        var changed = activity
        if let content, content.isObject { changed.contentState = content }
        if let timestamp { changed.contentTimestamp = max(timestamp, changed.contentTimestamp ?? timestamp) }
        // Each push carries a whole ActivityContent: a stale date or score it leaves out is gone.
        changed.staleDate = Self.milliseconds(aps["stale-date"])
        changed.relevanceScore = aps["relevance-score"]?.numberValue
        if changed.state == .stale, changed.staleDate.map({ $0 > now }) ?? true { changed.state = .active }
        if changed.state == .active, let stale = changed.staleDate, stale <= now { changed.state = .stale }
        device.apps[app].liveActivities!.activities[index] = changed
        if event == "end" {
            end(app, activity: index, reason: .endEvent, dismissal: aps["dismissal-date"].map { Self.milliseconds($0) ?? now }, notificationID: push.apnsIDValue)
        } else {
            record(app, push.apnsIDValue, .liveActivity(LiveActivityChange(.updated, activityID: changed.id, state: changed.state, contentState: changed.contentState)))
            if changed.state != activity.state { call(app, .activityStateUpdates, push.apnsIDValue, arguments(changed)) }
            call(app, .contentUpdates, push.apnsIDValue, arguments(changed))
        }
        if let alert = aps["alert"] { presentActivityAlert(alert, app: app, notificationID: push.apnsIDValue) }
    }

    /// The app's own `activity.update(_:)`: not budgeted, not timestamp-checked unless given.
    mutating func updateByApp(_ activityID: String, app: Int, contentState: JSONValue, staleDate: EpochMilliseconds?) throws(SimulatorError) {
        let index = try liveActivityIndex(activityID, app: app)
        var activity = device.apps[app].liveActivities!.activities[index]
        activity.contentState = contentState
        if let staleDate { activity.staleDate = staleDate }
        let stateChanged = activity.state == .stale && (activity.staleDate.map { $0 > now } ?? true)
        if stateChanged { activity.state = .active }
        device.apps[app].liveActivities!.activities[index] = activity
        record(app, nil, .liveActivity(LiveActivityChange(.updated, activityID: activity.id, state: activity.state, contentState: contentState)))
        if stateChanged { call(app, .activityStateUpdates, nil, arguments(activity)) }
        call(app, .contentUpdates, nil, arguments(activity))
    }

    /// The app's own `activity.end(_:dismissalPolicy:)`: `dismissal` nil is `.default`.
    mutating func endByApp(_ activityID: String, app: Int, contentState: JSONValue?, dismissal: EpochMilliseconds?) throws(SimulatorError) {
        let index = try liveActivityIndex(activityID, app: app)
        if let contentState { device.apps[app].liveActivities!.activities[index].contentState = contentState }
        end(app, activity: index, reason: .endedByApp, dismissal: dismissal, notificationID: nil)
    }

    private func liveActivityIndex(_ activityID: String, app: Int) throws(SimulatorError) -> Int {
        guard let index = device.apps[app].liveActivities?.activityIndex(id: activityID) else {
            throw SimulatorError(.notFound, "\(device.apps[app].bundleID) on \(device.id) has no Live Activity \(activityID)")
        }
        guard device.apps[app].liveActivities!.activities[index].isLive else {
            throw SimulatorError(.conflict, "Live Activity \(activityID) has ended: the system ignores updates to it")
        }
        return index
    }

    /// Ends an activity; it stays on the Lock Screen until `dismissal` (capped at the linger time),
    /// or the linger time when nil; a dismissal at or before now removes it at once.
    private mutating func end(_ app: Int, activity index: Int, reason: LiveActivityReason, dismissal: EpochMilliseconds?, notificationID: APNsID?) {
        var activity = device.apps[app].liveActivities!.activities[index]
        activity.state = .ended
        activity.endedAt = now
        let latest = now + settings.liveActivityLingerMilliseconds
        activity.dismissAt = min(dismissal ?? latest, latest)
        activity.dismissReason = dismissal.map { $0 < latest } == true ? .dismissalDate : .lockScreenLimit
        device.apps[app].liveActivities!.activities[index] = activity
        record(app, notificationID, .liveActivity(LiveActivityChange(.ended, activityID: activity.id, state: .ended, reason: reason, contentState: activity.contentState)))
        call(app, .activityStateUpdates, notificationID, arguments(activity))
        if activity.dismissAt! <= now { dismiss(app, activity: index, reason: activity.dismissReason ?? .dismissalDate) }
    }

    /// Removes an ended activity from the Lock Screen; its token stops working at APNs.
    private mutating func dismiss(_ app: Int, activity index: Int, reason: LiveActivityReason) {
        var activity = device.apps[app].liveActivities!.activities.remove(at: index)
        activity.state = .dismissed
        record(app, nil, .liveActivity(LiveActivityChange(.dismissed, activityID: activity.id, state: .dismissed, reason: reason)))
        call(app, .activityStateUpdates, nil, arguments(activity))
        if let token = activity.pushToken { tokenChanges.append(.unregister(token, at: now)) }
    }

    /// Uninstalling takes the activities off the screen.
    mutating func dismissAllActivities(_ app: Int) {
        while let last = device.apps[app].liveActivities?.activities.indices.last {
            dismiss(app, activity: last, reason: .appUninstalled)
        }
    }

    // MARK: The clock

    /// The earliest stale date, eight-hour end or dismissal among the app's activities.
    func nextActivityDueTime(_ app: Int) -> EpochMilliseconds? {
        var earliest: EpochMilliseconds?
        func consider(_ time: EpochMilliseconds?) {
            if let time, earliest.map({ time < $0 }) ?? true { earliest = time }
        }
        for activity in device.apps[app].liveActivities?.activities ?? [] {
            switch activity.state {
            case .active:
                consider(activity.staleDate)
                consider(activity.startedAt + settings.liveActivityMaximumActiveMilliseconds)
            case .stale:
                consider(activity.startedAt + settings.liveActivityMaximumActiveMilliseconds)
            case .ended:
                consider(activity.dismissAt)
            case .dismissed:
                break
            }
        }
        if !device.online {
            for stored in device.apps[app].liveActivities?.storedBroadcasts ?? [] { consider(stored.push.expiresAt) }
        }
        return earliest
    }

    /// Runs what is due now for the app's activities.
    mutating func runDueActivities(_ app: Int) {
        var index = 0
        while let activities = device.apps[app].liveActivities?.activities, index < activities.count {
            let activity = activities[index]
            if activity.isLive, activity.startedAt + settings.liveActivityMaximumActiveMilliseconds <= now {
                end(app, activity: index, reason: .maximumDuration, dismissal: nil, notificationID: nil)
                continue  // now ended: its dismissal is considered on the next pass
            }
            if activity.state == .active, let stale = activity.staleDate, stale <= now {
                device.apps[app].liveActivities!.activities[index].state = .stale
                record(app, nil, .liveActivity(LiveActivityChange(.stale, activityID: activity.id, state: .stale)))
                call(app, .activityStateUpdates, nil, arguments(device.apps[app].liveActivities!.activities[index]))
            }
            if activity.state == .ended, let dismissAt = activity.dismissAt, dismissAt <= now {
                dismiss(app, activity: index, reason: activity.dismissReason ?? .lockScreenLimit)
                continue
            }
            index += 1
        }
        if !device.online, let stored = device.apps[app].liveActivities?.storedBroadcasts {
            for broadcast in stored where broadcast.push.expiresAt <= now {
                record(app, broadcast.push.apnsIDValue, .discarded(.expired, replacedBy: nil))
            }
            device.apps[app].liveActivities!.storedBroadcasts.removeAll { $0.push.expiresAt <= now }
        }
    }

    // MARK: Broadcast storage

    /// An offline device: a most-recent-message channel keeps the newest broadcast; a
    /// no-storage channel keeps nothing.
    mutating func storeBroadcast(_ push: PendingPush, channel: BroadcastChannel, app: Int) {
        guard channel.storagePolicy == .mostRecent, push.expiresAt > now else {
            let deliverOnce = channel.storagePolicy == .noStorage || push.expiresAt == push.receivedAt
            record(app, push.apnsIDValue, .discarded(deliverOnce ? .deliverOnce : .expired, replacedBy: nil))
            return
        }
        guard device.apps[app].liveActivities != nil else { return }
        let older = device.apps[app].liveActivities!.storedBroadcasts.first { $0.channelID == channel.id }
        if let older { record(app, older.push.apnsIDValue, .discarded(.replaced, replacedBy: push.apnsID)) }
        device.apps[app].liveActivities!.storedBroadcasts.removeAll { $0.channelID == channel.id }
        device.apps[app].liveActivities!.storedBroadcasts.append(StoredBroadcast(channelID: channel.id, push: push))
        record(app, push.apnsIDValue, .stored(expiresAt: push.expiresAt, replacing: older?.push.apnsID))
    }

    /// Back online: the stored broadcasts arrive.
    mutating func deliverStoredBroadcasts(_ app: Int) {
        guard let stored = device.apps[app].liveActivities?.storedBroadcasts, !stored.isEmpty else { return }
        device.apps[app].liveActivities!.storedBroadcasts = []
        for broadcast in stored {
            if broadcast.push.expiresAt <= now {
                record(app, broadcast.push.apnsIDValue, .discarded(.expired, replacedBy: nil))
            } else {
                record(app, broadcast.push.apnsIDValue, .delivered(pushType: "liveactivity", priority: broadcast.push.priority))
                receiveBroadcast(broadcast.push, channelID: broadcast.channelID, app: app)
            }
        }
    }

    // MARK: Helpers

    private mutating func ignore(_ app: Int, _ notificationID: APNsID?, _ activityID: String?, _ reason: LiveActivityReason, _ message: String) {
        let state = activityID.flatMap { id in device.apps[app].liveActivities?.activities.first { $0.id == id }?.state }
        record(app, notificationID, .liveActivity(LiveActivityChange(.ignored, activityID: activityID, state: state, reason: reason, message: message)))
    }

    /// An alert in a start, update or end lights the screen, shows the activity expanded (a
    /// banner without a Dynamic Island) and plays its sound. Not a notification: it does not go
    /// to Notification Center and needs no notification authorization.
    private mutating func presentActivityAlert(_ alert: JSONValue, app: Int, notificationID: APNsID?) {
        let title = Self.alertText(alert["title"])
        let body = Self.alertText(alert["body"]) ?? alert.stringValue
        if title != nil || body != nil {
            record(app, notificationID, .banner(title: title, subtitle: nil, body: body, actions: []))
        }
        if let sound = alert["sound"]?.stringValue { record(app, notificationID, .sound(sound)) }
    }

    private mutating func admitUpdate(_ app: Int) -> Bool {
        SlidingWindow(limit: updateBudget(app), length: SlidingWindow.hour).admit(&device.apps[app].liveActivities!.updateDeliveries, now: now)
    }

    private func updateBudget(_ app: Int) -> Int {
        device.apps[app].liveActivities?.hasFrequentUpdates == true ? settings.liveActivityFrequentUpdatesPerHour : settings.liveActivityUpdatesPerHour
    }

    private mutating func issueActivityToken(_ app: Int) -> String {
        register(activityToken: newToken(), app: app)
    }

    private mutating func register(activityToken token: String, app: Int) -> String {
        tokenChanges.append(.register(DeviceTokenRecord(
            token: token, bundleID: device.apps[app].bundleID, environment: device.apps[app].environment, kind: .liveActivity, deviceID: device.id
        )))
        return token
    }

    private func newActivityID() -> String { LiveActivity.makeID(hex: newToken()) }

    private func arguments(_ activity: LiveActivity) -> CallbackArguments {
        CallbackArguments(activityID: activity.id, activityState: activity.state.rawValue, contentState: activity.contentState)
    }

    /// Seconds since 1970 in a payload, as milliseconds.
    static func milliseconds(_ value: JSONValue?) -> EpochMilliseconds? {
        guard let seconds = value?.numberValue, seconds.isFinite, abs(seconds) < 1e12 else { return nil }
        return EpochMilliseconds((seconds * 1000).rounded())
    }

    /// A string, or a localized `{loc-key, loc-args}` shown as its key and arguments.
    static func alertText(_ value: JSONValue?) -> String? {
        if let text = value?.stringValue { return text }
        guard let key = value?["loc-key"]?.stringValue else { return nil }
        guard case .array(let arguments)? = value?["loc-args"], !arguments.isEmpty else { return key }
        return key + " " + arguments.map { $0.stringValue ?? $0.description }.joined(separator: " ")
    }

    static func supportsPushToStart(iosVersion: String) -> Bool {
        let parts = iosVersion.split(separator: ".").map { Int($0) ?? 0 }
        let major = parts.first ?? 0
        let minor = parts.count > 1 ? parts[1] : 0
        return major > 17 || (major == 17 && minor >= 2)
    }
}
