import PushlabCore

/// What JPush knows of an app's phones: each registration id with the phone's APNs token (which
/// the SDK forwards with `registerDeviceToken:`), its tags, alias and mobile number (the device
/// API and the SDK's `setTags` / `setAlias`), the badge its SDK last set, and whether the app is
/// connected to JPush now (only while it runs).
public struct JPushDevice: Sendable, Equatable {
    public var registrationID: String
    public var appKey: String
    /// The phone's APNs device token for the app, once the SDK has forwarded it.
    public var deviceToken: String?
    public var tags: Set<String> = []
    public var alias: String?
    public var mobile: String?
    public var badge = 0
    public var connected = false
    /// JPush's own number for the device (`_j_uid` in what it sends APNs).
    public var userID: Int64

    public init(registrationID: String, appKey: String, userID: Int64) {
        self.registrationID = registrationID
        self.appKey = appKey
        self.userID = userID
    }
}

public struct JPushDirectory: Sendable {
    public private(set) var apps: [String: JPushApp] = [:]
    public private(set) var devices: [String: JPushDevice] = [:]
    /// Registration ids, the same sequence for the same seed.
    private var ids: APNsIDGenerator
    private var registered: Int64 = 0

    /// A device may hold this many tags [DOC: device API].
    public static let maximumTagsPerDevice = 1_000

    public init(seed: UInt64) {
        ids = APNsIDGenerator(seed: seed)
    }

    public mutating func add(_ app: JPushApp) {
        apps[app.appKey] = app
    }

    /// The SDK's first launch of an app on a phone: a new registration id (the phone keeps it
    /// across launches; the caller remembers it), or `requested` (a scenario's) when no other
    /// device has it.
    public mutating func register(appKey: String, requested: String? = nil) -> JPushDevice? {
        guard apps[appKey] != nil else { return nil }
        registered += 1
        let id = requested.flatMap { devices[$0] == nil ? $0 : nil } ?? String(ids.hex(bytes: 10).prefix(JPushRegistrationID.length))
        // JPush's user numbers are 11 digits (`_j_uid`); in registration order here.
        let device = JPushDevice(registrationID: id, appKey: appKey, userID: 20_000_000_000 + registered)
        devices[id] = device
        return device
    }

    public mutating func update(_ registrationID: String, _ change: (inout JPushDevice) -> Void) {
        guard devices[registrationID] != nil else { return }
        change(&devices[registrationID]!)
    }

    /// The app's devices a push's audience selects, in registration order of their ids; 1011
    /// when none [DOC: "没有满足条件的推送目标"]. `all` is every registered device of the app.
    public func resolve(_ audience: JPushPush.Audience, appKey: String) -> Result<[JPushDevice], JPushError> {
        let own = devices.values.filter { $0.appKey == appKey }.sorted { $0.userID < $1.userID }
        let chosen: [JPushDevice]
        switch audience {
        case .all:
            chosen = own
        case .selected(let selectors):
            chosen = own.filter { device in
                if let tags = selectors.tags, device.tags.isDisjoint(with: tags) { return false }
                if let tags = selectors.tagsAnd, !Set(tags).isSubset(of: device.tags) { return false }
                if let tags = selectors.tagsNot, !device.tags.isDisjoint(with: tags) { return false }
                if let aliases = selectors.aliases, !aliases.contains(where: { $0 == device.alias }) { return false }
                if let ids = selectors.registrationIDs, !ids.contains(device.registrationID) { return false }
                // Segments and A/B tests are made in JPush's portal: Pushlab has none to match.
                if selectors.segment != nil || selectors.abtest != nil { return false }
                return true
            }
        }
        return chosen.isEmpty ? .failure(JPushError(.noTarget)) : .success(chosen)
    }
}
