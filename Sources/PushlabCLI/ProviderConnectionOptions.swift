import ArgumentParser
import Foundation
import PushlabClient
import PushlabCore
import PushlabOpenSSL

/// Where a provider connects (Pushlab or Apple) and how it authenticates: shared by `pushlab
/// send` and `pushlab channels`, with the same flags and the same messages.
struct ProviderConnectionOptions: ParsableArguments {
    @Option(help: "development (sandbox, the default) or production.")
    var environment = "development"

    @Option(help: "host:port to send to (the default depends on the API and the environment).")
    var server: String?

    @Flag(help: "Send to Apple's host for the API and environment, with the system's trusted CAs.")
    var apple = false

    @Option(help: "CA bundle that signs the server's certificate (default certs/ca.pem, not with --apple).")
    var ca: String?

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

    /// An API's Apple host and port and Pushlab's local port, per environment.
    struct Endpoint {
        var appleHost: (development: String, production: String)
        var applePort: (development: Int, production: Int)
        var localPort: (development: Int, production: Int)

        static let provider = Endpoint(
            appleHost: ("api.sandbox.push.apple.com", "api.push.apple.com"), applePort: (443, 443), localPort: (2197, 2196)
        )
        static let channelManagement = Endpoint(
            appleHost: ("api-manage-broadcast.sandbox.push.apple.com", "api-manage-broadcast.push.apple.com"),
            applePort: (2195, 2196), localPort: (2195, 2196)
        )
    }

    var production: Bool { environment == "production" }

    func validate() throws {
        guard ["development", "sandbox", "production"].contains(environment) else {
            throw ValidationError("--environment must be development (or sandbox) or production, not \(environment)")
        }
        if key != nil, keyId == nil || teamId == nil { throw ValidationError("--key needs --key-id and --team-id") }
        if [key != nil, providerToken != nil, cert != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Choose one way to authenticate: --key, --provider-token or --cert")
        }
        if apple, server != nil { throw ValidationError("--apple and --server name two different servers; give one") }
        if certPassword != nil, cert == nil { throw ValidationError("--cert-password is the password of a PKCS#12 --cert; give --cert too") }
    }

    func clientConfiguration(for endpoint: Endpoint) throws -> APNsClient.Configuration {
        let clientFiles = (certificate: cert, key: certKey ?? cert)
        try checkPKCS12Certificate()
        if apple {
            let host = production ? endpoint.appleHost.production : endpoint.appleHost.development
            return .init(host: host, port: production ? endpoint.applePort.production : endpoint.applePort.development, serverName: host,
                         trustedCertificatesFile: ca, certificateFile: clientFiles.certificate,
                         privateKeyFile: clientFiles.certificate == nil ? nil : clientFiles.key, certificatePassword: certPassword)
        }
        let target = server ?? "localhost:\(production ? endpoint.localPort.production : endpoint.localPort.development)"
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]) else {
            throw ValidationError("--server must be host:port, not \(target)")
        }
        var host = String(target[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        let trusted = ca ?? DefaultFiles.path("certs/ca.pem")
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

    func bearerToken() throws -> String? {
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

    /// Connects, sends one request and closes; no answer exits 2, with the reason on standard error.
    func exchange(_ request: APNsClientRequest, endpoint: Endpoint, command: String) async throws -> APNsAnswer {
        let configuration = try clientConfiguration(for: endpoint)
        let client: APNsClient
        do {
            client = try await APNsClient.connect(configuration)
        } catch {
            FileHandle.standardError.write(Data("pushlab \(command): \(error)\n".utf8))
            throw ExitCode(2)
        }
        do {
            let answer = try await client.send(request)
            await client.close()
            return answer
        } catch {
            await client.close()
            FileHandle.standardError.write(Data("pushlab \(command): \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
