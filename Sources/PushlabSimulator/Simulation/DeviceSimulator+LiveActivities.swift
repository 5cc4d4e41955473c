import PushlabCore

/// What an app does with ActivityKit itself (start, update, end) and what the user switches in
/// Settings, as the control API and scenario steps ask for it.
extension DeviceSimulator {
    /// `Activity.request`: the app must be in the foreground, with Live Activities on.
    @discardableResult
    public func startActivity(_ activity: LiveActivity, app bundleID: String, on deviceID: String) throws(SimulatorError) -> LiveActivity {
        try withSession(deviceID) { session throws(SimulatorError) in
            try session.startByApp(activity, app: try session.appIndex(bundleID))
        }
    }

    /// `activity.update(_:)`.
    public func updateActivity(_ activityID: String, app bundleID: String, on deviceID: String, contentState: JSONValue, staleDate: EpochMilliseconds? = nil) throws(SimulatorError) {
        guard contentState.isObject else { throw SimulatorError(.invalid, "contentState must be an object") }
        try withSession(deviceID) { session throws(SimulatorError) in
            try session.updateByApp(activityID, app: try session.appIndex(bundleID), contentState: contentState, staleDate: staleDate)
        }
    }

    /// `activity.end(_:dismissalPolicy:)`: `dismissal` nil is `.default` (up to four hours on
    /// the Lock Screen), a time at or before now is `.immediate`, a later one `.after(date)`.
    public func endActivity(_ activityID: String, app bundleID: String, on deviceID: String, contentState: JSONValue? = nil, dismissal: EpochMilliseconds? = nil) throws(SimulatorError) {
        if let contentState, !contentState.isObject { throw SimulatorError(.invalid, "contentState must be an object") }
        try withSession(deviceID) { session throws(SimulatorError) in
            try session.endByApp(activityID, app: try session.appIndex(bundleID), contentState: contentState, dismissal: dismissal)
        }
    }

    /// The user's switches in Settings › the app › Live Activities; nil leaves one as it is.
    @discardableResult
    public func setLiveActivities(app bundleID: String, on deviceID: String, enabled: Bool? = nil, frequentUpdatesEnabled: Bool? = nil) throws(SimulatorError) -> LiveActivitySupport {
        try withSession(deviceID) { session throws(SimulatorError) in
            let app = try session.appIndex(bundleID)
            guard session.device.apps[app].liveActivities != nil else {
                throw SimulatorError(.conflict, "\(bundleID) does not declare NSSupportsLiveActivities (install it with liveActivities)")
            }
            if let enabled { session.device.apps[app].liveActivities!.enabled = enabled }
            if let frequentUpdatesEnabled { session.device.apps[app].liveActivities!.frequentUpdatesEnabled = frequentUpdatesEnabled }
            return session.device.apps[app].liveActivities!
        }
    }
}
