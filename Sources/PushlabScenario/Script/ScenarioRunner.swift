import Foundation
import PushlabCore
import PushlabOpenSSL

/// Runs a scenario's script against a driver and checks each step's expectations.
///
/// Before a step it notes the newest observation; after it, it reads what was observed since and
/// checks the step's expectations against that and against APNs's answer. A step whose action
/// cannot be carried out (the control API refuses it, no answer comes) fails, and the steps after
/// it are skipped: they would only report the same problem again.
public actor ScenarioRunner {
    private let scenario: Scenario
    private let script: ScenarioScript
    private let driver: any ScenarioDriver
    /// Each device's tokens per app, oldest first, as the runner saw them: a provider's database.
    private var knownTokens: [String: [String]] = [:]
    /// The provider token each connection is using, and the key it came from.
    private var connectionTokens: [ScenarioConnection: (keyID: String, teamID: String, issuedAt: Int64, token: String)] = [:]
    /// A cached provider token older than this is replaced before it is used.
    private static let tokenRefreshSeconds: Int64 = 50 * 60

    public init(scenario: Scenario, driver: any ScenarioDriver) {
        self.scenario = scenario
        script = scenario.script ?? ScenarioScript(clockStart: nil, steps: [])
        self.driver = driver
    }

    /// Runs every step; `progress` hears each result as it comes.
    public func run(progress: @Sendable (StepResult) -> Void = { _ in }) async -> ScenarioReport {
        var results: [StepResult] = []
        var setupFailure: String?
        do {
            let clock: JSONValue = script.clockStart.map { .object([("set", .string(ISO8601Milliseconds.format($0)))]) }
                ?? .object([("mode", .string("manual"))])
            _ = try await driver.control(.post, "/v1/clock", body: clock)
            if scenario.recordsReport {
                // The report says what this run's providers did, from its first push.
                _ = try await driver.control(.put, "/v1/report", body: .object([("recording", .bool(true))]))
                _ = try await driver.control(.delete, "/v1/report", body: nil)
            }
            for device in scenario.devices { try await refreshTokens(of: device.id) }
        } catch {
            setupFailure = "Setting up the run failed: \(error)"
        }
        for (index, step) in script.steps.enumerated() {
            let result: StepResult
            if let setupFailure {
                let failures = results.isEmpty ? [setupFailure] : []
                result = StepResult(number: index + 1, title: step.title, outcome: failures.isEmpty ? .skipped : .failed, failures: failures, observations: [])
            } else {
                result = await run(step, number: index + 1)
                if result.outcome == .failed, result.failures.first?.hasPrefix(Self.couldNotRun) == true {
                    setupFailure = result.failures[0]
                }
            }
            results.append(result)
            progress(result)
        }
        await driver.close()
        return ScenarioReport(scenario: scenario.name, source: scenario.source, steps: results)
    }

    private static let couldNotRun = "Could not run: "

    private func run(_ step: ScenarioStep, number: Int) async -> StepResult {
        var answer: APNsAnswer?
        var serviceAnswer: JSONValue?
        let before: Int64
        do {
            before = try await lastObservation()
            switch step.action {
            case .send(let push): answer = try await send(push)
            case .control(let call): try await perform(call, device: step.device)
            case .service(let call): serviceAnswer = try await driver.control(.post, "/v1/services/\(call.service)/call", body: call.controlBody)
            case .report(let expectation):
                let failures = expectation.failures(in: try await driver.control(.get, expectation.path, body: nil))
                return StepResult(number: number, title: step.title, outcome: failures.isEmpty ? .passed : .failed, failures: failures, observations: [])
            }
        } catch {
            return StepResult(number: number, title: step.title, outcome: .failed, failures: [Self.couldNotRun + "\(error)"], answer: answer, observations: [])
        }
        var observations: [JSONValue]
        var failures: [String]
        let deadline = ContinuousClock.now + .milliseconds(Int64(step.expectation.withinSeconds * 1000))
        repeat {
            do {
                observations = try await self.observations(since: before)
            } catch {
                return StepResult(number: number, title: step.title, outcome: .failed, failures: [Self.couldNotRun + "reading observations: \(error)"], answer: answer, observations: [])
            }
            failures = step.expectation.failures(answer: answer, observations: observations, stepDevice: step.device, serviceAnswer: serviceAnswer)
            // What arrives later (an app's backend answering) is waited for, up to `within`.
            if failures.isEmpty || ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(100))
        } while true
        return StepResult(
            number: number, title: step.title, outcome: failures.isEmpty ? .passed : .failed, failures: failures,
            answer: answer, observations: observations
        )
    }

    // MARK: Control steps

    private func perform(_ call: ControlCall, device: String?) async throws {
        var path = call.path
        var body = call.body
        if let device {
            path = path.replacingOccurrences(of: "{device}", with: Self.escaped(device))
            if path.contains("{bundleId}") || body?["bundleId"]?.stringValue == "{bundleId}" {
                let bundleID = try await appBundleID(device: device, named: call.bundleID)
                path = path.replacingOccurrences(of: "{bundleId}", with: Self.escaped(bundleID))
                if case .object(var members)? = body, let index = members.firstIndex(where: { $0.key == "bundleId" }) {
                    members[index].value = .string(bundleID)
                    body = .object(members)
                }
            }
        }
        if let device, let range = path.range(of: #"\{activity(:\d+)?\}"#, options: .regularExpression) {
            let selector = path[range].dropFirst("{activity".count).dropLast()
            let bundleID = try await appBundleID(device: device, named: call.bundleID)
            let activity = try await liveActivity(of: device, bundleID: bundleID, index: selector.isEmpty ? nil : Int(selector.dropFirst()))
            path.replaceSubrange(range, with: Self.escaped(try Self.required(activity["id"]?.stringValue, "activity id")))
        }
        _ = try await driver.control(call.method, path, body: body)
        if let device { try await refreshTokens(of: device) }
    }

    /// The step's bundle id, or the device's only app.
    private func appBundleID(device: String, named bundleID: String?) async throws -> String {
        if let bundleID { return bundleID }
        let apps = try await apps(of: device)
        guard apps.count == 1 else { throw ScenarioDriverError("device \(device) has \(apps.count) apps: name one with bundleId") }
        return apps[0].bundleID
    }

    // MARK: Pushes

    private func send(_ step: PushStep) async throws -> APNsAnswer {
        if case .channel(let channel, let bundleID) = step.target { return try await broadcast(step, channel: channel, bundleID: bundleID) }
        var (token, bundleID, appEnvironment) = try await resolve(step.target)
        var topic = step.topic
        if let choice = step.liveActivityToken, case .device(let device, _, _) = step.target, let bundle = bundleID {
            if case .service("mdm") = choice {
                let listing = try await driver.control(.get, "/v1/devices/\(Self.escaped(device))", body: nil)
                token = try Self.required(listing["mdm"]?["token"]?.stringValue, "MDM enrollment on \(device) (give the device mdm)")
                topic = topic ?? listing["mdm"]?["topic"]?.stringValue
            } else {
                token = try await liveActivityToken(choice, device: device, bundleID: bundle)
            }
        }
        let environment = step.environment ?? appEnvironment
        var connection = ScenarioConnection(name: step.connection, environment: environment)
        var providerToken: String?
        let now = try await clockNow()
        switch step.auth {
        case .none: break
        case .literal(let token): providerToken = token
        case .certificate(let certificate, let key):
            connection.certificate = certificate
            connection.certificateKey = key
        case .key(let keyID, let teamID, let offset, let newToken, let keepToken):
            providerToken = try providerTokenFor(
                connection, keyID: keyID, teamID: teamID, issuedAt: now / 1000 + (offset ?? 0),
                reuse: newToken || offset != nil ? .never : keepToken ? .always : .whileFresh
            )
        }
        let expiration = step.expiration ?? step.expiresIn.map { now / 1000 + $0 }
        let push = APNsNotification(
            deviceToken: token, payload: step.payload, topic: topic ?? bundleID.map { $0 + (APNsPushType(rawValue: step.pushType ?? "alert")?.topicSuffix ?? "") },
            pushType: step.pushType ?? "alert", priority: step.priority, expiration: expiration, collapseID: step.collapseID,
            apnsID: step.apnsID, providerToken: providerToken
        )
        return try await driver.send(push, on: connection)
    }

    /// A broadcast: the channel's environment from the server (development if it is unknown,
    /// so APNs answers as it would), the step's auth as for a push.
    private func broadcast(_ step: PushStep, channel: String, bundleID: String?) async throws -> APNsAnswer {
        let listing = try await driver.control(.get, "/v1/channels", body: nil)
        let known: JSONValue? = if case .array(let channels)? = listing["channels"] { channels.first { $0["id"]?.stringValue == channel } } else { nil }
        guard let bundle = bundleID ?? known?["bundleId"]?.stringValue ?? scenario.apps.first?.bundleID else {
            throw ScenarioDriverError("a broadcast needs bundleId (the channel is unknown and the scenario has no app)")
        }
        let knownEnvironment = known?["environment"]?.stringValue.flatMap(APNsEnvironment.init(rawValue:)) ?? .development
        let connection = ScenarioConnection(name: step.connection, environment: step.environment ?? knownEnvironment)
        let now = try await clockNow()
        var providerToken: String?
        var certificateConnection = connection
        switch step.auth {
        case .none: break
        case .literal(let token): providerToken = token
        case .certificate(let certificate, let key):
            certificateConnection.certificate = certificate
            certificateConnection.certificateKey = key
        case .key(let keyID, let teamID, let offset, let newToken, let keepToken):
            providerToken = try providerTokenFor(
                connection, keyID: keyID, teamID: teamID, issuedAt: now / 1000 + (offset ?? 0),
                reuse: newToken || offset != nil ? .never : keepToken ? .always : .whileFresh
            )
        }
        let broadcast = APNsBroadcast(
            bundleID: bundle, channelID: channel, payload: step.payload, pushType: step.pushType ?? "liveactivity", priority: step.priority,
            expiration: step.expiration ?? step.expiresIn.map { now / 1000 + $0 }, requestID: step.apnsID, providerToken: providerToken
        )
        return try await driver.broadcast(broadcast, on: certificateConnection)
    }

    // MARK: Live Activities

    /// The app's activity at `index` in its list, or the newest one still live.
    private func liveActivity(of device: String, bundleID: String, index: Int?) async throws -> JSONValue {
        let listing = try await driver.control(.get, "/v1/devices/\(Self.escaped(device))/activities?bundleId=\(Self.escaped(bundleID))", body: nil)
        guard case .array(let activities)? = listing["activities"], !activities.isEmpty else {
            throw ScenarioDriverError("\(bundleID) on \(device) has no Live Activity")
        }
        if let index {
            guard index < activities.count else { throw ScenarioDriverError("\(bundleID) on \(device) has \(activities.count) Live Activities, no activity \(index)") }
            return activities[index]
        }
        let live = activities.filter { ["active", "stale"].contains($0["state"]?.stringValue ?? "") }
        return live.last ?? activities[activities.count - 1]
    }

    /// A Live Activity token, as the provider's backend would have stored it: an activity's
    /// token is remembered, so a push still goes to it once the activity is gone.
    private func liveActivityToken(_ choice: PushStep.LiveActivityToken, device: String, bundleID: String) async throws -> String {
        let key = "\(device)/\(bundleID)"
        switch choice {
        case .pushToStart:
            let listing = try await driver.control(.get, "/v1/devices/\(Self.escaped(device))/apps/\(Self.escaped(bundleID))", body: nil)
            return try Self.required(listing["liveActivities"]?["pushToStartToken"]?.stringValue, "a push-to-start token of \(bundleID) on \(device) (give the app liveActivities, iOS 17.2 or later)")
        case .service(let name):
            let listing = try await driver.control(.get, "/v1/devices/\(Self.escaped(device))/apps/\(Self.escaped(bundleID))", body: nil)
            return try Self.required(listing[name]?["token"]?.stringValue, "\(name) token of \(bundleID) on \(device) (give the app \(name))")
        case .activity(let index):
            // Remembered per activity asked for (an index, or the newest): once it is gone the
            // provider still has the token it was given for it.
            let remembered = key + "/" + (index.map(String.init) ?? "newest")
            if let activity = try? await liveActivity(of: device, bundleID: bundleID, index: index), let token = activity["pushToken"]?.stringValue {
                knownActivityTokens[remembered] = token
                return token
            }
            return try Self.required(knownActivityTokens[remembered], "a Live Activity token of \(bundleID) on \(device) (start one with pushType token or input-push-token)")
        }
    }

    private var knownActivityTokens: [String: String] = [:]

    private static func required(_ value: String?, _ what: String) throws -> String {
        guard let value else { throw ScenarioDriverError("no \(what)") }
        return value
    }

    /// The token, the app's bundle id and environment a push goes to.
    private func resolve(_ target: PushStep.Target) async throws -> (String, String?, APNsEnvironment) {
        switch target {
        case .token(let token):
            return (token, scenario.apps.first?.bundleID, .development)
        case .channel:
            throw ScenarioDriverError("a broadcast has no device token")
        case .device(let device, let bundleID, let previous):
            let apps = try await apps(of: device)
            let prefix = device + "/"
            let remembered = Set(knownTokens.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
            let bundle: String
            if let bundleID {
                bundle = bundleID
            } else if apps.count == 1 {
                bundle = apps[0].bundleID
            } else if apps.isEmpty, remembered.count == 1, let only = remembered.first {
                bundle = only  // uninstalled: the provider still has the token
            } else {
                throw ScenarioDriverError("device \(device) has \(apps.count) apps: name one with bundleId")
            }
            let key = prefix + bundle
            let tokens = knownTokens[key] ?? []
            guard let token = previous ? tokens.dropLast().last : tokens.last else {
                let which = previous ? "a previous token (reinstall the app first)" : "a token"
                throw ScenarioDriverError("device \(device) has no app \(bundle) with \(which)")
            }
            let environment = apps.first { $0.bundleID == bundle }?.environment ?? knownEnvironments[key] ?? .development
            return (token, bundle, environment)
        }
    }

    private var knownEnvironments: [String: APNsEnvironment] = [:]

    private struct InstalledApp {
        var bundleID: String
        var environment: APNsEnvironment
        var deviceToken: String
    }

    private func apps(of device: String) async throws -> [InstalledApp] {
        let listing = try await driver.control(.get, "/v1/devices/\(Self.escaped(device))", body: nil)
        guard case .array(let installs)? = listing["apps"] else { return [] }
        return installs.compactMap { install in
            guard let bundleID = install["bundleId"]?.stringValue, let token = install["deviceToken"]?.stringValue else { return nil }
            let environment = install["environment"]?.stringValue.flatMap(APNsEnvironment.init(rawValue:)) ?? .development
            return InstalledApp(bundleID: bundleID, environment: environment, deviceToken: token)
        }
    }

    /// Notes the device's current tokens (a reinstall adds one; an uninstall keeps the last).
    private func refreshTokens(of device: String) async throws {
        let apps: [InstalledApp]
        do {
            apps = try await self.apps(of: device)
        } catch {
            return  // the step removed the device: its tokens stay as they were last seen
        }
        for app in apps {
            let key = "\(device)/\(app.bundleID)"
            knownEnvironments[key] = app.environment
            if knownTokens[key]?.last != app.deviceToken { knownTokens[key, default: []].append(app.deviceToken) }
        }
    }

    private enum TokenReuse { case never, whileFresh, always }

    private func providerTokenFor(_ connection: ScenarioConnection, keyID: String?, teamID: String?, issuedAt: Int64, reuse: TokenReuse) throws -> String {
        guard let keyID = keyID ?? scenario.signers.first?.keyID else {
            throw ScenarioDriverError("no key to sign provider tokens with: give a key a privateKey (docs/SCENARIOS.md)")
        }
        guard let signer = scenario.signers.first(where: { $0.keyID == keyID }) else {
            throw ScenarioDriverError("the scenario has no private key for key id \(keyID) (add privateKey to it)")
        }
        let team = teamID ?? signer.teamID
        if let current = connectionTokens[connection], current.keyID == keyID, current.teamID == team {
            switch reuse {
            case .always: return current.token
            case .whileFresh where issuedAt - current.issuedAt < Self.tokenRefreshSeconds: return current.token
            default: break
            }
        }
        let token = try signer.providerToken(issuedAt: issuedAt, teamID: team)
        connectionTokens[connection] = (keyID, team, issuedAt, token)
        return token
    }

    // MARK: Reading the server

    private func clockNow() async throws -> EpochMilliseconds {
        guard let time = try await driver.control(.get, "/v1/clock", body: nil)["timeMs"]?.integerValue else {
            throw ScenarioDriverError("GET /v1/clock gave no timeMs")
        }
        return time
    }

    private func lastObservation() async throws -> Int64 {
        try await driver.control(.get, "/v1/health", body: nil)["lastObservation"]?.integerValue ?? 0
    }

    private func observations(since: Int64) async throws -> [JSONValue] {
        let answer = try await driver.control(.get, "/v1/observations?since=\(since)&limit=10000", body: nil)
        guard case .array(let list)? = answer["observations"] else { return [] }
        return list
    }

    static func escaped(_ component: String) -> String {
        component.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? component
    }
}
