import ArgumentParser
import Foundation
import PushlabClient
import PushlabCore
import PushlabOpenSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one push and print APNs's answer (to Pushlab, or to Apple with --apple).",
        discussion: """
        Prints the status, the reason of a rejection (and a 410's timestamp) and the apns-id; exits 0 \
        when the push is accepted, 1 when it is rejected, 2 when there is no answer. The payload comes \
        from --payload, --payload-file, or standard input when neither is given.

        Examples:
          pushlab send a69c88c87b0fa337c4b2273f85f708343f6b031be8ed07625ec591a9f53f2ae8 \\
            --topic com.pushlab.demo --key certs/AuthKey_PUSHLAB001.p8 --key-id PUSHLAB001 --team-id TEAMPUSHLB \\
            --payload '{"aps":{"alert":"hi"}}'
          echo '{"aps":{"content-available":1}}' | pushlab send ann --topic com.pushlab.demo \\
            --push-type background --priority 5 --cert certs/client.pem --cert-key certs/client-key.pem
          pushlab send ann --topic com.pushlab.demo --cert certs/client.p12 --cert-password pushlab \\
            --payload '{"aps":{"alert":"hi"}}'
          pushlab send $TOKEN --apple --environment production --topic com.example.app --key AuthKey_X.p8 … --json
        """
    )

    @Argument(help: "Device token (hex), or a simulated device's id or name (looked up through the control API; hex that names no device is sent as a token).")
    var device: String

    @Option(help: "development (sandbox, the default) or production.")
    var environment = "development"

    @Option(help: "host:port to send to (default localhost:2197 for development, localhost:2196 for production).")
    var server: String?

    @Flag(help: "Send to Apple: api.sandbox.push.apple.com or api.push.apple.com, port 443, the system's trusted CAs.")
    var apple = false

    @Option(help: "CA bundle that signs the server's certificate (default certs/ca.pem, not with --apple).")
    var ca: String?

    @Option(help: "apns-topic (the bundle id, with the push type's suffix where it needs one).")
    var topic: String?

    @Option(help: "apns-push-type: alert (default), background, voip, liveactivity, ...")
    var pushType = "alert"

    @Option(help: "apns-priority: 10, 5 or 1.")
    var priority: Int?

    @Option(help: "apns-expiration: epoch seconds; 0 = now or never.")
    var expiration: Int64?

    @Option(help: "apns-collapse-id.")
    var collapseId: String?

    @Option(help: "apns-id (a UUID); APNs makes one when absent.")
    var apnsId: String?

    @Option(help: "The JSON payload.")
    var payload: String?

    @Option(help: "A file holding the JSON payload.")
    var payloadFile: String?

    @Option(help: "Provider-token auth: the .p8 key to sign a fresh token with (needs --key-id and --team-id).")
    var key: String?

    @Option(help: "The key id (kid).")
    var keyId: String?

    @Option(help: "The team id (iss).")
    var teamId: String?

    @Option(help: "Provider-token auth with a token you already have.")
    var providerToken: String?

    @Option(help: "Certificate auth: the client certificate, PEM (may hold the key too) or PKCS#12 (.p12, with --cert-password).")
    var cert: String?

    @Option(help: "The password of a PKCS#12 --cert (certs/client.p12's is pushlab).")
    var certPassword: String?

    @Option(help: "The client certificate's private key (PEM), when not in --cert.")
    var certKey: String?

    @Option(help: "The control API, to look up a device by id or name.")
    var control = "http://127.0.0.1:2198"

    @Flag(help: "Print the answer as one JSON object.")
    var json = false

    func validate() throws {
        guard ["development", "sandbox", "production"].contains(environment) else {
            throw ValidationError("--environment must be development (or sandbox) or production, not \(environment)")
        }
        if payload != nil, payloadFile != nil { throw ValidationError("Give --payload or --payload-file, not both") }
        if key != nil, keyId == nil || teamId == nil { throw ValidationError("--key needs --key-id and --team-id") }
        if [key != nil, providerToken != nil, cert != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Choose one way to authenticate: --key, --provider-token or --cert")
        }
        if apple, server != nil { throw ValidationError("--apple and --server name two different servers; give one") }
        if certPassword != nil, cert == nil { throw ValidationError("--cert-password is the password of a PKCS#12 --cert; give --cert too") }
        if let priority, ![1, 5, 10].contains(priority) { throw ValidationError("--priority must be 10, 5 or 1") }
    }

    func run() async throws {
        let production = environment == "production"
        let configuration = try clientConfiguration(production: production)
        let token: String
        do {
            token = try await deviceToken()
        } catch let problem as LookupProblem {
            FileHandle.standardError.write(Data("pushlab send: \(problem.description)\n".utf8))
            throw ExitCode(2)
        }
        let payload = try payloadBytes()
        if let warning = PayloadWarning.unparsable(payload) {
            FileHandle.standardError.write(Data("pushlab send: warning: \(warning)\n".utf8))
        }
        let notification = APNsNotification(
            deviceToken: token, payload: payload, topic: topic, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseId, apnsID: apnsId, providerToken: try bearerToken()
        )
        let client: APNsClient
        do {
            client = try await APNsClient.connect(configuration)
        } catch {
            FileHandle.standardError.write(Data("pushlab send: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let answer: APNsAnswer
        do {
            answer = try await client.send(notification)
        } catch {
            await client.close()
            FileHandle.standardError.write(Data("pushlab send: \(error)\n".utf8))
            throw ExitCode(2)
        }
        await client.close()
        if json {
            print(Self.json(answer))
        } else {
            let terminal = Terminal.standardOutput
            print(terminal.paint(Self.line(answer), answer.isAccepted ? .green : .red))
        }
        if !answer.isAccepted { throw ExitCode(1) }
    }

    private func clientConfiguration(production: Bool) throws -> APNsClient.Configuration {
        let clientFiles = (certificate: cert, key: certKey ?? cert)
        try checkPKCS12Certificate()
        if apple {
            let host = production ? "api.push.apple.com" : "api.sandbox.push.apple.com"
            return .init(host: host, port: 443, serverName: host, trustedCertificatesFile: ca,
                         certificateFile: clientFiles.certificate, privateKeyFile: clientFiles.certificate == nil ? nil : clientFiles.key,
                         certificatePassword: certPassword)
        }
        let target = server ?? (production ? "localhost:2196" : "localhost:2197")
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]) else {
            throw ValidationError("--server must be host:port, not \(target)")
        }
        var host = String(target[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        let trusted = ca ?? "certs/ca.pem"
        guard FileManager.default.fileExists(atPath: trusted) else {
            throw ValidationError("CA bundle \(trusted) does not exist: pass --ca, or run from the repository root")
        }
        return .init(host: host, port: port, serverName: isAddress ? nil : host, trustedCertificatesFile: trusted,
                     certificateFile: clientFiles.certificate, privateKeyFile: clientFiles.certificate == nil ? nil : clientFiles.key,
                     certificatePassword: certPassword)
    }

    /// A PKCS#12 --cert (told by its content, whatever its name) must open with --cert-password
    /// and needs no --cert-key; a PEM one takes no password. Checked before connecting, to name the flag.
    private func checkPKCS12Certificate() throws {
        guard let cert else { return }
        guard PKCS12Archive.isPKCS12(file: cert) else {
            if certPassword != nil { throw ValidationError("--cert-password is for a PKCS#12 (.p12) --cert; \(cert) is not one") }
            return
        }
        if certKey != nil { throw ValidationError("\(cert) is a PKCS#12 file, which holds its own key: drop --cert-key") }
        do {
            _ = try PKCS12Archive(file: cert, password: certPassword ?? "")
        } catch where error.reason == .wrongPassword {
            throw ValidationError(certPassword == nil
                ? "\(cert) is a PKCS#12 file protected by a password: give it with --cert-password (certs/client.p12's is pushlab)"
                : "\(cert) does not open with that --cert-password: \(error)")
        } catch {
            throw ValidationError("Cannot use \(cert) as a client certificate: \(error)")
        }
    }

    private func payloadBytes() throws -> [UInt8] {
        if let payload { return Array(payload.utf8) }
        if let payloadFile {
            guard let data = FileManager.default.contents(atPath: payloadFile) else { throw ValidationError("Cannot read --payload-file \(payloadFile)") }
            return Array(data)
        }
        return Array(FileHandle.standardInput.readDataToEndOfFile())
    }

    private func bearerToken() throws -> String? {
        if let providerToken { return providerToken }
        guard let key, let keyId, let teamId else { return nil }
        guard let pem = try? String(contentsOfFile: key, encoding: .utf8) else { throw ValidationError("Cannot read key \(key)") }
        let signingKey: ES256Key
        do {
            signingKey = try ES256Key(pem: pem)
        } catch {
            throw ValidationError("\(key) is not an EC P-256 private key: \(error)")
        }
        let input = ProviderToken.signingInput(keyID: keyId, teamID: teamId, issuedAt: Int64(Date().timeIntervalSince1970))
        return ProviderToken.assemble(signingInput: input, signature: try signingKey.sign(Array(input.utf8), raw: true))
    }

    /// A hex token as given; otherwise a simulated device's id or name, through the control API.
    /// Shorter hex that names no device is sent as it is: APNs answers it (`BadDeviceToken`).
    private func deviceToken() async throws -> String {
        if device.count >= 64, device.allSatisfy(\.isHexDigit) { return device }
        let isHex = !device.isEmpty && device.allSatisfy(\.isHexDigit)
        let bundleID = topic.map { APNsTopic($0).bundleID }
        do {
            guard let match = try await ControlAPIDevices.find(device, at: control) else {
                if isHex { return device }
                throw LookupProblem(description: "No simulated device \(device) (by id or name) at \(control); pass a device token instead")
            }
            let apps = bundleID.map { id in match.apps.filter { $0.bundleId == id } } ?? match.apps
            guard let app = apps.first, apps.count == 1 else {
                throw LookupProblem(description: "Device \(device) has \(apps.isEmpty ? "no" : "several") matching apps; pass --topic with the app's bundle id")
            }
            return app.deviceToken
        } catch let problem as LookupProblem {
            throw problem
        } catch {
            if isHex { return device }
            let why = (error as? URLError).map { _ in "it does not answer (is pushlab serve running, with its control API there?)" } ?? "\(error)"
            throw LookupProblem(description: "\(device) is not a device token, and the control API at \(control) cannot look it up: \(why)")
        }
    }

    struct LookupProblem: Error, CustomStringConvertible {
        let description: String
    }

    static func line(_ answer: APNsAnswer) -> String {
        var parts = ["\(answer.status)"]
        if let reason = answer.reason { parts.append(reason) } else if answer.isAccepted { parts.append("accepted") }
        if let timestamp = answer.timestamp { parts.append("(since \(ISO8601Milliseconds.format(timestamp)))") }
        if let id = answer.apnsID { parts.append("apns-id: \(id)") }
        if let unique = answer.apnsUniqueID { parts.append("apns-unique-id: \(unique)") }
        return parts.joined(separator: "  ")
    }

    static func json(_ answer: APNsAnswer) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("status", Int64(answer.status))
        writer.field("reason", answer.reason)
        writer.field("timestamp", answer.timestamp)
        writer.field("apnsId", answer.apnsID)
        writer.field("apnsUniqueId", answer.apnsUniqueID)
        writer.endObject()
        return writer.text
    }
}

/// Simulated devices through the control API, as much of them as `send` needs.
enum ControlAPIDevices {
    struct Device: Decodable {
        struct App: Decodable {
            var bundleId: String
            var deviceToken: String
        }
        var id: String
        var name: String?
        var apps: [App]
    }

    private struct Page: Decodable {
        var devices: [Device]
        var total: Int
    }

    /// The device with this id, or else the first with this name.
    static func find(_ idOrName: String, at base: String) async throws -> Device? {
        let escaped = idOrName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? idOrName
        let (data, status) = try await get(base + "/v1/devices/" + escaped)
        if status == 200 { return try JSONDecoder().decode(Device.self, from: data) }
        guard status == 404 else { throw Send.LookupProblem(description: "the control API answered \(status) to GET /v1/devices/\(escaped)") }
        var offset = 0
        while true {
            let (data, status) = try await get(base + "/v1/devices?limit=10000&offset=\(offset)")
            guard status == 200 else { throw Send.LookupProblem(description: "the control API answered \(status) to GET /v1/devices") }
            let page = try JSONDecoder().decode(Page.self, from: data)
            if let match = page.devices.first(where: { $0.name == idOrName }) { return match }
            offset += page.devices.count
            if page.devices.isEmpty || offset >= page.total { return nil }
        }
    }

    private static func get(_ address: String) async throws -> (Data, Int) {
        guard let url = URL(string: address) else { throw Send.LookupProblem(description: "--control must be a URL, not \(address)") }
        return try await ControlAPIGet.data(from: url)
    }
}
