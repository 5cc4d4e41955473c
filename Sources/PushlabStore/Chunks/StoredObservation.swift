import PushlabCore
import PushlabSimulator

/// An observation as a chunk holds it: everything a query filters on is read, the details are
/// parsed only for the observations it keeps.
struct StoredObservation {
    enum Details {
        case json(String)
        /// A Notification Center entry added: its fields, the content as JSON text.
        case addedEntry(identifier: String, isLocal: Bool, collapseID: String?, deliveredAt: EpochMilliseconds, trigger: String, content: String)
    }

    let sequence: Int64
    let time: EpochMilliseconds
    let deviceID: String
    let bundleID: String
    let notificationID: String?
    let kind: ObservationKind
    let details: Details
    var afterRestart = false

    /// The observation itself; details that do not parse or fit the kind are reported.
    func observation() throws(StoreError) -> Observation {
        var observation = Observation(sequence: sequence, time: time, deviceID: deviceID, bundleID: bundleID, notificationID: notificationID, event: try event())
        observation.afterRestart = afterRestart
        return observation
    }

    private func event() throws(StoreError) -> ObservationEvent {
        switch details {
        case .json(let text):
            let json: JSONValue
            do {
                json = try JSONParser.parse(text)
            } catch {
                throw StoreError(.unreadable, "observation \(sequence) has details that are not JSON (\(error)): \(text)")
            }
            guard let event = ObservationEvent(kind: kind, details: json) else {
                throw StoreError(.unreadable, "observation \(sequence) has details that do not fit kind \(kind.rawValue): \(text)")
            }
            return event
        case .addedEntry(let identifier, let isLocal, let collapseID, let deliveredAt, let trigger, let contentText):
            guard kind == .notificationCenter, let json = try? JSONParser.parse(contentText), let content = NotificationContent(json: json) else {
                throw StoreError(.unreadable, "observation \(sequence) has a Notification Center entry whose content cannot be read: \(contentText)")
            }
            let entry = DeliveredNotification(
                identifier: identifier, isLocal: isLocal, collapseID: collapseID, content: content, deliveredAt: deliveredAt, trigger: trigger
            )
            return .notificationCenter(.added, reason: nil, entry: entry)
        }
    }
}
