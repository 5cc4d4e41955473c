import PushlabCore

/// The parts of an app, beyond its notifications, that push types other than alert, background
/// and liveactivity reach: PushKit VoIP, a Location Push Service Extension, Push to Talk, a File
/// Provider, widgets, controls, the paired watch's complication. Each present one has its own
/// token, registered with APNs under its own kind (docs/SIMULATOR.md section 14).
public struct PushServices: Sendable, Codable, Equatable {
    public var voip: VoIPService?
    public var location: LocationPushService?
    public var pushToTalk: PushToTalkService?
    public var fileProvider: TokenService?
    public var widgets: WidgetPushService?
    public var controls: TokenService?
    public var complication: ComplicationService?

    public init(
        voip: VoIPService? = nil, location: LocationPushService? = nil, pushToTalk: PushToTalkService? = nil, fileProvider: TokenService? = nil,
        widgets: WidgetPushService? = nil, controls: TokenService? = nil, complication: ComplicationService? = nil
    ) {
        self.voip = voip
        self.location = location
        self.pushToTalk = pushToTalk
        self.fileProvider = fileProvider
        self.widgets = widgets
        self.controls = controls
        self.complication = complication
    }

    /// Each service's key in an app's JSON (`AppSpec`, the control API) and its token kind.
    public static let specKeys: [(key: String, kind: DeviceTokenRecord.Kind)] = [
        ("voip", .voip), ("locationPush", .location), ("pushToTalk", .pushToTalk), ("fileProvider", .fileProvider),
        ("widgets", .widgets), ("controls", .controls), ("complication", .complication),
    ]

    /// Each service's token with its kind; "" for one not issued yet.
    public var tokens: [(kind: DeviceTokenRecord.Kind, token: String)] {
        var tokens: [(DeviceTokenRecord.Kind, String)] = []
        if let voip { tokens.append((.voip, voip.token)) }
        if let location { tokens.append((.location, location.token)) }
        if let pushToTalk { tokens.append((.pushToTalk, pushToTalk.token)) }
        if let fileProvider { tokens.append((.fileProvider, fileProvider.token)) }
        if let widgets { tokens.append((.widgets, widgets.token)) }
        if let controls { tokens.append((.controls, controls.token)) }
        if let complication { tokens.append((.complication, complication.token)) }
        return tokens
    }

    func owns(token: String) -> Bool { tokens.contains { $0.token == token } }

    /// Sets the token of the service of `kind`.
    mutating func setToken(_ token: String, for kind: DeviceTokenRecord.Kind) {
        switch kind {
        case .voip: voip?.token = token
        case .location: location?.token = token
        case .pushToTalk: pushToTalk?.token = token
        case .fileProvider: fileProvider?.token = token
        case .widgets: widgets?.token = token
        case .controls: controls?.token = token
        case .complication: complication?.token = token
        default: break
        }
    }
}

/// A service that is only a token (File Provider, controls).
public struct TokenService: Sendable, Codable, Equatable {
    public var token: String

    public init(token: String = "") {
        self.token = token
    }
}

/// PushKit VoIP with CallKit.
public struct VoIPService: Sendable, Codable, Equatable {
    /// When the app reports the incoming call to CallKit.
    public enum CallReporting: String, Sendable, Codable, CaseIterable {
        /// In `didReceiveIncomingPush`, before it returns: the call screen shows.
        case immediately
        /// After the delegate returned (an asynchronous network call first): too late.
        case late
        /// Not at all.
        case never
    }

    public var token: String
    public var reportsCall: CallReporting
    /// The payload key the app reads the caller from (`CXHandle` value); absent: `caller`, `handle`, `from`.
    public var callerKey: String?
    /// Pushes the app received without reporting a call in time, since it was installed.
    public var failedReports: Int
    /// iOS stopped delivering VoIP pushes to the app (after repeated failures; a reinstall clears it).
    public var deliveryStopped: Bool

