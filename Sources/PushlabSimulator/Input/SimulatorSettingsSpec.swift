import PushlabCore

/// The `simulator:` block of a scenario: the budget and storage rules, all optional.
public struct SimulatorSettingsSpec: Decodable, Sendable {
    public var backgroundPushesPerHour: Int?
    public var backgroundPushesPerDay: Int?
    public var storageSeconds: Int64?
    public var notificationCenterLimit: Int?
    public var liveActivityMaxActiveSeconds: Int64?
    public var liveActivityLingerSeconds: Int64?
    public var liveActivitiesPerApp: Int?
    public var liveActivityUpdatesPerHour: Int?
    public var liveActivityFrequentUpdatesPerHour: Int?
    public var pushToStartPerHour: Int?
    public var broadcastStorageSeconds: Int64?
    public var voipFailuresBeforeStop: Int?
    public var serviceExtensionSeconds: Double?
    public var widgetReloadsPerDay: Int?
    public var complicationPushesPerDay: Int?
    public var providerBackgroundSeconds: Double?

    public func applied(to base: SimulatorSettings) throws(SimulatorError) -> SimulatorSettings {
        var settings = base
        if let backgroundPushesPerHour { settings.backgroundPushesPerHour = backgroundPushesPerHour }
        if let backgroundPushesPerDay { settings.backgroundPushesPerDay = backgroundPushesPerDay }
        if let storageSeconds {
            guard (0...3_153_600_000).contains(storageSeconds) else { throw SimulatorError(.invalid, "simulator: storageSeconds must be 0...3153600000 (100 years)") }
            settings.storageMilliseconds = storageSeconds * 1000
        }
        if let notificationCenterLimit { settings.notificationCenterLimit = notificationCenterLimit }
        for (name, seconds) in [("liveActivityMaxActiveSeconds", liveActivityMaxActiveSeconds), ("liveActivityLingerSeconds", liveActivityLingerSeconds), ("broadcastStorageSeconds", broadcastStorageSeconds)] {
            if let seconds, !(0...3_153_600_000).contains(seconds) { throw SimulatorError(.invalid, "simulator: \(name) must be 0...3153600000 (100 years)") }
        }
        if let liveActivityMaxActiveSeconds { settings.liveActivityMaximumActiveMilliseconds = liveActivityMaxActiveSeconds * 1000 }
        if let liveActivityLingerSeconds { settings.liveActivityLingerMilliseconds = liveActivityLingerSeconds * 1000 }
        if let broadcastStorageSeconds { settings.broadcastStorageMilliseconds = broadcastStorageSeconds * 1000 }
        if let liveActivitiesPerApp { settings.liveActivitiesPerApp = liveActivitiesPerApp }
        if let liveActivityUpdatesPerHour { settings.liveActivityUpdatesPerHour = liveActivityUpdatesPerHour }
        if let liveActivityFrequentUpdatesPerHour { settings.liveActivityFrequentUpdatesPerHour = liveActivityFrequentUpdatesPerHour }
        if let pushToStartPerHour { settings.pushToStartPerHour = pushToStartPerHour }
        if let voipFailuresBeforeStop { settings.voipFailuresBeforeStop = voipFailuresBeforeStop }
        if let serviceExtensionSeconds { settings.serviceExtensionSeconds = serviceExtensionSeconds }
        if let widgetReloadsPerDay { settings.widgetReloadsPerDay = widgetReloadsPerDay }
        if let complicationPushesPerDay { settings.complicationPushesPerDay = complicationPushesPerDay }
        if let providerBackgroundSeconds { settings.providerBackgroundSeconds = providerBackgroundSeconds }
        if let problem = settings.problem { throw SimulatorError(.invalid, "simulator: \(problem)") }
        return settings
    }
}
