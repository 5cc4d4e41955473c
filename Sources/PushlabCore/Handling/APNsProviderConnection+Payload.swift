/// The body: presence, size, and (strict mode) shape per push type (reference 3; step 7 of 7.3).
extension APNsProviderConnection {
    func checkBody(_ attempt: inout PushAttempt) throws(Rejection) {
        // Read in place: a copy of the request would retain and release each of its arrays.
        let bodyLength = attempt.request.bodyLength
        if bodyLength == 0 { throw Rejection(.payloadEmpty) }
        let isVoIP = attempt.pushType == .voip || attempt.topic?.suffixType == .voip
        if bodyLength > (isVoIP ? 5120 : 4096) { throw Rejection(.payloadTooLarge) }
        // Parsed once, and only when something reads it: the type inference, strict mode, or the sink.
        if attempt.pushType == nil || policy.strictPayload || sink.needsPayload {
            attempt.payload = try? JSONParser.parse(attempt.request.body)
        }
        if attempt.pushType == nil {
            attempt.pushType = Self.inferredPushType(attempt.payload)
            try checkPriority(for: &attempt)
        }
        if policy.strictPayload, Self.shapeProblem(attempt.payload, pushType: attempt.pushType ?? .alert) != nil {
            throw Rejection(.badRequestPayload)
        }
    }

    /// Apple infers the type when the header is missing: alert, sound or badge make an alert.
    static func inferredPushType(_ payload: JSONValue?) -> APNsPushType {
        guard let aps = payload?["aps"] else { return .alert }
        if aps["alert"] != nil || aps["sound"] != nil || aps["badge"] != nil { return .alert }
        if aps["content-available"]?.integerValue == 1 { return .background }
        return .alert
    }

    /// What is wrong with a payload for its push type, in strict mode (reference 3.2 to 3.4).
    static func shapeProblem(_ payload: JSONValue?, pushType: APNsPushType) -> String? {
        guard let payload, payload.isObject else { return "the payload is not a JSON object" }
        if pushType == .mdm { return payload["mdm"]?.stringValue == nil ? "an MDM payload is {\"mdm\": \"<PushMagic>\"}" : nil }
        guard let aps = payload["aps"], aps.isObject else { return "the payload has no aps dictionary" }
        switch pushType {
        case .background:
            if aps["content-available"]?.integerValue != 1 { return "a background push needs aps.content-available = 1" }
            if aps.objectKeys.contains(where: { $0 != "content-available" }) { return "a background push carries only content-available in aps" }
        case .liveactivity:
            for key in ["timestamp", "event", "content-state"] where aps[key] == nil {
                return "a Live Activity push needs aps.\(key)"
            }
            if aps["event"]?.stringValue == "start" {
                for key in ["attributes-type", "attributes", "alert"] where aps[key] == nil {
                    return "a Live Activity start needs aps.\(key)"
                }
            }
        default:
            break
        }
        return nil
    }
}
