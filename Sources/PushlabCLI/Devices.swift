import ArgumentParser
import Foundation

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the simulated devices of a running pushlab serve, through its control API.",
        discussion: """
        One block per device: its switches, then each app with its notification API, state, \
        badge, Notification Center and device token. --json prints the control API's answer.

        Examples:
          pushlab devices
          pushlab devices --device ann
          pushlab devices --control http://127.0.0.1:2198 --json | jq '.devices[].id'
        """
    )

    @Option(help: "The control API.")
    var control = "http://127.0.0.1:2198"

    @Option(help: "Only this device (by id).")
    var device: String?

    @Option(help: "At most this many devices (1...10000).")
    var limit = 100

    @Flag(help: "Print the control API's JSON as it is.")
    var json = false

    func validate() throws {
        if !(1...10_000).contains(limit) { throw ValidationError("--limit must be 1...10000") }
    }

    struct Listing: Decodable {
        struct Device: Decodable {
            struct App: Decodable {
                var bundleId: String
                var environment: String
                var deviceToken: String
                var api: String
                var state: String
                var terminatedBy: String
                var badge: Int
                var notificationCenter: [IgnoredEntry]
            }
            struct IgnoredEntry: Decodable {}
            var id: String
            var name: String?
            var iosVersion: String
            var online: Bool
            var locked: Bool
            var lowPowerMode: Bool
            var focus: Bool
            var apps: [App]
        }
        var devices: [Device]
        var total: Int
    }

    func run() async throws {
        let path = device.map { "/v1/devices/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? $0) }
            ?? "/v1/devices?limit=\(limit)"
        guard let url = URL(string: control + path) else { throw ValidationError("--control must be a URL, not \(control)") }
        let data: Data
        let status: Int
        do {
            (data, status) = try await ControlAPIGet.data(from: url)
        } catch {
            throw CLIFailure("The control API at \(control) does not answer: is pushlab serve running? (\(error))")
        }
        guard status == 200 else {
            let message = (try? JSONDecoder().decode([String: String].self, from: data))?["error"] ?? "status \(status)"
            throw CLIFailure(message)
        }
        if json {
            FileHandle.standardOutput.write(data)
            return
        }
        let listing: Listing
        if device != nil {
            listing = Listing(devices: [try JSONDecoder().decode(Listing.Device.self, from: data)], total: 1)
        } else {
            listing = try JSONDecoder().decode(Listing.self, from: data)
        }
        var lines: [String] = []
        for device in listing.devices {
            var switches = [device.online ? "online" : "offline"]
            if device.locked { switches.append("locked") }
            if device.lowPowerMode { switches.append("low power") }
            if device.focus { switches.append("focus") }
            lines.append("\(device.id)  \(device.name ?? device.id)  iOS \(device.iosVersion)  \(switches.joined(separator: ", "))")
            for app in device.apps {
                let state = app.state == "notRunning" && app.terminatedBy == "user" ? "notRunning (force-quit)" : app.state
                lines.append("  \(app.bundleId)  \(app.api)  \(state)  badge \(app.badge)  \(app.notificationCenter.count) in Notification Center")
                lines.append("    \(app.environment) token \(app.deviceToken)")
            }
        }
        if listing.devices.count < listing.total { lines.append("… \(listing.total - listing.devices.count) more (--limit)") }
        if listing.devices.isEmpty { lines.append("No simulated devices.") }
        print(lines.joined(separator: "\n"))
    }
}
