import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/devices/{id}/apps")
struct AppRouteTests {
    func kinds(_ answer: Answer) -> [String] {
        answer["observations"]?.array.map { observation in
            observation["callback"]?.stringValue ?? "\(observation["kind"]?.stringValue ?? "?"):\(observation["to"]?.stringValue ?? "")"
        } ?? []
    }

    @Test func installReadUninstall() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let installed = try await client.call(.post, "/v1/devices/phone/apps", #"{"bundleId":"com.example.game","api":"legacy","environment":"production"}"#)
            #expect(installed.status == 201)
            #expect(installed["api"]?.stringValue == "legacy" && installed["environment"]?.stringValue == "production")
            #expect(installed["warnings"]?.array.count == 1)
            let read = try await client.call(.get, "/v1/devices/phone/apps/com.example.game")
            #expect(read["deviceToken"] == installed["deviceToken"])
            expectError(try await client.call(.post, "/v1/devices/phone/apps", #"{"bundleId":"com.example.game"}"#), 409, containing: "already installed")
            expectError(try await client.call(.post, "/v1/devices/nobody/apps", #"{"bundleId":"x"}"#), 404, containing: "No device nobody")
            expectError(try await client.call(.post, "/v1/devices/phone/apps", #"{"bundleId":"x","api":"swiftui"}"#), 400, containing: "app.api must be one of legacy, userNotifications, not swiftui")

            let gone = try await client.call(.delete, "/v1/devices/phone/apps/com.example.game")
            #expect(gone["uninstalled"]?.bool == true)
            expectError(try await client.call(.get, "/v1/devices/phone/apps/com.example.game"), 404, containing: "App com.example.game is not installed on device phone")
            expectError(try await client.call(.delete, "/v1/devices/phone/apps/com.example.game"), 404, containing: "not installed")
        }
    }

    @Test func stateChangesAreObservedAsTheUserOrSystemMakesThem() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let foreground = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"state":"foreground"}"#)
            #expect(foreground["state"]?.stringValue == "foreground")
            let seen = try await client.call(.get, "/v1/devices/phone/observations")
            #expect(kinds(seen) == ["applicationWillEnterForeground:", "appState:inactive", "appState:foreground", "applicationDidBecomeActive:"])
            let since = seen["last"]?.int ?? 0

            let quit = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"state":"notRunning","terminatedBy":"user"}"#)
            #expect(quit["state"]?.stringValue == "notRunning" && quit["terminatedBy"]?.stringValue == "user")
            let afterQuit = try await client.call(.get, "/v1/devices/phone/observations?since=\(since)&kind=appState")
            #expect(afterQuit["observations"]?.array.last?["to"]?.stringValue == "notRunning")

            let system = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"terminatedBy":"system"}"#)
            #expect(system["terminatedBy"]?.stringValue == "system", "a not-running app's record changes")

            expectError(
                try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"state":"sleeping"}"#),
                400, containing: "state must be one of notRunning, background, inactive, foreground, not sleeping"
            )
            expectError(
                try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"state":"foreground","terminatedBy":"user"}"#),
                400, containing: "terminatedBy goes with state notRunning, not foreground"
            )
            _ = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"state":"background"}"#)
            expectError(
                try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"terminatedBy":"user"}"#),
                400, containing: "the app is background"
            )
            expectError(try await client.call(.patch, "/v1/devices/phone/apps/com.example.none", #"{"state":"foreground"}"#), 404, containing: "not installed")
        }
    }

    @Test func settingsChangeInPlace() async throws {
        let h = try ControlHarness()
        let token = h.token()
        try await h.application.test(.router) { client in
            let changed = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"""
                {"authorization":{"status":"authorized","sound":false},"badge":5,"backgroundModes":[],
                 "willPresentOptions":["list"],"serviceExtension":true,"implements":["didFinishLaunching"],
                 "categories":[{"id":"INVITE","actions":[{"id":"ACCEPT","activation":"background"}]}]}
                """#)
            #expect(changed.status == 200)
            #expect(changed["authorization"]?["sound"]?.bool == false)
            #expect(changed["badge"]?.int == 5)
            #expect(changed["backgroundModes"]?.array == [])
            #expect(changed["willPresentOptions"]?.array == [.string("list")])
            #expect(changed["serviceExtension"]?.bool == true)
            #expect(changed["implements"]?.array == [.string("application:didFinishLaunchingWithOptions:")])
            #expect(changed["categories"]?.array.first?["actions"]?.array.first?["activation"]?.stringValue == "background")
            #expect(changed["deviceToken"]?.stringValue == token, "settings never change the token")
            #expect(changed["state"]?.stringValue == "background", "nor the state")
            expectError(
                try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"implements":["teleport"]}"#),
                400, containing: "teleport is not a callback"
            )
            expectError(
                try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"deviceToken":"00"}"#),
                400, containing: "Unknown field: deviceToken"
            )
        }
    }

    @Test func reinstallGivesANewTokenAndRetiresTheOld() async throws {
        let h = try ControlHarness()
        let old = h.token()
        try await h.application.test(.router) { client in
            let fresh = try await client.call(.post, "/v1/devices/phone/apps/com.example.app/reinstall")
            #expect(fresh.status == 200)
            let token = try #require(fresh["deviceToken"]?.stringValue)
            #expect(token != old)
            #expect(h.push(to: old).response?.status == 410)
            #expect(h.push(to: token).response?.status == 200)
            expectError(try await client.call(.post, "/v1/devices/phone/apps/com.example.none/reinstall"), 404, containing: "not installed")
        }
    }
}
