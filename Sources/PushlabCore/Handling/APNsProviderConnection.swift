/// One provider connection: runs every request through Apple's rules in order, answers as APNs
/// would, keeps the connection's auth state and stream limit, logs, and hands accepted pushes on.
/// Not thread-safe: it lives on its connection's event loop, is never entered re-entrantly, and
/// its stored state skips Swift's run-time exclusivity checks (see Benchmarks/results/performance-history.md).
final class APNsProviderConnection: APNsConnectionHandler {
    let info: ConnectionInfo
    let service: APNsProviderService
    let policy: APNsPolicy
    let certificate: CertificateIdentity?
    let tokenAuthenticator: TokenAuthenticator
    /// What a request like the last one may skip, each shortcut with its own invalidation.
    let shortcuts = ConnectionShortcuts()
    /// The service's world, sink and fault injector (asked first whether it may fire at all),
    /// every event loop's on every request: held here and read in place (not through `service`,
    /// not bound to a local), which spares a retain and release of each, and two cores
    /// bouncing the reference count between them.
    let world: APNsWorld
    let sink: any PushSink
    let faults: (any FaultInjector)?
    /// Answers held for the sink's verdicts or a fault counter's, since the last
    /// `requestVerdicts`, and those asked for, by ticket.
    @exclusivity(unchecked) var awaiting: [AwaitingVerdict] = []
    @exclusivity(unchecked) var asked: [AnswerTicket: [AwaitingVerdict]] = [:]
    @exclusivity(unchecked) var lastTicket: UInt64 = 0
    @exclusivity(unchecked) private var announcedStreams: UInt32
    @exclusivity(unchecked) private var errorWeight = 0
    @exclusivity(unchecked) private var lastActivity: EpochMilliseconds
    /// The time of the read being handled (`peerWasActive` to `flushRecords`): one clock read
    /// stamps every request that completes in it.
    @exclusivity(unchecked) private var readTime: EpochMilliseconds?
    @exclusivity(unchecked) private var idleGoAwaySent = false
    @exclusivity(unchecked) var ids = APNsIDGenerator()
    /// Answers recorded, and pushes accepted for the sink, since the transport last published
    /// them (`flushRecords`).
    @exclusivity(unchecked) var unpublishedRecords: [RequestLog.Entry] = []
    @exclusivity(unchecked) private var unsentPushes: [AcceptedPush] = []
    /// Broadcasts accepted for the sink since the last `flushRecords`.
    @exclusivity(unchecked) var unsentBroadcasts: [AcceptedBroadcast] = []
    @exclusivity(unchecked) var payloads = PayloadArena()
    /// The policy's latency profile on this connection; nil without one.
    @exclusivity(unchecked) var latency: ConnectionLatency?
    /// The provider report's state while it records; nil otherwise.
    @exclusivity(unchecked) var reporting: Reporting?
    @exclusivity(unchecked) var sentGoAway: (reason: APNsErrorReason, forErrors: Bool)?
    let openedAt: EpochMilliseconds

    init(info: ConnectionInfo, service: APNsProviderService, policy: APNsPolicy) {
        self.info = info
        self.service = service
        self.policy = policy
        self.certificate = info.clientCertificate.map(CertificateIdentity.init)
        self.tokenAuthenticator = TokenAuthenticator(world: service.world, policy: policy, shortcuts: shortcuts)
        self.world = service.world
        self.sink = service.sink
        self.faults = service.faults
        self.announcedStreams = certificate == nil ? policy.streamsBeforeFirstValidToken : policy.maxConcurrentStreams
        self.lastActivity = service.clock.now()
        self.openedAt = lastActivity
        self.latency = policy.latency.map { ConnectionLatency(profile: $0, connection: info.id, openedAt: service.clock.now()) }
    }

    var initialMaxConcurrentStreams: UInt32 { announcedStreams }

    var intakeIsBackedUp: Bool { sink.isBackedUp }

