import PushlabCore

/// The apps registered with JPush's and GeTui's portals (a scenario's `services:`, or added
/// through the control API).
public struct ServiceApps: Sendable, Equatable {
    public var jpush: [JPushApp]
    public var getui: [GeTuiPortalApp]

    public init(jpush: [JPushApp] = [], getui: [GeTuiPortalApp] = []) {
        self.jpush = jpush
        self.getui = getui
    }

    public var isEmpty: Bool { jpush.isEmpty && getui.isEmpty }
}

/// A GeTui app with the APNs environment its portal is set to (GeTui pushes each app through
/// one environment: the certificate's).
public struct GeTuiPortalApp: Sendable, Equatable {
    public var app: GeTuiApp
    public var environment: APNsEnvironment

    public init(app: GeTuiApp, environment: APNsEnvironment) {
        self.app = app
        self.environment = environment
    }
}
