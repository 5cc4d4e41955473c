import PushlabSimulator

/// `POST /v1/devices/{id}/interactions`: something the user does, or the device entering or
/// leaving a region.
struct InteractionBody: ControlBody {
    enum Kind: String, CaseIterable {
        case tapNotification, tapAppIcon, tapAction, dismiss, clearAll, enterRegion, exitRegion
    }

    var type: String
    var bundleId: String?
    /// The notification: a push's `apns-id` or a local notification's identifier; absent for
    /// the app's newest Notification Center entry.
    var apnsId: String?
    /// The same as `apnsId`, under the name observations use.
    var notificationId: String?
    var actionId: String?
    var text: String?
    var region: String?

    static let shape = BodyShape.fields(["type", "bundleId", "apnsId", "notificationId", "actionId", "text", "region"])
    static let example = #"{"type":"tapNotification","bundleId":"com.example.app"}"#

    /// What the body asks for, or a 400 naming the missing or misplaced field.
    func action() throws(ControlError) -> DeviceAction {
        let kind = try Choice.parse(type, as: Kind.self, field: "type")
        if apnsId != nil, notificationId != nil, apnsId != notificationId {
            throw .invalid("apnsId and notificationId name the same thing; give one")
        }
        let notification = apnsId ?? notificationId
        let allowed: Set<String> = switch kind {
        case .tapNotification, .dismiss: ["bundleId", "notification"]
        case .tapAppIcon: ["bundleId"]
        case .tapAction: ["bundleId", "notification", "actionId", "text"]
        case .clearAll: ["bundleId"]
        case .enterRegion, .exitRegion: ["region"]
        }
        let given: [(String, Bool)] = [
            ("bundleId", bundleId != nil), ("notification", notification != nil), ("actionId", actionId != nil),
            ("text", text != nil), ("region", region != nil),
        ]
        if let (misplaced, _) = given.first(where: { $0.1 && !allowed.contains($0.0) }) {
            let name = misplaced == "notification" ? (apnsId != nil ? "apnsId" : "notificationId") : misplaced
            throw .invalid("\(name) does not go with type \(type)")
        }
        switch kind {
        case .tapNotification:
            return .interaction(.tapNotification(bundleID: try required(bundleId, "bundleId"), notificationID: notification))
        case .tapAppIcon:
            return .interaction(.tapAppIcon(bundleID: try required(bundleId, "bundleId")))
        case .tapAction:
            return .interaction(.tapAction(
                bundleID: try required(bundleId, "bundleId"), notificationID: notification,
                actionID: try required(actionId, "actionId"), text: text
            ))
        case .dismiss:
            return .interaction(.dismiss(bundleID: try required(bundleId, "bundleId"), notificationID: notification))
        case .clearAll:
            return .interaction(.clearAll(bundleID: bundleId))
        case .enterRegion, .exitRegion:
            return .region(try required(region, "region"), entered: kind == .enterRegion)
        }
    }

    private func required(_ value: String?, _ field: String) throws(ControlError) -> String {
        guard let value, !value.isEmpty else { throw .invalid("type \(type) needs \(field)") }
        return value
    }
}

/// What an interactions body asks the simulator to do.
enum DeviceAction: Equatable {
    case interaction(Interaction)
    case region(String, entered: Bool)
}
