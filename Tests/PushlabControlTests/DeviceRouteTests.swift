import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/devices")
struct DeviceRouteTests {
    @Test func addADeviceAndReadItBack() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let added = try await client.call(.post, "/v1/devices", #"""
                {"id":"ann","name":"Ann's iPhone","lowPowerMode":true,
                 "apps":[{"bundleId":"com.example.app","state":"foreground","willPresentOptions":["banner","sound"],
                          "categories":[{"id":"MESSAGE","actions":[{"id":"REPLY","textInput":true}]}]},
                         {"bundleId":"com.example.unknown","authorization":"denied"}]}
                """#)
            #expect(added.status == 201)
            #expect(added["id"]?.stringValue == "ann")
            #expect(added["lowPowerMode"]?.bool == true)
            let apps = added["apps"]?.array ?? []
            #expect(apps.count == 2)
            let token = try #require(apps.first?["deviceToken"]?.stringValue)
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
            #expect(apps.first?["willPresentOptions"]?.array == [.string("banner"), .string("sound")])
            #expect(apps.first?["categories"]?.array.first?["actions"]?.array.first?["textInput"]?.bool == true)
            #expect(apps.last?["authorization"]?["status"]?.stringValue == "denied")
            #expect(added["warnings"]?.array.first?.stringValue?.contains("com.example.unknown is not an app of any team") == true)
            #expect(h.world.token(token)?.deviceID == "ann", "the token is registered with APNs")

            let read = try await client.call(.get, "/v1/devices/ann")
            #expect(read.status == 200)
            #expect(read["name"]?.stringValue == "Ann's iPhone")
            #expect(read["apps"]?.array.first?["deviceToken"]?.stringValue == token)

            let generated = try await client.call(.post, "/v1/devices", #"{}"#)
            #expect(generated.status == 201)
            #expect(generated["id"]?.stringValue == "device-1")
        }
    }

    @Test func devicesThatCannotBeAdded() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(try await client.call(.post, "/v1/devices", #"{"id":"phone"}"#), 409, containing: "Device phone already exists")
            expectError(
                try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"a","state":"asleep"}]}"#),
                400, containing: "device.apps[0].state must be one of notRunning, background, inactive, foreground, not asleep"
            )
            expectError(
                try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"a","stat":"background"}]}"#),
                400, containing: "Unknown field: apps[0].stat (allowed: api, authorization,"
            )
            expectError(try await client.call(.post, "/v1/devices", #"{"online":"yes"}"#), 400, containing: "online")
            expectError(try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"a"},{"bundleId":"a"}]}"#), 400, containing: "listed twice")
            expectError(try await client.call(.post, "/v1/devices", #"{"id":"a/b"}"#), 400, containing: "without '/'")
            // Fullwidth digits are hex digits to Swift's Character, never in a request path.
            let fullwidth = String(repeating: "\u{FF11}", count: 64)
            expectError(
                try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"a","deviceToken":"\#(fullwidth)"}]}"#),
                400, containing: "is not a device token (an even number of hex digits, at least 64)"
            )
            expectError(try await client.call(.post, "/v1/devices", "{\"id\":"), 400, containing: "The body is not JSON: invalid JSON at byte")
            expectError(try await client.call(.post, "/v1/devices", "[1]"), 400, containing: "The body must be a JSON object")
            expectError(try await client.call(.post, "/v1/devices", nil), 400, containing: "The body must be a JSON object, e.g.")
            let taken = h.token()
            expectError(
                try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"b","deviceToken":"\#(taken)"}]}"#),
                409, containing: "already belongs to"
            )
        }
    }

    @Test func listPagesThroughDevicesById() async throws {
        let h = try ControlHarness()
        for id in ["d1", "d2", "d3"] { try h.simulator.addDevice(.init(id: id)) }
        try await h.application.test(.router) { client in
            let all = try await client.call(.get, "/v1/devices")
            #expect(all["devices"]?.array.compactMap { $0["id"]?.stringValue } == ["d1", "d2", "d3", "phone"])
            #expect(all["total"]?.int == 4)
            let page = try await client.call(.get, "/v1/devices?limit=2&offset=1")
            #expect(page["devices"]?.array.compactMap { $0["id"]?.stringValue } == ["d2", "d3"])
            #expect(page["offset"]?.int == 1 && page["limit"]?.int == 2)
            expectError(try await client.call(.get, "/v1/devices?limit=0"), 400, containing: "limit must be a whole number from 1 to 10000, not 0")
            expectError(try await client.call(.get, "/v1/devices?limit=ten"), 400, containing: "not ten")
            expectError(try await client.call(.get, "/v1/devices?page=2"), 400, containing: "Unknown query parameter page (allowed: limit, offset, search)")
            // Given twice, a parameter is ambiguous: refused rather than read as its last value.
            expectError(try await client.call(.get, "/v1/devices?limit=2&limit=3"), 400, containing: "Query parameter limit is given twice")
            let empty = try await client.call(.get, "/v1/devices?limit=&offset=")
            #expect(empty["limit"]?.int == 100 && empty["offset"]?.int == 0, "an empty value is the same as none")
        }
    }

    @Test func searchFindsDevicesByIdNameAppOrToken() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            for (id, name, app) in [("ann-1", "Ann's iPhone", "com.example.app"), ("ann-2", "Work phone", "com.example.news"), ("bob", "Bob's iPad", "com.example.app")] {
                let added = try await client.call(.post, "/v1/devices", #"{"id":"\#(id)","name":"\#(name)","apps":[{"bundleId":"\#(app)"}]}"#)
                #expect(added.status == 201)
            }
            func ids(_ query: String) async throws -> ([String], Int?) {
                let page = try await client.call(.get, "/v1/devices?\(query)")
                #expect(page.status == 200, "\(page.text)")
                return (page["devices"]?.array.compactMap { $0["id"]?.stringValue } ?? [], page["total"]?.int)
            }
            #expect(try await ids("search=ANN") == (["ann-1", "ann-2"], 2))
            #expect(try await ids("search=ipad") == (["bob"], 1))
            #expect(try await ids("search=news") == (["ann-2"], 1))
            #expect(try await ids("search=ann&limit=1&offset=1") == (["ann-2"], 2))
            #expect(try await ids("search=nobody") == ([], 0))
            let token = h.token("bob")
            #expect(try await ids("search=\(token.prefix(12))") == (["bob"], 1))
            // Without a search, total counts every device (the harness starts with one).
            #expect(try await ids("limit=1").1 == 4)
            expectError(try await client.call(.get, "/v1/devices?search=\(String(repeating: "x", count: 257))"), 400, containing: "search is at most 256 characters")
            // Characters as JSON Schema's maxLength counts them: an "é" written as e and a combining accent is two.
            expectError(try await client.call(.get, "/v1/devices?search=\(String(repeating: "e%CC%81", count: 129))"), 400, containing: "not 258")
            #expect(try await ids("search=\(String(repeating: "e%CC%81", count: 128))") == ([], 0))
        }
    }

    @Test func comingOnlineDeliversWhatAPNsStored() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let offline = try await client.call(.patch, "/v1/devices/phone", #"{"online":false,"locked":true,"focus":true,"name":"Work phone","utcOffsetSeconds":3600}"#)
            #expect(offline.status == 200)
            #expect(offline["online"]?.bool == false && offline["locked"]?.bool == true && offline["focus"]?.bool == true)
            #expect(offline["name"]?.stringValue == "Work phone" && offline["utcOffsetSeconds"]?.int == 3600)
            #expect(h.push(to: h.token()).response?.status == 200)
            let held = try await client.call(.get, "/v1/devices/phone")
            #expect(held["apps"]?.array.first?["held"]?["storedWhileOffline"]?["apnsId"] != nil)
            let kinds = try await client.call(.get, "/v1/devices/phone/observations")
            #expect(kinds["observations"]?.array.compactMap { $0["kind"]?.stringValue } == ["stored"])

            let online = try await client.call(.patch, "/v1/devices/phone", #"{"online":true}"#)
            #expect(online["online"]?.bool == true)
            let delivered = try await client.call(.get, "/v1/devices/phone/observations?kind=delivered")
            #expect(delivered["observations"]?.array.count == 1)
            expectError(try await client.call(.patch, "/v1/devices/nobody", #"{"online":true}"#), 404, containing: "No device nobody")
            expectError(try await client.call(.patch, "/v1/devices/phone", #"{"wifi":true}"#), 400, containing: "Unknown field: wifi")
            // null is no value of a field (JSONDecoder would read it as absent): leave the field out.
            expectError(
                try await client.call(.patch, "/v1/devices/phone", #"{"online":null,"utcOffsetSeconds":null}"#),
                400, containing: "Null fields: online, utcOffsetSeconds (leave a field out to take its default)"
            )
            expectError(
                try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"a","provider":null}],"mdm":{"topic":"t","pushMagic":"m","token":null}}"#),
                400, containing: "Null fields: apps[0].provider, mdm.token"
            )
            let freeForm = try await client.call(
                .post, "/v1/devices/phone/apps/com.example.app/local-notifications", #"{"identifier":"n","presentNow":true,"userInfo":{"room":null}}"#
            )
            #expect(freeForm.status == 201, "free-form JSON may hold nulls: \(freeForm.text)")
            expectError(try await client.call(.patch, "/v1/devices/phone", #"{"name":""}"#), 400, containing: "name must not be empty")
            expectError(
                try await client.call(.patch, "/v1/devices/phone", #"{"utcOffsetSeconds":9223372036854775807}"#),
                400, containing: "utcOffsetSeconds must be from -64800 to 64800 seconds"
            )
            expectError(try await client.call(.post, "/v1/devices", #"{"utcOffsetSeconds":-90000}"#), 400, containing: "utcOffsetSeconds must be from -64800 to 64800 seconds, not -90000")
        }
    }

    @Test func removingADeviceUnregistersItsTokens() async throws {
        let h = try ControlHarness()
        let token = h.token()
        try await h.application.test(.router) { client in
            let removed = try await client.call(.delete, "/v1/devices/phone")
            #expect(removed.text == #"{"id":"phone","removed":true}"# + "\n")
            expectError(try await client.call(.get, "/v1/devices/phone"), 404, containing: "No device phone")
            expectError(try await client.call(.delete, "/v1/devices/phone"), 404, containing: "No device phone")
        }
        #expect(h.push(to: token).response?.status == 410)
    }

    @Test func deviceIdsArePercentDecoded() async throws {
        let h = try ControlHarness()
        try h.simulator.addDevice(.init(id: "Ann's phone"))
        try await h.application.test(.router) { client in
            let read = try await client.call(.get, "/v1/devices/Ann%27s%20phone")
            #expect(read["id"]?.stringValue == "Ann's phone")
        }
    }
}
