import PushlabCore

/// JPush's and GeTui's SDKs in the apps (docs/SIMULATOR.md section 16): the service's own
/// connection follows the app on screen and the device's network, and what comes over it is
/// the SDK's callback, never a banner.
extension DeviceSession {
    /// Brings every SDK's connection in line with its app and device, telling the connector of
    /// each change. Run at the end of every session: whatever moved an app on or off screen, or
    /// the device on or off the network, ends here.
    mutating func settleSDKConnections() {
        for app in device.apps.indices {
            guard let sdk = device.apps[app].sdk else { continue }
            let up = device.online && device.apps[app].state.isOnScreen
            guard up != sdk.connected else { continue }
            device.apps[app].sdk!.connected = up
            noteSDK(app, up ? .connected : .disconnected)
        }
    }

    /// The SDK starts with the app: `startSdkWithAppId:…` and `setupWithOption:appKey:…` run in
    /// `didFinishLaunching`, whatever state the app launched into.
    mutating func noteSDKLaunch(_ app: Int) {
        guard device.apps[app].sdk != nil else { return }
        noteSDK(app, .launched)
    }

    private mutating func noteSDK(_ app: Int, _ kind: ThirdPartySDKEvent.Kind) {
        guard let sdk = device.apps[app].sdk else { return }
        let install = device.apps[app]
        sdkEvents.append(ThirdPartySDKEvent(
            kind: kind, deviceID: device.id, bundleID: install.bundleID, service: sdk.service, appKey: sdk.appKey,
            registrationID: sdk.registrationID, requestedID: sdk.requestedID, deviceToken: install.deviceToken, environment: install.environment
        ))
    }

    /// The service answered the SDK's registration: JPush's `registrationIDCompletionHandler:`
    /// (resCode 0 with the id, or the error code) or GeTui's `GeTuiSdkDidRegisterClient:` (only
    /// on success: a failure is `GeTuiSdkDidOccurError:`, which Pushlab does not observe).
    mutating func sdkRegistered(_ app: Int, registrationID: String?, errorCode: Int?) {
        guard let sdk = device.apps[app].sdk else { return }
        if let registrationID { device.apps[app].sdk!.registrationID = registrationID }
        switch sdk.service {
        case .jpush:
            var details: [(key: String, value: JSONValue)] = [("resCode", .number(Double(errorCode ?? 0)))]
            details.append(("registrationID", registrationID.map(JSONValue.string) ?? .null))
            call(app, .jpushRegistrationID, nil, CallbackArguments(sdk: .object(details)))
        case .getui:
            guard let registrationID else { return }
            call(app, .getuiDidRegisterClient, nil, CallbackArguments(sdk: .object([("clientId", .string(registrationID))])))
        }
    }

    /// A message over the service's connection: observed as the SDK's callback when the
    /// connection is up; false when it is not (the service keeps it).
    mutating func receiveSDKMessage(_ app: Int, _ message: ThirdPartySDKMessage) -> Bool {
        guard let sdk = device.apps[app].sdk, sdk.connected else { return false }
        switch sdk.service {
        case .jpush:
            call(app, .jpushDidReceiveMessage, nil, CallbackArguments(userInfo: message.userInfo, sdk: .object([
                ("msgId", .string(message.messageID)), ("offLine", .bool(message.offline)),
            ])))
        case .getui:
            var details: [(key: String, value: JSONValue)] = [("fromGetui", .bool(true)), ("offLine", .bool(message.offline)), ("appId", .string(sdk.appKey))]
            if let task = message.taskID { details.append(("taskId", .string(task))) }
            details.append(("msgId", .string(message.messageID)))
            call(app, .getuiDidReceiveSilence, nil, CallbackArguments(userInfo: message.userInfo, sdk: .object(details)))
        }
        return true
    }
}
