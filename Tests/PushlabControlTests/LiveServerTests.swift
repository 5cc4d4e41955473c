import AsyncHTTPClient
import Foundation
import NIOCore
import PushlabControl
import PushlabCore
import Testing

/// The control API on a real socket, through a real HTTP client.
@Suite("A live control server")
struct LiveServerTests {
    @Test func routesOverRealHTTPAndAnEventStreamThatSeesAPush() async throws {
        let h = try ControlHarness()
        let server = try await ControlServer.start(api: h.api, host: "127.0.0.1", port: 0)
        #expect(server.port != 0)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let health = try await client.execute(HTTPClientRequest(url: server.url + "/v1/health"), timeout: .seconds(10))
            #expect(health.status == .ok)
            let healthBody = String(buffer: try await health.body.collect(upTo: 1 << 20))
            #expect(try JSONParser.parse(healthBody)["status"]?.stringValue == "ok")

            var add = HTTPClientRequest(url: server.url + "/v1/devices")
            add.method = .POST
            add.headers.add(name: "content-type", value: "application/json")
            add.body = .bytes(ByteBuffer(string: #"{"id":"live","apps":[{"bundleId":"com.example.app","state":"foreground","willPresentOptions":["banner"]}]}"#))
            let added = try await client.execute(add, timeout: .seconds(10))
            #expect(added.status == .created)
            let device = try JSONParser.parse(String(buffer: try await added.body.collect(upTo: 1 << 20)))
            let token = try #require(device["apps"]?.array.first?["deviceToken"]?.stringValue)

            // Subscribe, wait for the stream's opening comment, then push and read until the
            // device's banner arrives.
            let events = try await client.execute(HTTPClientRequest(url: server.url + "/v1/events"), timeout: .seconds(30))
            #expect(events.status == .ok)
            #expect(events.headers.first(name: "content-type")?.hasPrefix("text/event-stream") == true)
            var received = ""
            var pushed = false
            for try await chunk in events.body {
                received += String(buffer: chunk)
                if !pushed, received.contains(": pushlab events") {
                    pushed = true
                    #expect(h.push(to: token).response?.status == 200)
                }
                if received.contains(#""deviceToken":"\#(token)""#) && received.contains(#""deviceId":"live","bundleId":"com.example.app","notificationId""#)
                    && received.contains(#""kind":"banner""#) { break }
            }
            #expect(received.contains("event: request\ndata: {"))
            #expect(received.contains(#""deviceToken":"\#(token)""#))
            #expect(received.contains("event: observation\ndata: {"))

            let missing = try await client.execute(HTTPClientRequest(url: server.url + "/v1/devices/nobody"), timeout: .seconds(10))
            #expect(missing.status == .notFound)
            #expect(String(buffer: try await missing.body.collect(upTo: 1 << 20)) == #"{"error":"No device nobody"}"# + "\n")
        } catch {
            try await client.shutdown()
            await server.stop()
            throw error
        }
        // A client still subscribed does not hold the server up.
        let lingering = try await client.execute(HTTPClientRequest(url: server.url + "/v1/events"), timeout: .seconds(30))
        #expect(lingering.status == .ok)
        await server.stop()
        try await client.shutdown()
    }

    @Test func aBusyPortIsAnError() async throws {
        let h = try ControlHarness()
        let first = try await ControlServer.start(api: h.api, host: "127.0.0.1", port: 0)
        await #expect(throws: (any Error).self) {
            _ = try await ControlServer.start(api: try ControlHarness().api, host: "127.0.0.1", port: first.port)
        }
        await first.stop()
    }
}
