import PushlabCore

/// APNs between provider and device (reference 5) and a remote notification's arrival (2).
extension DeviceSession {
    /// A push APNs accepted for `app`'s token.
    mutating func receive(_ push: PendingPush, app: Int, expiration: Int64?, deliverable: Bool) {
        guard deliverable else {
            record(app, push.apnsIDValue, .dropped(.backgroundPriority10, message: "A background push must be sent with apns-priority 5; APNs accepted it and the device never receives it."))
            return
        }
        guard device.online else {
            store(push, app: app, expiration: expiration)
            return
        }
        deliver(push, app: app)
    }

    /// APNs holds one notification per app for an offline device; a newer one replaces it.
    private mutating func store(_ push: PendingPush, app: Int, expiration: Int64?) {
        if expiration == 0 {
            record(app, push.apnsIDValue, .discarded(.deliverOnce, replacedBy: nil))
            return
        }
        if push.expiresAt <= now {
            record(app, push.apnsIDValue, .discarded(.expired, replacedBy: nil))
            return
        }
        let replaced = device.apps[app].storedWhileOffline
        if let replaced {
            record(app, replaced.apnsIDValue, .discarded(.replaced, replacedBy: push.apnsID))
        }
        device.apps[app].storedWhileOffline = push
        record(app, push.apnsIDValue, .stored(expiresAt: push.expiresAt, replacing: replaced?.apnsID))
    }

    /// The device came online: APNs delivers what it stored, unless it expired.
    mutating func deliverStored() {
        deliverStoredMDM()
        for app in device.apps.indices {
            deliverStoredBroadcasts(app)
            guard let stored = device.apps[app].storedWhileOffline else { continue }
            device.apps[app].storedWhileOffline = nil
            if stored.expiresAt <= now {
                record(app, stored.apnsIDValue, .discarded(.expired, replacedBy: nil))
            } else {
                deliver(stored, app: app)
            }
        }
    }

    mutating func deliver(_ push: PendingPush, app: Int) {
        if device.lowPowerMode, push.priority < 10, push.pushType == .alert || push.pushType == .liveactivity {
            // APNs may delay and group priority 5 and 1 pushes for a device saving power.
            device.apps[app].heldLowPriority.append(push)
            record(app, push.apnsIDValue, .throttled(.lowPowerMode, until: nil))
            return
        }
        record(app, push.apnsIDValue, .delivered(pushType: push.pushType.rawValue, priority: push.priority))
        switch push.pushType {
        case .alert, .background:
            arrive(push, app: app)
        case .liveactivity:
            receiveLiveActivity(push, app: app)
        case .voip, .location, .pushtotalk, .fileprovider, .widgets, .controls, .complication, .mdm:
            receiveService(push, app: app)
        }
    }

    private mutating func arrive(_ push: PendingPush, app: Int) {
        let content = push.content
        let alertPart = push.pushType == .alert && content.isUserVisible
        var fetchCalled = false
        if alertPart {
            var shown = NotificationToShow(remote: push)
            // The extension runs only for a notification that will show an alert.
            let authorization = device.apps[app].authorization
            if content.mutableContent, content.hasAlert, device.apps[app].serviceExtension,
               authorization.mayShowBanner || authorization.mayListInNotificationCenter {
                shown.content = runServiceExtension(push, app: app)
            }
            fetchCalled = present(shown, app: app)
        }
        if content.contentAvailable {
            wake(push, app: app, alreadyCalled: fetchCalled)
        }
    }

    // MARK: Alerts

    /// Shows a notification as the app's state and authorization allow (reference 2.1, 2.2, 4).
    /// Returns whether `didReceiveRemoteNotification:fetchCompletionHandler:` was called.
    mutating func present(_ notification: NotificationToShow, app: Int) -> Bool {
        // Fields, not a copy of the install: a copy would share its Notification Center array
        // and make every append below copy it whole.
        guard device.apps[app].state.isOnScreen else {
            show(notification, app: app, options: [.banner, .list, .sound, .badge])
            return false
        }
        let info = CallbackArguments(userInfo: notification.content.userInfo, trigger: notification.trigger)
        switch device.apps[app].api {
        case .legacy:
            if notification.isLocal {
                call(app, .didReceiveLocalNotification, notification.id, info)
            } else if call(app, .didReceiveRemoteNotificationFetch, notification.id, info) {
                return true
            } else {
                call(app, .didReceiveRemoteNotification, notification.id, info)
            }
        case .userNotifications:
            // Without the delegate method the system shows nothing in the foreground.
            if call(app, .willPresent, notification.id, info) {
                show(notification, app: app, options: device.apps[app].willPresentOptions)
            }
        }
        return false
    }

