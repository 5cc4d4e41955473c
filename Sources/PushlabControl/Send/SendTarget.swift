import PushlabCore
import PushlabSimulator

/// The token a `POST /v1/send` goes to, and what APNs knows of it: the bundle id its topic is
/// made from and the environment it was registered in (nil for a token APNs does not know).
struct SendTarget: Equatable {
    var token: String
    var bundleID: String?
    var environment: APNsEnvironment?

    /// A token as given: APNs's world says which app and environment it belongs to, if any.
    init(token: String, world: APNsWorld) {
        let record = world.token(token.lowercased())
        self.init(token: token, bundleID: record?.bundleID, environment: record?.environment)
    }

    init(token: String, bundleID: String?, environment: APNsEnvironment?) {
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
    }

    /// The token of `app` on `device` that a push of `pushType` goes to, as the app hands its
    /// tokens to its provider: PushKit's for `voip`, the newest Live Activity's for a
    /// `liveactivity` update (the push-to-start token for `"event":"start"`, or when no activity
    /// has one), the device's MDM token for `mdm`, the app's device token otherwise.
    init(device: SimulatedDevice, app: AppInstall, pushType: String, payload: [UInt8]) {
        let type = APNsPushType(rawValue: pushType)
        let records = device.tokenRecords
        let chosen: DeviceTokenRecord?
        switch type {
        case .mdm?:
            chosen = records.first { $0.kind == .mdm }
        case .liveactivity?:
            let ofApp = records.filter { $0.bundleID == app.bundleID }
            let activity = ofApp.last { $0.kind == .liveActivity }
            let pushToStart = ofApp.first { $0.kind == .pushToStart }
            chosen = Self.isStartEvent(payload) ? pushToStart ?? activity : activity ?? pushToStart
        case let type?:
            chosen = records.last { $0.bundleID == app.bundleID && $0.kind.pushType == type }
        case nil:
            chosen = nil
        }
        self.init(token: chosen?.token ?? app.deviceToken, bundleID: chosen?.bundleID ?? app.bundleID, environment: chosen?.environment ?? app.environment)
    }

    /// `apns-topic` for a push of `pushType` to this token: the bundle id with the type's suffix.
    func topic(for pushType: String) -> String? {
        bundleID.map { $0 + (APNsPushType(rawValue: pushType)?.topicSuffix ?? "") }
    }

    private static func isStartEvent(_ payload: [UInt8]) -> Bool {
        (try? JSONParser.parse(payload))?["aps"]?["event"]?.stringValue == "start"
    }
}
