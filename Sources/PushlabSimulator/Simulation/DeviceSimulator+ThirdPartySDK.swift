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
