import PushlabCore
import PushlabSimulator

/// Reading what the devices observed, and waiting for an observation with a timeout.
extension PushlabTestServer {
    /// A device's observations after sequence `since`, oldest first, optionally filtered.
    public func observations(device: String, kind: ObservationKind? = nil, bundleID: String? = nil, since: Int64 = 0) -> [Observation] {
        simulator.settle()
        return observationLog.observations(device: device, since: since, bundleID: bundleID, kind: kind)
    }

    /// The sequence number of the newest observation on any device: pass it as `since` to wait
    /// only for what happens after this point.
    public var lastObservationSequence: Int64 {
        simulator.settle()
        return simulator.lastSequence
    }

    /// Returns the first observation of `device` (after `since`) of `kind` that `matching`
    /// accepts, as soon as it exists; throws `ObservationWaitTimeout`, listing what the device
    /// observed, when `timeout` passes first.
    @discardableResult
    public func waitForObservation(
        device: String,
        kind: ObservationKind? = nil,
        since: Int64 = 0,
        timeout: Duration = .seconds(5),
        matching predicate: (@Sendable (Observation) -> Bool)? = nil
    ) async throws -> Observation {
        let described = kind.map { "an observation of kind \($0.rawValue)" } ?? "an observation"
        let awaited = predicate == nil ? described : described + " that matches"
        return try await wait(for: awaited, device: device, since: since, timeout: timeout) { observation in
            (kind == nil || observation.kind == kind) && (predicate?(observation) ?? true)
        }
    }

    /// Returns the first time `device` runs `callback` (after `since`), as soon as it does; the
    /// observation holds the callback's arguments and the app's state.
    @discardableResult
    public func waitForCallback(
        named callback: AppCallback,
        on device: String,
        since: Int64 = 0,
        timeout: Duration = .seconds(5)
    ) async throws -> Observation {
        try await wait(for: "a callback \(callback.rawValue)", device: device, since: since, timeout: timeout) { observation in
            if case .callback(callback, _, _) = observation.event { true } else { false }
        }
    }

    private func wait(
        for awaited: String, device: String, since: Int64, timeout: Duration,
        matching matches: @escaping @Sendable (Observation) -> Bool
    ) async throws -> Observation {
        let waiters = self.waiters
        // The first of two children decides: the observation, or nil when the timeout passed.
        let found: Observation? = try await withThrowingTaskGroup(of: Observation?.self) { group in
            group.addTask { try await waiters.first(device: device, since: since, matching: matches) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let found { return found }
        throw timeoutError(awaited: awaited, device: device, since: since, timeout: timeout)
    }

    private func timeoutError(awaited: String, device: String, since: Int64, timeout: Duration) -> ObservationWaitTimeout {
        let existing = simulator.device(device)
        let tokens = Set(existing?.apps.map(\.deviceToken) ?? [])
        return ObservationWaitTimeout(
            device: device, awaited: awaited, timeout: timeout, deviceExists: existing != nil,
            observed: observations(device: device, since: since),
            answers: requests.entries(limit: 20) { tokens.contains($0.deviceToken?.lowercased() ?? "") }.reversed()
        )
    }
}
