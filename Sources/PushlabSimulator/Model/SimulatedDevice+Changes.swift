extension SimulatedDevice {
    /// The stamps of the device and of each app, which move on with any change but a Notification
    /// Center's: a store and a cluster's engine keep the entries one by one from the
    /// observations, so a device whose only change is its Notification Center (every device, in
    /// a load test of alerts) needs no new snapshot. A session takes them before it runs and compares them after.
    struct Revisions: Equatable {
        private let device: UInt64
        private let appCount: Int
        private let firstApp: UInt64
        /// Empty, with nothing allocated, for the usual phone of one app.
        private let otherApps: [UInt64]
        /// The held pushes' stamps of the device and its apps, combined: every stamp is new, so
        /// any change to one changes this.
        let held: UInt64

        init(_ device: SimulatedDevice) {
            self.device = device.revision.value
            appCount = device.apps.count
            firstApp = device.apps.first?.revision.value ?? 0
            otherApps = device.apps.count > 1 ? device.apps.dropFirst().map(\.revision.value) : []
            held = device.apps.reduce(device.heldRevision.value) { $0 ^ $1.heldRevision.value }
        }
    }

    var revisions: Revisions { Revisions(self) }

    /// Put in a device's place while a session has it out (`DeviceSimulator.runSession`).
    static let vacant = SimulatedDevice(id: "")
}
