import PushlabCore

/// What `pushlab send` says, before sending, about a payload a phone would drop.
enum PayloadWarning {
    /// A warning for a payload that is not a JSON object, nil for one that is (and for an empty
    /// one, which APNs itself refuses with PayloadEmpty).
    static func unparsable(_ payload: [UInt8]) -> String? {
        guard !payload.isEmpty else { return nil }
        let why: String
        do {
            guard try !JSONParser.parse(payload).isObject else { return nil }
            why = "the payload is JSON but not an object"
        } catch {
            why = "the payload is not valid JSON (\(error))"
        }
        return "\(why). APNs accepts it (200) without reading it, but the device cannot parse it and drops the notification; sending it anyway."
    }
}
