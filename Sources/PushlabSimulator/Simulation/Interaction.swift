/// Something the user does on a device (reference section 3).
public enum Interaction: Sendable, Equatable {
    /// Taps a banner or a Notification Center entry; nil taps the newest of the app's entries.
    case tapNotification(bundleID: String, notificationID: String?)
    /// Launches the app from the home screen.
    case tapAppIcon(bundleID: String)
    /// Taps an action button of a notification; `text` is what was typed into a text-input action.
    case tapAction(bundleID: String, notificationID: String?, actionID: String, text: String?)
    /// Swipes one notification away.
    case dismiss(bundleID: String, notificationID: String?)
    /// Clears Notification Center, for one app or (nil) all apps.
    case clearAll(bundleID: String?)
}

/// A change of an app's life-cycle state made by the user or the system.
public enum AppStateChange: Sendable, Equatable {
    /// Launched or brought to the screen (as tapping its icon).
    case foreground
    /// The user left it (home screen, another app): it is suspended.
    case background
    /// A call or Control Center covers it: still on screen, not active.
    case inactive
    /// The system ended it (memory pressure): silent pushes still launch it.
    case terminateBySystem
    /// The user swiped it away in the app switcher: silent pushes no longer wake it.
    case forceQuit
}
