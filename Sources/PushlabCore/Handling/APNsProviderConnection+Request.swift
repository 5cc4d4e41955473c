/// Method, path, duplicate headers and header syntax (reference 1.2, steps 2 to 4 of 7.3).
extension APNsProviderConnection {
    static let devicePathPrefix = "/3/device/"

    func checkMethodAndPath(_ attempt: inout PushAttempt) throws(Rejection) {
        if attempt.request.method != "POST" { throw Rejection(.methodNotAllowed) }
        guard let path = attempt.request.path, path.hasPrefix(Self.devicePathPrefix) else { throw Rejection(.badPath) }
        let token = path.dropFirst(Self.devicePathPrefix.count)
        if token.isEmpty { throw Rejection(.missingDeviceToken) }
        attempt.deviceToken = token.lowercased()
    }

    /// Any `apns-*` header or `authorization` sent twice (pseudo-headers nghttp2 already refuses).
    func checkDuplicateHeaders(_ request: APNsRequest) throws(Rejection) {
        let headers = request.headers
        for (index, header) in headers.enumerated() where header.name == "authorization" || header.name.hasPrefix("apns-") {
            for later in headers[(index + 1)...] where later.name == header.name {
                throw Rejection(.duplicateHeaders)
            }
        }
    }

    func parseHeaders(_ attempt: inout PushAttempt) throws(Rejection) {
        let request = attempt.request
        if let apnsID = request.header("apns-id") {
            guard Self.isCanonicalUUID(apnsID, lowerCaseOnly: policy.strictApnsIDCase) else {
                // The answer cannot echo an unusable id: APNs-like, it gets a fresh one.
                attempt.apnsID = APNsID.echoOrGenerate(nil)
                throw Rejection(.badMessageId)
            }
        }
        if let priority = request.header("apns-priority") {
            guard let value = Int(priority.trimmingSpaces), [1, 5, 10].contains(value) else { throw Rejection(.badPriority) }
            attempt.priority = value
        }
        if let pushType = request.header("apns-push-type") {
            guard let value = APNsPushType(rawValue: pushType.trimmingSpaces.lowercased()) else { throw Rejection(.invalidPushType) }
            attempt.pushType = value
        }
        if let expiration = request.header("apns-expiration") {
            guard let value = Int64(expiration.trimmingSpaces), value >= 0 else { throw Rejection(.badExpirationDate) }
            attempt.expiration = value
        }
        if let collapseID = request.header("apns-collapse-id") {
            guard collapseID.utf8.count <= 64 else { throw Rejection(.badCollapseId) }
            attempt.collapseID = collapseID
        }
        if let topic = request.header("apns-topic")?.trimmingSpaces, !topic.isEmpty {
            attempt.topic = APNsTopic(topic)
        }
    }

    /// `8-4-4-4-12` hex digits.
    static func isCanonicalUUID(_ text: String, lowerCaseOnly: Bool) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != UInt8(ascii: "-") { return false }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F") where !lowerCaseOnly: continue
            default: return false
            }
        }
        return true
    }
}

extension String {
    var trimmingSpaces: String {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
