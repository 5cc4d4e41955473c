import PushlabCore
import PushlabSimulator

extension SimulatedDevice {
    /// The device as the control API shows it: the fields of a `DeviceSpec` (so the JSON can be
    /// posted back), then what each app holds now.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("id", id)
        fields.add("name", name)
        fields.add("iosVersion", iosVersion)
        fields.add("online", online)
        fields.add("locked", locked)
        fields.add("lowPowerMode", lowPowerMode)
        fields.add("focus", focus)
        fields.add("utcOffsetSeconds", utcOffsetSeconds)
        fields.add("apps", JSONValue.array(apps.map(\.controlJSON)))
        fields.add("mdm", mdm?.controlJSON)
        return fields.json
    }
}

extension AppInstall {
    /// An `AppSpec`'s fields, then Notification Center, pending local notifications and the
    /// pushes APNs or the device holds for the app.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("bundleId", bundleID)
        fields.add("environment", environment.rawValue)
        fields.add("deviceToken", deviceToken)
        fields.add("api", api.rawValue)
        fields.add("implements", strings: AppCallback.allCases.filter(implements.contains).map(\.rawValue))
        fields.add("authorization", authorization.controlJSON)
        fields.add("backgroundModes", strings: remoteNotificationBackgroundMode ? ["remote-notification"] : [])
        fields.add("categories", JSONValue.array(categories.map(\.controlJSON)))
        fields.add("willPresentOptions", strings: willPresentOptions.names)
        fields.add("serviceExtension", serviceExtensionJSON)
        fields.add("state", state.rawValue)
        fields.add("terminatedBy", terminatedBy.rawValue)
        fields.add("badge", badge)
        if let liveActivities { fields.add("liveActivities", liveActivities.controlJSON) }
        for (key, value) in servicesJSON { fields.add(key, value) }
        fields.add("provider", provider?.controlJSON)
        if let sdk { fields.add(sdk.service.rawValue, sdk.controlJSON) }
        if let sdk { fields.add("sdkConnected", sdk.connected) }
        fields.add("notificationCenter", JSONValue.array(notificationCenter.map(\.json)))
        fields.add("pendingLocalNotifications", JSONValue.array(pendingLocal.map(\.controlJSON)))
        fields.add("held", heldJSON)
        return fields.json
    }

    /// What waits for delivery: APNs's one stored push (offline), the held background push,
    /// the low-priority alerts held in low power mode.
    private var heldJSON: JSONValue {
        var fields = JSONFields()
        if let stored = storedWhileOffline {
            var push = JSONFields()
            push.add("apnsId", stored.apnsID)
            push.addTime("expiresAt", stored.expiresAt)
            fields.add("storedWhileOffline", push.json)
        }
        if let background = heldBackground {
            var push = JSONFields()
            push.add("apnsId", background.apnsID)
            push.add("reason", heldBackgroundUntil == nil ? ThrottleReason.lowPowerMode.rawValue : ThrottleReason.budgetExhausted.rawValue)
            push.addTime("until", heldBackgroundUntil)
            fields.add("background", push.json)
        }
        fields.add("lowPriority", strings: heldLowPriority.map(\.apnsID))
        return fields.json
    }
}

extension NotificationAuthorization {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("status", status.rawValue)
        fields.add("alert", alert)
        fields.add("badge", badge)
        fields.add("sound", sound)
        return fields.json
    }
}

extension NotificationCategory {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("id", identifier)
        fields.add("actions", JSONValue.array(actions.map { action in
            var fields = JSONFields()
            fields.add("id", action.identifier)
            fields.add("title", action.title)
            fields.add("activation", action.activation.rawValue)
            fields.add("destructive", action.destructive)
            fields.add("authenticationRequired", action.authenticationRequired)
            fields.add("textInput", action.textInput)
            return fields.json
        }))
        fields.add("customDismissAction", customDismissAction)
        return fields.json
    }
}

extension ThirdPartySDK {
    /// `{appKey, registrationId}` (GeTui's: `appId`, `clientId`): the id it has, or the one asked for.
    var controlJSON: JSONValue {
        let jpush = service == .jpush
        var fields: [(key: String, value: JSONValue)] = [(jpush ? "appKey" : "appId", .string(appKey))]
        if let id = registrationID ?? requestedID { fields.append((jpush ? "registrationId" : "clientId", .string(id))) }
        return .object(fields)
    }
}
