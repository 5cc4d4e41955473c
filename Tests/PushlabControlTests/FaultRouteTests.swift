import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/faults")
struct FaultRouteTests {
    @Test func aRuleAnswersForAPNsUntilItExpires() async throws {
        let h = try ControlHarness()
        let token = h.token()
        try await h.application.test(.router) { client in
            let added = try await client.call(.post, "/v1/faults", #"{"deviceToken":"\#(token)","count":2,"respond":{"status":503,"reason":"ServiceUnavailable"}}"#)
            #expect(added.status == 201)
            #expect(added["id"]?.stringValue == "fault-1")
            #expect(added["respond"]?["status"]?.int == 503)
            #expect(added["remaining"]?.int == 2)
            #expect(h.push(to: String(repeating: "ef", count: 32)).response?.status == 400, "another token is not faulted")
            let first = h.push(to: token)
            #expect(first.response?.status == 503)
            #expect(first.response?.reason == .serviceUnavailable)
            let listed = try await client.call(.get, "/v1/faults")
            #expect(listed["faults"]?.array.first?["fired"]?.int == 1)
            #expect(listed["faults"]?.array.first?["remaining"]?.int == 1)
            #expect(h.push(to: token).response?.status == 503)
            #expect(h.push(to: token).response?.status == 200, "the rule expired after count answers")
            #expect(try await client.call(.get, "/v1/faults")["faults"]?.array == [])
            let logged = try await client.call(.get, "/v1/pushes?reason=ServiceUnavailable")
            #expect(logged["pushes"]?.array.count == 2)
        }
    }

    @Test func everyAction() async throws {
        let h = try ControlHarness()
        let token = h.token()
        try await h.application.test(.router) { client in
            #expect(try await client.call(.post, "/v1/faults", #"{"topic":"com.example.app","everyNth":2,"delayMs":1500}"#).status == 201)
            #expect(h.push(to: token).delayMilliseconds == 0)
            let delayed = h.push(to: token)
            #expect(delayed.delayMilliseconds == 1500 && delayed.response?.status == 200)
            _ = try await client.call(.delete, "/v1/faults")

            _ = try await client.call(.post, "/v1/faults", #"{"goAway":"Shutdown"}"#)
            #expect(h.push(to: token).actions == [.goAway(.shutdown)])
            _ = try await client.call(.delete, "/v1/faults")
            let reset = try await client.call(.post, "/v1/faults", #"{"resetStream":true,"probability":1}"#)
            #expect(reset["resetStream"]?.bool == true && reset["probability"]?.numberValue == 1)
            let outcome = h.push(to: token)
            #expect(outcome.response == nil && outcome.actions.isEmpty)
            let rule = try #require(reset["id"]?.stringValue)
            #expect(try await client.call(.delete, "/v1/faults/\(rule)")["removed"]?.int == 1)
            expectError(try await client.call(.delete, "/v1/faults/\(rule)"), 404, containing: "No fault rule \(rule)")

            _ = try await client.call(.post, "/v1/faults", #"{"closeConnection":true}"#)
            _ = try await client.call(.post, "/v1/faults", #"{"respond":{"reason":"TooManyRequests"}}"#)
            #expect(h.push(to: token).actions == [.close])
            let cleared = try await client.call(.delete, "/v1/faults")
            #expect(cleared["removed"]?.int == 2)
        }
    }

    @Test func rulesThatCannotBe() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(try await client.call(.post, "/v1/faults", #"{"topic":"x"}"#), 400, containing: "Give exactly one action: respond, delayMs, goAway, resetStream or closeConnection")
            expectError(try await client.call(.post, "/v1/faults", #"{"delayMs":5,"resetStream":true}"#), 400, containing: "Give exactly one action")
            expectError(
                try await client.call(.post, "/v1/faults", #"{"respond":{"status":500,"reason":"ServiceUnavailable"}}"#),
                400, containing: "respond.status: ServiceUnavailable is answered with 503, not 500"
            )
            expectError(try await client.call(.post, "/v1/faults", #"{"respond":{"reason":"Oops"}}"#), 400, containing: "respond.reason must be one of BadCollapseId")
            expectError(try await client.call(.post, "/v1/faults", #"{"goAway":"Later"}"#), 400, containing: "goAway must be one of")
            expectError(try await client.call(.post, "/v1/faults", #"{"resetStream":false}"#), 400, containing: "resetStream must be true")
            expectError(try await client.call(.post, "/v1/faults", #"{"closeConnection":false}"#), 400, containing: "closeConnection must be true")
            expectError(try await client.call(.post, "/v1/faults", #"{"resetStream":true,"probability":2}"#), 400, containing: "probability must be between 0 and 1, not 2.0")
            expectError(try await client.call(.post, "/v1/faults", #"{"resetStream":true,"everyNth":0}"#), 400, containing: "everyNth must be from 1 to")
            // Beyond 2^53 - 1 a JSON number no longer reads back as it was written.
            expectError(try await client.call(.post, "/v1/faults", #"{"delayMs":50,"everyNth":9223372036854775807}"#), 400, containing: "everyNth must be from 1 to 9007199254740991")
            expectError(try await client.call(.post, "/v1/faults", #"{"delayMs":50,"count":9007199254740992}"#), 400, containing: "count must be from 1 to 9007199254740991")
            expectError(try await client.call(.post, "/v1/faults", #"{"delayMs":-1}"#), 400, containing: "delayMs must be from 0 to 3600000 (an hour), not -1")
            expectError(try await client.call(.post, "/v1/faults", #"{"delayMs":9223372036854775807}"#), 400, containing: "delayMs must be from 0 to 3600000")
            expectError(try await client.call(.post, "/v1/faults", #"{"respond":{"status":503}}"#), 400, containing: "missing respond.reason")
            expectError(try await client.call(.post, "/v1/faults", #"{"respond":{"reason":"Shutdown","why":1}}"#), 400, containing: "Unknown field: respond.why")
        }
    }

    /// Foundation calls a number that does not fit an integer field "not valid JSON"; the
    /// answer names the field instead.
    @Test func aNumberThatDoesNotFitNamesItsField() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let huge = try await client.call(.post, "/v1/faults", #"{"resetStream":true,"count":6313714919283011616768}"#)
            expectError(huge, 400, containing: "count is out of range: a whole number from -9223372036854775808 to 9223372036854775807 is expected")
            #expect(huge.error?.contains("not valid JSON") == false)
            expectError(try await client.call(.post, "/v1/faults", #"{"resetStream":true,"everyNth":1.5}"#), 400, containing: "everyNth must be a whole number, not 1.5")
            expectError(
                try await client.call(.post, "/v1/faults", #"{"respond":{"reason":"Shutdown","status":1e300}}"#), 400, containing: "respond.status is out of range"
            )
            #expect(try await client.call(.post, "/v1/faults", #"{"resetStream":true,"count":9007199254740991}"#).status == 201, "the schema's maximum")
        }
    }
}
