import Hummingbird
import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

/// A control API started with a token serves only requests that carry it.
@Suite("Control API token")
struct ControlTokenTests {
    private let token = "s3cret-token"

    @Test func everyRouteNeedsTheBearerToken() async throws {
        let h = try ControlHarness()
        try await Application(router: h.api.router(token: token)).test(.router) { client in
            let bare = try await client.call(.get, "/v1/health")
            expectError(bare, 401, containing: "authorization: Bearer <token>")
            #expect(bare.headers[.wwwAuthenticate] == #"Bearer realm="pushlab""#)
            expectError(try await client.call(.get, "/metrics"), 401, containing: "--control-token")
            expectError(try await client.call(.post, "/v1/reset"), 401, containing: "--control-token")

            for wrong in ["Bearer s3cret", "Bearer s3cret-token-and-more", "Basic s3cret-token", "Bearer", "s3cret-token"] {
                let answer = try await client.execute(uri: "/v1/health", method: .get, headers: [.authorization: wrong]) { $0.status.code }
                #expect(answer == 401, "\(wrong)")
            }
            for right in ["Bearer s3cret-token", "bearer s3cret-token"] {
                let answer = try await client.execute(uri: "/v1/health", method: .get, headers: [.authorization: right]) { $0.status.code }
                #expect(answer == 200, "\(right)")
            }
        }
    }

    @Test func withoutATokenTheRoutesAreOpen() async throws {
        let h = try ControlHarness()
        try await Application(router: h.api.router()).test(.router) { client in
            let open = try await client.call(.get, "/v1/health")
            #expect(open.status == 200)
        }
    }
}
