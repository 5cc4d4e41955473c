import Foundation
import PushlabCore
import PushlabOpenSSL
import PushlabServices

/// An app on JPush's or GeTui's portal, as a scenario's `services:` and the control API write
/// it: the service's ids and secrets, the bundle id, the APNs credentials uploaded to the
/// portal, and (GeTui) the environment the portal pushes through.
public struct ServiceAppSpec: Decodable, Sendable {
    /// JPush's appKey, or GeTui's.
    public var appKey: String
    public var masterSecret: String
    /// GeTui's appId (the path of its API).
    public var appId: String?
    public var bundleId: String
    /// A `.p12` (with `apnsCertificatePassword`) or a PEM certificate (with `apnsCertificateKey`).
    public var apnsCertificate: String?
    public var apnsCertificateKey: String?
    public var apnsCertificatePassword: String?
    /// A `.p8` signing key instead of a certificate.
    public var apnsKey: KeySpec?
    /// GeTui: `production` (default) or `development`.
    public var environment: String?

    public struct KeySpec: Decodable, Sendable {
        public var keyId: String
        public var teamId: String
        public var privateKey: String
    }

    public static let keys = ["appKey", "masterSecret", "appId", "bundleId", "apnsCertificate", "apnsCertificateKey", "apnsCertificatePassword", "apnsKey", "environment"]
    public static let keyKeys = ["keyId", "teamId", "privateKey"]

    /// JPush's app; files are read relative to `directory`.
    public func jpushApp(directory: URL) throws(ServiceAppSpecError) -> JPushApp {
        if appId != nil { throw ServiceAppSpecError("appId is GeTui's: a JPush app is named by its appKey") }
        if environment != nil {
            throw ServiceAppSpecError("environment is GeTui's portal setting: JPush takes the APNs environment from each push's options.apns_production")
        }
        try checkIDs()
        return JPushApp(appKey: appKey, masterSecret: masterSecret, bundleID: bundleId, apnsCredential: try credential(directory: directory))
    }

    /// GeTui's app; files are read relative to `directory`.
    public func getuiApp(directory: URL) throws(ServiceAppSpecError) -> GeTuiPortalApp {
        guard let appId, !appId.isEmpty, appId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ServiceAppSpecError("appId must be GeTui's app id: letters and digits")
        }
        try checkIDs()
        let environment: APNsEnvironment
        switch self.environment ?? "production" {
        case "production": environment = .production
        case "development", "sandbox": environment = .development
        case let other: throw ServiceAppSpecError("environment must be production or development, not \(other)")
        }
        let app = GeTuiApp(appID: appId, appKey: appKey, masterSecret: masterSecret, bundleID: bundleId, apnsCredential: try credential(directory: directory))
        return GeTuiPortalApp(app: app, environment: environment)
    }

    private func checkIDs() throws(ServiceAppSpecError) {
        for (name, value) in [("appKey", appKey), ("masterSecret", masterSecret)] where value.isEmpty || value.contains(":") {
            throw ServiceAppSpecError("\(name) must be non-empty, without a colon")
        }
        if bundleId.isEmpty { throw ServiceAppSpecError("bundleId must not be empty") }
    }

    private func credential(directory: URL) throws(ServiceAppSpecError) -> APNsCredential {
        func path(_ file: String) throws(ServiceAppSpecError) -> String {
            let path = file.hasPrefix("/") ? file : directory.appendingPathComponent(file).standardizedFileURL.path
            guard FileManager.default.isReadableFile(atPath: path) else { throw ServiceAppSpecError("cannot read \(path)") }
            return path
        }
        switch (apnsCertificate, apnsKey) {
        case (let certificate?, nil):
            if apnsCertificateKey != nil, apnsCertificatePassword != nil {
                throw ServiceAppSpecError("apnsCertificateKey is for a PEM certificate, apnsCertificatePassword for a .p12: give one")
            }
            return .certificate(path: try path(certificate), keyPath: try apnsCertificateKey.map { file throws(ServiceAppSpecError) in try path(file) }, password: apnsCertificatePassword)
        case (nil, let key?):
            let file = try path(key.privateKey)
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8), let parsed = try? ES256Key(pem: pem), parsed.hasPrivateKey else {
                throw ServiceAppSpecError("apnsKey.privateKey \(file) is not a .p8 private key")
            }
            return .signingKey(path: file, keyID: key.keyId, teamID: key.teamId)
        case (nil, nil):
            throw ServiceAppSpecError("the portal needs the app's APNs credentials: apnsCertificate (a .p12 or PEM) or apnsKey {keyId, teamId, privateKey}")
        case (_?, _?):
            throw ServiceAppSpecError("give apnsCertificate or apnsKey, not both")
        }
    }
}

public struct ServiceAppSpecError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A scenario's `services:`: the apps on each service's portal.
public struct ServicesFile: Decodable, Sendable {
    public var jpush: [ServiceAppSpec]?
    public var getui: [ServiceAppSpec]?

    func apps(directory: URL, source: String) throws -> ServiceApps {
        var apps = ServiceApps()
        do throws(ServiceAppSpecError) {
            for (index, spec) in (jpush ?? []).enumerated() {
                do throws(ServiceAppSpecError) {
                    apps.jpush.append(try spec.jpushApp(directory: directory))
                } catch {
                    throw ServiceAppSpecError("services.jpush[\(index)]: \(error.description)")
                }
            }
            for (index, spec) in (getui ?? []).enumerated() {
                do throws(ServiceAppSpecError) {
                    apps.getui.append(try spec.getuiApp(directory: directory))
                } catch {
                    throw ServiceAppSpecError("services.getui[\(index)]: \(error.description)")
                }
            }
        } catch {
            throw Scenario.LoadError(description: "Scenario \(source): \(error.description)")
        }
        if let key = Self.duplicate(apps.jpush.map(\.appKey)) { throw Scenario.LoadError(description: "Scenario \(source): services.jpush has appKey \(key) twice") }
        if let id = Self.duplicate(apps.getui.map(\.app.appID)) { throw Scenario.LoadError(description: "Scenario \(source): services.getui has appId \(id) twice") }
        return apps
    }

    private static func duplicate(_ values: [String]) -> String? {
        var seen: Set<String> = []
        return values.first { !seen.insert($0).inserted }
    }
}