    private mutating func show(_ notification: NotificationToShow, app: Int, options: PresentationOptions) {
        let content = notification.content
        let authorization = device.apps[app].authorization
        let muted = device.focus && !content.breaksThroughFocus
        var wanted = false
        var shown = false
        if options.contains(.banner), content.hasAlert {
            wanted = true
            if authorization.mayShowBanner, !muted {
                let actions = device.apps[app].category(content.category)?.actions.map(\.identifier) ?? []
                record(app, notification.id, .banner(title: content.title, subtitle: content.subtitle, body: content.body, actions: actions))
                shown = true
            }
        }
        if options.contains(.sound), let sound = content.sound {
            wanted = true
            if authorization.mayPlaySound, !muted {
                record(app, notification.id, .sound(sound))
                shown = true
            }
        }
        if options.contains(.badge), let badge = content.badge {
            wanted = true
            if authorization.maySetBadge {
                device.apps[app].badge = max(0, badge)
                record(app, notification.id, .badge(max(0, badge)))
                shown = true
            }
        }
        if options.contains(.list), content.hasAlert {
            wanted = true
            if authorization.mayListInNotificationCenter {
                addToNotificationCenter(notification, app: app)
                shown = true
            }
        }
        if wanted, !shown, !muted {
            record(app, notification.id, .dropped(.notAuthorized, message: "Notification authorization is \(authorization.status.rawValue) (alert \(authorization.alert ? "on" : "off"), sound \(authorization.sound ? "on" : "off"), badge \(authorization.badge ? "on" : "off")): nothing is shown."))
        }
    }

    private mutating func addToNotificationCenter(_ notification: NotificationToShow, app: Int) {
        // A collapse id, or the same request identifier (a repeating local notification), replaces
        // the entry already shown instead of adding a second one.
        if notification.isLocal || notification.collapseID != nil, let existing = device.apps[app].notificationCenter.firstIndex(where: {
            (notification.isLocal && $0.identifier == notification.identifier) || (notification.collapseID != nil && $0.collapseID == notification.collapseID)
        }) {
            let replaced = device.apps[app].notificationCenter.remove(at: existing)
            recordRemoval(app, replaced, reason: .collapsed)
        }
        let entry = notification.sharedEntry.flatMap { shared in
            notification.id.canonical.map { DeliveredNotification(uuid: $0, deliveredAt: now, shared: shared) }
                ?? DeliveredNotification(apnsID: notification.identifier, deliveredAt: now, shared: shared)
        }
            ?? DeliveredNotification(
                identifier: notification.identifier, isLocal: notification.isLocal, collapseID: notification.collapseID,
                content: notification.content, deliveredAt: now, trigger: notification.trigger
            )
        if device.apps[app].notificationCenter.isEmpty {
            // Room for the limit and the one over it, and no more: a doubling array would
            // hold twice the entries' memory for a million phones.
            device.apps[app].notificationCenter.reserveCapacity(min(settings.notificationCenterLimit + 1, 129))
        }
        device.apps[app].notificationCenter.append(entry)
        record(app, notification.id, .notificationCenter(.added, reason: nil, entry: entry))
        if device.apps[app].notificationCenter.count > settings.notificationCenterLimit {
            let oldest = device.apps[app].notificationCenter.removeFirst()
            recordRemoval(app, oldest, reason: .limit)
        }
    }

    // MARK: Silent pushes

