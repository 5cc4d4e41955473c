import Foundation
import PushlabCore
import PushlabSimulator

/// A scenario file (YAML): the world Pushlab starts with. See `docs/SCENARIOS.md`.
public struct ScenarioFile: Decodable, Sendable {
    public var name: String?
    public var description: String?
    public var keys: [Key]?
    public var apps: [App]?
    public var deviceTokens: [DeviceToken]?
    /// Many tokens at once, for load tests: `prefix` + the index in hex, zero-padded to 64 digits.
    public var generatedDeviceTokens: [GeneratedTokens]?
    /// Broadcast channels the apps already have (Live Activities subscribe to them by id).
    public var channels: [Channel]?
    public var policy: PolicyFile?
    /// Simulated devices and the apps on them.
    public var devices: [DeviceSpec]?
    /// Many devices at once, for load tests: one app each, tokens made as `generatedDeviceTokens`.
    public var generatedDevices: [GeneratedDevices]?
    /// The simulator's budget and storage rules.
    public var simulator: SimulatorSettingsSpec?
    /// Where `pushlab run` starts the manual clock.
    public var clock: Clock?
    /// Record the provider report from the start (a `report` step implies it).
    public var report: Bool?
    /// Apps on JPush's and GeTui's portals (docs/SERVICES.md).
    public var services: ServicesFile?

    public struct Clock: Decodable, Sendable {
        /// ISO 8601.
        public var start: String?
    }

    public struct GeneratedTokens: Decodable, Sendable {
        public var count: Int
        public var bundleId: String
        public var environment: String
        public var prefix: String?
    }

    public struct GeneratedDevices: Decodable, Sendable {
        public var count: Int
        public var bundleId: String
        public var environment: String?
        /// Token prefix (hex); the rest of the 64 digits is the index.
        public var prefix: String?
        /// Device ids are this, a dash and the index (default `device`).
        public var idPrefix: String?
        public var api: String?
        public var state: String?
    }

    public struct Key: Decodable, Sendable {
        public var keyId: String
        public var teamId: String
        /// A PEM file, relative to the scenario file; a `.p8` private key works too.
        public var publicKey: String?
        /// A `.p8` file, relative to the scenario file: `pushlab run` signs provider tokens with it.
        public var privateKey: String?
        public var publicKeyPem: String?
        public var privateKeyPem: String?
        /// `development`, `production` or `both` (the default).
        public var environment: String?
        /// Bundle ids of a topic-specific key; absent for a team-scoped key.
        public var topics: [String]?
        public var relatedKeyId: String?
        public var revoked: Bool?
    }

    public struct Channel: Decodable, Sendable {
        /// Base64, as APNs issues channel ids.
        public var id: String
        public var bundleId: String
        public var environment: String?
        /// 0 (no storage) or 1 (the most recent message, the default).
        public var messageStoragePolicy: Int?
    }

    public struct App: Decodable, Sendable {
        public var bundleId: String
        public var teamId: String
        /// The Broadcast Push Notifications capability (default on); off answers FeatureNotEnabled.
        public var broadcastEnabled: Bool?
    }

    public struct DeviceToken: Decodable, Sendable {
        public var token: String
        public var bundleId: String
        public var environment: String
        /// `app` (default) or `voip`.
        public var kind: String?
        /// `active` (default), `unregistered` or `expired`.
        public var state: String?
        /// ISO 8601 time the token stopped working (for `unregistered` / `expired`).
        public var since: String?
        public var device: String?
    }
}
