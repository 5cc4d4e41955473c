import PushlabCore

/// What the user does, and what each app API calls for it (reference section 3, note 003).
extension DeviceSession {
    mutating func perform(_ interaction: Interaction) throws(SimulatorError) {
        try performWithoutRelease(interaction)
        // An app brought on screen is outside the budget: a held background push arrives now.
        for app in device.apps.indices where device.apps[app].state.isOnScreen { releaseHeldBackground(app) }
    }

    private mutating func performWithoutRelease(_ interaction: Interaction) throws(SimulatorError) {
        switch interaction {
        case .tapNotification(let bundleID, let notificationID):
            let app = try appIndex(bundleID)
            let entry = try takeEntry(app, notificationID, reason: .tapped)
            open(entry, app: app)
        case .tapAppIcon(let bundleID):
            let app = try appIndex(bundleID)
            // No callback carries a notification: its content is lost unless the app asks its server.
            beginForeground(app, launchOptions: .object([]))
            finishForeground(app)
        case .tapAction(let bundleID, let notificationID, let actionID, let text):
            let app = try appIndex(bundleID)
            let entry = try entry(app, notificationID)
            let action = try action(actionID, of: entry, app: app, text: text)
            _ = try takeEntry(app, entry.identifier, reason: .actionTapped)
            runAction(action, text: text, entry: entry, app: app)
        case .dismiss(let bundleID, let notificationID):
            let app = try appIndex(bundleID)
            let entry = try takeEntry(app, notificationID, reason: .dismissed)
            dismissed(entry, app: app)
        case .clearAll(let bundleID):
            let apps: [Int] = if let bundleID { [try appIndex(bundleID)] } else { Array(device.apps.indices) }
            for app in apps {
                let entries = device.apps[app].notificationCenter
                device.apps[app].notificationCenter = []
                for entry in entries {
                    recordRemoval(app, entry, reason: .clearedAll)
                    dismissed(entry, app: app)
                }
            }
        }
    }

    mutating func change(_ bundleID: String, to change: AppStateChange) throws(SimulatorError) {
        let app = try appIndex(bundleID)
        switch change {
        case .foreground:
            beginForeground(app, launchOptions: .object([]))
            finishForeground(app)
        case .background:
            moveToBackground(app)
        case .inactive:
            switch device.apps[app].state {
            case .foreground: setState(app, .inactive)
            case .inactive: break
            case .notRunning, .background: beginForeground(app, launchOptions: .object([]))
            }
        case .terminateBySystem:
            terminate(app, by: .system)
        case .forceQuit:
            terminate(app, by: .user)
        }
        if device.apps[app].state.isOnScreen {
            // On screen the budget does not apply: a held background push arrives now.
            releaseHeldBackground(app)
        }
    }

    // MARK: Tapping a notification

    /// The default action: the app comes to the foreground and learns of the notification.
    private mutating func open(_ entry: DeliveredNotification, app: Int) {
        let wasRunning = device.apps[app].state != .notRunning
        let userInfo = entry.content.userInfo
        let launchKey = entry.isLocal ? CallbackKey.localNotificationLaunchKey : CallbackKey.remoteNotificationLaunchKey
        beginForeground(app, launchOptions: Self.launchOptions(launchKey, userInfo))
        let info = CallbackArguments(userInfo: userInfo)
        switch device.apps[app].api {
        case .legacy:
            // A launch from the notification hands it over in the launch options only (note 003).
            if wasRunning {
                if entry.isLocal {
                    call(app, .didReceiveLocalNotification, entry.notificationIDValue, info)
                } else if !call(app, .didReceiveRemoteNotificationFetch, entry.notificationIDValue, info) {
                    call(app, .didReceiveRemoteNotification, entry.notificationIDValue, info)
                }
            }
        case .userNotifications:
            call(app, .didReceiveResponse, entry.notificationIDValue, CallbackArguments(
                userInfo: userInfo, actionIdentifier: CallbackKey.defaultActionIdentifier, trigger: trigger(of: entry)
            ))
        }
        finishForeground(app)
    }

    // MARK: Action buttons

