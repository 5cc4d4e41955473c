import PushlabCore

/// `POST /v1/send`: one push, to a simulated device's app or to a token, with the headers a
/// provider sets. Only what would make an HTTP/2 request impossible is refused here; everything
/// else goes to APNs as given, so its answer is the one Apple would give.
struct SendBody: ControlBody {
    var deviceId: String?
    var bundleId: String?
    var deviceToken: String?
    var environment: String?
    var topic: String?
    var pushType: String?
    var priority: Int?
    var expiration: Int64?
    var collapseId: String?
    var apnsId: String?
    /// Any JSON value (sent as compact JSON), or a string (sent as it is): read from the parsed body.
    var payload: FreeFormJSON?
    var keyId: String?
    var teamId: String?
    var privateKeyPem: String?

    static let shape = BodyShape.fields([
        "deviceId", "bundleId", "deviceToken", "environment", "topic", "pushType", "priority", "expiration", "collapseId", "apnsId",
        "payload", "keyId", "teamId", "privateKeyPem",
    ])
    static let example = #"{"deviceId":"ann","bundleId":"com.pushlab.demo","payload":{"aps":{"alert":"Hello"}}}"#

    /// The body bytes: a string as it is (to send what is not JSON), any other value as compact JSON.
    static func payloadBytes(_ json: JSONValue) throws(ControlError) -> [UInt8] {
        switch json["payload"] {
        case nil, .null?:
            throw .invalid("payload is required: a JSON object such as {\"aps\":{\"alert\":\"Hello\"}} (or a string, sent as it is)")
        case .string(let text)?:
            return Array(text.utf8)
        case let value?:
            var writer = JSONWriter()
            writer.value(value)
            return writer.bytes
        }
    }

    /// `development` (or `sandbox`) or `production`; nil when not given.
    func chosenEnvironment() throws(ControlError) -> APNsEnvironment? {
        guard let environment else { return nil }
        if environment == "sandbox" { return .development }
        return try Choice.parse(environment, as: APNsEnvironment.self, field: "environment")
    }

    /// Header values and the token end up in HTTP/2 header fields: a line break or another
    /// control character there would be a different request, not a different push.
    func checkHeaderText() throws(ControlError) {
        let fields: [(String, String?)] = [
            ("topic", topic), ("pushType", pushType), ("collapseId", collapseId), ("apnsId", apnsId), ("keyId", keyId), ("teamId", teamId),
        ]
        for (name, value) in fields {
            if let value, value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw .invalid("\(name) must not hold line breaks or other control characters")
            }
        }
        if let deviceToken {
            guard !deviceToken.isEmpty, deviceToken.unicodeScalars.allSatisfy(Self.isPathCharacter) else {
                throw .invalid("deviceToken must be hex digits (letters, digits, - . _ ~ at most: it is part of the path /3/device/<token>), not \(deviceToken)")
            }
        }
    }

    /// Unreserved URL characters: a token made of them stays one path segment.
    private static func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~": true
        default: false
        }
    }
}
