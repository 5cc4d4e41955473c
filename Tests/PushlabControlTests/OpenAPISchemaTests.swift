@testable import PushlabControl
import PushlabCore
@testable import PushlabSimulator
import Testing

/// The document's closed sets and request bodies, held to the code they describe: a case or a
/// body field added in Swift fails here until `Embedded/openapi.json` has it too.
@Suite("openapi.json against the code")
struct OpenAPISchemaTests {
    static func raw<T: RawRepresentable & CaseIterable>(_ type: T.Type) -> [String] where T.RawValue == String {
        T.allCases.map(\.rawValue)
    }

    /// Schema name, then the values the code has.
    static let closedSets: [(String, [String])] = [
        ("Environment", raw(APNsEnvironment.self)),
        ("AppState", raw(AppState.self)),
        ("Termination", raw(Termination.self)),
        ("NotificationAPI", raw(NotificationAPI.self)),
        ("AppCallback", raw(AppCallback.self)),
        ("AuthorizationStatus", raw(NotificationAuthorization.Status.self)),
        ("PresentationOption", PresentationOptions.names.map { $0.0 }),
        ("BackgroundMode", ["remote-notification"] + AppSpec.otherBackgroundModes),
        ("ActionActivation", raw(NotificationCategory.Action.Activation.self)),
        ("LiveActivityState", raw(LiveActivity.State.self)),
        ("APNsErrorReason", raw(APNsErrorReason.self)),
        ("ObservationKind", raw(ObservationKind.self)),
        ("DropReason", raw(DropReason.self)),
        ("DiscardReason", raw(DiscardReason.self)),
        ("ThrottleReason", raw(ThrottleReason.self)),
        ("RemovalReason", raw(RemovalReason.self)),
        ("LiveActivityEvent", raw(LiveActivityChange.Event.self)),
        ("LiveActivityReason", raw(LiveActivityReason.self)),
        ("SystemEventKind", raw(SystemEvent.Kind.self)),
        ("ProviderEvent", raw(ProviderEvent.self)),
        ("ProviderFailure", raw(ProviderResponse.Failure.self)),
        ("VoIPCallReporting", raw(VoIPService.CallReporting.self)),
        ("LocationAuthorization", raw(LocationPushService.Authorization.self)),
        ("PushToTalkResult", raw(PushToTalkService.PushResult.self)),
        ("ServiceExtensionOutcome", raw(ServiceExtensionBehavior.Outcome.self)),
        ("RepeatInterval", raw(LocalTrigger.RepeatInterval.self)),
        ("DashboardFileName", Array(DashboardFile.byName.keys)),
    ]

    @Test(arguments: closedSets.map(\.0))
    func aNamedEnumHasExactlyTheCodesCases(_ name: String) throws {
        let document = try OpenAPIDocument()
        let code = try #require(Self.closedSets.first { $0.0 == name }?.1)
        #expect(document.enumValues(name).sorted() == code.sorted())
    }