    /// Counts a request against its token's rate limit; nil when the service has no limit.
    /// A registered token is counted in its own window, with the limit the shortcuts keep.
    func admitByRateLimit(_ attempt: PushAttempt, token: DeviceTokenKey) -> Bool? {
        shortcuts.refreshRateLimiter(from: service)
        guard let rateLimit = shortcuts.rateLimit else { return nil }
        if let window = attempt.registered?.rateWindow {
            return DeviceTokenRateLimiter.admit(window, limit: rateLimit, now: attempt.receivedAt)
        }
        return shortcuts.rateLimiter?.admit(token, now: attempt.receivedAt)
    }

    func connectionDidStart() -> [ConnectionAction] {
        // Apple lets the handshake and SETTINGS through, then sends GOAWAY (O6, O16).
        if let certificate, !certificate.environments.contains(info.environment) {
            noteGoAway(.goAway(.badCertificateEnvironment))
            return [.goAway(.badCertificateEnvironment)]
        }
        return []
    }

    func peerWasActive() {
        lastActivity = service.clock.now()
        readTime = lastActivity
        followRecorder()
    }

    var tickIntervalMilliseconds: Int64? { policy.idleTimeoutSeconds == nil && service.report == nil ? nil : 1000 }

    func tick() -> [ConnectionAction] {
        // A batch held while requests were in flight that never came back (a stream the client
        // reset) still reaches the report.
        if reporting != nil { publishReport() }
        guard let idle = policy.idleTimeoutSeconds, !idleGoAwaySent else { return [] }
        guard service.clock.now() - lastActivity >= Int64(idle * 1000) else { return [] }
        idleGoAwaySent = true
        noteGoAway(.goAway(.idleTimeout))
        return [.goAway(.idleTimeout)]
    }

    /// Whether `bundleID` is an app of the team the connection is bound to, added before the
    /// binding (A3).
    func appIsBoundToConnection(_ bundleID: String) -> Bool {
        guard let teamID = tokenAuthenticator.boundTeamID else { return false }
        let bindingGeneration = tokenAuthenticator.appGenerationAtBinding
        return shortcuts.withApp(bundleID, in: world) { app in
            guard let app, app.teamID == teamID else { return false }
            return app.addedGeneration <= bindingGeneration
        }
    }

    func handle(_ request: consuming APNsRequest) -> APNsOutcome {
        let now = readTime ?? service.clock.now()
        lastActivity = now
        requestArrived()
        // The device API stays the straight path: two bytes of the path tell the broadcast and
        // channel management API apart (a channel management listener serves nothing else).
        if info.listenerRole == .channelManagement || request.fields.withPath(ChannelAPIEndpoint.mayMatch) {
            return handleChannelAPI(request, now: now)
        }
        let fields = Self.collectHeaders(request)
        // An unusable apns-id is never echoed, whichever check answers first: a fresh one replaces it.
        let requestedID = fields.value(.apnsID, in: request).flatMap { APNsID(requested: $0, lowerCaseOnly: policy.strictApnsIDCase) }
        let environment = shortcuts.environment(for: request, on: info)
        var attempt = PushAttempt(
            request: consume request, environment: environment, receivedAt: now,
            apnsID: requestedID ?? APNsID(ids.nextUUID()), echoesRequestedID: requestedID != nil, fields: fields
        )
        let decision = faults?.mayFault == true ? faults?.decision(for: attempt.request, connection: info, now: now, after: nil) : nil
        return respond(to: &attempt, after: decision)
    }

    /// The answer once the fault rules have decided: their fault, or the APNs rules' answer (a
    /// delay fault delays it). A rule a cluster's engine counts holds the request for its check.
    func respond(to attempt: inout PushAttempt, after decision: FaultDecision?) -> APNsOutcome {
        var delay: Int64 = 0
        switch decision {
        case .fault(let fault)?:
            switch effect(of: fault) {
            case .respond(let reason):
                // The log still names the device the provider pushed to, when the path names one.
                try? checkPath(&attempt)
                return finish(&attempt, rejection: Rejection(reason), delay: 0)
            case .delay(let milliseconds): delay = milliseconds
            case .outcome(let outcome): return outcome
            }
        case .check(let check)?:
            return awaitFaultCheck(check, attempt)
        case nil:
            break
        }
        if let reason = latency?.failure() {
            // The log still names the device, as for a fault.
            try? checkPath(&attempt)
            return finish(&attempt, rejection: Rejection(reason), delay: delay, applesFailure: true)
        }
        do {
            try evaluate(&attempt)
            return finish(&attempt, rejection: nil, delay: delay)
        } catch {
            return finish(&attempt, rejection: error, delay: delay)
        }
    }