    /// `content-available: 1`: wakes the app if its background mode, its state and the budget allow.
    private mutating func wake(_ push: PendingPush, app: Int, alreadyCalled: Bool) {
        let state = device.apps[app].state
        // On screen there is nothing to wake: the callback runs whatever the background modes.
        guard device.apps[app].remoteNotificationBackgroundMode || state.isOnScreen else {
            record(app, push.apnsIDValue, .dropped(.noBackgroundMode, message: "The app lacks the remote-notification background mode (UIBackgroundModes)."))
            return
        }
        if state == .notRunning, device.apps[app].terminatedBy == .user {
            record(app, push.apnsIDValue, .dropped(.forceQuit, message: "The user force-quit the app; iOS does not launch it for background pushes until the user opens it again."))
            return
        }
        if push.pushType == .background, !state.isOnScreen {
            if device.lowPowerMode {
                hold(push, app: app, reason: .lowPowerMode, until: nil)
                return
            }
            let budget = SilentPushBudget(settings)
            device.apps[app].backgroundDeliveries = budget.pruned(device.apps[app].backgroundDeliveries, now: now)
            if let until = budget.blockedUntil(deliveries: device.apps[app].backgroundDeliveries, now: now) {
                hold(push, app: app, reason: .budgetExhausted, until: until)
                return
            }
            device.apps[app].backgroundDeliveries.append(now)
        }
        guard !alreadyCalled else { return }
        let info = CallbackArguments(userInfo: push.content.userInfo)
        wakeInBackground(app, launchOptions: Self.launchOptions(CallbackKey.remoteNotificationLaunchKey, push.content.userInfo))
        call(app, .didReceiveRemoteNotificationFetch, push.apnsIDValue, info)
    }

    /// The device keeps only the newest held background push.
    private mutating func hold(_ push: PendingPush, app: Int, reason: ThrottleReason, until: EpochMilliseconds?) {
        if let older = device.apps[app].heldBackground {
            record(app, older.apnsIDValue, .discarded(.replaced, replacedBy: push.apnsID))
        }
        device.apps[app].heldBackground = push
        device.apps[app].heldBackgroundUntil = until
        record(app, push.apnsIDValue, .throttled(reason, until: until))
    }

    /// When budget may have returned (or low power mode ended): delivers the held push if it can.
    mutating func releaseHeldBackground(_ app: Int) {
        guard let held = device.apps[app].heldBackground, !device.lowPowerMode else { return }
        let budget = SilentPushBudget(settings)
        if let until = budget.blockedUntil(deliveries: budget.pruned(device.apps[app].backgroundDeliveries, now: now), now: now),
           !device.apps[app].state.isOnScreen {
            device.apps[app].heldBackgroundUntil = until  // e.g. low power mode ended while over budget
            return
        }
        device.apps[app].heldBackground = nil
        device.apps[app].heldBackgroundUntil = nil
        if held.expiresAt <= now {
            record(app, held.apnsIDValue, .discarded(.expired, replacedBy: nil))
            return
        }
        wake(held, app: app, alreadyCalled: false)
    }

    /// Low power mode ended: the delayed low-priority pushes arrive, then the held background one.
    mutating func releaseLowPowerHolds() {
        for app in device.apps.indices {
            let held = device.apps[app].heldLowPriority
            device.apps[app].heldLowPriority = []
            for push in held {
                if push.expiresAt <= now {
                    record(app, push.apnsIDValue, .discarded(.expired, replacedBy: nil))
                } else {
                    deliver(push, app: app)
                }
            }
            releaseHeldBackground(app)
        }
    }

    /// When the budget blocking the held background push lifts (worked out when it was held, so
    /// a clock jump past it still releases it at that time), if anything is held.
    func heldBackgroundReleaseTime(_ app: Int) -> EpochMilliseconds? {
        guard device.apps[app].heldBackground != nil, !device.lowPowerMode else { return nil }
        return device.apps[app].heldBackgroundUntil ?? now
    }
}

/// A notification about to be shown, remote or local.
struct NotificationToShow {
    /// The apns-id as APNs read it, or the local request's identifier.
    var id: APNsID
    var isLocal: Bool
    var collapseID: String?
    /// A content changed (by a service extension) no longer shares its payload's entry part.
    var content: NotificationContent {
        didSet { sharedEntry = nil }
    }
    /// The Notification Center entry part shared by every push of this payload, if any.
    var sharedEntry: DeliveredNotification.Shared?
    /// `push`, or the local trigger's kind, as `UNNotificationRequest.trigger` tells the app.
    var trigger: String

    var identifier: String { id.text }

    init(remote push: PendingPush) {
        id = push.apnsIDValue
        isLocal = false
        collapseID = push.collapseID
        content = push.content
        trigger = "push"
        sharedEntry = push.sharedEntry
    }

    init(local notification: LocalNotification) {
        id = APNsID(notification.identifier)
        isLocal = true
        collapseID = nil
        content = notification.content
        trigger = notification.trigger.kindName
        sharedEntry = nil
    }
}
