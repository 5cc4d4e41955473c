import PushlabCore

/// What an app sends to its provider's own backend: a base URL and, per event it reacts to, the
/// request it makes (docs/SIMULATOR.md section 15). Off unless an app has one.
public struct ProviderBackend: Sendable, Codable, Equatable {
    /// `http://` or `https://`, with host and optional port and path prefix.
    public var baseURL: String
    public var requests: [ProviderRequestTemplate]

    /// The `baseURL` of Pushlab's own stand-in backend (the control API's `/stand-in`).
    public static let standInBaseURL = "pushlab:stand-in"

    public init(baseURL: String, requests: [ProviderRequestTemplate]) {
        self.baseURL = baseURL
        self.requests = requests
    }

    func template(for event: ProviderEvent) -> ProviderRequestTemplate? { requests.first { $0.event == event } }
}

/// When an app calls its backend.
public enum ProviderEvent: String, Sendable, Codable, CaseIterable {
    /// It learned a new device token (first launch after an install or reinstall).
    case registered
    /// A silent push woke it, and it fetches before it completes.
    case backgroundFetch
    /// The user tapped the notification or an action, or sent a text reply.
    case notificationResponse
    /// It launched.
    case launch
    /// Its JPush or GeTui SDK got its registration id or clientId (the SDK's completion handler
    /// or `GeTuiSdkDidRegisterClient:`), which the backend needs to push through the service.
    case sdkRegistered
}

/// One request, as written: `{field}` in the path, a header value or a string of the body is
/// replaced by the event's field; a body string that is only `{field}` takes the field's JSON value.
public struct ProviderRequestTemplate: Sendable, Codable, Equatable {
    public var event: ProviderEvent
    public var method: String
    public var path: String
    public var headers: [ProviderHeader]
    public var body: JSONValue?
    /// How long the app waits for the answer when iOS gives it no shorter limit.
    public var timeoutSeconds: Double

    public init(event: ProviderEvent, method: String = "POST", path: String, headers: [ProviderHeader] = [], body: JSONValue? = nil, timeoutSeconds: Double = 60) {
        self.event = event
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeoutSeconds = timeoutSeconds
    }
}

public struct ProviderHeader: Sendable, Codable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request an app makes now, with its fields filled in: the simulator hands it to whoever sends
/// requests (an adapter), which reports back what the backend answered.
public struct ProviderRequest: Sendable, Equatable {
    public var deviceID: String
    public var bundleID: String
    /// The push or local notification the event was about, if any.
    public var notificationID: String?
    public var event: ProviderEvent
    public var method: String
    public var url: String
    public var headers: [ProviderHeader]
    public var body: [UInt8]?
    /// Milliseconds before the request is given up: the app's background time or its timeout.
    public var timeLimitMilliseconds: Int64
    /// Whether `timeLimitMilliseconds` is iOS's background time (running out cuts the request off).
    public var limitedByBackgroundTime: Bool
}

/// What came of a provider request: the observation the simulator records.
public struct ProviderResponse: Sendable, Equatable {
    public enum Failure: String, Sendable, Codable, CaseIterable {
        /// Nothing listens there (connection refused) or the host is unknown.
        case refused
        /// The app's own timeout passed.
        case timedOut
        /// iOS suspended the app when its background time ran out.
        case cutOff
        /// The connection broke, TLS failed, or the answer could not be read.
        case failed
    }

    public var event: ProviderEvent
    public var method: String
    public var url: String
    public var status: Int?
    public var milliseconds: Int64
    /// The start of the answer's body, as text.
    public var excerpt: String?
    public var failure: Failure?
    public var message: String?

    public init(event: ProviderEvent, method: String, url: String, status: Int?, milliseconds: Int64, excerpt: String?, failure: Failure?, message: String?) {
        self.event = event
        self.method = method
        self.url = url
        self.status = status
        self.milliseconds = milliseconds
        self.excerpt = excerpt
        self.failure = failure
        self.message = message
    }
}

/// Whoever sends provider requests for the simulator (the runtime's HTTP client). Called after
/// the device's lock is released; must return at once and report through
/// `DeviceSimulator.recordProviderResponse`.
public protocol ProviderRequestSender: Sendable {
    func send(_ requests: [ProviderRequest])
}
