import ArgumentParser
import Foundation
import PushlabCore

/// `pushlab services`: JPush and GeTui on a running pushlab serve (docs/SERVICES.md).
struct Services: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Push through JPush or GeTui, and see what they sent, on a running pushlab serve.",
        subcommands: [ServicesSend.self, ServicesList.self, ServicesMessages.self]
    )
}

/// What the three subcommands share: the control API and its answers.
struct ServiceControl: ParsableArguments {
    @Option(help: "The control API.")
    var control = "http://127.0.0.1:2198"

    @Flag(help: "Print the control API's JSON as it is.")
    var json = false

    /// The control API's answer; with --json also printed, unless `quietly`.
    func call(_ method: String, _ path: String, body: JSONValue? = nil, quietly: Bool = false) async throws -> JSONValue {
        guard let url = URL(string: control + path) else { throw ValidationError("--control must be a URL, not \(control)") }
        let data: Data
        let status: Int
        do {
            (data, status) = try await ControlAPIGet.request(method, url, body: body?.description)
        } catch {
            throw CLIFailure("The control API at \(control) does not answer: is pushlab serve running? (\(error))")
        }
        let answer = (try? JSONParser.parse(Array(data))) ?? .null
        guard status == 200 else { throw CLIFailure(answer["error"]?.stringValue ?? "The control API answered \(status)") }
        if json, !quietly { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
        return answer
    }
}

struct ServicesSend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Push through JPush (POST /v3/push) or GeTui (/push/single/cid, /push/all) as an app's backend would.",
        discussion: """
        The control API adds the app's credentials (JPush's appKey and masterSecret, or a GeTui \
        token), calls the service, and prints its answer; then what each phone was sent. --body \
        gives the whole request body as the service's API takes it; the other options build one.

        Examples:
          pushlab services send jpush --app 7c6b5a4938271605f4e3d2c1 --to 13165ffa4e0a1b2c3d4 --alert "Order shipped" --badge +1
          pushlab services send jpush --app 7c6b5a4938271605f4e3d2c1 --all --message "sync:1" --ttl 0
          pushlab services send getui --app GtLabApp0001 --to 0a0000000000000000000000000000a1 --alert Hi --transmission '{"id":1}'
        """
    )

    enum Service: String, ExpressibleByArgument { case jpush, getui }

    @Argument(help: "jpush or getui.")
    var service: Service

    @Option(help: "The app: JPush's appKey or GeTui's appId.")
    var app: String

    @Option(help: "A registration id (JPush) or cid (GeTui); repeat for JPush.")
    var to: [String] = []

    @Flag(help: "Every phone of the app (JPush audience all; GeTui /push/all).")
    var all = false

    @Option(help: "The notification's alert (APNs).")
    var alert: String?

    @Option(help: "JPush: the badge, a number or +N (JPush resolves it). GeTui: auto_badge.")
    var badge: String?

    @Option(help: "JPush: a custom message's content (over JPush's connection, never APNs).")
    var message: String?

    @Option(help: "GeTui: the transmission (over GeTui's connection).")
    var transmission: String?

    @Option(help: "Seconds a custom message is kept for an app that is not connected (JPush time_to_live), or milliseconds for GeTui's settings.ttl.")
    var ttl: Int?

    @Option(help: "JPush: the APNs environment, production or development (JPush's default: production).")
    var environment: String?

    @Option(help: "GeTui: settings.strategy.ios, 1 to 4.")
    var strategy: Int?

    @Option(help: "The whole request body, JSON (or @file).")
    var body: String?

    @OptionGroup var options: ServiceControl

    func validate() throws {
        if body == nil {
            if to.isEmpty == !all { throw ValidationError("Give --to or --all (or --body)") }
            if service == .getui, to.count > 1 { throw ValidationError("GeTui's toSingle takes one --to; use --body with /push/list for more") }
            if alert == nil, message == nil, transmission == nil { throw ValidationError("Give --alert, --message (JPush) or --transmission (GeTui), or --body") }
            if service == .jpush, transmission != nil || strategy != nil { throw ValidationError("--transmission and --strategy are GeTui's") }
            if service == .getui, message != nil || environment != nil { throw ValidationError("--message and --environment are JPush's") }
            if let environment, environment != "production", environment != "development" { throw ValidationError("--environment must be production or development") }
            if let strategy, !(1...4).contains(strategy) { throw ValidationError("--strategy must be 1...4") }
        }
    }

    func run() async throws {
        let (path, request) = try self.request()
        let call: JSONValue = .object([("app", .string(app)), ("method", .string("POST")), ("path", .string(path)), ("body", request)])
        let answer = try await options.call("POST", "/v1/services/\(service.rawValue)/call", body: call)
        if options.json { return }
        let status = answer["status"]?.integerValue ?? 0
        print("\(service == .jpush ? "JPush" : "GeTui") answered \(status): \(answer["body"]?.description ?? "")")
        guard status == 200 else { throw ExitCode(1) }
        let messages = try await options.call("GET", "/v1/services/messages?service=\(service.rawValue)&limit=1", quietly: true)
        for target in items(items(messages["messages"]).last?["targets"]) {
            print("  " + ServicesMessages.line(target))
        }
    }

    private func request() throws -> (String, JSONValue) {
        if let body {
            let text = body.hasPrefix("@") ? try String(contentsOfFile: String(body.dropFirst()), encoding: .utf8) : body
            guard let value = try? JSONParser.parse(Array(text.utf8)), value.isObject else { throw ValidationError("--body must be a JSON object") }
            return (service == .jpush ? "/v3/push" : all ? "/push/all" : "/push/single/cid", value)
        }
        switch service {
        case .jpush:
            var members: [(key: String, value: JSONValue)] = [
                ("platform", .array([.string("ios")])),
                ("audience", all ? .string("all") : .object([("registration_id", .array(to.map(JSONValue.string)))])),
            ]
            if alert != nil || badge != nil {
                var ios: [(key: String, value: JSONValue)] = []
                if let alert { ios.append(("alert", .string(alert))) }
                if let badge { ios.append(("badge", Int(badge).map { .number(Double($0)) } ?? .string(badge))) }
                members.append(("notification", .object([("ios", .object(ios))])))
            }
            if let message { members.append(("message", .object([("msg_content", .string(message))]))) }
            var options: [(key: String, value: JSONValue)] = []
            if let ttl { options.append(("time_to_live", .number(Double(ttl)))) }
            if let environment { options.append(("apns_production", .bool(environment == "production"))) }
            if !options.isEmpty { members.append(("options", .object(options))) }
            return ("/v3/push", .object(members))
        case .getui:
            var members: [(key: String, value: JSONValue)] = [("request_id", .string("cli-\(UInt64(Date().timeIntervalSince1970 * 1000))"))]
            members.append(("audience", all ? .string("all") : .object([("cid", .array(to.map(JSONValue.string)))])))
            var settings: [(key: String, value: JSONValue)] = []
            if let ttl { settings.append(("ttl", .number(Double(ttl)))) }
            if let strategy { settings.append(("strategy", .object([("default", .number(1)), ("ios", .number(Double(strategy)))]))) }
            if !settings.isEmpty { members.append(("settings", .object(settings))) }
            members.append(("push_message", .object([("transmission", .string(transmission ?? alert ?? ""))])))
            if alert != nil || badge != nil {
                var ios: [(key: String, value: JSONValue)] = [("type", .string("notify"))]
                if let alert { ios.append(("aps", .object([("alert", .string(alert))]))) }
                if let badge { ios.append(("auto_badge", .string(badge))) }
                members.append(("push_channel", .object([("ios", .object(ios))])))
            }
            return (all ? "/push/all" : "/push/single/cid", .object(members))
        }
    }
}

