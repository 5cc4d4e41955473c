import PushlabCore
import Testing

@Suite("Transport-level request rules")
struct BasicAPNsServiceTests {
    private func answer(_ request: APNsRequest) -> APNsResponse {
        BasicAPNsService().makeConnectionHandler(for: ConnectionInfo(id: 1, listenerEnvironment: .development)).handle(request).response
    }

    private let token = String(repeating: "ab", count: 32)

    @Test func wellFormedRequestIsAccepted() {
        let response = answer(APNsRequest(path: "/3/device/\(token)", body: Array("{}".utf8)))
        #expect(response.status == 200)
        #expect(response.reason == nil)
    }

    @Test(arguments: ["GET", "PUT", "DELETE", "HEAD"])
    func onlyPostIsAllowed(method: String) {
        #expect(answer(APNsRequest(method: method, path: "/3/device/\(token)", body: [1])).reason == .methodNotAllowed)
    }

    @Test(arguments: [nil, "/", "/3/device", "/2/device/abc", "/3/devices/abc"] as [String?])
    func pathsOutsideDeviceAreBadPath(path: String?) {
        #expect(answer(APNsRequest(path: path, body: [1])).reason == .badPath)
    }

    @Test func emptyBodyIsPayloadEmpty() {
        #expect(answer(APNsRequest(path: "/3/device/\(token)")).reason == .payloadEmpty)
    }

    @Test func apnsIDIsEchoedOrGeneratedInUpperCase() {
        let echoed = answer(APNsRequest(path: "/3/device/\(token)", headers: [("apns-id", "abc")], body: [1]))
        #expect(echoed.apnsID == "abc")
        let generated = answer(APNsRequest(path: "/3/device/\(token)", body: [1])).apnsID
        #expect(generated.count == 36 && generated == generated.uppercased())
        #expect(generated != answer(APNsRequest(path: "/3/device/\(token)", body: [1])).apnsID)
    }

    @Test func announcedStreamLimitIsConfigurable() {
        let handler = BasicAPNsService(maxConcurrentStreams: 42).makeConnectionHandler(for: ConnectionInfo(id: 1, listenerEnvironment: .production))
        #expect(handler.initialMaxConcurrentStreams == 42)
    }
}
