import PushlabCore

/// Apple's throttling of background pushes: at most so many in any hour and in any day.
struct SilentPushBudget {
    let perHour: Int
    let perDay: Int

    private static let hour: EpochMilliseconds = 3_600_000
    private static let day: EpochMilliseconds = 86_400_000

    init(_ settings: SimulatorSettings) {
        perHour = settings.backgroundPushesPerHour
        perDay = settings.backgroundPushesPerDay
    }

    /// Nil when a push may be delivered at `now`, else the first time one may.
    func blockedUntil(deliveries: [EpochMilliseconds], now: EpochMilliseconds) -> EpochMilliseconds? {
        max(until(deliveries, now: now, window: Self.hour, limit: perHour) ?? .min,
            until(deliveries, now: now, window: Self.day, limit: perDay) ?? .min).nonMinimal
    }

    /// Drops deliveries older than a day, which no window counts any more.
    func pruned(_ deliveries: [EpochMilliseconds], now: EpochMilliseconds) -> [EpochMilliseconds] {
        deliveries.filter { $0 > now - Self.day }
    }

    private func until(_ deliveries: [EpochMilliseconds], now: EpochMilliseconds, window: EpochMilliseconds, limit: Int) -> EpochMilliseconds? {
        guard limit > 0 else { return nil }  // 0: no limit
        let inWindow = deliveries.filter { $0 > now - window }  // oldest first: deliveries are appended in time order
        guard inWindow.count >= limit else { return nil }
        // When the delivery that makes the window full leaves it, one more fits.
        return inWindow[inWindow.count - limit] + window
    }
}

private extension EpochMilliseconds {
    var nonMinimal: EpochMilliseconds? { self == .min ? nil : self }
}
