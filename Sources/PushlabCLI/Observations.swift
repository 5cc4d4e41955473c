import ArgumentParser
import Foundation
import PushlabCore
import PushlabSimulator
import PushlabStore

struct Observations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the simulated devices observed, oldest first.",
        discussion: """
        Reads them through the control API of a running pushlab serve (which also sees what its \
        store has not written yet), or, with --db, from the store a pushlab serve wrote (while it \
        runs, or after it stopped: batches are committed every 100 ms). Through the control API, \
        only what happened since the server started or was last reset is listed; the store keeps \
        every run, up to the newest observations of pushlab serve's --history-limit.

        Examples:
          pushlab observations
          pushlab observations --device ann --kind callback
          pushlab observations --db pushlab.db --since 120 --json | jq .
        """
    )

    @Option(help: "The control API of the running pushlab serve.")
    var control = "http://127.0.0.1:2198"

    @Option(help: "Read this store file (pushlab serve's --db, default pushlab.db) instead of the control API.")
    var db: String?

    @Option(help: "Only this device's observations.")
    var device: String?

    @Option(help: "Only this app's observations.")
    var bundleId: String?

    @Option(help: "Only this kind: \(ObservationKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: String?

    @Option(help: "Only observations after this sequence number.")
    var since: Int64 = 0

    @Option(help: "At most this many.")
    var limit = 1000

    @Flag(help: "One JSON object per line, as the control API will serve them.")
    var json = false

    func validate() throws {
        if let kind, ObservationKind(rawValue: kind) == nil {
            throw ValidationError("--kind must be one of \(ObservationKind.allCases.map(\.rawValue).joined(separator: ", ")), not \(kind)")
        }
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let observations: [Observation]
        if let db {
            do {
                observations = try StoreReader(path: db).observations(
                    deviceID: device, since: since, bundleID: bundleId, kind: kind.flatMap(ObservationKind.init(rawValue:)), limit: limit
                )
            } catch {
                throw CLIFailure(error.description)
            }
        } else {
            observations = try await fromControlAPI()
        }
        var output = ""
        let terminal = Terminal.standardOutput
        for observation in observations {
            output += json ? observation.json.description : observation.paintedLine(terminal)
            output += "\n"
        }
        if !json, observations.isEmpty { output = "No observations\(device.map { " for device \($0)" } ?? "") in \(db ?? control).\n" }
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    /// `GET /v1/observations` with the filters, read back into observations.
    private func fromControlAPI() async throws -> [Observation] {
        var query = ["since=\(since)", "limit=\(min(limit, 10_000))"]
        for (name, value) in [("deviceId", device), ("bundleId", bundleId), ("kind", kind)] {
            if let value { query.append("\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))) ?? value)") }
        }
        guard let url = URL(string: control + "/v1/observations?" + query.joined(separator: "&")) else {
            throw ValidationError("--control must be a URL, not \(control)")
        }
        let data: Data
        let status: Int
        do {
            (data, status) = try await ControlAPIGet.data(from: url)
        } catch {
            throw CLIFailure("The control API at \(control) does not answer: is pushlab serve running? (\(error)) To read a store file instead, pass --db pushlab.db.")
        }
        let answer = try? JSONParser.parse(String(decoding: data, as: UTF8.self))
        guard status == 200, case .array(let items)? = answer?["observations"] else {
            throw CLIFailure(answer?["error"]?.stringValue ?? "The control API answered \(status) to GET /v1/observations")
        }
        return items.compactMap(Observation.init(controlJSON:))
    }
}

extension Observation {
    /// An observation as the control API writes it: the record's fields, then the details.
    init?(controlJSON json: JSONValue) {
        let envelope: Set = ["sequence", "time", "timeMs", "deviceId", "bundleId", "notificationId", "kind", "afterRestart"]
        guard case .object(let members) = json, let sequence = json["sequence"]?.integerValue, let time = json["timeMs"]?.integerValue,
              let deviceID = json["deviceId"]?.stringValue, let bundleID = json["bundleId"]?.stringValue,
              let kind = json["kind"]?.stringValue.flatMap(ObservationKind.init(rawValue:)),
              let event = ObservationEvent(kind: kind, details: .object(members.filter { !envelope.contains($0.key) }))
        else { return nil }
        self.init(sequence: sequence, time: time, deviceID: deviceID, bundleID: bundleID, notificationID: json["notificationId"]?.stringValue, event: event)
        afterRestart = json["afterRestart"] == .bool(true)
    }
}

extension Observation {
    /// The line, in red for a push that never arrives and yellow for one held back (on a terminal).
    func paintedLine(_ terminal: Terminal) -> String {
        switch kind {
        case .dropped, .discarded: terminal.paint(line, .red)
        case .throttled, .stored: terminal.paint(line, .yellow)
        case .liveActivity:
            if case .liveActivity(let change) = event, change.event == .ignored || change.event == .throttled {
                terminal.paint(line, .yellow)
            } else {
                line
            }
        default: line
        }
    }

    /// One line for people: sequence, time, where, what.
    var line: String {
        let id = notificationID.map { " \($0)" } ?? ""
        return "#\(sequence)  \(ISO8601Milliseconds.format(time))  \(deviceID)  \(bundleID)  \(kind.rawValue)\(id)  \(summary)"
    }

    private var summary: String {
        switch event {
        case .stored(let expiresAt, let replacing):
            "held by APNs until \(ISO8601Milliseconds.format(expiresAt))" + (replacing.map { ", replacing \($0)" } ?? "")
        case .delivered(let pushType, let priority): "\(pushType), priority \(priority)"
        case .discarded(let reason, let replacedBy): reason.rawValue + (replacedBy.map { " by \($0)" } ?? "")
        case .throttled(let reason, let until): reason.rawValue + (until.map { " until \(ISO8601Milliseconds.format($0))" } ?? "")
        case .dropped(let reason, let message): reason.rawValue + (message.map { ": \($0)" } ?? "")
        case .banner(let title, let subtitle, let body, let actions):
            [title, subtitle, body].compactMap { $0 }.map { "\"\($0)\"" }.joined(separator: " / ")
                + (actions.isEmpty ? "" : "  [\(actions.joined(separator: ", "))]")
        case .sound(let name): name
        case .badge(let value): String(value)
        case .notificationCenter(let change, let reason, _): change.rawValue + (reason.map { " (\($0.rawValue))" } ?? "")
        case .callback(let callback, let appState, let arguments):
            "\(callback.rawValue) [\(appState.rawValue)]" + Self.describe(arguments)
        case .appState(let from, let to): "\(from.rawValue) → \(to.rawValue)"
        case .liveActivity(let change):
            ([change.event.rawValue] + [change.activityID, change.state.map { "[\($0.rawValue)]" }, change.reason?.rawValue].compactMap { $0 }).joined(separator: " ")
                + (change.contentState.map { "  \($0)" } ?? "") + (change.message.map { ": \($0)" } ?? "")
        case .providerRequest(let response):
            "\(response.event.rawValue) \(response.method) \(response.url) → " + (response.status.map { "\($0)" } ?? response.failure?.rawValue ?? "?")
                + " in \(response.milliseconds) ms" + (response.excerpt.map { "  \($0)" } ?? "") + (response.message.map { ": \($0)" } ?? "")
        case .system(let event):
            event.kind.rawValue + (event.message.map { ": \($0)" } ?? "") + (event.details == .object([]) ? "" : "  \(event.details)")
        }
    }

    private static func describe(_ arguments: CallbackArguments) -> String {
        var parts: [String] = []
        if let action = arguments.actionIdentifier { parts.append("action \(action)") }
        if let text = arguments.typedText { parts.append("text \"\(text)\"") }
        if let token = arguments.deviceToken { parts.append("token \(token)") }
        if let activity = arguments.activityID { parts.append("activity \(activity) \(arguments.activityState ?? "")") }
        if let content = arguments.contentState { parts.append("contentState \(content)") }
        if let options = arguments.launchOptions { parts.append("launchOptions \(options)") }
        if let userInfo = arguments.userInfo { parts.append("userInfo \(userInfo)") }
        return parts.isEmpty ? "" : "  " + parts.joined(separator: "  ")
    }
}