    private func action(_ actionID: String, of entry: DeliveredNotification, app: Int, text: String?) throws(SimulatorError) -> NotificationCategory.Action {
        guard let categoryID = entry.content.category else {
            throw SimulatorError(.conflict, "Notification \(entry.identifier) has no aps.category, so it shows no action buttons")
        }
        guard let category = device.apps[app].category(categoryID) else {
            throw SimulatorError(.conflict, "Notification \(entry.identifier) names category \(categoryID), which \(device.apps[app].bundleID) did not register, so it shows no action buttons")
        }
        guard let action = category.actions.first(where: { $0.identifier == actionID }) else {
            let known = category.actions.map(\.identifier).joined(separator: ", ")
            throw SimulatorError(.notFound, "Category \(categoryID) has no action \(actionID) (it has: \(known.isEmpty ? "none" : known))")
        }
        if action.authenticationRequired, device.locked {
            throw SimulatorError(.conflict, "Action \(actionID) requires authentication and device \(device.id) is locked: unlock it first")
        }
        if text != nil, !action.textInput {
            throw SimulatorError(.invalid, "Action \(actionID) is not a text-input action; it takes no text")
        }
        return action
    }

    private mutating func runAction(_ action: NotificationCategory.Action, text: String?, entry: DeliveredNotification, app: Int) {
        // Launched by an action, the app gets empty launch options (note 003).
        let foreground = action.activation == .foreground
        if foreground {
            beginForeground(app, launchOptions: .object([]))
        } else {
            wakeInBackground(app, launchOptions: .object([]))
        }
        let userInfo = entry.content.userInfo
        switch device.apps[app].api {
        case .legacy:
            let (plain, withResponse): (AppCallback, AppCallback) = entry.isLocal
                ? (.handleLocalAction, .handleLocalActionWithResponseInfo)
                : (.handleRemoteAction, .handleRemoteActionWithResponseInfo)
            // From iOS 9 the withResponseInfo: variant is preferred when the app has it.
            if device.hasResponseInfoCallbacks, device.apps[app].implements.contains(withResponse) {
                let responseInfo: JSONValue = .object(text.map { [(CallbackKey.typedTextKey, .string($0))] } ?? [])
                call(app, withResponse, entry.notificationIDValue, CallbackArguments(userInfo: userInfo, actionIdentifier: action.identifier, typedText: text, responseInfo: responseInfo))
            } else {
                call(app, plain, entry.notificationIDValue, CallbackArguments(userInfo: userInfo, actionIdentifier: action.identifier))
            }
        case .userNotifications:
            call(app, .didReceiveResponse, entry.notificationIDValue, CallbackArguments(
                userInfo: userInfo, actionIdentifier: action.identifier, typedText: text, trigger: trigger(of: entry)
            ))
        }
        if foreground { finishForeground(app) }
    }

    /// Swiped away or cleared: only a category with `customDismissAction` tells the app.
    private mutating func dismissed(_ entry: DeliveredNotification, app: Int) {
        guard device.apps[app].api == .userNotifications,
              device.apps[app].category(entry.content.category)?.customDismissAction == true,
              device.apps[app].implements.contains(.didReceiveResponse) else { return }
        wakeInBackground(app, launchOptions: .object([]))
        call(app, .didReceiveResponse, entry.notificationIDValue, CallbackArguments(
            userInfo: entry.content.userInfo, actionIdentifier: CallbackKey.dismissActionIdentifier, trigger: trigger(of: entry)
        ))
    }

    // MARK: Lookups

    func appIndex(_ bundleID: String) throws(SimulatorError) -> Int {
        guard let index = device.appIndex(bundleID) else { throw .unknownApp(bundleID, device.id) }
        return index
    }

    private func entry(_ app: Int, _ notificationID: String?) throws(SimulatorError) -> DeliveredNotification {
        let entries = device.apps[app].notificationCenter
        if let notificationID {
            guard let entry = entries.first(where: { $0.identifier.caseInsensitiveEquals(notificationID) }) else {
                throw SimulatorError(.notFound, "Notification \(notificationID) is not in \(device.apps[app].bundleID)'s Notification Center on \(device.id)")
            }
            return entry
        }
        guard let newest = entries.last else {
            throw SimulatorError(.notFound, "\(device.apps[app].bundleID) has no notification in Notification Center on \(device.id)")
        }
        return newest
    }

    private mutating func takeEntry(_ app: Int, _ notificationID: String?, reason: RemovalReason) throws(SimulatorError) -> DeliveredNotification {
        let found = try entry(app, notificationID)
        // Every entry of that identifier goes (a provider may reuse an apns-id), each recorded.
        let removed = device.apps[app].notificationCenter.filter { $0.identifier == found.identifier }
        device.apps[app].notificationCenter.removeAll { $0.identifier == found.identifier }
        for entry in removed { recordRemoval(app, entry, reason: reason) }
        return found
    }

    private func trigger(of entry: DeliveredNotification) -> String { entry.trigger }
}

private extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        count == other.count && lowercased() == other.lowercased()
    }
}
