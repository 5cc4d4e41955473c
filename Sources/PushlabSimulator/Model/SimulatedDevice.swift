import PushlabCore

/// A simulated iPhone: its switches and the apps on it (reference section 1).
public struct SimulatedDevice: Sendable, Codable, Equatable {
    public var id: String { didSet { revision.advance(if: oldValue != id) } }
    public var name: String { didSet { revision.advance(if: oldValue != name) } }
    public var iosVersion: String { didSet { revision.advance(if: oldValue != iosVersion) } }
    /// Reachable by APNs.
    public var online: Bool { didSet { revision.advance(if: oldValue != online) } }
    public var locked: Bool { didSet { revision.advance(if: oldValue != locked) } }
    public var lowPowerMode: Bool { didSet { revision.advance(if: oldValue != lowPowerMode) } }
    /// A Focus (Do Not Disturb) mode is on: notifications are delivered silently.
    public var focus: Bool { didSet { revision.advance(if: oldValue != focus) } }
    /// Seconds east of UTC, for calendar triggers.
    public var utcOffsetSeconds: Int { didSet { revision.advance(if: oldValue != utcOffsetSeconds) } }
    public var apps: [AppInstall]
    /// Enrolled in mobile device management; nil for a device that is not.
    @OutOfLine public var mdm: MDMEnrollment? {
        didSet {
            revision.advance()
            if oldValue?.storedWhileOffline?.apnsIDValue != mdm?.storedWhileOffline?.apnsIDValue { heldRevision.advance() }
        }
    }

    /// Moves on with every change to the device's own fields; each app has its own
    /// (`AppInstall.revision`). Neither saved nor compared.
    var revision = Revision()
    /// Moves on when the MDM push APNs holds while the device is offline changes (as
    /// `AppInstall.heldRevision` does for the apps).
    var heldRevision = Revision()

    private enum CodingKeys: String, CodingKey {
        case id, name, iosVersion, online, locked, lowPowerMode, focus, utcOffsetSeconds, apps, mdm
    }

    public init(id: String, name: String? = nil, iosVersion: String = "17.0", online: Bool = true, locked: Bool = false, lowPowerMode: Bool = false, focus: Bool = false, utcOffsetSeconds: Int = 0, apps: [AppInstall] = [], mdm: MDMEnrollment? = nil) {
        self.id = id
        self.name = name ?? id
        self.iosVersion = iosVersion
        self.online = online
        self.locked = locked
        self.lowPowerMode = lowPowerMode
        self.focus = focus
        self.utcOffsetSeconds = utcOffsetSeconds
        self.apps = apps
        self.mdm = mdm
    }

    /// Whether anything on it can fall due (a load of plain devices skips working it out).
    var mayHaveDueEvents: Bool {
        mdm?.storedWhileOffline != nil || apps.contains { app in
            !app.pendingLocal.isEmpty || app.liveActivities?.activities.isEmpty == false || app.storedWhileOffline != nil
                || app.heldBackground != nil || app.liveActivities?.storedBroadcasts.isEmpty == false
        }
    }

    /// Whether APNs or the system holds the push `id` for the device: stored while offline, or
    /// held back for an app.
    func holds(_ id: APNsID) -> Bool {
        mdm?.storedWhileOffline?.apnsIDValue == id || apps.contains { app in
            app.storedWhileOffline?.apnsIDValue == id || app.heldBackground?.apnsIDValue == id
                || app.heldLowPriority.contains { $0.apnsIDValue == id }
        }
    }

    /// The tokens APNs knows for the device: every app's, and its MDM token.
    public var tokenRecords: [DeviceTokenRecord] {
        var records = apps.flatMap { $0.tokenRecords(deviceID: id) }
        if let mdm, !mdm.token.isEmpty {
            records.append(DeviceTokenRecord(token: mdm.token, bundleID: mdm.topic, environment: .production, kind: .mdm, deviceID: id))
        }
        return records
    }

    public func app(_ bundleID: String) -> AppInstall? { apps.first { $0.bundleID == bundleID } }

    func appIndex(_ bundleID: String) -> Int? { apps.firstIndex { $0.bundleID == bundleID } }

    /// The app a token belongs to: its device token, push-to-start token or an activity's token.
    func appIndex(token: String) -> Int? {
        apps.firstIndex { $0.deviceToken == token || $0.liveActivities?.owns(token: token) == true || $0.services?.owns(token: token) == true }
    }

    /// iOS 9 added the `withResponseInfo:` action callbacks.
    var hasResponseInfoCallbacks: Bool {
        let major = Int(iosVersion.prefix { $0.isNumber }) ?? 17
        return major >= 9
    }
}
