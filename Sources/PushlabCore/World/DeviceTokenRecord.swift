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
        /// A Location Push Service Extension's token (`startMonitoringLocationPushes`): `.location-query`.
        case location
        /// A Push to Talk channel manager's ephemeral token: `.voip-ptt`.
        case pushToTalk
        /// A File Provider's PushKit token: `.pushkit.fileprovider`.
        case fileProvider
        /// WidgetKit's push token (`WidgetPushHandler`): `.push-type.widgets`.
        case widgets
        /// A control's push token (`ControlPushHandler`): `.push-type.controls`.
        case controls
        /// The paired watch's complication token: `.complication`.
        case complication
        /// A device's MDM enrollment token: the MDM certificate's topic, no suffix.
        case mdm

        /// The push type whose topic suffix this kind takes (nil for app and MDM tokens).
        public var pushType: APNsPushType? {
            switch self {
            case .app, .mdm: nil
            case .voip: .voip
            case .pushToStart, .liveActivity: .liveactivity
            case .location: .location
            case .pushToTalk: .pushtotalk
            case .fileProvider: .fileprovider
            case .widgets: .widgets
            case .controls: .controls
            case .complication: .complication
            }
        }

        /// Whether a push to a topic with `suffix` may use a token of this kind: each kind only
        /// its own topic. An app token sent to a suffixed topic (`.location-query`, `.voip`, …)
        /// is `DeviceTokenNotForTopic`, as Apple answers for location pushes (forum thread
        /// 691613). The one exception is `.push-type.liveactivity`: APNs does not read which
        /// activity a payload is for, and the phone ignores it (docs/APNS-COMPATIBILITY.md 3).
        func accepts(_ suffix: APNsPushType?) -> Bool {
            suffix == pushType || (self == .app && suffix == .liveactivity)
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

    /// What a token given by hand must look like (an even number of hex digits, at least 64: the
    /// variable-length format Apple allows); `formatHint` says so in messages.
    public static func isWellFormed(_ token: String) -> Bool {
        isHex(token) && token.utf8.count >= 64 && token.utf8.count % 2 == 0
    }

    /// ASCII hex digits only: `Character.isHexDigit` also takes the fullwidth ones (`１`), which
    /// no request path carries.
    public static func isHex(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    public static let formatHint = "an even number of hex digits, at least 64"

    /// The `apns-topic` a push to this token carries.
    public var topic: String {
        bundleID + (kind.pushType?.topicSuffix ?? "")
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
