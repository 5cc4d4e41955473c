/// The broadcast and channel management API (A10, A12): its requests in order, answered with
/// `apns-request-id`. The checks the device API has too are the device API's own.
extension APNsProviderConnection {
    func handleChannelAPI(_ request: consuming APNsRequest, now: EpochMilliseconds) -> APNsOutcome {
        let fields = Self.collectHeaders(request)
        // Rare next to device pushes: the headers only this API reads are looked up by name.
        let requestIDText = request.header("apns-request-id") ?? fields.value(.apnsID, in: request)
        let requestedID = requestIDText.flatMap { APNsID(requested: $0, lowerCaseOnly: policy.strictApnsIDCase) }
        let endpoint = request.path.flatMap(ChannelAPIEndpoint.init(path:))
        let environment = shortcuts.environment(for: request, on: info)
        var attempt = ChannelAPIAttempt(
            push: PushAttempt(
                request: consume request, environment: environment, receivedAt: now,
                // Apple's request ids are lower case (A10).
                apnsID: requestedID ?? APNsID(ids.nextUUID(lowercase: true)), echoesRequestedID: requestedID != nil, fields: fields
            ),
            endpoint: endpoint, namesRequestID: requestIDText != nil
        )
        var delay: Int64 = 0
        if faults?.mayFault == true, let effect = faultEffect(for: attempt.request, now: now) {
            switch effect {
            case .respond(let reason): return finishChannelAPI(&attempt, rejection: Rejection(reason), delay: 0)
            case .delay(let milliseconds): delay = milliseconds
            case .outcome(let outcome): return outcome
            }
        }
        do {
            try evaluateChannelAPI(&attempt)
            return finishChannelAPI(&attempt, rejection: nil, delay: delay)
        } catch {
            return finishChannelAPI(&attempt, rejection: error, delay: delay)
        }
    }

    /// Connection, path (and the listener's role), method, duplicate headers, authentication,
    /// then the headers, the bundle's suffix and owner, the app's capability, and what the
    /// operation itself needs. "If authentication succeeds, APNs then validates the channel
    /// ID" (A12); the rest of the order is [INF].
    private func evaluateChannelAPI(_ attempt: inout ChannelAPIAttempt) throws(Rejection) {
        try checkCertificate(attempt.push)
        guard let endpoint = attempt.endpoint, endpoint.isServed(by: info.listenerRole) else { throw Rejection(.badPath) }
        guard let operation = endpoint.operation(for: attempt.request.method) else { throw Rejection(.methodNotAllowed) }
        attempt.operation = operation
        try checkDuplicateHeaders(attempt.push)
        try authenticate(attempt.push)
        if attempt.namesRequestID && !attempt.push.echoesRequestedID { throw Rejection(.badMessageId) }
        if operation.namesChannel { try parseChannelID(&attempt) }
        if operation == .broadcast { try parseBroadcastHeaders(&attempt) }
        // "Ensure that no push type suffix is added to the bundle ID" (A11).
        if APNsTopic(endpoint.bundleID).suffixType != nil { throw Rejection(.topicDisallowed) }
        try checkBundleOwner(endpoint.bundleID)
        if world.app(endpoint.bundleID)?.broadcastEnabled == false { throw Rejection(.featureNotEnabled) }
        switch operation {
        case .broadcast: try acceptBroadcast(&attempt, bundleID: endpoint.bundleID)
        case .create: try createChannel(&attempt, bundleID: endpoint.bundleID)
        case .read: try readChannel(&attempt, bundleID: endpoint.bundleID)
        case .delete: try deleteChannel(&attempt, bundleID: endpoint.bundleID)
        case .list: listChannels(&attempt, bundleID: endpoint.bundleID)
        }
    }

    /// `apns-channel-id`: present, base64, not longer than the policy allows (A11).
    private func parseChannelID(_ attempt: inout ChannelAPIAttempt) throws(Rejection) {
        guard let text = attempt.request.header("apns-channel-id")?.trimmingSpaces, !text.isEmpty else {
            throw Rejection(.missingChannelId)
        }
        attempt.channelID = text
        guard text.utf8.count <= policy.maxChannelIDLength, Base64.decode(text) != nil else { throw Rejection(.badChannelId) }
    }

    /// The bundle in the path must be one the provider token's team owns (and its key may push
    /// to), or one of the certificate's topics: else `TopicMismatch` (A11).
    private func checkBundleOwner(_ bundleID: String) throws(Rejection) {
        if let certificate {
            if !certificate.topics.contains(bundleID) { throw Rejection(.topicMismatch) }
            return
        }
        if let key = tokenAuthenticator.currentKey, !key.mayPush(toBundle: bundleID) { throw Rejection(.topicMismatch) }
        guard appIsBoundToConnection(bundleID) else { throw Rejection(.topicMismatch) }
    }

    /// The channel a request names, in the request's environment and for the path's app:
    /// channels are not shared across environments (A10), nor across apps.
    func namedChannel(_ attempt: ChannelAPIAttempt, bundleID: String) throws(Rejection) -> BroadcastChannel {
        guard let id = attempt.channelID, let channel = world.channels.channel(id, environment: attempt.push.environment),
              channel.bundleID == bundleID else {
            throw Rejection(.channelNotRegistered)
        }
        return channel
    }

    private func finishChannelAPI(_ attempt: inout ChannelAPIAttempt, rejection: Rejection?, delay: Int64) -> APNsOutcome {
        var rejection = rejection
        // The sink's verdict: at once in a single process; a cluster's engine takes a broadcast
        // for every node's phones, and every node learns a channel, before the answer goes.
        var awaited: SinkItem?
        if rejection == nil, let item = attempt.sinkItem {
            switch sink.verdictNow(on: item) {
            case nil:
                awaited = item
            case .accepted?:
                if case .broadcast(let broadcast) = item { unsentBroadcasts.append(broadcast) }
            case let verdict?:
                if case .channel(let change) = item { undo(change) }
                rejection = Rejection(verdict: verdict)
            }
        }
        var actions: [ConnectionAction] = []
        let response: APNsResponse
        if let rejection {
            response = .failure(rejection.reason, requestID: attempt.requestID)
            if rejection.goAway { actions.append(.goAway(rejection.reason)) }
            if let goAway = chargeError(rejection.reason) { actions.append(goAway) }
        } else {
            response = attempt.success ?? .success(status: 200, requestID: attempt.requestID)
        }
        if let limit = streamLimitChange(after: rejection) { actions.insert(.setMaxConcurrentStreams(limit), at: 0) }
        let record = RequestLog.Entry(
            time: attempt.push.receivedAt, connectionID: info.id, environment: attempt.push.environment, deviceTokenKey: nil,
            topic: attempt.endpoint?.bundleID, pushType: attempt.pushType, status: response.status, reason: response.reason,
            apnsID: response.apnsIDValue, channelID: attempt.channelID
        )
        if let awaited { return awaitVerdict(on: awaited, response: response, record: record, delay: delay, actions: actions) }
        unpublishedRecords.append(record)
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions)
    }
}
