import PushlabCore
import Testing

@Suite("Environments from host names")
struct EnvironmentTests {
    @Test(arguments: [
        ("api.sandbox.push.apple.com", APNsEnvironment.development),
        ("api.development.push.apple.com", .development),
        ("API.Sandbox.Push.Apple.com:443", .development),
        ("api.push.apple.com", .production),
        ("api.push.apple.com:2197", .production),
        ("api.push.apple.com.", .production),
    ])
    func appleHostsSelectTheirEnvironment(host: String, environment: APNsEnvironment) {
        #expect(APNsEnvironment(appleHost: host) == environment)
    }

    @Test(arguments: ["localhost", "127.0.0.1:2197", "[::1]:2196", "push.apple.com", "api.push.apple.com.evil.example", ""])
    func otherHostsSelectNothing(host: String) {
        #expect(APNsEnvironment(appleHost: host) == nil)
    }

    @Test func authorityThenSNIThenListener() {
        var connection = ConnectionInfo(id: 1, listenerEnvironment: .development)
        #expect(connection.environment == .development)
        connection.serverName = "api.push.apple.com"
        #expect(connection.environment == .production)
        var request = APNsRequest(path: "/3/device/ab", authority: "localhost:2197")
        #expect(connection.environment(for: request) == .production)
        request.authority = "api.sandbox.push.apple.com"
        #expect(connection.environment(for: request) == .development)
        connection.serverName = "localhost"
        request.authority = "localhost"
        #expect(connection.environment(for: request) == .development)
    }
}
