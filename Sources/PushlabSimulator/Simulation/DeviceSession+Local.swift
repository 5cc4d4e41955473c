import PushlabCore

/// Local notifications: scheduled by the app, fired by the clock or a region (reference 6).
extension DeviceSession {
    typealias ScheduleOutcome = DeviceSimulator.ScheduleResult

    mutating func schedule(_ notification: LocalNotification, app: Int) throws(SimulatorError) -> ScheduleOutcome {
        try notification.trigger.validate()
        if let refusal = refusal(notification, app: app) { return refusal }
        var scheduled = notification
        scheduled.nextFireTime = notification.trigger.firstFireTime(scheduledAt: now, utcOffsetSeconds: device.utcOffsetSeconds)
        // A request with the identifier of a pending one replaces it, as UNUserNotificationCenter does.
        device.apps[app].pendingLocal.removeAll { $0.identifier == notification.identifier }
        device.apps[app].pendingLocal.append(scheduled)
        return .scheduled(scheduled)
    }

    mutating func presentNow(_ notification: LocalNotification, app: Int) -> ScheduleOutcome {
        if let refusal = refusal(notification, app: app) { return refusal }
        fire(notification, app: app)
        return .scheduled(notification)
    }

    mutating func cancelLocal(_ identifier: String, app: Int) throws(SimulatorError) {
        guard device.apps[app].pendingLocal.contains(where: { $0.identifier == identifier }) else {
            throw SimulatorError(.notFound, "No pending local notification \(identifier) for \(device.apps[app].bundleID) on \(device.id)")
        }
        device.apps[app].pendingLocal.removeAll { $0.identifier == identifier }
    }

    /// The device entered or left a region: matching region triggers fire.
    mutating func regionEvent(_ identifier: String, entered: Bool) {
        for app in device.apps.indices {
            for notification in device.apps[app].pendingLocal {
                guard case .region(let region, let onEntry, let onExit, let repeats) = notification.trigger,
                      region == identifier, entered ? onEntry : onExit else { continue }
                if !repeats { device.apps[app].pendingLocal.removeAll { $0.identifier == notification.identifier } }
                fire(notification, app: app)
            }
        }
    }

    /// Fires the pending notification due at `now` and schedules its next time, if it repeats.
    mutating func fireDue(_ identifier: String, app: Int) {
        guard let index = device.apps[app].pendingLocal.firstIndex(where: { $0.identifier == identifier }) else { return }
        let notification = device.apps[app].pendingLocal[index]
        if let next = notification.trigger.fireTime(after: now, utcOffsetSeconds: device.utcOffsetSeconds) {
            device.apps[app].pendingLocal[index].nextFireTime = next
        } else {
            device.apps[app].pendingLocal.remove(at: index)
        }
        fire(notification, app: app)
    }

    private mutating func fire(_ notification: LocalNotification, app: Int) {
        record(app, APNsID(notification.identifier), .delivered(pushType: "local", priority: 10))
        _ = present(NotificationToShow(local: notification), app: app)
    }

    /// Scheduling an alert without permission fails with iOS's console error (note 003).
    private mutating func refusal(_ notification: LocalNotification, app: Int) -> ScheduleOutcome? {
        let authorization = device.apps[app].authorization
        guard notification.content.hasAlert, !authorization.mayListInNotificationCenter else { return nil }
        let message = "Attempting to schedule a local notification \(notification.identifier) with an alert but haven't received permission from the user to display alerts"
        record(app, APNsID(notification.identifier), .dropped(.notAuthorized, message: message))
        return .refused(consoleMessage: message)
    }
}

extension LocalTrigger {
    func validate() throws(SimulatorError) {
        switch self {
        case .timeInterval(let seconds, let repeats):
            guard seconds > 0, seconds <= 3_153_600_000 else {
                throw SimulatorError(.invalid, "A time-interval trigger needs a number of seconds above 0 and at most 100 years")
            }
            if repeats, seconds < 60 { throw SimulatorError(.invalid, "time interval must be at least 60 if repeating (as UNTimeIntervalNotificationTrigger)") }
        case .date:
            break
        case .calendar(let match, _):
            try match.validate()
        case .region(let identifier, let onEntry, let onExit, _):
            if identifier.isEmpty { throw SimulatorError(.invalid, "A region trigger needs a region identifier") }
            if !onEntry, !onExit { throw SimulatorError(.invalid, "A region trigger must fire on entry, on exit or both") }
        }
    }

    func firstFireTime(scheduledAt now: EpochMilliseconds, utcOffsetSeconds: Int) -> EpochMilliseconds? {
        switch self {
        case .timeInterval(let seconds, _): now + EpochMilliseconds((seconds * 1000).rounded())
        case .date(let time, _): max(time, now)  // a date in the past fires at once
        case .calendar(let match, _): match.nextTime(after: now, utcOffsetSeconds: utcOffsetSeconds)
        case .region: nil
        }
    }

    /// The next time after a firing at `time`, or nil when it does not repeat.
    func fireTime(after time: EpochMilliseconds, utcOffsetSeconds: Int) -> EpochMilliseconds? {
        switch self {
        case .timeInterval(let seconds, let repeats):
            repeats ? time + EpochMilliseconds((seconds * 1000).rounded()) : nil
        case .date(let anchor, let interval):
            interval.map { CivilTime.nextRepeat($0, of: anchor, after: time, utcOffsetSeconds: utcOffsetSeconds) }
        case .calendar(let match, let repeats):
            repeats ? match.nextTime(after: time, utcOffsetSeconds: utcOffsetSeconds) : nil
        case .region:
            nil
        }
    }
}
