import Foundation
import PushlabClient
import PushlabCore
import PushlabScenario

/// Runs a script against a Pushlab server: pushes through Pushlab's own HTTP/2 client over TLS to
/// the listeners the server's `/v1/health` names, everything else through its control API.
actor ControlAPIDriver: ScenarioDriver {
    private let controlURL: String
    private let trustedCA: String
    private var listeners: [APNsEnvironment: (host: String, port: Int)] = [:]
    private var connections: [ScenarioConnection: APNsClient] = [:]

    init(controlURL: String, trustedCA: String) {
        self.controlURL = controlURL.hasSuffix("/") ? String(controlURL.dropLast()) : controlURL
        self.trustedCA = trustedCA
    }

    func send(_ push: APNsNotification, on connection: ScenarioConnection) async throws -> APNsAnswer {
        try await answer(on: connection) { try await $0.send(push) }
    }

    func broadcast(_ broadcast: APNsBroadcast, on connection: ScenarioConnection) async throws -> APNsAnswer {
        try await answer(on: connection) { client in
            try await client.send(.broadcast(
                bundleID: broadcast.bundleID, channelID: broadcast.channelID, payload: broadcast.payload, pushType: broadcast.pushType,
                priority: broadcast.priority, expiration: broadcast.expiration, requestID: broadcast.requestID, providerToken: broadcast.providerToken
            ))
        }
    }

    /// A request the server never processed (sent as its GOAWAY went out: an idle timeout
    /// after a clock advance) goes again on a new connection, as a provider sends it.
    private func answer(on connection: ScenarioConnection, _ request: (APNsClient) async throws -> APNsAnswer) async throws -> APNsAnswer {
        var attempts = 0
        while true {
            attempts += 1
            let client = try await client(for: connection)
            do {
                return try await request(client)
            } catch {
                connections[connection] = nil
                await client.close()
                if let failure = error as? APNsClientError, failure.unprocessed, attempts < 3 { continue }
                throw ScenarioDriverError("no answer on connection \(connection.name) (\(connection.environment.rawValue)): \(error)")
            }
        }
    }

    private func client(for connection: ScenarioConnection) async throws -> APNsClient {
        if let open = connections[connection] { return open }
        if listeners.isEmpty { try await readListeners() }
        guard let listener = listeners[connection.environment] else {
            throw ScenarioDriverError("the server at \(controlURL) has no \(connection.environment.rawValue) listener")
        }
        let configuration = APNsClient.Configuration(
            host: listener.host, port: listener.port, serverName: "localhost", trustedCertificatesFile: trustedCA,
            certificateFile: connection.certificate, privateKeyFile: connection.certificate.map { connection.certificateKey ?? $0 }
        )
        do {
            let client = try await APNsClient.connect(configuration)
            connections[connection] = client
            return client
        } catch {
            throw ScenarioDriverError("cannot connect to \(listener.host):\(listener.port): \(error)")
        }
    }

    private func readListeners() async throws {
        let health = try await control(.get, "/v1/health", body: nil)
        guard case .array(let entries)? = health["listeners"] else { return }
        for entry in entries {
            guard let environment = entry["environment"]?.stringValue.flatMap(APNsEnvironment.init(rawValue:)),
                  var host = entry["host"]?.stringValue, let port = entry["port"]?.integerValue else { continue }
            // Pushes and broadcasts go to a provider listener, never to a channel-management one.
            if entry["role"]?.stringValue.flatMap(APNsListenerRole.init(rawValue:)) == .channelManagement { continue }
            // A server bound to every address is reached on loopback.
            if host == "0.0.0.0" || host == "::" { host = "127.0.0.1" }
            // The first provider listener of each environment.
            if listeners[environment] == nil { listeners[environment] = (host, Int(port)) }
        }
    }

    func control(_ method: ControlCall.Method, _ path: String, body: JSONValue?) async throws -> JSONValue {
        guard let url = URL(string: controlURL + path) else { throw ScenarioDriverError("\(controlURL + path) is not a URL") }
        let data: Data
        let status: Int
        do {
            (data, status) = try await ControlAPIGet.request(method.rawValue, url, body: body?.description)
        } catch {
            throw ScenarioDriverError("the control API at \(controlURL) does not answer (\(error))")
        }
        let json = try? JSONParser.parse(String(decoding: data, as: UTF8.self))
        guard (200..<300).contains(status) else {
            let message = json?["error"]?.stringValue ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw ScenarioDriverError("\(method.rawValue) \(path) answered \(status): \(message)")
        }
        return json ?? .null
    }

    func close() async {
        for client in connections.values { await client.close() }
        connections.removeAll()
    }
}