    public init(token: String = "", reportsCall: CallReporting = .immediately, callerKey: String? = nil) {
        self.token = token
        self.reportsCall = reportsCall
        self.callerKey = callerKey
        failedReports = 0
        deliveryStopped = false
    }
}

/// A Location Push Service Extension (iOS 15+).
public struct LocationPushService: Sendable, Codable, Equatable {
    public enum Authorization: String, Sendable, Codable, CaseIterable {
        case always, whenInUse, denied, notDetermined
    }

    public var token: String
    /// `com.apple.developer.location.push`.
    public var entitlement: Bool
    public var authorization: Authorization

    public init(token: String = "", entitlement: Bool = true, authorization: Authorization = .always) {
        self.token = token
        self.entitlement = entitlement
        self.authorization = authorization
    }
}

/// A Push to Talk channel manager (iOS 16+).
public struct PushToTalkService: Sendable, Codable, Equatable {
    /// What `incomingPushResult` returns.
    public enum PushResult: String, Sendable, Codable, CaseIterable {
        case activeRemoteParticipant, leaveChannel
    }

    /// The ephemeral token; it works only while the user is in a channel.
    public var token: String
    public var inChannel: Bool
    public var result: PushResult

    public init(token: String = "", inChannel: Bool = true, result: PushResult = .activeRemoteParticipant) {
        self.token = token
        self.inChannel = inChannel
        self.result = result
    }
}

/// WidgetKit push (iOS 26): one token per app; reloads draw on the widget's daily budget.
public struct WidgetPushService: Sendable, Codable, Equatable {
    public var token: String
    /// When pushes reloaded the timelines, for the daily budget.
    public var reloads: [EpochMilliseconds]

    public init(token: String = "") {
        self.token = token
        reloads = []
    }
}

/// The paired Apple Watch's complication (watchOS): 50 pushes a day, only on the active face.
public struct ComplicationService: Sendable, Codable, Equatable {
    public var token: String
    /// The complication is on the watch's current face.
    public var onActiveWatchFace: Bool
    public var deliveries: [EpochMilliseconds]

    public init(token: String = "", onActiveWatchFace: Bool = true) {
        self.token = token
        self.onActiveWatchFace = onActiveWatchFace
        deliveries = []
    }
}

/// A device enrolled in mobile device management: APNs pushes to its MDM token make it check in.
public struct MDMEnrollment: Sendable, Codable, Equatable {
    /// The MDM push certificate's topic (its subject's UID).
    public var topic: String
    public var token: String
    /// The `PushMagic` the device sent at enrollment; a push carries it back as `{"mdm": …}`.
    public var pushMagic: String
    /// The one MDM push APNs holds while the device is offline.
    public var storedWhileOffline: PendingPush?

    public init(topic: String, token: String = "", pushMagic: String) {
        self.topic = topic
        self.token = token
        self.pushMagic = pushMagic
    }
}

/// How a Notification Service Extension behaves when it runs.
public struct ServiceExtensionBehavior: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        /// Calls the content handler after `seconds`.
        case finishes
        /// Crashes: the original content is shown.
        case crashes
        /// Goes over the extension's memory limit: killed, the original content is shown.
        case exceedsMemory
    }

    /// Replacements the extension makes (nil keeps the original).
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// An attachment's identifier (an image it downloads).
    public var attachment: String?
    /// How long it works before calling the content handler.
    public var seconds: Double
    public var outcome: Outcome
    /// Whether `serviceExtensionTimeWillExpire` delivers the best-attempt content (the template's
    /// default) or nothing (then the original shows).
    public var deliversBestAttempt: Bool
    /// A Communication Notification: the sender of the `INSendMessageIntent` it donates.
    public var communicationSender: String?

    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil, attachment: String? = nil, seconds: Double = 0,
        outcome: Outcome = .finishes, deliversBestAttempt: Bool = true, communicationSender: String? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.attachment = attachment
        self.seconds = seconds
        self.outcome = outcome
        self.deliversBestAttempt = deliversBestAttempt
        self.communicationSender = communicationSender
    }
}
