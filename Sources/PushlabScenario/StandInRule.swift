import PushlabCore

/// How Pushlab's stand-in for a provider's backend (`/stand-in/…` on the control API, the
/// `baseURL` `pushlab:stand-in`) answers one kind of request: the first rule whose method and path
/// fit answers it; without one the answer is 200 `{}`.
public struct StandInRule: Sendable, Equatable {
    /// `/devices`, or a prefix ending in `*` (`/sync/*`).
    public var path: String
    /// nil for any method.
    public var method: String?
    public var status: Int
    public var body: JSONValue?
    /// How long it waits before answering (real time).
    public var delaySeconds: Double

    public init(path: String, method: String? = nil, status: Int = 200, body: JSONValue? = nil, delaySeconds: Double = 0) {
        self.path = path
        self.method = method
        self.status = status
        self.body = body
        self.delaySeconds = delaySeconds
    }

    /// The statuses a rule may answer with: final ones only.
    public static let statuses = 200...599

    public func matches(method: String, path: String) -> Bool {
        if let wanted = self.method, wanted.uppercased() != method.uppercased() { return false }
        if self.path.hasSuffix("*") { return path.hasPrefix(String(self.path.dropLast())) }
        return self.path == path
    }

    /// Reads one rule (`standIn[i]` of a scenario, or a control API body).
    public static func parse(_ value: JSONValue, place: String) throws(ScenarioScriptError) -> StandInRule {
        guard case .object = value else { throw ScenarioScriptError("\(place) must be a map {path, method?, status?, body?, delaySeconds?}") }
        let allowed: Set<String> = ["path", "method", "status", "body", "delaySeconds"]
        if let unknown = value.objectKeys.first(where: { !allowed.contains($0) }) {
            throw ScenarioScriptError("\(place).\(unknown) is not a stand-in rule field (path, method, status, body, delaySeconds)")
        }
        guard let path = value["path"]?.stringValue, path.hasPrefix("/") else { throw ScenarioScriptError("\(place).path must start with /") }
        let status = value["status"].map { $0.integerValue ?? -1 } ?? 200
        // A 1xx is never a final answer: an HTTP client waits on 101 and fails on the others.
        guard Self.statuses.contains(Int(status)) else {
            throw ScenarioScriptError("\(place).status must be a final HTTP status, 200...599 (1xx answers are interim, never final)")
        }
        let delay = value["delaySeconds"].map { $0.numberValue ?? -1 } ?? 0
        guard delay >= 0, delay <= 600 else { throw ScenarioScriptError("\(place).delaySeconds must be 0...600") }
        if value["body"] == .null { throw ScenarioScriptError("\(place).body must not be null (leave it out to answer {})") }
        let method = value["method"]?.stringValue?.uppercased()
        if value["method"] != nil, method == nil { throw ScenarioScriptError("\(place).method must be a word like POST") }
        return StandInRule(path: path, method: method, status: Int(status), body: value["body"], delaySeconds: delay)
    }
}
