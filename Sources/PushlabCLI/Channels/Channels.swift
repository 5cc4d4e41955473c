import ArgumentParser
import Foundation
import PushlabClient
import PushlabCore

/// `pushlab channels`: Apple's broadcast channel management API (A10), against Pushlab or Apple.
struct Channels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, read, delete and list an app's broadcast channels (Live Activities, iOS 18).",
        discussion: """
        Speaks Apple's channel management API: by default to Pushlab's development channel \\
        management listener (localhost:2195; production: localhost:2196), or with --apple to \\
        api-manage-broadcast[.sandbox].push.apple.com. Exits 0 when APNs accepts the request, 1 when \\
        it refuses it (the reason is printed), 2 when there is no answer.

        Examples:
          pushlab channels create com.pushlab.demo --storage most-recent --key certs/AuthKey_PUSHLAB001.p8 \\\\
            --key-id PUSHLAB001 --team-id TEAMPUSHLB
          pushlab channels list com.pushlab.demo --key … --json
          pushlab channels read com.pushlab.demo dHN0LXNyY2gtY2hubA== --cert certs/client.p12 --cert-password pushlab
          pushlab channels delete com.pushlab.demo dHN0LXNyY2gtY2hubA== --key …
        """,
        subcommands: [Create.self, Read.self, Delete.self, List.self]
    )

    /// What every channel request takes besides the connection.
    struct Common: ParsableArguments {
        @Argument(help: "The app's bundle id (no push type suffix).")
        var bundleID: String

        @Option(help: "apns-request-id (a UUID); APNs makes one when absent.")
        var requestId: String?

        @Flag(help: "Print the answer as one JSON object.")
        var json = false
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel; prints its id.")

        @OptionGroup var common: Common
        @Option(help: "message-storage-policy: none (0, the default: nothing kept for offline devices, apns-expiration must be 0) or most-recent (1: the newest broadcast is kept up to 8 hours).")
        var storage: StoragePolicyArgument = .none
        @OptionGroup var connection: ProviderConnectionOptions

        func run() async throws {
            let request = APNsClientRequest.createChannel(
                bundleID: common.bundleID, storagePolicy: storage.policy, requestID: common.requestId, providerToken: try connection.bearerToken()
            )
            try ChannelAnswer.report(try await connection.exchange(request, endpoint: .channelManagement, command: "channels create"), common.json)
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a channel's configuration (storage policy and push type).")

        @OptionGroup var common: Common
        @Argument(help: "The channel's id (base64, as create printed it).")
        var channelID: String
        @OptionGroup var connection: ProviderConnectionOptions

        func run() async throws {
            let request = APNsClientRequest.readChannel(
                bundleID: common.bundleID, channelID: channelID, requestID: common.requestId, providerToken: try connection.bearerToken()
            )
            try ChannelAnswer.report(try await connection.exchange(request, endpoint: .channelManagement, command: "channels read"), common.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel (its id is never reused).")

        @OptionGroup var common: Common
        @Argument(help: "The channel's id (base64).")
        var channelID: String
        @OptionGroup var connection: ProviderConnectionOptions

        func run() async throws {
            let request = APNsClientRequest.deleteChannel(
                bundleID: common.bundleID, channelID: channelID, requestID: common.requestId, providerToken: try connection.bearerToken()
            )
            try ChannelAnswer.report(try await connection.exchange(request, endpoint: .channelManagement, command: "channels delete"), common.json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the app's channels in the environment, one id a line.")

        @OptionGroup var common: Common
        @OptionGroup var connection: ProviderConnectionOptions

        func run() async throws {
            let request = APNsClientRequest.listChannels(bundleID: common.bundleID, requestID: common.requestId, providerToken: try connection.bearerToken())
            try ChannelAnswer.report(try await connection.exchange(request, endpoint: .channelManagement, command: "channels list"), common.json)
        }
    }
}

/// `--storage none|most-recent` (or Apple's numbers, 0 and 1).
enum StoragePolicyArgument: String, ExpressibleByArgument, CaseIterable {
    case none, mostRecent = "most-recent"

    init?(argument: String) {
        switch argument {
        case "none", "0": self = .none
        case "most-recent", "1": self = .mostRecent
        default: return nil
        }
    }

    var policy: BroadcastChannel.StoragePolicy { self == .none ? .noStorage : .mostRecent }
}
