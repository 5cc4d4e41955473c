import PushlabCore

/// One step of a scenario's script: something a provider, a user or the world does, and what
/// must follow from it. `docs/SCENARIOS.md` (Steps) describes each kind.
public struct ScenarioStep: Sendable {
    public enum Action: Sendable {
        /// A push through Pushlab's own HTTP/2 client over TLS.
        case send(PushStep)
        /// A change made through the control API: the route and its JSON body.
        case control(ControlCall)
        /// A check of the provider report.
        case report(ReportExpectation)
        /// A call to JPush's or GeTui's API on an app's behalf (docs/SERVICES.md).
        case service(ServiceCall)
    }

    /// `steps[3]` with the step's name, for reports.
    public var title: String
    public var action: Action
    /// The device the step is about: expected observations default to it.
    public var device: String?
    public var expectation: StepExpectation
}

/// A control API request a step makes; `{device}` and `{bundleId}` in the path are filled in
/// when the step runs (the bundle id may be the device's only app).
public struct ControlCall: Sendable, Equatable {
    public enum Method: String, Sendable { case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE" }

    public var method: Method
    public var path: String
    public var body: JSONValue? = nil
    /// The step's `bundleId`, if it named one.
    public var bundleID: String? = nil
    /// What the step does, in words: `changeApp ann`.
    public var summary: String
}

/// A `jpush:` or `getui:` step: the service's API called as the app's backend would call it,
/// through the control API (`POST /v1/services/{service}/call`).
public struct ServiceCall: Sendable, Equatable {
    /// `jpush` or `getui`.
    public var service: String
    /// JPush's appKey or GeTui's appId.
    public var app: String
    public var method: String
    /// JPush's `/v3/…` path, or GeTui's after `/v2/{appId}`.
    public var path: String
    public var body: JSONValue?

    /// The control API's body for it.
    var controlBody: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("app", .string(app)), ("method", .string(method)), ("path", .string(path))]
        if let body { members.append(("body", body)) }
        return .object(members)
    }
}

/// A push a step sends.
public struct PushStep: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// A simulated device's app: its current token (or the last one it had, once uninstalled).
        case device(String, bundleID: String?, previousToken: Bool)
        case token(String)
        /// A broadcast channel of an app (`POST /4/broadcasts/apps/<bundle>`).
        case channel(String, bundleID: String?)
    }

    public enum Auth: Sendable, Equatable {
        /// A provider token signed with a scenario key. The connection's token is reused, as a
        /// well-behaved provider caches it, and replaced once it is 50 minutes old (Apple:
        /// refresh between 20 and 60 minutes); `newToken` and `issuedAtOffset` ask for a fresh
        /// one, `keepToken` reuses it at any age (the provider that never refreshes).
        case key(keyID: String?, teamID: String?, issuedAtOffset: Int64?, newToken: Bool, keepToken: Bool)
        /// This exact provider token.
        case literal(String)
        /// A client certificate (the connection is opened with it).
        case certificate(certificate: String, key: String?)
        /// No authorization header at all.
        case none
    }

    /// A Live Activity token of the app instead of its device token.
    public enum LiveActivityToken: Sendable, Equatable {
        /// The app's push-to-start token.
        case pushToStart
        /// An activity's own token: the index in the app's activities, or nil for the newest.
        case activity(Int?)
        /// A push service's token (`voip`, `locationPush`, `pushToTalk`, `fileProvider`, `widgets`,
        /// `controls`, `complication`: the app's JSON key), or the device's MDM token (`mdm`).
        case service(String)
    }

    public var target: Target
    public var liveActivityToken: LiveActivityToken? = nil
    /// nil: the app's environment (development for a bare token).
    public var environment: APNsEnvironment?
    /// nil: the app's bundle id, with the suffix the push type needs.
    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    public var expiration: Int64?
    /// Seconds from the server's clock: the runner turns it into `apns-expiration`.
    public var expiresIn: Int64?
    public var collapseID: String?
    public var apnsID: String?
    public var payload: [UInt8]
    public var auth: Auth
    /// Pushes with the same connection name (and environment) share one HTTP/2 connection.
    public var connection: String
}
