/// Method, path, duplicate headers and header syntax (reference 1.2, steps 2 to 4 of 7.3).
extension APNsProviderConnection {
    static let devicePathPrefix = "/3/device/"

    func checkMethod(_ attempt: PushAttempt) throws(Rejection) {
        if attempt.request.method != "POST" { throw Rejection(.methodNotAllowed) }
    }

    func checkPath(_ attempt: inout PushAttempt) throws(Rejection) {
        // Byte-wise: Character-based hasPrefix/dropFirst walk grapheme clusters on every request.
        guard var path = attempt.request.path, path.utf8.starts(with: Self.devicePathPrefix.utf8) else { throw Rejection(.badPath) }
        let prefixLength = Self.devicePathPrefix.utf8.count
        if path.utf8.count == prefixLength { throw Rejection(.missingDeviceToken) }
        // Read straight from the path's bytes: no string is made for the token.
        attempt.deviceToken = path.withUTF8 { DeviceTokenKey(utf8: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[prefixLength...]))) }
    }

    /// One pass over the headers: each APNs header's value, and whether any `apns-*` header or
    /// `authorization` came twice (nghttp2 already refuses repeated pseudo-headers). Decides
    /// nothing: `checkDuplicateHeaders` answers at its step of the order.
    static func collectHeaders(_ request: APNsRequest) -> APNsHeaderFields {
        var seen: UInt8 = 0
        var fields = APNsHeaderFields()
        let headers = request.headers
        typealias Name = APNsHeaderName
        for (index, header) in headers.enumerated() {
            let bit: UInt8
            let name = header.name
            // By length first: at most two comparisons, each a pointer check for transport-made names.
            switch name.utf8.count {
            case 7 where name == Name.apnsID: bit = 1 << 0; fields.apnsID = header.value
            case 13 where name == Name.priority: bit = 1 << 1; fields.priority = header.value
            case 13 where name == Name.authorization: bit = 1 << 6; fields.authorization = header.value
            case 14 where name == Name.pushType: bit = 1 << 2; fields.pushType = header.value
            case 15 where name == Name.expiration: bit = 1 << 3; fields.expiration = header.value
            case 16 where name == Name.collapseID: bit = 1 << 4; fields.collapseID = header.value
            case 10 where name == Name.topic: bit = 1 << 5; fields.topic = header.value
            default:
                if header.name.hasPrefix("apns-"), headers[(index + 1)...].contains(where: { $0.name == header.name }) {
                    fields.hasDuplicate = true
                }
                continue
            }
            if seen & bit != 0 { fields.hasDuplicate = true }
            seen |= bit
        }
        return fields
    }

    func checkDuplicateHeaders(_ attempt: PushAttempt) throws(Rejection) {
        if attempt.fields.hasDuplicate { throw Rejection(.duplicateHeaders) }
    }

    func checkApnsID(_ attempt: PushAttempt) throws(Rejection) {
        if attempt.fields.apnsID != nil && !attempt.echoesRequestedID { throw Rejection(.badMessageId) }
    }

    func parsePriority(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let priority = attempt.fields.priority else { return }
        guard let value = Int(priority.trimmingSpaces), [1, 5, 10].contains(value) else { throw Rejection(.badPriority) }
        attempt.priority = value
    }

    func parsePushType(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let pushType = attempt.fields.pushType else { return }
        guard let value = APNsPushType(rawValue: pushType) ?? APNsPushType(rawValue: pushType.trimmingSpaces.lowercased()) else {
            throw Rejection(.invalidPushType)
        }
        attempt.pushType = value
    }

    func parseExpiration(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let expiration = attempt.fields.expiration else { return }
        guard let value = Int64(expiration.trimmingSpaces), value >= 0 else { throw Rejection(.badExpirationDate) }
        attempt.expiration = value
    }

    func parseCollapseID(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let collapseID = attempt.fields.collapseID else { return }
        guard collapseID.utf8.count <= 64 else { throw Rejection(.badCollapseId) }
        attempt.collapseID = collapseID
    }

    /// The topic as sent, or a single-topic certificate's default. Decides nothing: the checks
    /// that read it do.
    func resolveTopic(_ attempt: inout PushAttempt) {
        if let topic = attempt.fields.topic?.trimmingSpaces, !topic.isEmpty {
            attempt.topic = parsedTopic(topic)
        } else if let certificate, let topic = certificate.defaultTopic(multiTopicDefaultsToApp: policy.multiTopicCertificateDefaultsToAppTopic) {
            attempt.topic = APNsTopic(topic)
        }
    }

    /// Whether the declared push type needs a topic suffix (`.voip`) the topic lacks: then no
    /// device token can be for that topic (O13). Needs the topic and the push type parsed.
    func notePushTypeSuffix(_ attempt: inout PushAttempt) {
        if let topic = attempt.topic, topic.suffixType == nil, let declared = attempt.pushType, declared.topicSuffix != nil {
            attempt.topicLacksPushTypeSuffix = true
        }
    }
}

extension String {
    var trimmingSpaces: String {
        // Byte-wise: Character-level first/last would segment graphemes on every request.
        let isSpace: (UInt8?) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard isSpace(utf8.first) || isSpace(utf8.last) else { return self }
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
