import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: the stand-in backend")
struct StandInRouteTests {
    /// A 1xx is an interim answer: sent as the final one it hangs or breaks the app's HTTP client.
    @Test func aRuleAnswersWithAFinalStatusOnly() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            for status in [100, 101, 144, 199] {
                expectError(
                    try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/devices","status":\#(status)}]}"#),
                    400, containing: "rules[0].status must be a final HTTP status, 200...599"
                )
            }
            #expect(try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/devices","status":200}]}"#).status == 200)
            #expect(try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/devices","status":599}]}"#).status == 200)
            expectError(try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/x","status":600}]}"#), 400, containing: "200...599")
            expectError(try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/x","body":null}]}"#), 400, containing: "rules[0].body must not be null (leave it out to answer {})")
        }
    }

    /// A shutdown does not wait out a rule's delay (up to ten minutes): the waiting answer ends
    /// as 503 as soon as the control API begins to stop.
    @Test func aShutdownCutsADelayedAnswerShort() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            #expect(try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/slow","delaySeconds":600}]}"#).status == 200)
            let started = ContinuousClock.now
            async let answer = client.call(.post, "/stand-in/slow", "{}")
            try await Task.sleep(for: .milliseconds(100))
            h.api.standIn.stopDelays()
            let slow = try await answer
            #expect(slow.status == 503 && slow.json["error"] == .string("Pushlab is shutting down"))
            #expect(ContinuousClock.now - started < .seconds(60), "not the rule's 600 s")
            #expect(try await client.call(.post, "/stand-in/slow", "{}").status == 503, "later delayed answers end at once")
        }
    }

    @Test func anUndelayedAnswerIsTheRules() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            _ = try await client.call(.put, "/v1/stand-in/rules", #"{"rules":[{"path":"/devices","status":409,"body":{"error":"taken"},"delaySeconds":0.05}]}"#)
            let answer = try await client.call(.post, "/stand-in/devices", "{}")
            #expect(answer.status == 409 && answer.json == .object([("error", .string("taken"))]))
        }
    }
}
