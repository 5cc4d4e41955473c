import ArgumentParser
import Foundation
import PushlabCore
import PushlabSimulator
import PushlabStore

struct Observations: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the simulated devices observed, oldest first, from a store.",
        discussion: """
        Reads the store a `pushlab serve --db FILE` writes (default pushlab.db), while it runs or \
        after. Batches are committed every 100 ms, so an observation shows up within that.

        Examples:
          pushlab observations
          pushlab observations --device ann --kind callback
          pushlab observations --since 120 --json | jq .
        """
    )

    @Option(help: "The store file pushlab serve writes.")
    var db = "pushlab.db"

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

    func run() throws {
        let observations: [Observation]
        do {
            observations = try StoreReader(path: db).observations(
                deviceID: device, since: since, bundleID: bundleId, kind: kind.flatMap(ObservationKind.init(rawValue:)), limit: limit
            )
        } catch {
            throw CLIFailure(error.description)
        }
        var output = ""
        for observation in observations {
            output += json ? observation.json.description : observation.line
            output += "\n"
        }
        if !json, observations.isEmpty { output = "No observations\(device.map { " for device \($0)" } ?? "") in \(db).\n" }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}

extension Observation {
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
        }
    }

    private static func describe(_ arguments: CallbackArguments) -> String {
        var parts: [String] = []
        if let action = arguments.actionIdentifier { parts.append("action \(action)") }
        if let text = arguments.typedText { parts.append("text \"\(text)\"") }
        if let token = arguments.deviceToken { parts.append("token \(token)") }
        if let options = arguments.launchOptions { parts.append("launchOptions \(options)") }
        if let userInfo = arguments.userInfo { parts.append("userInfo \(userInfo)") }
        return parts.isEmpty ? "" : "  " + parts.joined(separator: "  ")
    }
}
