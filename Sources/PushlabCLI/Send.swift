import ArgumentParser
import Foundation
import PushlabClient
import PushlabCore
import PushlabOpenSSL
import PushlabSimulator

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one push or broadcast and print APNs's answer (to Pushlab, or to Apple with --apple).",
        discussion: """
        Prints the status, the reason of a rejection (and a 410's timestamp) and the apns-id; exits 0 \
        when the push is accepted, 1 when it is rejected, 2 when there is no answer. The payload comes \
        from --payload, --payload-file, or standard input when neither is given.

        With --channel instead of a device, sends a broadcast (POST /4/broadcasts/apps/<bundle>, push \
        type liveactivity) to every Live Activity subscribed to that channel; --topic is the bare \
        bundle id. Channels come from pushlab channels create.

        Examples:
          pushlab send a69c88c87b0fa337c4b2273f85f708343f6b031be8ed07625ec591a9f53f2ae8 \\
            --topic com.pushlab.demo --key certs/AuthKey_PUSHLAB001.p8 --key-id PUSHLAB001 --team-id TEAMPUSHLB \\
            --payload '{"aps":{"alert":"hi"}}'
          echo '{"aps":{"content-available":1}}' | pushlab send ann --topic com.pushlab.demo \\
            --push-type background --priority 5 --cert certs/client.pem --cert-key certs/client-key.pem
          pushlab send ann --topic com.pushlab.demo --cert certs/client.p12 --cert-password pushlab \\
            --payload '{"aps":{"alert":"hi"}}'
          pushlab send ann --topic com.pushlab.demo.push-type.liveactivity --push-type liveactivity … \\
            --payload '{"aps":{"timestamp":1767225600,"event":"update","content-state":{"score":1}}}'
          pushlab send --channel dHN0LXNyY2gtY2hubA== --topic com.pushlab.demo --key … \\
            --payload '{"aps":{"timestamp":1767225600,"event":"update","content-state":{"score":1}}}'
          pushlab send $TOKEN --apple --environment production --topic com.example.app --key AuthKey_X.p8 … --json
        """
    )

    @Argument(help: "Device token (hex), or a simulated device's id or name (looked up through the control API; hex that names no device is sent as a token). Not with --channel.")
    var device: String?

    @Option(help: "Broadcast on this channel (its base64 id) instead of pushing to a device.")
    var channel: String?

    @Option(help: "With a simulated device, which of its tokens: push-to-start (the app's push-to-start token), activity (its newest Live Activity's), voip, location, push-to-talk, file-provider, widgets, controls, complication (that service's), or mdm (the device's MDM token). The push type and topic follow unless given.")
    var to: TokenChoice?

    @OptionGroup var connection: ProviderConnectionOptions

    @Option(help: "apns-topic (the bundle id, with the push type's suffix where it needs one); with --channel, the bare bundle id.")
    var topic: String?

    @Option(help: "apns-push-type: alert (default), background, voip, liveactivity (the default with --channel), ...")
    var pushType: String?

    @Option(help: "apns-priority: 10, 5 or 1.")
    var priority: Int?

    @Option(help: "apns-expiration: epoch seconds; 0 = now or never (a channel that stores nothing takes only 0).")
    var expiration: Int64?

    @Option(help: "apns-collapse-id.")
    var collapseId: String?

    @Option(help: "apns-id (a UUID); APNs makes one when absent. With --channel it is sent as apns-request-id.")
    var apnsId: String?

    @Option(help: "The JSON payload.")
    var payload: String?

    @Option(help: "A file holding the JSON payload.")
    var payloadFile: String?

    @Option(help: "The control API, to look up a device by id or name.")
    var control = "http://127.0.0.1:2198"

    @Flag(help: "Print the answer as one JSON object.")
    var json = false

    func validate() throws {
        if payload != nil, payloadFile != nil { throw ValidationError("Give --payload or --payload-file, not both") }
        if let priority, ![1, 5, 10].contains(priority) { throw ValidationError("--priority must be 10, 5 or 1") }
        switch (device, channel) {
        case (nil, nil): throw ValidationError("Give a device (token, id or name) to push to, or --channel to broadcast")
        case (.some, .some): throw ValidationError("Give a device or --channel, not both: a broadcast goes to a channel's subscribers")
        case (nil, .some):
            guard let topic else { throw ValidationError("--channel needs --topic with the app's bundle id (no push type suffix)") }
            if APNsTopic(topic).suffixType != nil {
                throw ValidationError("--topic \(topic) has a push type suffix; a broadcast names the bare bundle id (\(APNsTopic(topic).bundleID))")
            }
            if collapseId != nil { throw ValidationError("--collapse-id is for device pushes; a broadcast has no collapse id") }
        case (.some, nil): break
        }
        if to != nil, channel != nil { throw ValidationError("--to picks a token of a device's app; a broadcast has none") }
    }

    enum TokenChoice: String, ExpressibleByArgument, CaseIterable {
        case pushToStart = "push-to-start"
        case activity, voip, location
        case pushToTalk = "push-to-talk"
        case fileProvider = "file-provider"
        case widgets, controls, complication, mdm

        /// The kind of token it names in APNs's world.
        var kind: DeviceTokenRecord.Kind {
            switch self {
            case .pushToStart: .pushToStart
            case .activity: .liveActivity
            case .voip: .voip
            case .location: .location
            case .pushToTalk: .pushToTalk
            case .fileProvider: .fileProvider
            case .widgets: .widgets
            case .controls: .controls
            case .complication: .complication
            case .mdm: .mdm
            }
        }

        /// The push type a push to this token is.
        var pushType: APNsPushType { kind.pushType ?? .mdm }

        /// The key of the service in the app's JSON.
        var serviceKey: String? { PushServices.specKeys.first { $0.kind == kind }?.key }
    }

    func run() async throws {
        let payload = try payloadBytes()
        if let warning = PayloadWarning.unparsable(payload) {
            FileHandle.standardError.write(Data("pushlab send: warning: \(warning)\n".utf8))
        }
        let request: APNsClientRequest
        if let channel, let topic {
            request = .broadcast(
                bundleID: topic, channelID: channel, payload: payload, pushType: pushType ?? APNsPushType.liveactivity.rawValue,
                priority: priority, expiration: expiration, requestID: apnsId, providerToken: try connection.bearerToken()
            )
        } else {
            let token: String
            var topic = self.topic
            var pushType = self.pushType
            do {
                if let to {
                    let (found, bundleID) = try await chosenToken(device ?? "", choice: to)
                    token = found
                    topic = topic ?? (to == .mdm ? bundleID : bundleID + (to.pushType.topicSuffix ?? ""))
                    pushType = pushType ?? to.pushType.rawValue
                } else {
                    token = try await deviceToken(device ?? "")
                }
            } catch let problem as LookupProblem {
                FileHandle.standardError.write(Data("pushlab send: \(problem.description)\n".utf8))
                throw ExitCode(2)
            }
            request = APNsNotification(
                deviceToken: token, payload: payload, topic: topic, pushType: pushType ?? APNsPushType.alert.rawValue, priority: priority,
                expiration: expiration, collapseID: collapseId, apnsID: apnsId, providerToken: try connection.bearerToken()
            ).request
        }
        let answer = try await connection.exchange(request, endpoint: .provider, command: "send")
        if json {
            print(Self.json(answer))
        } else {
            let terminal = Terminal.standardOutput
            print(terminal.paint(Self.line(answer), answer.isAccepted ? .green : .red))
        }
        if !answer.isAccepted { throw ExitCode(1) }
    }

    private func payloadBytes() throws -> [UInt8] {
        if let payload { return Array(payload.utf8) }
        if let payloadFile {
            guard let data = FileManager.default.contents(atPath: payloadFile) else { throw ValidationError("Cannot read --payload-file \(payloadFile)") }
            return Array(data)
        }
        return Array(FileHandle.standardInput.readDataToEndOfFile())
    }

    /// A hex token as given; otherwise a simulated device's id or name, through the control API.
    /// Shorter hex that names no device is sent as it is: APNs answers it (`BadDeviceToken`).
    private func deviceToken(_ device: String) async throws -> String {
        if device.count >= 64, device.allSatisfy(\.isHexDigit) { return device }
        let isHex = !device.isEmpty && device.allSatisfy(\.isHexDigit)
        let bundleID = topic.map { APNsTopic($0).bundleID }
        do {
            guard let match = try await ControlAPIDevices.find(device, at: control) else {
                if isHex { return device }
                throw LookupProblem(description: "No simulated device \(device) (by id or name) at \(control); pass a device token instead")
            }
            let apps = bundleID.map { id in match.apps.filter { $0.bundleId == id } } ?? match.apps
            guard let app = apps.first, apps.count == 1 else {
                throw LookupProblem(description: "Device \(device) has \(apps.isEmpty ? "no" : "several") matching apps; pass --topic with the app's bundle id")
            }
            return app.deviceToken
        } catch let problem as LookupProblem {
            throw problem
        } catch {
            if isHex { return device }
            // An answer that does not decode says so; anything else is the connection's failure.
            let why = error is DecodingError ? "\(error)" : "it does not answer (is pushlab serve running, with its control API there?)"
            throw LookupProblem(description: "\(device) is not a device token, and the control API at \(control) cannot look it up: \(why)")
        }
    }

    /// The chosen token of a simulated device (or of one of its apps), and the topic's bundle id
    /// (the MDM topic for the device's MDM token).
    private func chosenToken(_ device: String, choice: TokenChoice) async throws -> (String, String) {
        let bundleID = topic.map { APNsTopic($0).bundleID }
        let match: ControlAPIDevices.Device?
        do {
            match = try await ControlAPIDevices.find(device, at: control)
        } catch let problem as LookupProblem {
            throw problem
        } catch {
            throw LookupProblem(description: "--to needs the control API at \(control) to look up \(device): \(error)")
        }
        guard let match else { throw LookupProblem(description: "No simulated device \(device) (by id or name) at \(control)") }
        if choice == .mdm {
            guard let mdm = match.mdm else { throw LookupProblem(description: "\(device) is not enrolled in MDM (give the device mdm)") }
            return (mdm.token, mdm.topic)
        }
        if let key = choice.serviceKey {
            let apps = match.apps.filter { $0.services[key] != nil && (bundleID == nil || $0.bundleId == bundleID) }
            guard let app = apps.first, apps.count == 1, let token = app.services[key]?.token else {
                throw LookupProblem(description: "Device \(device) has \(apps.isEmpty ? "no" : "several") apps with \(key)\(apps.isEmpty ? "" : "; pass --topic with the app's bundle id")")
            }
            return (token, app.bundleId)
        }
        let apps = match.apps.filter { $0.liveActivities != nil && (bundleID == nil || $0.bundleId == bundleID) }
        guard let app = apps.first, apps.count == 1, let live = app.liveActivities else {
            throw LookupProblem(description: "Device \(device) has \(apps.isEmpty ? "no" : "several") apps with Live Activities\(apps.isEmpty ? "" : "; pass --topic with the app's bundle id")")
        }
        if choice == .pushToStart {
            guard let token = live.pushToStartToken else {
                throw LookupProblem(description: "\(app.bundleId) on \(device) has no push-to-start token (iOS 17.2 or later)")
            }
            return (token, app.bundleId)
        } else {
            let tokens = live.activities.filter { $0.state == "active" || $0.state == "stale" }.compactMap(\.pushToken)
            guard let token = tokens.last ?? live.activities.compactMap(\.pushToken).last else {
                throw LookupProblem(description: "\(app.bundleId) on \(device) has no Live Activity with a push token")
            }
            return (token, app.bundleId)
        }
    }

    struct LookupProblem: Error, CustomStringConvertible {
        let description: String
    }

    static func line(_ answer: APNsAnswer) -> String {
        var parts = ["\(answer.status)"]
        if let reason = answer.reason { parts.append(reason) } else if answer.isAccepted { parts.append("accepted") }
        if let timestamp = answer.timestamp { parts.append("(since \(ISO8601Milliseconds.format(timestamp)))") }
        if let id = answer.apnsID { parts.append("apns-id: \(id)") }
        if let unique = answer.apnsUniqueID { parts.append("apns-unique-id: \(unique)") }
        if let id = answer.requestID { parts.append("apns-request-id: \(id)") }
        return parts.joined(separator: "  ")
    }

    static func json(_ answer: APNsAnswer) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("status", Int64(answer.status))
        writer.field("reason", answer.reason)
        writer.field("timestamp", answer.timestamp)
        writer.field("apnsId", answer.apnsID)
        writer.field("apnsUniqueId", answer.apnsUniqueID)
        writer.field("apnsRequestId", answer.requestID)
        writer.endObject()
        return writer.text
    }
}

