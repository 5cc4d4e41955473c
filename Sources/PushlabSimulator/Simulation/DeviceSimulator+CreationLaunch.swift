import PushlabCore

/// Apps created running (a device added with an app in the background or on screen, an app
/// installed that way) have launched at creation: they hear their tokens then, as at any first
/// launch, and their backends learn them (docs/SIMULATOR.md 4.1).
extension DeviceSimulator {
    /// What the running apps of devices not yet added did at their launch: kept until the devices
    /// are in, so that a device that could not be added observed nothing.
    struct CreationLaunches: Sendable {
        fileprivate var observations: [Observation] = []
        fileprivate var providerRequests: [ProviderRequest] = []
        fileprivate var sdkEvents: [ThirdPartySDKEvent] = []

        fileprivate var isEmpty: Bool { observations.isEmpty && providerRequests.isEmpty && sdkEvents.isEmpty }

        fileprivate mutating func append(_ other: CreationLaunches) {
            observations += other.observations
            providerRequests += other.providerRequests
            sdkEvents += other.sdkEvents
        }
    }

    /// Keeps what apps created running do at their launch until `releaseCreationLaunches`: a
    /// scenario's devices are made before the store, the observers and the backends' client
    /// are connected, and a store that reloads the last run's devices has their launches already.
    public func holdCreationLaunches() {
        heldLaunches.withLock { held in
            if held == nil { held = CreationLaunches() }
        }
    }

    /// Stops holding: what was held is observed and sent to the backends now, or, with
    /// `observe: false` (the store reloaded the devices that launched), forgotten.
    public func releaseCreationLaunches(observe: Bool) {
        guard let held = heldLaunches.withLock({ held -> CreationLaunches? in
            defer { held = nil }
            return held
        }) else { return }
        if observe { publishNow(held) }
    }

    /// Launches the running apps of `device`, which is not added yet; a device with none is left as it is.
    func launchRunningApps(_ device: inout SimulatedDevice, into launches: inout CreationLaunches) {
        guard device.apps.contains(where: \.awaitsLaunch) else { return }
        var handedIn: [Observation] = []
        swap(&handedIn, &launches.observations)
        // Numbered when they are published, so a failed add leaves no gap.
        var session = DeviceSession(
            device: device, settings: settings, now: clock.now(), observingInto: consume handedIn, reserveSequences: { _ in 0 },
            newToken: { [self] in newUniqueToken() }
        )
        session.launchRunningApps()
        session.settleSDKConnections()
        launches.providerRequests += session.providerRequests
        launches.sdkEvents += session.sdkEvents
        launches.observations = session.takeObservations()
        device = session.device
    }

    /// After the devices were added and their tokens registered: what their apps did at launch
    /// is observed, and their requests go to their backends (or both are held).
    func publish(_ launches: CreationLaunches) {
        guard !launches.isEmpty else { return }
        let held = heldLaunches.withLock { held -> Bool in
            guard held != nil else { return false }
            held!.append(launches)
            return true
        }
        if !held { publishNow(launches) }
    }

    private func publishNow(_ launches: CreationLaunches) {
        var observations = launches.observations
        if !observations.isEmpty {
            var sequence = reserveSequences(observations.count)
            for index in observations.indices {
                observations[index].sequence = sequence
                sequence += 1
            }
            publish(observations)
        }
        if !launches.providerRequests.isEmpty { send(launches.providerRequests) }
        if !launches.sdkEvents.isEmpty { connect(launches.sdkEvents) }
    }
}
