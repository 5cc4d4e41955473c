import PushlabCore

/// A Notification Service Extension between an alert push and the screen (docs/SIMULATOR.md 3.7).
extension DeviceSession {
    /// Runs the app's extension on `push` and returns the content to show: the extension's, its
    /// best attempt when time runs out, or the original after a crash or a memory kill.
    mutating func runServiceExtension(_ push: PendingPush, app: Int) -> NotificationContent {
        let original = push.content
        call(app, .serviceExtension, push.apnsIDValue, CallbackArguments(userInfo: original.userInfo))
        let behavior = device.apps[app].serviceExtensionBehavior ?? ServiceExtensionBehavior()
        var modified = original
        if let title = behavior.title { modified.title = title }
        if let subtitle = behavior.subtitle { modified.subtitle = subtitle }
        if let body = behavior.body { modified.body = body }
        let limit = settings.serviceExtensionSeconds
        let shown: NotificationContent
        var details: [(key: String, value: JSONValue)] = [("seconds", .number(min(behavior.seconds, limit)))]
        let message: String
        switch behavior.outcome {
        case .crashes:
            shown = original
            details.insert(("outcome", .string("crashed")), at: 0)
            message = "The extension crashed: the notification is shown as it came."
        case .exceedsMemory:
            shown = original
            details.insert(("outcome", .string("exceededMemory")), at: 0)
            message = "The extension exceeded its memory limit and was killed: the notification is shown as it came."
        case .finishes where behavior.seconds <= limit:
            shown = modified
            details.insert(("outcome", .string("finished")), at: 0)
            message = "The extension called its content handler: its content is shown."
        case .finishes:
            call(app, .serviceExtensionTimeWillExpire, push.apnsIDValue)
            shown = behavior.deliversBestAttempt ? modified : original
            details.insert(("outcome", .string("timedOut")), at: 0)
            message = behavior.deliversBestAttempt
                ? "The extension ran out of time (\(Self.seconds(limit))); serviceExtensionTimeWillExpire delivered its best attempt."
                : "The extension ran out of time (\(Self.seconds(limit))) and delivered nothing: the notification is shown as it came."
        }
        let label: String = switch (behavior.outcome, behavior.seconds <= limit) {
        case (.finishes, true): "modified"
        case (.finishes, false): behavior.deliversBestAttempt ? "bestAttempt" : "original"
        default: "original"
        }
        details.append(("shown", .string(label)))
        if label != "original" {
            if let attachment = behavior.attachment { details.append(("attachment", .string(attachment))) }
            details.append(("title", shown.title.map(JSONValue.string) ?? .null))
            details.append(("body", shown.body.map(JSONValue.string) ?? .null))
        }
        record(app, push.apnsIDValue, .system(SystemEvent(.serviceExtension, message: message, details: .object(details))))
        if let sender = behavior.communicationSender, label != "original" {
            record(app, push.apnsIDValue, .system(SystemEvent(
                .communicationNotification, message: "The extension donated an INSendMessageIntent from \(sender): shown as a message from them.",
                details: .object([("sender", .string(sender))])
            )))
        }
        return shown
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
