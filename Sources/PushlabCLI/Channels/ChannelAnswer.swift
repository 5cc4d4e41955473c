import ArgumentParser
import Foundation
import PushlabClient
import PushlabCore

/// How `pushlab channels` prints an answer: what a script needs on the first line (the new
/// channel's id, the configuration, the ids), the status and request id after it.
enum ChannelAnswer {
    static func report(_ answer: APNsAnswer, _ json: Bool) throws {
        if json {
            print(Self.json(answer))
        } else {
            print(Terminal.standardOutput.paint(text(answer), answer.isAccepted ? .green : .red))
        }
        if !answer.isAccepted { throw ExitCode(1) }
    }

    static func text(_ answer: APNsAnswer) -> String {
        var lines: [String] = []
        if let channel = answer.channelID { lines.append(channel) }
        if answer.isAccepted, let body = answer.body.isEmpty ? nil : try? JSONParser.parse(Array(answer.body.utf8)) {
            if case .array(let ids)? = body["channels"] {
                lines += ids.compactMap(\.stringValue)
            } else {
                lines.append(body.description)
            }
        }
        var status = ["\(answer.status)"]
        if let reason = answer.reason { status.append(reason) } else { status.append(Self.meaning(answer.status)) }
        if let id = answer.requestID { status.append("apns-request-id: \(id)") }
        lines.append(status.joined(separator: "  "))
        return lines.joined(separator: "\n")
    }

    private static func meaning(_ status: Int) -> String {
        switch status {
        case 201: "created"
        case 204: "deleted"
        default: "ok"
        }
    }

    static func json(_ answer: APNsAnswer) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("status", Int64(answer.status))
        writer.field("reason", answer.reason)
        writer.field("apnsRequestId", answer.requestID)
        writer.field("channelId", answer.channelID)
        if answer.isAccepted, !answer.body.isEmpty, let body = try? JSONParser.parse(Array(answer.body.utf8)) {
            writer.field("response", body)
        }
        writer.endObject()
        return writer.text
    }
}
