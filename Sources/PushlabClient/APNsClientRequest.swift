import PushlabCore

/// One request to APNs as the client sends it: a device push (`APNsNotification`), a broadcast,
/// or a channel management request. `:scheme` and `:authority` are the connection's.
public struct APNsClientRequest: Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var method: String
    public var path: String
    public var headers: [Header]
    public var body: [UInt8]

    public init(method: String, path: String, headers: [Header] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The header fields, pseudo-headers first, as APNs expects them.
    func fields(authority: String) -> [(String, String)] {
        [(":method", method), (":scheme", "https"), (":path", path), (":authority", authority)] + headers.map { ($0.name, $0.value) }
    }
}

extension APNsNotification {
    /// `POST /3/device/<token>` with the push's `apns-*` headers.
    public var request: APNsClientRequest {
        var headers: [APNsClientRequest.Header] = []
        if let providerToken { headers.append(.init("authorization", "bearer \(providerToken)")) }
        if let topic { headers.append(.init("apns-topic", topic)) }
        if let pushType { headers.append(.init("apns-push-type", pushType)) }
        if let priority { headers.append(.init("apns-priority", String(priority))) }
        if let expiration { headers.append(.init("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(.init("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(.init("apns-id", apnsID)) }
        return APNsClientRequest(method: "POST", path: "/3/device/\(deviceToken)", headers: headers, body: payload)
    }
}
