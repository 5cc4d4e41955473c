/// What the user allowed the app to show (reference section 4).
public struct NotificationAuthorization: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        case notDetermined, denied, authorized
        /// Apple: delivered quietly, to Notification Center only, with no banner, sound or badge.
        case provisional
    }

    public var status: Status
    public var alert: Bool
    public var badge: Bool
    public var sound: Bool

    public init(status: Status = .authorized, alert: Bool = true, badge: Bool = true, sound: Bool = true) {
        self.status = status
        self.alert = alert
        self.badge = badge
        self.sound = sound
    }

    public static let authorized = NotificationAuthorization()
    public static let denied = NotificationAuthorization(status: .denied)

    var mayShowBanner: Bool { status == .authorized && alert }
    var mayPlaySound: Bool { status == .authorized && sound }
    var maySetBadge: Bool { status == .authorized && badge }
    /// Provisional notifications go to Notification Center quietly.
    var mayListInNotificationCenter: Bool { (status == .authorized && alert) || status == .provisional }
}

/// What `willPresentNotification`'s completion handler returns in the foreground (note 002).
public struct PresentationOptions: OptionSet, Sendable, Codable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let banner = PresentationOptions(rawValue: 1)
    public static let list = PresentationOptions(rawValue: 2)
    public static let sound = PresentationOptions(rawValue: 4)
    public static let badge = PresentationOptions(rawValue: 8)

    public static let names: [(String, PresentationOptions)] = [("banner", .banner), ("list", .list), ("sound", .sound), ("badge", .badge)]

    public init?(names: [String]) {
        var options: PresentationOptions = []
        for name in names {
            guard let option = Self.names.first(where: { $0.0 == name })?.1 else { return nil }
            options.insert(option)
        }
        self = options
    }

    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }
}