    private func evaluate(_ attempt: inout PushAttempt) throws(Rejection) {
        switch policy.checkOrder {
        case .reference: try evaluateInReferenceOrder(&attempt)
        case .pushy: try evaluateInPushyOrder(&attempt)
        }
        try askSinkForVerdict(&attempt)
    }

    /// Reference 7.3, "suggested mock order": connection, method, path, duplicate headers, header
    /// syntax, authentication, topic, body, device-token format, device-token state.
    private func evaluateInReferenceOrder(_ attempt: inout PushAttempt) throws(Rejection) {
        try checkCertificate(attempt)
        try checkMethod(attempt)
        try checkPath(&attempt)
        try checkDuplicateHeaders(attempt)
        try checkApnsID(attempt)
        try parsePriority(&attempt)
        try parsePushType(&attempt)
        try parseExpiration(&attempt)
        try parseCollapseID(&attempt)
        resolveTopic(&attempt)
        notePushTypeSuffix(&attempt)
        try authenticate(attempt)
        try checkTopic(&attempt)
        try checkBody(&attempt)
        try checkDeviceTokenFormat(&attempt)
        try checkDeviceTokenState(attempt, goneBeforeTopic: false)
    }

    /// pushy's mock (`ValidatingPushNotificationHandler`): apns-id, method, topic, collapse id,
    /// priority, push type, path and device token (410 before the topic match), then authentication
    /// and the body. Duplicate headers, which pushy does not check, still come first.
    private func evaluateInPushyOrder(_ attempt: inout PushAttempt) throws(Rejection) {
        try checkCertificate(attempt)
        try checkDuplicateHeaders(attempt)
        try checkApnsID(attempt)
        try checkMethod(attempt)
        resolveTopic(&attempt)
        if attempt.topic == nil { throw Rejection(.missingTopic) }
        try parseCollapseID(&attempt)
        try parsePriority(&attempt)
        try parsePushType(&attempt)
        try parseExpiration(&attempt)
        notePushTypeSuffix(&attempt)
        try checkPath(&attempt)
        try checkDeviceTokenFormat(&attempt)
        try checkDeviceTokenState(attempt, goneBeforeTopic: true)
        try authenticate(attempt)
        try checkTopic(&attempt)
        try checkBody(&attempt)
    }

