import NIOCore
import PushlabCore
import PushlabNGHTTP2
import PushlabTransport
import Testing

/// The broadcast and channel management API's answers on the wire (A10, A12): `apns-request-id`
/// instead of `apns-id`, 201 with `apns-channel-id`, 204, and JSON success bodies.
@Suite("Channel API responses, without sockets")
struct ChannelAPIResponseTests {
    static let requestID = "3f1c0a5e-7b2d-4c9e-8a6f-0d1e2f3a4b5c"

    private func answer(_ response: APNsResponse, method: String = "POST") throws -> (ClientEvents, Int32) {
        let connection = try EmbeddedConnection(service: RecordingService { _ in APNsOutcome(response) })
        let stream = try connection.request(method: method, path: "/1/apps/com.example.app/channels", body: method == "POST" ? "{}" : nil)
        try connection.exchange()
        return (connection.events, stream)
    }

    @Test func createIs201WithTheChannelAndTheRequestIDAndNoBody() throws {
        let (events, stream) = try answer(.success(status: 201, requestID: APNsID(Self.requestID), channelID: "dHN0LXNyY2gtY2hubA=="))
        #expect(events.status(stream) == "201")
        #expect(events.headers[stream]?.fields.map(\.name) == [":status", "apns-request-id", "apns-channel-id"])
        #expect(events.header("apns-request-id", stream) == Self.requestID)
        #expect(events.header("apns-channel-id", stream) == "dHN0LXNyY2gtY2hubA==")
        #expect(events.dataFrameStreams.isEmpty && events.ended.contains(stream))
    }

    @Test func readIs200WithAJSONBody() throws {
        let json = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
        let (events, stream) = try answer(.success(status: 200, requestID: APNsID(Self.requestID), content: Array(json.utf8)), method: "GET")
        #expect(events.status(stream) == "200")
        #expect(events.headers[stream]?.fields.map(\.name) == [":status", "content-type", "apns-request-id"])
        #expect(events.header("content-type", stream) == "application/json")
        #expect(events.body(stream) == json)
    }

    @Test func deleteIs204WithNothingButTheRequestID() throws {
        let (events, stream) = try answer(.success(status: 204, requestID: APNsID(Self.requestID)), method: "DELETE")
        #expect(events.status(stream) == "204")
        #expect(events.headers[stream]?.fields.map(\.name) == [":status", "apns-request-id"])
        #expect(events.dataFrameStreams.isEmpty)
    }

    @Test func errorsNameTheRequestInApnsRequestID() throws {
        let (events, stream) = try answer(.failure(.channelNotRegistered, requestID: APNsID(Self.requestID)), method: "GET")
        #expect(events.status(stream) == "400")
        #expect(events.headers[stream]?.fields.map(\.name) == [":status", "content-type", "apns-request-id"])
        #expect(events.body(stream) == #"{"reason":"ChannelNotRegistered"}"#)
    }

    @Test func deviceAndChannelAnswersShareAConnection() throws {
        let connection = try EmbeddedConnection(service: RecordingService { request in
            request.path?.hasPrefix("/1/") == true
                ? APNsOutcome(.success(status: 204, requestID: APNsID(Self.requestID)))
                : RecordingService.acceptEverything(request)
        })
        let streams = try [connection.request(), connection.request(method: "DELETE", path: "/1/apps/a/channels", body: nil), connection.request()]
        try connection.exchange()
        #expect(streams.map { connection.events.status($0) } == ["200", "204", "200"])
        #expect(streams.map { connection.events.headers[$0]?.fields.map(\.name) ?? [] } == [
            [":status", "apns-id"], [":status", "apns-request-id"], [":status", "apns-id"],
        ])
    }

    @Test func theListenersRoleReachesTheConnectionHandler() throws {
        let service = RecordingService()
        _ = try EmbeddedConnection(service: service, role: .channelManagement)
        #expect(service.connections.first?.listenerRole == .channelManagement)
    }
}
