import PushlabCore

/// What users do on devices, and apps' local notifications.
extension DeviceSimulator {
    public func interact(_ interaction: Interaction, on deviceID: String) throws(SimulatorError) {
        try withSession(deviceID) { session throws(SimulatorError) in try session.perform(interaction) }
    }

    public enum ScheduleResult: Sendable, Equatable {
        case scheduled(LocalNotification)
        /// iOS refused it (no permission for alerts); the message is the console's.
        case refused(consoleMessage: String)
    }

    /// Schedules a local notification (one with the same identifier is replaced).
    @discardableResult
    public func scheduleLocal(_ notification: LocalNotification, app bundleID: String, on deviceID: String) throws(SimulatorError) -> ScheduleResult {
        try checkIdentifier(notification.identifier)
        return try withSession(deviceID) { session throws(SimulatorError) in
            let app = try session.appIndex(bundleID)
            return try session.schedule(notification, app: app)
        }
    }

    /// Presents a local notification at once (legacy `presentLocalNotificationNow:`).
    @discardableResult
    public func presentLocalNow(_ notification: LocalNotification, app bundleID: String, on deviceID: String) throws(SimulatorError) -> ScheduleResult {
        try checkIdentifier(notification.identifier)
        return try withSession(deviceID) { session throws(SimulatorError) in
            let app = try session.appIndex(bundleID)
            return session.presentNow(notification, app: app)
        }
    }

    /// The app's scheduled local notifications not yet fired (`scheduledLocalNotifications`).
    public func pendingLocal(app bundleID: String, on deviceID: String) throws(SimulatorError) -> [LocalNotification] {
        try withSession(deviceID) { session throws(SimulatorError) in
            session.device.apps[try session.appIndex(bundleID)].pendingLocal
        }
    }

    public func cancelLocal(_ identifier: String, app bundleID: String, on deviceID: String) throws(SimulatorError) {
        try withSession(deviceID) { session throws(SimulatorError) in
            try session.cancelLocal(identifier, app: try session.appIndex(bundleID))
        }
    }

    /// The device enters (or leaves) a region: local notifications with that region fire.
    public func regionEvent(_ identifier: String, entered: Bool, on deviceID: String) throws(SimulatorError) {
        try withSession(deviceID) { session throws(SimulatorError) in session.regionEvent(identifier, entered: entered) }
    }

    private func checkIdentifier(_ identifier: String) throws(SimulatorError) {
        if identifier.isEmpty { throw SimulatorError(.invalid, "A local notification needs an identifier") }
    }
}
