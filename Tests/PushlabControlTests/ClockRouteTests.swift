import Hummingbird
import HummingbirdTesting
import PushlabControl
import PushlabCore
import PushlabSimulator
import Testing

@Suite("Routes: /v1/clock")
struct ClockRouteTests {
    @Test func advanceSetAndSwitchModes() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let clock = try await client.call(.get, "/v1/clock")
            #expect(clock.text == #"{"mode":"manual","time":"2026-01-01T00:00:00.000Z","timeMs":1767225600000}"# + "\n")

            _ = try await client.call(.post, "/v1/devices/phone/apps/com.example.app/local-notifications", #"{"identifier":"a","body":"A","trigger":{"type":"timeInterval","seconds":60}}"#)
            _ = try await client.call(.post, "/v1/devices/phone/apps/com.example.app/local-notifications", #"{"identifier":"b","body":"B","trigger":{"type":"timeInterval","seconds":1800}}"#)
            let advanced = try await client.call(.post, "/v1/clock", #"{"advance":3600}"#)
            #expect(advanced["time"]?.stringValue == "2026-01-01T01:00:00.000Z")
            let fired = try await client.call(.get, "/v1/devices/phone/observations?kind=delivered")
            #expect(fired["observations"]?.array.compactMap { $0["time"]?.stringValue } == ["2026-01-01T00:01:00.000Z", "2026-01-01T00:30:00.000Z"], "each at its own time")

            let set = try await client.call(.post, "/v1/clock", #"{"set":"2026-03-01T12:00:00.500+01:00"}"#)
            #expect(set["time"]?.stringValue == "2026-03-01T11:00:00.500Z")
            let real = try await client.call(.post, "/v1/clock", #"{"mode":"real"}"#)
            #expect(real["mode"]?.stringValue == "real")
            #expect(abs((real["timeMs"]?.integerValue ?? 0) - SystemClock().now()) < 60_000)
            let manual = try await client.call(.post, "/v1/clock", #"{"mode":"manual"}"#)
            #expect(manual["mode"]?.stringValue == "manual")

            expectError(try await client.call(.post, "/v1/clock", #"{"advance":1,"set":"2026-01-01T00:00:00Z"}"#), 400, containing: "Give exactly one of advance")
            expectError(try await client.call(.post, "/v1/clock", #"{}"#), 400, containing: "Give exactly one of advance")
            expectError(try await client.call(.post, "/v1/clock", #"{"advance":-5}"#), 400, containing: "advance must be 0 or more seconds")
            expectError(try await client.call(.post, "/v1/clock", #"{"advance":1e12}"#), 400, containing: "advance must be at most 3153600000 seconds (100 years)")
            expectError(try await client.call(.post, "/v1/clock", #"{"set":"soon"}"#), 400, containing: "set must be an ISO 8601 time")
            expectError(try await client.call(.post, "/v1/clock", #"{"mode":"fast"}"#), 400, containing: "mode must be one of manual, real, not fast")
            expectError(try await client.call(.post, "/v1/clock", #"{"advance":"1h"}"#), 400, containing: "advance")
        }
    }

    /// A minute's repeat over 100 years would be 52 million firings inside one request.
    @Test func aMoveThatWouldFireTooManyLocalNotificationsIsRefused() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            // Long before any real time now, so that a return to real time crosses ~100,000 minutes at least.
            _ = try await client.call(.post, "/v1/clock", #"{"set":"1990-01-01T00:00:00Z"}"#)
            let scheduled = try await client.call(
                .post, "/v1/devices/phone/apps/com.example.app/local-notifications",
                #"{"identifier":"stretch","title":"Stretch","trigger":{"type":"timeInterval","seconds":60,"repeats":true}}"#
            )
            #expect(scheduled.status == 201)
            expectError(
                try await client.call(.post, "/v1/clock", #"{"advance":3153600000}"#),
                409, containing: "would fire more than 100000 local notifications (a repeating one fires at every repeat on the way)"
            )
            expectError(try await client.call(.post, "/v1/clock", #"{"set":"2090-01-01T00:00:00Z"}"#), 409, containing: "move it in smaller steps")
            expectError(try await client.call(.post, "/v1/clock", #"{"mode":"real"}"#), 409, containing: "would fire more than 100000")
            #expect(try await client.call(.get, "/v1/clock")["time"]?.stringValue == "1990-01-01T00:00:00.000Z", "nothing moved")
            #expect(try await client.call(.post, "/v1/clock", #"{"advance":3600}"#).status == 200)
        }
    }

    @Test func aSystemClockCannotBeMoved() async throws {
        let world = APNsWorld()
        let simulator = DeviceSimulator(world: world, clock: SystemClock())
        let log = RequestLog()
        let api = ControlAPI(simulator: simulator, requestLog: log, faults: FaultRules())
        try await Application(router: api.router()).test(.router) { client in
            #expect(try await client.call(.get, "/v1/clock")["mode"]?.stringValue == "real")
            expectError(try await client.call(.post, "/v1/clock", #"{"advance":60}"#), 409, containing: "The clock is the system's")
            expectError(try await client.call(.post, "/v1/clock", #"{"mode":"manual"}"#), 409, containing: "cannot switch to manual time")
            expectError(try await client.call(.post, "/v1/reset"), 409, containing: "without a scenario to reset to")
        }
    }
}