/// Simulated devices through the control API, as much of them as `send` needs.
enum ControlAPIDevices {
    struct Device: Decodable {
        struct App: Decodable {
            var bundleId: String
            var deviceToken: String
            var liveActivities: LiveActivities?
            /// The push services present, by their JSON key.
            var services: [String: Service]

            private struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                bundleId = try container.decode(String.self, forKey: Key(stringValue: "bundleId"))
                deviceToken = try container.decode(String.self, forKey: Key(stringValue: "deviceToken"))
                liveActivities = try container.decodeIfPresent(LiveActivities.self, forKey: Key(stringValue: "liveActivities"))
                services = [:]
                for (name, _) in PushServices.specKeys {
                    if let service = try container.decodeIfPresent(Service.self, forKey: Key(stringValue: name)) { services[name] = service }
                }
            }
        }

        struct Service: Decodable {
            var token: String
        }

        struct MDM: Decodable {
            var topic: String
            var token: String
        }

        struct LiveActivities: Decodable {
            struct Activity: Decodable {
                var state: String
                var pushToken: String?
            }

            var pushToStartToken: String?
            var activities: [Activity]
        }
        var id: String
        var name: String?
        var apps: [App]
        var mdm: MDM?
    }

    private struct Page: Decodable {
        var devices: [Device]
        var total: Int
    }

    /// The device with this id, or else the first with this name.
    static func find(_ idOrName: String, at base: String) async throws -> Device? {
        let escaped = idOrName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? idOrName
        let (data, status) = try await get(base + "/v1/devices/" + escaped)
        if status == 200 { return try JSONDecoder().decode(Device.self, from: data) }
        guard status == 404 else { throw Send.LookupProblem(description: "the control API answered \(status) to GET /v1/devices/\(escaped)") }
        var offset = 0
        while true {
            let (data, status) = try await get(base + "/v1/devices?limit=10000&offset=\(offset)")
            guard status == 200 else { throw Send.LookupProblem(description: "the control API answered \(status) to GET /v1/devices") }
            let page = try JSONDecoder().decode(Page.self, from: data)
            if let match = page.devices.first(where: { $0.name == idOrName }) { return match }
            offset += page.devices.count
            if page.devices.isEmpty || offset >= page.total { return nil }
        }
    }

    private static func get(_ address: String) async throws -> (Data, Int) {
        guard let url = URL(string: address) else { throw Send.LookupProblem(description: "--control must be a URL, not \(address)") }
        return try await ControlAPIGet.data(from: url)
    }
}
