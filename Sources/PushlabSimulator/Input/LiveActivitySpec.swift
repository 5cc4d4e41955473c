import PushlabCore

/// An app's Live Activities as people write them: `true`, or the settings, a fixed
/// push-to-start token and activities already running.
public struct LiveActivitySpec: Decodable, Sendable {
    /// The user's Live Activities switch for the app.
    public var enabled: Bool?
    /// `NSSupportsLiveActivitiesFrequentUpdates`.
    public var frequentUpdates: Bool?
    /// The user's "More Frequent Updates" switch.
    public var frequentUpdatesEnabled: Bool?
    public var pushToStartToken: String?
    public var attributesTypes: [String]?
    public var activities: [ActivitySpec]?

    public init(enabled: Bool? = nil, frequentUpdates: Bool? = nil, frequentUpdatesEnabled: Bool? = nil) {
        self.enabled = enabled
        self.frequentUpdates = frequentUpdates
        self.frequentUpdatesEnabled = frequentUpdatesEnabled
    }

    private enum Keys: String, CodingKey { case enabled, frequentUpdates, frequentUpdatesEnabled, pushToStartToken, attributesTypes, activities }

    public init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            guard flag else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "liveActivities is true or an object; leave it out for an app without Live Activities")) }
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        frequentUpdates = try container.decodeIfPresent(Bool.self, forKey: .frequentUpdates)
        frequentUpdatesEnabled = try container.decodeIfPresent(Bool.self, forKey: .frequentUpdatesEnabled)
        pushToStartToken = try container.decodeIfPresent(String.self, forKey: .pushToStartToken)
        attributesTypes = try container.decodeIfPresent([String].self, forKey: .attributesTypes)
        activities = try container.decodeIfPresent([ActivitySpec].self, forKey: .activities)
    }

    func support(place: String) throws(SimulatorError) -> LiveActivitySupport {
        if let token = pushToStartToken { try checkToken(token, place: "\(place).pushToStartToken") }
        var activities: [LiveActivity] = []
        for (index, activity) in (self.activities ?? []).enumerated() {
            activities.append(try activity.activity(place: "\(place).activities[\(index)]"))
        }
        return LiveActivitySupport(
            enabled: enabled ?? true, frequentUpdates: frequentUpdates ?? false, frequentUpdatesEnabled: frequentUpdatesEnabled ?? true,
            pushToStartToken: pushToStartToken?.lowercased(), attributesTypes: attributesTypes ?? [], activities: activities
        )
    }

}

/// A Live Activity as people write it: already running when the device is added, or what the
/// app passes to `Activity.request`.
public struct ActivitySpec: Decodable, Sendable {
    public var attributesType: String
    public var attributes: FreeJSON?
    public var contentState: FreeJSON?
    /// Epoch seconds.
    public var staleDate: Double?
    public var relevanceScore: Double?
    /// `token` (the activity gets a push token), `channel` (with `channelId`) or absent (none).
    public var pushType: String?
    /// A fixed token for `pushType: token`; absent for a new one.
    public var pushToken: String?
    public var channelId: String?

    public init(attributesType: String) { self.attributesType = attributesType }

    /// The activity; `startedAt` is set when it is added to a device.
    public func activity(place: String) throws(SimulatorError) -> LiveActivity {
        if attributesType.isEmpty { throw SimulatorError(.invalid, "\(place).attributesType must not be empty") }
        let attributes = self.attributes?.value ?? .object([])
        let contentState = self.contentState?.value ?? .object([])
        guard attributes.isObject else { throw SimulatorError(.invalid, "\(place).attributes must be an object") }
        guard contentState.isObject else { throw SimulatorError(.invalid, "\(place).contentState must be an object") }
        var activity = LiveActivity(
            id: "", attributesType: attributesType, attributes: attributes, contentState: contentState,
            staleDate: staleDate.flatMap { DeviceSession.milliseconds(.number($0)) }, relevanceScore: relevanceScore,
            origin: .app, startedAt: LiveActivity.notYetStarted
        )
        switch pushType {
        case nil:
            if pushToken != nil || channelId != nil { throw SimulatorError(.invalid, "\(place): pushToken needs pushType token, channelId needs pushType channel") }
        case "token":
            if let token = pushToken { try checkToken(token, place: "\(place).pushToken") }
            activity.pushToken = pushToken?.lowercased() ?? ""
        case "channel":
            guard let channel = channelId, !channel.isEmpty else { throw SimulatorError(.invalid, "\(place): pushType channel needs channelId") }
            activity.channelID = channel
        case let other?:
            throw SimulatorError(.invalid, "\(place).pushType must be token or channel, not \(other)")
        }
        return activity
    }
}
