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
        typealias Name = APNsHeaderName
        // Through a buffer pointer: the names are read in place, not copied (retained) per header.
        request.headers.withUnsafeBufferPointer { headers in
            for index in headers.indices {
                let bit: UInt8
                // By length first: at most two comparisons, each a pointer check for transport-made names.
                switch headers[index].name.utf8.count {
                case 7 where headers[index].name == Name.apnsID: bit = 1 << 0; fields.note(.apnsID, at: index)
                case 13 where headers[index].name == Name.priority: bit = 1 << 1; fields.note(.priority, at: index)
                case 13 where headers[index].name == Name.authorization: bit = 1 << 6; fields.note(.authorization, at: index)
                case 14 where headers[index].name == Name.pushType: bit = 1 << 2; fields.note(.pushType, at: index)
                case 15 where headers[index].name == Name.expiration: bit = 1 << 3; fields.note(.expiration, at: index)
                case 16 where headers[index].name == Name.collapseID: bit = 1 << 4; fields.note(.collapseID, at: index)
                case 10 where headers[index].name == Name.topic: bit = 1 << 5; fields.note(.topic, at: index)
                default:
                    let name = headers[index].name
                    if name.hasPrefix("apns-"), headers[(index + 1)...].contains(where: { $0.name == name }) {
                        fields.hasDuplicate = true
                    }
                    continue
                }
                if seen & bit != 0 { fields.hasDuplicate = true }
                seen |= bit
            }
        }
        return fields
    }

    func checkDuplicateHeaders(_ attempt: PushAttempt) throws(Rejection) {
        if attempt.fields.hasDuplicate { throw Rejection(.duplicateHeaders) }
    }

    func checkApnsID(_ attempt: PushAttempt) throws(Rejection) {
        if attempt.field(.apnsID) != nil && !attempt.echoesRequestedID { throw Rejection(.badMessageId) }
    }

    func parsePriority(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let priority = attempt.field(.priority) else { return }
        guard let value = Int(priority.trimmingSpaces), [1, 5, 10].contains(value) else { throw Rejection(.badPriority) }
        attempt.priority = value
    }

    func parsePushType(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let pushType = attempt.field(.pushType) else { return }
        guard let value = APNsPushType(rawValue: pushType) ?? APNsPushType(rawValue: pushType.trimmingSpaces.lowercased()) else {
            throw Rejection(.invalidPushType)
        }
        attempt.pushType = value
    }

    func parseExpiration(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let expiration = attempt.field(.expiration) else { return }
        guard let value = Int64(expiration.trimmingSpaces), value >= 0 else { throw Rejection(.badExpirationDate) }
        attempt.expiration = value
    }

    func parseCollapseID(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let collapseID = attempt.field(.collapseID) else { return }
        guard collapseID.utf8.count <= 64 else { throw Rejection(.badCollapseId) }
        attempt.collapseID = collapseID
    }

    /// The topic as sent, or a single-topic certificate's default. Decides nothing: the checks
    /// that read it do.
    func resolveTopic(_ attempt: inout PushAttempt) {
        if let topic = attempt.field(.topic)?.trimmingSpaces, !topic.isEmpty {
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