    /// `applesFailure`: a 500 or 503 of the latency profile, which neither counts against the
    /// connection's error budget nor throttles its streams (the provider did nothing wrong).
    func finish(_ attempt: inout PushAttempt, rejection: Rejection?, delay: Int64, applesFailure: Bool = false) -> APNsOutcome {
        var actions: [ConnectionAction] = []
        var delay = delay
        if latency != nil {
            delay += latency!.delay(for: attempt.environment)
            if let goAway = latency!.goAway(now: attempt.receivedAt) {
                noteGoAway(goAway)
                actions.append(goAway)
            }
        }
        let response: APNsResponse
        if let rejection {
            response = .failure(rejection.reason, apnsID: attempt.apnsID, timestamp: rejection.timestamp)
            if rejection.goAway {
                noteGoAway(.goAway(rejection.reason))
                actions.append(.goAway(rejection.reason))
            }
            if !applesFailure, let goAway = chargeError(rejection.reason) { actions.append(goAway) }
        } else {
            let uniqueID = attempt.environment == .development && policy.sendUniqueIDInDevelopment ? APNsID(ids.nextUUID(lowercase: true)) : nil
            response = .success(apnsID: attempt.apnsID, uniqueID: uniqueID)
            if attempt.awaitsVerdict {
                if let limit = streamLimitChange(after: nil) { actions.insert(.setMaxConcurrentStreams(limit), at: 0) }
                return awaitVerdict(attempt, response: response, delay: delay, actions: actions)
            }
            if sink.takesPushes(toDevice: attempt.registered?.record.deviceID) { unsentPushes.append(acceptedPush(attempt)) }
        }
        if let limit = streamLimitChange(after: applesFailure ? nil : rejection) { actions.insert(.setMaxConcurrentStreams(limit), at: 0) }
        record(attempt, response)
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions)
    }

    /// The stream limit to announce now, if it changes: 1 until the first valid token, 1 after a
    /// rejection (410 is not an error condition), the configured value otherwise.
    func streamLimitChange(after rejection: Rejection?) -> UInt32? {
        let wanted: UInt32
        if certificate == nil && !tokenAuthenticator.hasAuthenticated {
            wanted = policy.streamsBeforeFirstValidToken
        } else if let rejection, rejection.reason.status != 410, policy.throttleStreamsAfterRejection {
            wanted = 1
        } else {
            wanted = policy.maxConcurrentStreams
        }
        guard wanted != announcedStreams else { return nil }
        announcedStreams = wanted
        return wanted
    }

    /// "APNs disconnects a provider connection with too many error conditions … sooner with BadDeviceToken."
    func chargeError(_ reason: APNsErrorReason) -> ConnectionAction? {
        guard reason.status != 410, let budget = policy.errorBudgetPerConnection else { return nil }
        let before = errorWeight
        errorWeight += reason == .badDeviceToken ? policy.badDeviceTokenErrorWeight : 1
        guard before < budget && errorWeight >= budget else { return nil }
        noteGoAway(.goAway(reason), forErrors: true)
        return .goAway(reason)
    }

    private func record(_ attempt: PushAttempt, _ response: APNsResponse) {
        // Built in place: a named entry would be copied into the array and then destroyed.
        unpublishedRecords.append(recordEntry(attempt, response))
        reportExchange(attempt, response)
    }

    func recordEntry(_ attempt: PushAttempt, _ response: APNsResponse) -> RequestLog.Entry {
        RequestLog.Entry(
            time: attempt.receivedAt, connectionID: info.id, environment: attempt.environment,
            deviceTokenKey: attempt.deviceToken, topic: attempt.topic?.value ?? attempt.field(.topic),
            pushType: attempt.pushType?.rawValue ?? attempt.field(.pushType),
            status: response.status, reason: response.reason, apnsID: response.apnsIDValue
        )
    }

    func flushRecords() {
        readTime = nil
        if !unsentPushes.isEmpty {
            sink.accept(unsentPushes)
            unsentPushes.startNextBatch()
        }
        if !unsentBroadcasts.isEmpty {
            for broadcast in unsentBroadcasts { sink.accept(broadcast: broadcast) }
            unsentBroadcasts.removeAll()
        }
        service.log.append(contentsOf: &unpublishedRecords, connectionID: info.id)
        if reporting != nil { publishReport() }
    }

    func connectionDidClose() {
        reportClosing()
        flushRecords()
    }

    func acceptedPush(_ attempt: PushAttempt) -> AcceptedPush {
        let topic = attempt.topic?.value ?? ""
        let recipient = attempt.registered ?? APNsWorld.Registration(record: AcceptedPush.unknownToken(
            attempt.deviceToken?.hex ?? "", bundleID: attempt.topic?.bundleID ?? "", environment: attempt.environment
        ))
        // The payload is copied, not shared: the request's buffer goes back to the transport for
        // the next request.
        return AcceptedPush(
            apnsID: attempt.apnsID, receivedAt: attempt.receivedAt, environment: attempt.environment, recipient: recipient,
            isRegistered: attempt.registered != nil, topic: topic, pushType: attempt.pushType ?? .alert, priority: attempt.priority,
            expiration: attempt.expiration, collapseID: attempt.collapseID, payload: attempt.payload,
            payloadBytes: payloads.copy(attempt.request.body), isDeliverable: attempt.isDeliverable, connectionID: info.id
        )
    }
}
