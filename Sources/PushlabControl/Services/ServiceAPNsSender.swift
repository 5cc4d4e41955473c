import Foundation
import NIOPosix
import PushlabClient
import PushlabCore
import PushlabOpenSSL
import PushlabScenario
import PushlabServices

/// How JPush and GeTui reach APNs here: as providers, over Pushlab's own APNs listeners, with the
/// credentials uploaded to their portals. A connection per credential and environment stays open
/// (as a push service keeps its own), and a provider token is reused for 50 minutes (Apple: at
/// most one new token every 20 minutes, each good for an hour).
actor ServiceAPNsSender {
    private struct ConnectionKey: Hashable {
        var credential: String
        var environment: APNsEnvironment
    }

    private var listeners: [APNsListener] = []
    private var clients: [ConnectionKey: APNsClient] = [:]
    private var tokens: [String: (token: String, issuedAt: Int64)] = [:]
    private let now: @Sendable () -> EpochMilliseconds

    init(now: @escaping @Sendable () -> EpochMilliseconds) {
        self.now = now
    }

    func setListeners(_ bound: [APNsListener]) {
        listeners = bound
    }

    /// Sends one request; the answer, or why none came.
    func send(_ plan: APNsRequestPlan, with credential: APNsCredential) async -> Result<APNsAnswer, ServiceAPNsFailure> {
        var headers = plan.headers.map { APNsClientRequest.Header($0.name, $0.value) }
        if case .signingKey(let path, let keyID, let teamID) = credential {
            switch providerToken(path: path, keyID: keyID, teamID: teamID) {
            case .success(let token): headers.append(APNsClientRequest.Header("authorization", "bearer \(token)"))
            case .failure(let failure): return .failure(failure)
            }
        }
        let request = APNsClientRequest(method: "POST", path: plan.path, headers: headers, body: Array(plan.payload.utf8))
        let key = ConnectionKey(credential: Self.name(of: credential), environment: plan.environment)
        let client: APNsClient
        switch await connection(key, credential: credential) {
        case .success(let open): client = open
        case .failure(let failure): return .failure(failure)
        }
        do {
            return .success(try await client.send(request))
        } catch {
            // The next request opens a new connection (GOAWAY, a closed socket).
            if clients[key] === client { clients[key] = nil }
            await client.close()
            return .failure(ServiceAPNsFailure(description: "No answer from APNs: \(error)"))
        }
    }

    func closeAll() async {
        let open = Array(clients.values)
        clients = [:]
        for client in open { await client.close() }
    }

    private func connection(_ key: ConnectionKey, credential: APNsCredential) async -> Result<APNsClient, ServiceAPNsFailure> {
        if let open = clients[key] { return .success(open) }
        guard let listener = listeners.first(where: { $0.environment == key.environment && $0.role != .channelManagement }) else {
            return .failure(ServiceAPNsFailure(description: "No APNs listener serves \(key.environment.rawValue) on this server"))
        }
        var configuration = APNsClient.Configuration(host: ListenerExchange.connectableHost(listener.host), port: listener.port, verifyServer: false)
        if case .certificate(let path, let keyPath, let password) = credential {
            configuration.certificateFile = path
            configuration.privateKeyFile = keyPath
            configuration.certificatePassword = password
        }
        do {
            let client = try await APNsClient.connect(configuration, group: MultiThreadedEventLoopGroup.singleton)
            // Another send may have opened one meanwhile: keep the first.
            if let open = clients[key] {
                await client.close()
                return .success(open)
            }
            clients[key] = client
            return .success(client)
        } catch {
            return .failure(ServiceAPNsFailure(description: "Cannot connect to APNs (\(key.environment.rawValue)) with \(key.credential): \(error)"))
        }
    }

    private func providerToken(path: String, keyID: String, teamID: String) -> Result<String, ServiceAPNsFailure> {
        let seconds = now() / 1000
        if let kept = tokens[path + keyID + teamID], seconds - kept.issuedAt < 3000, seconds >= kept.issuedAt { return .success(kept.token) }
        do {
            let pem = try String(contentsOfFile: path, encoding: .utf8)
            let signer = Scenario.Signer(keyID: keyID, teamID: teamID, key: try ES256Key(pem: pem))
            let token = try signer.providerToken(issuedAt: seconds)
            tokens[path + keyID + teamID] = (token, seconds)
            return .success(token)
        } catch {
            return .failure(ServiceAPNsFailure(description: "Cannot sign a provider token with \(path): \(error)"))
        }
    }

    private static func name(of credential: APNsCredential) -> String {
        switch credential {
        case .certificate(let path, _, _): path
        case .signingKey(let path, let keyID, _): "\(path) (\(keyID))"
        }
    }
}

struct ServiceAPNsFailure: Error, Sendable, CustomStringConvertible {
    let description: String
}