    /// Values of an enum written inside another schema, by the path to it.
    @Test func enumsInsideSchemasHaveExactlyTheCodesCases() throws {
        let document = try OpenAPIDocument()
        func values(_ schema: JSONValue?) -> [String] {
            let resolved = document.resolve(schema)
            if let single = resolved?["const"]?.stringValue { return [single] }
            return resolved?["enum"]?.array.compactMap(\.stringValue) ?? []
        }
        func branches(_ name: String, _ property: String) -> [String] {
            (document.schema(name)?["oneOf"]?.array ?? []).flatMap { values(document.property(property, of: $0)) }
        }
        let shortNames = document.schema("AppCallbackName")?["anyOf"]?.array.last
        #expect(values(shortNames).sorted() == AppCallback.allCases.map { "\($0)" }.sorted())
        #expect(values(document.property("role", of: document.schema("Listener"))).sorted() == Self.raw(APNsListenerRole.self).sorted())
        #expect(values(document.property("origin", of: document.schema("LiveActivity"))).sorted() == Self.raw(LiveActivity.Origin.self).sorted())
        #expect(values(document.property("change", of: document.schema("NotificationCenterObservation"))).sorted()
            == Self.raw(NotificationCenterChange.self).sorted())
        #expect(values(document.property("mode", of: document.schema("Clock"))).sorted() == Self.raw(ClockBody.Mode.self).sorted())
        #expect(values(document.property("mode", of: document.schema("ClockChange"))).sorted() == Self.raw(ClockBody.Mode.self).sorted())
        #expect(values(document.property("environment", of: document.schema("Key"))).sorted() == Self.raw(EnvironmentChoice.self).sorted())
        #expect(values(document.property("environment", of: document.schema("NewKey"))).sorted() == Self.raw(EnvironmentChoice.self).sorted())
        #expect(values(document.property("environment", of: document.schema("PushToSend"))).sorted() == (Self.raw(APNsEnvironment.self) + ["sandbox"]).sorted())
        #expect(branches("Interaction", "type").sorted() == Self.raw(InteractionBody.Kind.self).sorted())
        #expect(branches("LocalTriggerSpec", "type").sorted() == Self.raw(LocalNotificationBody.TriggerKind.self).sorted())
        #expect(branches("LocalTrigger", "type").sorted() == Self.raw(LocalNotificationBody.TriggerKind.self).sorted())
        let policies = document.property("messageStoragePolicy", of: document.schema("Channel"))?["enum"]?.array.compactMap(\.integerValue)
        #expect(policies == BroadcastChannel.StoragePolicy.allCases.map { Int64($0.rawValue) })
        let kinds = document.schema("Observation")?["discriminator"]?["mapping"]?.objectKeys ?? []
        #expect(kinds.sorted() == Self.raw(ObservationKind.self).sorted(), "one variant per kind")
    }

    /// The body each route reads, by its operation.
    static let bodies: [(String, BodyShape)] = [
        ("POST /v1/keys", KeyBody.shape),
        ("POST /v1/apps", AppRecordBody.shape),
        ("POST /v1/devices", DeviceSpec.shape),
        ("PATCH /v1/devices/{id}", DeviceChangeBody.shape),
        ("POST /v1/devices/{id}/apps", AppSpec.shape),
        ("PATCH /v1/devices/{id}/apps/{bundleId}", AppChangeBody.shape),
        ("POST /v1/devices/{id}/interactions", InteractionBody.shape),
        ("POST /v1/devices/{id}/apps/{bundleId}/local-notifications", LocalNotificationBody.shape),
        ("POST /v1/devices/{id}/apps/{bundleId}/activities", ActivitySpec.shape),
        ("PATCH /v1/devices/{id}/apps/{bundleId}/activities/{activityId}", ActivityUpdateBody.shape),
        ("POST /v1/devices/{id}/apps/{bundleId}/activities/{activityId}/end", ActivityEndBody.shape),
        ("PATCH /v1/devices/{id}/apps/{bundleId}/live-activities", LiveActivitySwitchesBody.shape),
        ("PUT /v1/latency", LatencyBody.shape),
        ("PUT /v1/report", ReportBody.shape),
        ("POST /v1/clock", ClockBody.shape),
        ("POST /v1/faults", FaultBody.shape),
        ("POST /v1/scenario", ScenarioBody.shape),
        ("PUT /v1/stand-in/rules", StandInRulesBody.shape),
        ("POST /v1/send", SendBody.shape),
        ("POST /v1/services/jpush/apps", ServiceAppBody.shape),
        ("POST /v1/services/getui/apps", ServiceAppBody.shape),
        ("POST /v1/services/{service}/call", ServiceCallBody.shape),
    ]

    /// Fields a body's shape lets through to a check of its own, with a message clearer than
    /// "unknown field": the document leaves them out, as the server refuses them.
    static let refusedByTheirOwnCheck = [
        "PATCH /v1/devices/{id}/apps/{bundleId}": ["voip.token", "locationPush.token", "pushToTalk.token", "complication.token"],
    ]

    @Test func everyJSONBodyIsInTheListOfBodies() throws {
        let document = try OpenAPIDocument()
        let withBodies = document.operations.filter { operation in
            let (method, path) = Self.split(operation)
            return document.operation(method, path)?["requestBody"]?["required"] == .bool(true)
        }
        #expect(withBodies.sorted() == Self.bodies.map(\.0).sorted())
    }

    @Test(arguments: bodies.map(\.0))
    func aBodysFieldsAreTheFieldsTheRouteTakes(_ operation: String) throws {
        let document = try OpenAPIDocument()
        let shape = try #require(Self.bodies.first { $0.0 == operation }?.1)
        let (method, path) = Self.split(operation)
        let schema = document.operation(method, path)?["requestBody"]?["content"]?["application/json"]?["schema"]
        let refused = Set(Self.refusedByTheirOwnCheck[operation] ?? [])
        #expect(Self.mismatches(shape, schema, at: "", refused: refused, in: document) == [])
    }

    /// The media types the dashboard's files are served with are the ones its operations list.
    @Test func dashboardFilesHaveTheDocumentedMediaTypes() throws {
        let document = try OpenAPIDocument()
        func documented(_ path: String) -> Set<String> {
            Set(document.operation("GET", path)?["responses"]?["200"]?["content"]?.objectKeys ?? [])
        }
        func mediaType(_ file: DashboardFile?) -> String? {
            file.map { String($0.contentType.prefix { $0 != ";" }) }
        }
        #expect(Set(DashboardFile.byName.values.compactMap(mediaType)) == documented("/dashboard/{file}"))
        #expect(documented("/") == Set(["index.html"].compactMap { mediaType(DashboardFile.byName[$0]) }))
    }

    static func split(_ operation: String) -> (String, String) {
        let parts = operation.split(separator: " ", maxSplits: 1)
        return (String(parts[0]), String(parts[1]))
    }

    /// Where the document's schema allows other fields than the shape.
    static func mismatches(_ shape: BodyShape, _ schema: JSONValue?, at path: String, refused: Set<String>, in document: OpenAPIDocument) -> [String] {
        let place = path.isEmpty ? "the body" : path
        switch shape {
        case .any:
            return []
        case .list(let element):
            guard let items = document.items(of: schema) else { return ["\(place): the document has no list here"] }
            return mismatches(element, items, at: path + "[]", refused: refused, in: document)
        case .object(let fields):
            guard let documented = document.propertyNames(schema) else { return ["\(place): the document has no object here"] }
            let taken = Set(fields.keys.filter { !refused.contains(path.isEmpty ? $0 : "\(path).\($0)") })
            var problems: [String] = []
            if taken != documented {
                problems.append("\(place): the code takes \(taken.subtracting(documented).sorted()) the document lacks, the document has \(documented.subtracting(taken).sorted()) the code refuses")
            }
            for (name, fieldShape) in fields.sorted(by: { $0.key < $1.key }) where documented.contains(name) {
                problems += mismatches(fieldShape, document.property(name, of: schema), at: path.isEmpty ? name : "\(path).\(name)", refused: refused, in: document)
            }
            return problems
        }
    }
}
