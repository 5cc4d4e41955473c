import PushlabCore

/// The seam between the apps' JPush and GeTui SDKs and whoever plays those services.
extension DeviceSimulator {
    /// Who hears the SDKs' connects and disconnects; without one, SDKs never register and no
    /// message reaches them.
    public func setThirdPartySDKConnector(_ connector: (any ThirdPartySDKConnector)?) {
        sdkConnector.withLock { $0 = connector }
    }

    func connect(_ events: [ThirdPartySDKEvent]) {
        guard let connector = sdkConnector.withLock({ $0 }) else { return }
        let here = events.filter { isSimulatedHere($0.deviceID) }
        if !here.isEmpty { connector.handle(here) }
    }

    /// The service answered the registration of the SDK of `bundleID` on `deviceID`: its id, or
    /// the error code the SDK's completion handler gets.
    public func registerSDK(deviceID: String, bundleID: String, registrationID: String?, errorCode: Int? = nil) throws(SimulatorError) {
        try runSession(deviceID, at: clock.now()) { session throws(SimulatorError) in
            session.sdkRegistered(try session.appIndex(bundleID), registrationID: registrationID, errorCode: errorCode)
        }
    }

    /// Hands `message` to the SDK of `bundleID` on `deviceID` over its service's connection;
    /// false when the connection is down (the app is not on screen, or the device is offline).
    public func deliverSDKMessage(deviceID: String, bundleID: String, _ message: ThirdPartySDKMessage) throws(SimulatorError) -> Bool {
        try runSession(deviceID, at: clock.now()) { session throws(SimulatorError) in
            session.receiveSDKMessage(try session.appIndex(bundleID), message)
        }
    }
}

extension DeviceSimulator {
    /// Every app whose SDK has its id, as an event its service should hear: `connected` for one
    /// whose connection is up, `launched` otherwise. A runtime hands them to the services when a
    /// store brought the phones back, since the services keep nothing across a restart.
    public func registeredSDKs() -> [ThirdPartySDKEvent] {
        var events: [ThirdPartySDKEvent] = []
        forEachShard { shard in
            for device in shard.devices.values {
                for app in device.apps {
                    guard let sdk = app.sdk, let id = sdk.registrationID else { continue }
                    events.append(ThirdPartySDKEvent(
                        kind: sdk.connected ? .connected : .launched, deviceID: device.id, bundleID: app.bundleID, service: sdk.service,
                        appKey: sdk.appKey, registrationID: id, requestedID: sdk.requestedID, deviceToken: app.deviceToken, environment: app.environment
                    ))
                }
            }
        }
        return events.sorted { ($0.deviceID, $0.bundleID) < ($1.deviceID, $1.bundleID) }
    }
}
