import Foundation
import PushlabCore
import PushlabScenario
import PushlabSimulator
import Testing

@Suite("Scenario files: Live Activities and channels")
struct LiveActivityScenarioTests {
    private let source = "/tmp/live.yaml"
    private func parse(_ yaml: String) throws -> Scenario { try ScenarioParsing.parse(yaml, source: source) }
    private func error(_ yaml: String) -> String { ScenarioParsing.error(yaml, source: source) }

    @Test func appsChannelsAndActivitiesAreRead() throws {
        let loaded = try parse("""
            channels:
              - { id: dHN0LXNyY2gtY2hubA==, bundleId: com.a, messageStoragePolicy: 0 }
              - { id: c2Vjb25k, bundleId: com.a, environment: production }
            simulator: { liveActivitiesPerApp: 2, pushToStartPerHour: 4, liveActivityLingerSeconds: 60 }
            devices:
              - id: phone
                iosVersion: "18.0"
                apps:
                  - bundleId: com.a
                    liveActivities:
                      enabled: false
                      frequentUpdates: true
                      attributesTypes: [DeliveryAttributes]
                      activities:
                        - { attributesType: DeliveryAttributes, attributes: { order: "7" }, contentState: { eta: 3 }, pushType: channel, channelId: c2Vjb25k }
                  - { bundleId: com.b, liveActivities: true }
            """)
        #expect(loaded.channels.map(\.storagePolicy) == [.noStorage, .mostRecent])
        #expect(loaded.channels.map(\.environment) == [.development, .production])
        #expect(loaded.simulatorSettings.liveActivitiesPerApp == 2)
        #expect(loaded.simulatorSettings.pushToStartPerHour == 4)
        #expect(loaded.simulatorSettings.liveActivityLingerMilliseconds == 60_000)
        let support = try #require(loaded.devices.first?.apps.first?.liveActivities)
        #expect(!support.enabled && support.frequentUpdates && support.attributesTypes == ["DeliveryAttributes"])
        #expect(support.activities.first?.channelID == "c2Vjb25k")
        #expect(support.activities.first?.contentState == .object([("eta", .number(3))]))
        #expect(loaded.devices.first?.apps.last?.liveActivities == LiveActivitySupport())
    }

    @Test func broadcastSettingsAreRead() throws {
        let loaded = try parse("""
            apps: [{ bundleId: com.a, teamId: TEAM, broadcastEnabled: false }, { bundleId: com.b, teamId: TEAM }]
            policy: { channelLimitPerApp: 3, broadcastPayloadLimit: 2048, maxChannelIDLength: 64 }
            """)
        #expect(loaded.apps.map(\.broadcastEnabled) == [false, true])
        #expect(loaded.policy.channelLimitPerApp == 3 && loaded.policy.broadcastPayloadLimit == 2048 && loaded.policy.maxChannelIDLength == 64)
    }

    @Test func mistakesAreNamed() {
        #expect(error("channels: [{ id: 'not base64!', bundleId: com.a }]").contains("channels[0]: id not base64! is not base64"))
        #expect(error("channels: [{ id: c2Vjb25k, bundleId: com.a, messageStoragePolicy: 2 }]").contains("messageStoragePolicy must be 0"))
        #expect(error("devices: [{ id: p, apps: [{ bundleId: com.a, liveActivities: { colour: red } }] }]").contains("devices[0].apps[0].liveActivities.colour"))
        #expect(error("devices: [{ id: p, apps: [{ bundleId: com.a, liveActivities: { activities: [{ attributesType: A, pushType: fax }] } }] }]")
            .contains("pushType must be token or channel"))
        #expect(error("devices: [{ id: p, apps: [{ bundleId: com.a, liveActivities: false }] }]").contains("liveActivities is true or an object"))
    }

    @Test func stepsReadTheirTokensAndActivities() throws {
        let loaded = try scenario(steps: """
              - send: { device: phone, to: pushToStart, payload: { aps: { event: start } } }
              - send: { device: phone, to: activity, activity: 1, pushType: liveactivity, payload: { aps: { event: update } } }
              - startActivity: { device: phone, attributesType: A, pushType: token }
              - updateActivity: { device: phone, activity: 0, contentState: { n: 1 } }
              - endActivity: { device: phone, dismissalPolicy: immediate }
              - liveActivities: { device: phone, enabled: false }
            """)
        let steps = try #require(loaded.script?.steps)
        guard case .send(let start) = steps[0].action, case .send(let update) = steps[1].action else {
            Issue.record("the first two steps send")
            return
        }
        #expect(start.liveActivityToken == .pushToStart && start.pushType == "liveactivity")
        #expect(update.liveActivityToken == .activity(1))
        let calls = steps.dropFirst(2).compactMap { step -> ControlCall? in if case .control(let call) = step.action { call } else { nil } }
        #expect(calls.map(\.path) == [
            "/v1/devices/{device}/apps/{bundleId}/activities", "/v1/devices/{device}/apps/{bundleId}/activities/{activity:0}",
            "/v1/devices/{device}/apps/{bundleId}/activities/{activity}/end", "/v1/devices/{device}/apps/{bundleId}/live-activities",
        ])
        #expect(calls.map(\.method) == [.post, .patch, .post, .patch])
        let broadcast = try scenario(steps: "  - send: { channel: c2Vjb25k, bundleId: com.pushlab.demo, expiration: 0, payload: { aps: { event: update } } }")
        guard case .send(let step)? = broadcast.script?.steps.first?.action else {
            Issue.record("a broadcast is a send step")
            return
        }
        #expect(step.target == .channel("c2Vjb25k", bundleID: "com.pushlab.demo"))
        #expect(step.pushType == "liveactivity" && step.expiration == 0)
        #expect(loadError(steps: "  - send: { channel: c2Vjb25k, topic: x.push-type.liveactivity, payload: {} }").contains("a broadcast has no collapseId or topic"))
        #expect(loadError(steps: "  - send: { channel: c2Vjb25k, device: phone, payload: {} }").contains("exactly one of device"))
        #expect(loadError(steps: "  - send: { device: phone, to: voicemail, payload: {} }").contains("to must be deviceToken, pushToStart, activity, complication, controls, fileProvider, locationPush, mdm, pushToTalk, voip, widgets, not voicemail"))
        #expect(loadError(steps: "  - send: { token: abcd, to: pushToStart, payload: {} }").contains("needs device, not token"))
        #expect(loadError(steps: "  - updateActivity: { device: phone, activity: -1 }").contains("activity must be 0 or more"))
    }
}
