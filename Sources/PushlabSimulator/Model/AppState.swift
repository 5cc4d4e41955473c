/// Where an app is in its life cycle (reference section 2).
public enum AppState: String, Sendable, Codable, CaseIterable {
    case notRunning
    /// Suspended in the background.
    case background
    case inactive
    /// Active, on screen.
    case foreground

    /// Foreground or inactive: alerts go to the app, not the banner (reference 2.1).
    var isOnScreen: Bool { self == .foreground || self == .inactive }
}

/// Who ended a not-running app (reference 2.4): only a user's force-quit stops silent pushes.
public enum Termination: String, Sendable, Codable, CaseIterable {
    case system
    /// Swiped away in the app switcher.
    case user
}

/// Which callbacks an app has (reference section 3).
public enum NotificationAPI: String, Sendable, Codable, CaseIterable {
    /// iOS 7 to 9: `UIApplicationDelegate` callbacks.
    case legacy
    /// iOS 10 and later: `UNUserNotificationCenterDelegate`.
    case userNotifications
}
