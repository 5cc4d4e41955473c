/// A device token APNs knows: which app and environment it was issued for, and whether it
/// still works.
public struct DeviceTokenRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A UIApplication token: alert, background and the app's other push types.
        case app
        /// A PushKit VoIP token: only the `<bundle>.voip` topic.
        case voip
        /// An app's ActivityKit push-to-start token (iOS 17.2+): only `<bundle>.push-type.liveactivity`.
        case pushToStart
        /// One Live Activity's push token: only `<bundle>.push-type.liveactivity`.
        case liveActivity

        /// Whether a push to `topic` may use a token of this kind.
        func accepts(_ suffix: APNsPushType?) -> Bool {
            switch self {
            case .app: suffix != .voip
            case .voip: suffix == .voip
            case .pushToStart, .liveActivity: suffix == .liveactivity
            }
        }
    }

    public enum State: Sendable, Equatable {
        case active
        /// The app was uninstalled or reinstalled; APNs answers 410 `Unregistered` with this time.
        case unregistered(since: EpochMilliseconds)
        /// APNs answers 410 `ExpiredToken` with this time.
        case expired(since: EpochMilliseconds)
    }

    /// Lower-case hex.
    public var token: String
    public var bundleID: String
    public var environment: APNsEnvironment
    public var kind: Kind
    public var state: State
    /// The simulated device it belongs to, if any.
    public var deviceID: String?

    /// The `apns-topic` a push to this token carries.
    public var topic: String {
        switch kind {
        case .app: bundleID
        case .voip: bundleID + ".voip"
        case .pushToStart, .liveActivity: bundleID + ".push-type.liveactivity"
        }
    }

    public init(token: String, bundleID: String, environment: APNsEnvironment, kind: Kind = .app, state: State = .active, deviceID: String? = nil) {
        self.token = token.lowercased()
        self.bundleID = bundleID
        self.environment = environment
        self.kind = kind
        self.state = state
        self.deviceID = deviceID
    }
}

/// An app (bundle id) and the team that owns it.
public struct AppRecord: Sendable, Equatable {
    public var bundleID: String
    public var teamID: String
    /// When the world learned of it (0 for apps loaded at start): a connection only pushes to
    /// apps its team had when it was bound, at its first push (A3).
    public internal(set) var addedGeneration: UInt64 = 0
    /// Whether the app has the broadcast capability: when false its broadcast and channel
    /// management requests get `FeatureNotEnabled` (A11; on by default, a scenario may switch it off).
    public var broadcastEnabled: Bool

    public init(bundleID: String, teamID: String, broadcastEnabled: Bool = true) {
        self.bundleID = bundleID
        self.teamID = teamID
        self.broadcastEnabled = broadcastEnabled
    }
}
