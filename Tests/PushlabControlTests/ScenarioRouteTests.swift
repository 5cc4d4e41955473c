import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/scenario")
struct ScenarioRouteTests {
    @Test func loadingAScenarioReplacesTheWorldAndStartsTheListsAfresh() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            h.push(to: h.token())
            _ = try await client.call(.post, "/v1/faults", #"{"respond":{"reason":"ServiceUnavailable"}}"#)
            let loaded = try await client.call(.post, "/v1/scenario", #"{"path":"\#(ControlHarness.emptyScenarioPath)"}"#)
            #expect(loaded.status == 200)
            #expect(loaded["status"]?.stringValue == "loaded" && loaded["scenario"]?.stringValue == "empty")
            #expect(loaded["devices"]?.integerValue == 0)
            let health = try await client.call(.get, "/v1/health")
            #expect(health["scenario"]?.stringValue == "empty")
            #expect(health["faultRules"]?.integerValue == 0)
            #expect(try await client.call(.get, "/v1/pushes")["pushes"]?.array.count == 0)
            #expect(try await client.call(.get, "/v1/observations")["observations"]?.array.count == 0)
        }
    }

    @Test func aFileThatCannotBeLoadedIsA400AndChangesNothing() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(try await client.call(.post, "/v1/scenario", #"{"path":"/nowhere.yaml"}"#), 400, containing: "Cannot read scenario /nowhere.yaml")
            expectError(try await client.call(.post, "/v1/scenario", "{}"), 400, containing: "path")
            #expect(try await client.call(.get, "/v1/health")["scenario"]?.stringValue == "test")
            #expect(try await client.call(.get, "/v1/devices")["total"]?.integerValue == 1)
        }
    }

    @Test func aServerWithoutALoaderAnswers409() async throws {
        let h = try ControlHarness(withReset: false)
        try await h.application.test(.router) { client in
            expectError(try await client.call(.post, "/v1/scenario", #"{"path":"/x.yaml"}"#), 409, containing: "cannot load scenarios")
        }
    }
}
