extension SimulatedDevice {
    /// The device with every app's Notification Center left empty: what a session compares its
    /// device with at the end (`changedBeyondNotificationCenters(since:)`). Taken before the
    /// session changes anything; the copy shares nothing the session then writes to, so the
    /// session's changes stay in place.
    func withoutNotificationCenters() -> SimulatedDevice {
        var copy = self
        for app in copy.apps.indices { copy.apps[app].notificationCenter = [] }
        return copy
    }

    /// Whether anything but the Notification Centers differs from `before`
    /// (`withoutNotificationCenters()`). The store keeps the entries row by row from the
    /// observations, so a device whose only change is its Notification Center (every device, in a
    /// load test of alerts) needs no new snapshot. The entries are set aside for the comparison,
    /// not copied.
    mutating func changedBeyondNotificationCenters(since before: SimulatedDevice) -> Bool {
        guard apps.count == before.apps.count else { return true }
        if apps.count == 1 {
            // The usual phone of a load test: no array to set the entries aside in.
            var center: [DeliveredNotification] = []
            swap(&center, &apps[0].notificationCenter)
            defer { swap(&center, &apps[0].notificationCenter) }
            return self != before
        }
        var centers = [[DeliveredNotification]](repeating: [], count: apps.count)
        for app in apps.indices { swap(&centers[app], &apps[app].notificationCenter) }
        defer { for app in apps.indices { swap(&centers[app], &apps[app].notificationCenter) } }
        return self != before
    }
}
