import PushlabCore
import Testing

/// Create, read, delete and list (A10): the success shapes, under both auth modes.
@Suite("Channel management: the success shapes")
struct ChannelManagementTests {
    @Test(arguments: AuthMode.allCases)
    func createAnswers201WithABase64ChannelIDAndTheRequestID(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let requestID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        let response = try #require(harness.createChannel(headers: [("apns-request-id", requestID)]).response)
        #expect(response.status == 201)
        #expect(response.idHeader == .requestID)
        #expect(response.apnsID == requestID)
        #expect(response.body == nil)
        let id = try #require(response.channelID)
        #expect(Base64.decode(id)?.count == 16)
        let stored = try #require(harness.world.world.channels.channel(id, environment: .development))
        #expect(stored.bundleID == TestWorld.app && stored.storagePolicy == .mostRecent && stored.createdAt == Harness.start)
    }

    @Test func aRequestWithoutARequestIDGetsAFreshLowerCaseOne() throws {
        let harness = try Harness()
        let first = try #require(harness.createChannel().response)
        let second = try #require(harness.createChannel().response)
        #expect(first.apnsID != second.apnsID)
        #expect(first.apnsIDValue.canonical?.isLowercase == true)
        #expect(first.channelID != second.channelID)
    }

    @Test(arguments: AuthMode.allCases)
    func readAnswersTheConfigurationAsJSON(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let stored = try harness.newChannel(configuration: Harness.noStorageConfiguration)
        let outcome = harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/channels", channel: stored)
        #expect(outcome.response?.status == 200)
        #expect(outcome.response?.idHeader == .requestID)
        #expect(harness.text(outcome) == #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
    }

    @Test(arguments: AuthMode.allCases)
    func deleteAnswers204AndTheChannelIsGone(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let id = try harness.newChannel()
        let deleted = try #require(harness.channelAPI("DELETE", "/1/apps/\(TestWorld.app)/channels", channel: id).response)
        #expect(deleted.status == 204 && deleted.body == nil && deleted.idHeader == .requestID)
        #expect(harness.world.world.channels.channel(id, environment: .development) == nil)
        #expect(harness.reason(harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/channels", channel: id)) == .channelNotRegistered)
        #expect(harness.reason(harness.channelAPI("DELETE", "/1/apps/\(TestWorld.app)/channels", channel: id)) == .channelNotRegistered)
    }

    @Test func listAnswersTheAppsChannelsInTheRequestsEnvironmentOnly() throws {
        let harness = try Harness()
        let first = try harness.newChannel()
        let second = try harness.newChannel()
        _ = try harness.newChannel(TestWorld.sibling)
        _ = try harness.newChannel(authority: "api-manage-broadcast.push.apple.com")
        let outcome = harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/all-channels")
        #expect(outcome.response?.status == 200)
        // Oldest first; created in the same millisecond, by id.
        let ids = [first, second].sorted()
        #expect(harness.text(outcome) == #"{"channels":[""# + ids[0] + #"",""# + ids[1] + #""]}"#)
        let bySandboxHost = harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/all-channels", authority: "api-manage-broadcast.sandbox.push.apple.com")
        #expect(harness.text(bySandboxHost)?.contains(first) == true)
    }

    @Test func channelsAreNotSharedAcrossEnvironments() throws {
        let harness = try Harness()
        let production = try harness.newChannel(authority: "api-manage-broadcast.push.apple.com")
        #expect(harness.world.world.channels.channel(production, environment: .production) != nil)
        let read = harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/channels", channel: production)
        #expect(harness.reason(read) == .channelNotRegistered)
        let onProduction = harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/channels", channel: production, authority: "api-manage-broadcast.push.apple.com")
        #expect(onProduction.response?.status == 200)
    }

    @Test func anotherAppsChannelIsNotRegisteredForThisApp() throws {
        let harness = try Harness()
        let siblings = try harness.newChannel(TestWorld.sibling)
        #expect(harness.reason(harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/channels", channel: siblings)) == .channelNotRegistered)
        #expect(harness.reason(harness.broadcast(channel: siblings)) == .channelNotRegistered)
    }

    @Test func theRequestLogNamesTheAppAndTheChannel() throws {
        let harness = try Harness()
        let id = try harness.newChannel()
        harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/all-channels")
        let entries = harness.log.entries()
        #expect(entries.count == 2)
        let create = try #require(entries.last)
        #expect(create.topic == TestWorld.app && create.channelID == id && create.status == 201)
        #expect(create.deviceToken == nil && create.pushType == nil)
        #expect(entries.first?.channelID == nil && entries.first?.status == 200)
    }
}
