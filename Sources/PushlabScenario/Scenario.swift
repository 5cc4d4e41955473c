import Foundation
import PushlabCore
import PushlabOpenSSL
import PushlabServices
import PushlabSimulator
import Yams

extension ES256Key: SignatureVerifier {}

/// A loaded scenario: the world and policy a server starts with, and can be reset to.
public struct Scenario: Sendable {
    public var name: String
    public var description: String?
    public var keys: [SigningKey]
    public var apps: [AppRecord]
    public var tokens: [DeviceTokenRecord]
    public var channels: [BroadcastChannel]
    /// How the stand-in for the apps' backends answers (`standIn:`).
    public var standInRules: [StandInRule]
    public var policy: APNsPolicy
    /// The phones it lists and generates; generated ones are made when installed.
    public var phones: ScenarioPhones
    public var simulatorSettings: SimulatorSettings
    /// Keys with their private half (`privateKey`, `privateKeyPem`): `pushlab run` signs
    /// provider tokens with them.
    public var signers: [Signer]
    /// The steps `pushlab run` executes, if the file has any.
    public var script: ScenarioScript?
    /// Whether the server records the provider report while this scenario is loaded (its
    /// `report: true`, or a `report` step).
    public var recordsReport = false
    /// The apps on JPush's and GeTui's portals (`services:`).
    public var services = ServiceApps()
    /// The file it came from, for messages.
    public var source: String
    /// Changes whenever the file's text does (FNV-1a of it): a store seeded from this scenario
    /// knows whether it may reload its saved devices.
    public var fingerprint: String

    /// Every phone, made now (a million generated ones take a second).
    public var devices: [SimulatedDevice] { phones.all() }

    public struct Signer: Sendable {
        public var keyID: String
        public var teamID: String
        public var key: ES256Key

        public init(keyID: String, teamID: String, key: ES256Key) {
            self.keyID = keyID
            self.teamID = teamID
            self.key = key
        }

