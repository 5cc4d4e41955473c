import PushlabCore

/// Events the clock drives: local notifications firing, held background pushes whose budget
/// returned, stored notifications expiring at APNs.
extension DeviceSession {
    private enum DueEvent {
        case fireLocal(app: Int, identifier: String)
        case releaseHeld(app: Int)
        case expireStored(app: Int)
        case activities(app: Int)
        case expireStoredMDM
    }

    /// The earliest time something is due on this device, if anything is.
    var nextDueTime: EpochMilliseconds? { nextDue()?.time }

    private func nextDue() -> (time: EpochMilliseconds, event: DueEvent)? {
        var best: (time: EpochMilliseconds, event: DueEvent)?
        func consider(_ time: EpochMilliseconds?, _ event: @autoclosure () -> DueEvent) {
            guard let time, best == nil || time < best!.time else { return }
            best = (time, event())
        }
        if !device.online { consider(device.mdm?.storedWhileOffline?.expiresAt, .expireStoredMDM) }
        for app in device.apps.indices {
            for notification in device.apps[app].pendingLocal {
                consider(notification.nextFireTime, .fireLocal(app: app, identifier: notification.identifier))
            }
            consider(heldBackgroundReleaseTime(app), .releaseHeld(app: app))
            if !device.online { consider(device.apps[app].storedWhileOffline?.expiresAt, .expireStored(app: app)) }
            if device.apps[app].liveActivities != nil { consider(nextActivityDueTime(app), .activities(app: app)) }
        }
        return best
    }

    /// Runs every event due up to `time`, each at its own time, in time order.
    mutating func runDue(until time: EpochMilliseconds) {
        // Bounded: a one-minute repeating notification over a simulated year is ~525,000 firings.
        for _ in 0..<2_000_000 {
            guard let (due, event) = nextDue(), due <= time else { break }
            now = due
            switch event {
            case .fireLocal(let app, let identifier):
                fireDue(identifier, app: app)
            case .releaseHeld(let app):
                releaseHeldBackground(app)
            case .expireStored(let app):
                if let stored = device.apps[app].storedWhileOffline {
                    device.apps[app].storedWhileOffline = nil
                    record(app, stored.apnsIDValue, .discarded(.expired, replacedBy: nil))
                }
            case .activities(let app):
                runDueActivities(app)
            case .expireStoredMDM:
                if let stored = device.mdm?.storedWhileOffline {
                    device.mdm!.storedWhileOffline = nil
                    record(bundleID: device.mdm!.topic, stored.apnsIDValue, .discarded(.expired, replacedBy: nil))
                }
            }
        }
        now = max(now, time)
    }
}