struct ServicesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The services' portal apps and the phones registered with them.")

    @OptionGroup var options: ServiceControl

    func run() async throws {
        let answer = try await options.call("GET", "/v1/services")
        if options.json { return }
        for (name, key) in [("jpush", "registrationId"), ("getui", "clientId")] {
            let portal = answer[name]
            let apps = items(portal?["apps"])
            print("\(name == "jpush" ? "JPush" : "GeTui"): \(apps.count) app(s)")
            for app in apps {
                let id = app["appId"]?.stringValue ?? app["appKey"]?.stringValue ?? "?"
                print("  app \(id)  \(app["bundleId"]?.stringValue ?? "")\(app["environment"]?.stringValue.map { "  \($0)" } ?? "")")
            }
            for phone in items(portal?["registrations"]) {
                let connected = phone["connected"] == .bool(true) ? "connected" : "not connected"
                print("  \(phone[key]?.stringValue ?? "?")  \(phone["deviceId"]?.stringValue ?? "-") \(phone["bundleId"]?.stringValue ?? "")  \(connected)")
            }
        }
    }
}

struct ServicesMessages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "messages", abstract: "What JPush and GeTui sent, phone by phone: APNs's answer, the custom message's way.")

    @Option(help: "jpush or getui (default both).")
    var service: String?

    @Option(help: "The newest this many (1...1000).")
    var limit = 20

    @OptionGroup var options: ServiceControl

    func validate() throws {
        if let service, service != "jpush", service != "getui" { throw ValidationError("--service must be jpush or getui") }
        if !(1...1_000).contains(limit) { throw ValidationError("--limit must be 1...1000") }
    }

    func run() async throws {
        let answer = try await options.call("GET", "/v1/services/messages?limit=\(limit)" + (service.map { "&service=\($0)" } ?? ""))
        if options.json { return }
        for message in items(answer["messages"]) {
            let id = message["msgId"]?.stringValue ?? message["taskId"]?.stringValue ?? "?"
            print("\(message["time"]?.stringValue ?? "")  \(message["service"]?.stringValue ?? "")  \(id)")
            for target in items(message["targets"]) { print("  " + Self.line(target)) }
        }
    }

    static func line(_ target: JSONValue) -> String {
        let id = target["registrationId"]?.stringValue ?? target["clientId"]?.stringValue ?? "?"
        var parts = [id, target["deviceId"]?.stringValue ?? "(no phone)"]
        if let apns = target["apns"] {
            parts.append("APNs \(apns["status"]?.integerValue ?? 0)\(apns["reason"]?.stringValue.map { " \($0)" } ?? "")")
        } else if let failure = target["apnsFailure"]?.stringValue {
            parts.append("APNs: \(failure)")
        }
        if let way = target["customMessage"]?.stringValue ?? target["transmission"]?.stringValue { parts.append("message \(way)") }
        return parts.joined(separator: "  ")
    }
}

/// The elements of a JSON array; none for anything else.
private func items(_ value: JSONValue?) -> [JSONValue] {
    if case .array(let elements)? = value { return elements }
    return []
}