        /// A provider token (ES256 JWT) issued at `issuedAt` (epoch seconds, by the clock APNs
        /// judges it with), its `iss` the key's team unless `teamID` says otherwise.
        public func providerToken(issuedAt: Int64, teamID: String? = nil) throws -> String {
            let input = ProviderToken.signingInput(keyID: keyID, teamID: teamID ?? self.teamID, issuedAt: issuedAt)
            return ProviderToken.assemble(signingInput: input, signature: try key.sign(Array(input.utf8)))
        }
    }

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Reads a scenario file; every problem is reported with the file and the entry at fault.
    /// Its generated phones are made when it is installed.
    public static func load(path: String, basePolicy: APNsPolicy = APNsPolicy()) throws -> Scenario {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw LoadError(description: "Cannot read scenario \(path): \(error.localizedDescription)")
        }
        return try parse(yaml: text, source: path, basePolicy: basePolicy)
    }

    public static func parse(yaml: String, source: String, basePolicy: APNsPolicy = APNsPolicy()) throws -> Scenario {
        // Unknown keys first: a misspelled key would otherwise surface as a missing one.
        let unknown = ScenarioSchema.unknownKeys(in: yaml)
        if !unknown.isEmpty {
            throw LoadError(description: "Scenario \(source) has unknown keys: \(unknown.joined(separator: ", ")) (see docs/SCENARIOS.md)")
        }
        let file: ScenarioFile
        do {
            file = try YAMLDecoder().decode(ScenarioFile.self, from: yaml)
        } catch let error as DecodingError {
            throw LoadError(description: "Scenario \(source) is not valid: \(error.readableDescription)")
        } catch {
            throw LoadError(description: "Scenario \(source) is not valid YAML: \(error)")
        }
        let policy = file.policy?.applied(to: basePolicy) ?? basePolicy
        if let problem = file.policy?.latency?.problem ?? policy.problem {
            throw LoadError(description: "Scenario \(source): policy: \(problem)")
        }
        let directory = URL(fileURLWithPath: source).deletingLastPathComponent()
        var phones = ScenarioPhones()
        var simulatorSettings = SimulatorSettings()
        do throws(SimulatorError) {
            for (index, spec) in (file.devices ?? []).enumerated() {
                phones.listed.append(try spec.device(place: "devices[\(index)]"))
            }
            for (index, entry) in (file.generatedDevices ?? []).enumerated() {
                phones.generated.append(try generatedPhones(entry, place: "generatedDevices[\(index)]"))
            }
            if let spec = file.simulator { simulatorSettings = try spec.applied(to: simulatorSettings) }
        } catch {
            throw LoadError(description: "Scenario \(source): \(error.description)")
        }
        if let duplicate = phones.duplicateID {
            throw LoadError(description: "Scenario \(source): device id \(duplicate) is used twice")
        }
        let loadedKeys = try (file.keys ?? []).enumerated().map { try signingKey($1, index: $0, directory: directory, source: source) }
        let services = try file.services?.apps(directory: directory, source: source) ?? ServiceApps()
        let script: ScenarioScript?
        var standInRules: [StandInRule] = []
        do throws(ScenarioScriptError) {
            let root = try? Yams.compose(yaml: yaml)
            if case .array(let rules)? = root?.mapping?["standIn"]?.jsonValue {
                for (index, rule) in rules.enumerated() { standInRules.append(try StandInRule.parse(rule, place: "standIn[\(index)]")) }
            } else if root?.mapping?["standIn"] != nil {
                throw ScenarioScriptError("standIn must be a list of rules {path, method?, status?, body?, delaySeconds?}")
            }
            let clockStart = try file.clock?.start.map { text throws(ScenarioScriptError) in
                guard let time = try? time(text, place: "clock.start") else {
                    throw ScenarioScriptError("clock.start must be an ISO 8601 time like 2026-01-01T00:00:00Z, not \(text)")
                }
                return time
            }
            script = try ScenarioScript.parse(steps: root?.mapping?["steps"]?.jsonValue, clockStart: clockStart)
        } catch {
            throw LoadError(description: "Scenario \(source): \(error.description)")
        }
        var scenario = Scenario(
            name: file.name ?? URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent,
            description: file.description,
            keys: loadedKeys.map(\.registration),
            apps: (file.apps ?? []).map { AppRecord(bundleID: $0.bundleId, teamID: $0.teamId, broadcastEnabled: $0.broadcastEnabled ?? true) },
            tokens: try (file.deviceTokens ?? []).enumerated().map { try deviceToken($1, index: $0, source: source) }
                + (file.generatedDeviceTokens ?? []).enumerated().flatMap { try generatedTokens($1, index: $0, source: source) },
            channels: try (file.channels ?? []).enumerated().map { try channel($1, index: $0, source: source) },
            standInRules: standInRules,
            policy: policy,
            phones: phones,
            simulatorSettings: simulatorSettings,
            signers: loadedKeys.compactMap(\.signer),
            script: script,
            source: source,
            fingerprint: fingerprint(of: yaml)
        )
        scenario.services = services
        scenario.recordsReport = file.report == true || script?.steps.contains { if case .report = $0.action { true } else { false } } == true
        return scenario
    }

    /// Puts this scenario's keys, apps and tokens into `world`, replacing what was there.
    public func install(into world: APNsWorld) {
        world.replaceAll(keys: keys, apps: apps, tokens: tokens, channels: channels)
    }

    /// Puts the world and the devices in place (the devices' tokens join the world). A cluster
    /// node's simulator makes only the phones it simulates (`DeviceSimulator.replaceAll(sharing:)`).
    public func install(into world: APNsWorld, simulator: DeviceSimulator, progress: LoadProgress? = nil) throws(SimulatorError) {
        install(into: world)
        if simulator.isClusterNode {
            try simulator.replaceAll(sharing: phones, progress: progress)
        } else {
            try simulator.replaceAll(with: phones.all(progress: progress), progress: progress)
        }
    }

    /// A key as the world registers it, and as `pushlab run` signs with it when the file gives
    /// its private half.
    private struct LoadedKey {
        var registration: SigningKey
        var signer: Signer?
    }

    private static func signingKey(_ entry: ScenarioFile.Key, index: Int, directory: URL, source: String) throws -> LoadedKey {
        let place = "\(source): keys[\(index)] (\(entry.keyId))"
        func read(_ file: String) throws -> String {
            let path = file.hasPrefix("/") ? file : directory.appendingPathComponent(file).path
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw LoadError(description: "\(place): cannot read key file \(path)")
            }
            return text
        }
        let given = [entry.publicKeyPem, entry.privateKeyPem, entry.publicKey, entry.privateKey].compactMap { $0 }
        guard given.count == 1 else {
            throw LoadError(description: "\(place): give exactly one of publicKey or privateKey (a PEM or .p8 file), publicKeyPem or privateKeyPem")
        }
        let pem = try entry.publicKeyPem ?? entry.privateKeyPem ?? read(entry.publicKey ?? entry.privateKey ?? "")
        let key: ES256Key
        do {
            key = try ES256Key(pem: pem)
        } catch {
            throw LoadError(description: "\(place): \(error)")
        }
        if entry.privateKey != nil || entry.privateKeyPem != nil, !key.hasPrivateKey {
            throw LoadError(description: "\(place): privateKey holds no private key (a .p8 file is one)")
        }
        let registration = SigningKey(
            keyID: entry.keyId, teamID: entry.teamId,
            scope: entry.topics.map { .topics(Set($0)) } ?? .team,
            environments: try environments(entry.environment ?? "both", place: place),
            relatedKeyID: entry.relatedKeyId, isRevoked: entry.revoked ?? false, verifier: key
        )
        return LoadedKey(registration: registration, signer: key.hasPrivateKey ? Signer(keyID: entry.keyId, teamID: entry.teamId, key: key) : nil)
    }

    private static func channel(_ entry: ScenarioFile.Channel, index: Int, source: String) throws -> BroadcastChannel {
        let place = "\(source): channels[\(index)]"
        guard Base64.decode(entry.id) != nil else {
            throw LoadError(description: "\(place): id \(entry.id) is not base64 (APNs issues channel ids in base64, e.g. dHN0LXNyY2gtY2hubA==)")
        }
        guard let environment = tokenEnvironment(entry.environment ?? "development") else {
            throw LoadError(description: "\(place): environment must be development (or sandbox) or production, not \(entry.environment ?? "")")
        }
        guard let policy = BroadcastChannel.StoragePolicy(rawValue: entry.messageStoragePolicy ?? 1) else {
            throw LoadError(description: "\(place): messageStoragePolicy must be 0 (no storage) or 1 (most recent message), not \(entry.messageStoragePolicy ?? 0)")
        }
        return BroadcastChannel(id: entry.id, bundleID: entry.bundleId, environment: environment, storagePolicy: policy, createdAt: 0)
    }

    private static func deviceToken(_ entry: ScenarioFile.DeviceToken, index: Int, source: String) throws -> DeviceTokenRecord {
        let place = "\(source): deviceTokens[\(index)]"
        guard let environment = tokenEnvironment(entry.environment) else {
            throw LoadError(description: "\(place): environment must be development (or sandbox) or production, not \(entry.environment)")
        }
        let hex = entry.token.lowercased()
        guard DeviceTokenRecord.isWellFormed(hex) else {
            throw LoadError(description: "\(place): \(entry.token) is not a device token (\(DeviceTokenRecord.formatHint))")
        }
        guard let kind = DeviceTokenRecord.Kind(rawValue: entry.kind ?? "app") else {
            throw LoadError(description: "\(place): kind must be one of \(DeviceTokenRecord.Kind.allCases.map(\.rawValue).joined(separator: ", ")), not \(entry.kind ?? "")")
        }
        let since = try entry.since.map { try time($0, place: place) } ?? 0
        let state: DeviceTokenRecord.State
        switch entry.state ?? "active" {
        case "active": state = .active
        case "unregistered": state = .unregistered(since: since)
        case "expired": state = .expired(since: since)
        case let other: throw LoadError(description: "\(place): state must be active, unregistered or expired, not \(other)")
        }
        return DeviceTokenRecord(token: entry.token, bundleID: entry.bundleId, environment: environment, kind: kind, state: state, deviceID: entry.device)
    }

    private static func generatedTokens(_ entry: ScenarioFile.GeneratedTokens, index: Int, source: String) throws -> [DeviceTokenRecord] {
        let place = "\(source): generatedDeviceTokens[\(index)]"
        guard let environment = tokenEnvironment(entry.environment) else {
            throw LoadError(description: "\(place): environment must be development or production, not \(entry.environment)")
        }
        let prefix = (entry.prefix ?? "").lowercased()
        guard prefix.count < 48, DeviceTokenRecord.isHex(prefix), (0...10_000_000).contains(entry.count) else {
            throw LoadError(description: "\(place): prefix must be under 48 hex digits and count 0...10000000")
        }
        let prefixBytes = Array(prefix.utf8)
        return (0..<entry.count).map { number in
            DeviceTokenRecord(token: GeneratedPhones.token(prefix: prefixBytes, number: number), bundleID: entry.bundleId, environment: environment)
        }
    }

    private static func fingerprint(of text: String) -> String {
        String(FNV1a(text).state, radix: 16)
    }

    /// The phones `entry` generates, made when they are installed.
    private static func generatedPhones(_ entry: ScenarioFile.GeneratedDevices, place: String) throws(SimulatorError) -> GeneratedPhones {
        let prefix = (entry.prefix ?? "").lowercased()
        guard prefix.count < 48, DeviceTokenRecord.isHex(prefix), (0...10_000_000).contains(entry.count) else {
            throw SimulatorError(.invalid, "\(place): prefix must be under 48 hex digits and count 0...10000000")
        }
        var template = AppSpec(bundleId: entry.bundleId)
        template.environment = entry.environment
        template.api = entry.api
        template.state = entry.state
        var app = try template.install(place: place)
        // A load test's phones: a running one launched before the simulation began and knows its
        // token, so a million of them start without two million launch observations (they have
        // no backend to tell). Listed devices launch at creation instead (SIMULATOR.md 4.1).
        app.tokenAnnounced = app.state != .notRunning
        let idPrefix = entry.idPrefix ?? "generated"
        guard !idPrefix.isEmpty, !idPrefix.contains("/") else {
            throw SimulatorError(.invalid, "\(place): idPrefix must be non-empty and without '/'")
        }
        return GeneratedPhones(idPrefix: idPrefix, tokenPrefix: prefix, count: entry.count, app: app)
    }

    private static func tokenEnvironment(_ text: String) -> APNsEnvironment? {
        text == "sandbox" ? .development : APNsEnvironment(rawValue: text)
    }

    static func environments(_ text: String, place: String) throws -> Set<APNsEnvironment> {
        switch text {
        case "both": return [.development, .production]
        case "development", "sandbox": return [.development]
        case "production": return [.production]
        default: throw LoadError(description: "\(place): environment must be development, production or both, not \(text)")
        }
    }

    static func time(_ text: String, place: String) throws -> EpochMilliseconds {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) ?? plain.date(from: text) else {
            throw LoadError(description: "\(place): \(text) is not an ISO 8601 time like 2026-01-01T00:00:00Z")
        }
        return EpochMilliseconds((date.timeIntervalSince1970 * 1000).rounded())
    }
}

extension DecodingError {
    /// "path.to.field: what is wrong", for people.
    public var readableDescription: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = Self.path(context.codingPath)
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "missing \(Self.path(context.codingPath + [key]))"
        @unknown default:
            return String(describing: self)
        }
    }

    /// `apps[0].teamId`
    private static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { path, key in
            if let index = key.intValue { path += "[\(index)]" } else { path += (path.isEmpty ? "" : ".") + key.stringValue }
        }
    }
}
