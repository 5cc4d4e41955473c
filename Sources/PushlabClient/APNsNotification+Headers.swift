import PushlabCore

extension APNsNotification {
    /// The request's header fields, pseudo-headers first, as APNs expects them.
    func headers(authority: String) -> [(String, String)] {
        var fields: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(deviceToken)"), (":authority", authority),
        ]
        if let providerToken { fields.append(("authorization", "bearer \(providerToken)")) }
        if let topic { fields.append(("apns-topic", topic)) }
        if let pushType { fields.append(("apns-push-type", pushType)) }
        if let priority { fields.append(("apns-priority", String(priority))) }
        if let expiration { fields.append(("apns-expiration", String(expiration))) }
        if let collapseID { fields.append(("apns-collapse-id", collapseID)) }
        if let apnsID { fields.append(("apns-id", apnsID)) }
        return fields
    }
}
