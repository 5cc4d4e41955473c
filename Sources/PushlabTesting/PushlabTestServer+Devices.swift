import PushlabCore
import PushlabSimulator

/// Adding simulated phones in one line. Their apps are made known to APNs for the signing key's
/// team, so a push to a new app's topic is accepted without further setup.
extension PushlabTestServer {
    /// Adds a phone with one app and returns the app's device token (new, random, registered
    /// with APNs in the app's environment).
    @discardableResult
    public func addDevice(
        _ id: String,
        app bundleID: String = PushlabTestServer.defaultBundleID,
        environment: APNsEnvironment = .development,
        api: NotificationAPI = .userNotifications,
        state: AppState = .background,
        online: Bool = true
    ) throws(SimulatorError) -> String {
        let install = AppInstall(bundleID: bundleID, environment: environment, deviceToken: "", api: api, state: state)
        let device = try addDevice(SimulatedDevice(id: id, online: online, apps: [install]))
        return device.apps[0].deviceToken
    }

    /// Adds a device as described (several apps, categories, authorization, ...); apps without a
    /// `deviceToken` get one. Returns the device with its tokens.
    @discardableResult
    public func addDevice(_ device: SimulatedDevice) throws(SimulatorError) -> SimulatedDevice {
        for app in device.apps where world.app(app.bundleID) == nil {
            world.add(AppRecord(bundleID: app.bundleID, teamID: signingKey.teamID))
        }
        return try simulator.addDevice(device)
    }

    /// The token of an app on a device, nil when either is missing.
    public func deviceToken(of deviceID: String, app bundleID: String = PushlabTestServer.defaultBundleID) -> String? {
        simulator.device(deviceID)?.app(bundleID)?.deviceToken
    }
}
