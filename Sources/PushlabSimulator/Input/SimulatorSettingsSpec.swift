import PushlabCore

/// The `simulator:` block of a scenario: the budget and storage rules, all optional.
public struct SimulatorSettingsSpec: Decodable, Sendable {
    public var backgroundPushesPerHour: Int?
    public var backgroundPushesPerDay: Int?
    public var storageSeconds: Int64?
    public var notificationCenterLimit: Int?

    public func applied(to base: SimulatorSettings) throws(SimulatorError) -> SimulatorSettings {
        var settings = base
        if let backgroundPushesPerHour { settings.backgroundPushesPerHour = backgroundPushesPerHour }
        if let backgroundPushesPerDay { settings.backgroundPushesPerDay = backgroundPushesPerDay }
        if let storageSeconds {
            guard (0...3_153_600_000).contains(storageSeconds) else { throw SimulatorError(.invalid, "simulator: storageSeconds must be 0...3153600000 (100 years)") }
            settings.storageMilliseconds = storageSeconds * 1000
        }
        if let notificationCenterLimit { settings.notificationCenterLimit = notificationCenterLimit }
        if let problem = settings.problem { throw SimulatorError(.invalid, "simulator: \(problem)") }
        return settings
    }
}
