/// Method, path, duplicate headers and header syntax (reference 1.2, steps 2 to 4 of 7.3).
extension APNsProviderConnection {
    static let devicePathPrefix = "/3/device/"

    func checkMethod(_ attempt: PushAttempt) throws(Rejection) {
        if attempt.request.method != "POST" { throw Rejection(.methodNotAllowed) }
    }

    func checkPath(_ attempt: inout PushAttempt) throws(Rejection) {
        // Read straight from the path's bytes: no string is made for the path or the token.
        let prefix = Self.devicePathPrefix
        let token: Result<DeviceTokenKey, Rejection> = attempt.request.fields.withPath { path in
            guard let path, path.starts(with: prefix.utf8) else { return .failure(Rejection(.badPath)) }
            let prefixLength = prefix.utf8.count
            if path.count == prefixLength { return .failure(Rejection(.missingDeviceToken)) }
            return .success(DeviceTokenKey(utf8: UnsafeRawBufferPointer(rebasing: path[prefixLength...])))
        }
        attempt.deviceToken = try token.get()
    }

    /// One pass over the headers: each APNs header's value, and whether any `apns-*` header or
    /// `authorization` came twice (nghttp2 already refuses repeated pseudo-headers). Decides
    /// nothing: `checkDuplicateHeaders` answers at its step of the order.
    static func collectHeaders(_ request: APNsRequest) -> APNsHeaderFields {
        var seen: UInt8 = 0
        var fields = APNsHeaderFields()
        let headers = request.fields
        // The names were recognised as they arrived: this reads one small number per header.
        headers.spans.withUnsafeBufferPointer { spans in
            for index in spans.indices {
                let kind = spans[index].field
                guard kind >= 0, let field = APNsHeaderFields.Field(rawValue: Int(kind)) else {
                    if kind == RequestFields.Span.otherAPNs,
                       ((index + 1)..<spans.count).contains(where: { headers.nameEquals(at: index, nameAt: $0) }) {
                        fields.hasDuplicate = true
                    }
                    continue
                }
                let bit: UInt8 = 1 << kind
                fields.note(field, at: index)
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
        guard let parsed = attempt.parseField(.priority, HeaderValueParsing.integer) else { return }
        guard let value = parsed, value == 1 || value == 5 || value == 10 else { throw Rejection(.badPriority) }
        attempt.priority = Int(value)
    }

    func parsePushType(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let parsed = attempt.parseField(.pushType, HeaderValueParsing.pushType) else { return }
        guard let value = parsed else { throw Rejection(.invalidPushType) }
        attempt.pushType = value
    }

    func parseExpiration(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let parsed = attempt.parseField(.expiration, HeaderValueParsing.integer) else { return }
        guard let value = parsed, value >= 0 else { throw Rejection(.badExpirationDate) }
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
        if let repeated = attempt.withField(.topic, shortcuts.repeatedTopic) {
            attempt.topic = repeated
        } else if let topic = attempt.field(.topic)?.trimmingSpaces, !topic.isEmpty {
            attempt.topic = shortcuts.parsedTopic(topic)
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
    /// Without the spaces and tabs around it, as `HeaderValueParsing.trimmed` reads bytes.
    var trimmingSpaces: String {
        // Byte-wise: Character-level first/last would segment graphemes on every request.
        var text = self
        return text.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            let trimmed = HeaderValueParsing.trimmed(bytes)
            return trimmed.count == bytes.count ? self : String(decoding: trimmed, as: UTF8.self)
        }
    }
}
