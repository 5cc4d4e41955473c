import Foundation
import PushlabClient
import PushlabTesting
import Testing

/// What a provider's own code does with the handles the test server gives: connect to one of
/// its URLs trusting its CA, and push with a provider token from its signing key.
enum ProviderClient {
    static func connect(to server: PushlabTestServer, environment: APNsEnvironment = .development) async throws -> APNsClient {
        let url = server.url(for: environment)
        return try await APNsClient.connect(APNsClient.Configuration(
            host: try #require(url.host), port: try #require(url.port), serverName: url.host,
            trustedCertificatesFile: server.caCertificatePath
        ))
    }

    static func alert(_ payload: String, to token: String, topic: String, providerToken: String, expiration: Int64? = nil) -> APNsNotification {
        APNsNotification(
            deviceToken: token, payload: Array(payload.utf8), topic: topic, pushType: "alert", expiration: expiration,
            providerToken: providerToken
        )
    }
}
