/// The provider report (`ProviderReportRecorder`): while it records, a connection counts what its
/// requests and answers tell and hands it over when it has nothing in flight, or, while busy,
/// every `reportBatch` requests or milliseconds (each hand-over takes the recorder's lock).
extension APNsProviderConnection {
    static let reportBatch = (requests: 256, milliseconds: Int64(100))

    /// A connection's part of the report since it last handed it over; nil while nobody records.
    struct Reporting {
        var batch: ProviderReportRecorder.Batch
        var events: [ProviderConnectionEvent] = []
        var latencies: [UInt32] = []
        var inFlight = 0
        var peakInFlight = 0
        var peakTold = 0
        var toldAt: EpochMilliseconds
    }

    /// Starts or stops following this connection as the recorder does (checked once per read).
    func followRecorder() {
        guard let recorder = service.report else { return }
        let recording = recorder.isRecording
        if recording && reporting == nil {
            reporting = Reporting(batch: recorder.makeBatch(provider: certificateProvider), toldAt: service.clock.now())
            reporting!.events.append(
                .opened(connectionID: info.id, at: openedAt, environment: info.environment, provider: certificateProvider, streamLimit: policy.maxConcurrentStreams)
            )
        } else if !recording && reporting != nil {
            publishReport(now: true)
            reporting = nil
        }
    }

    func requestArrived() {
        guard reporting != nil else { return }
        reporting!.inFlight += 1
        reporting!.peakInFlight = max(reporting!.peakInFlight, reporting!.inFlight)
    }

    var timesAnswers: Bool { reporting != nil }

    func answerWasSent(afterNanoseconds elapsed: UInt64) {
        guard reporting != nil else { return }
        reporting!.inFlight = max(0, reporting!.inFlight - 1)
        reporting!.latencies.append(UInt32(clamping: elapsed / 1000))
    }

    func streamLimitWasExceeded() {
        followRecorder()
        reporting?.events.append(.streamLimitExceeded(connectionID: info.id, at: service.clock.now()))
        publishReport()
    }

    func reportExchange(_ attempt: PushAttempt, _ response: APNsResponse) {
        guard reporting != nil else { return }
        reportExchange(exchange(attempt, response))
    }

    /// A request answered after waiting for its verdict, its exchange made when it arrived.
    func reportExchange(_ exchange: ProviderExchange) {
        guard reporting != nil, let recorder = service.report else { return }
        recorder.count(exchange, into: &reporting!.batch)
    }

    func exchange(_ attempt: PushAttempt, _ response: APNsResponse) -> ProviderExchange {
        ProviderExchange(
            time: attempt.receivedAt, connectionID: info.id, provider: currentProvider ?? namedProvider(attempt), deviceToken: attempt.deviceToken,
            requestHash: requestHash(attempt), status: response.status, reason: response.reason,
            pushType: attempt.pushType, priority: attempt.priority, expiration: attempt.expiration,
            providerToken: certificate == nil ? tokenAuthenticator.currentStamp : nil
        )
    }

    private static let shapingFields: [APNsHeaderFields.Field] = [.priority, .pushType, .expiration, .collapseID, .topic]

    /// The body and the headers that shape the push, as sent (a corrected request is another one).
    private func requestHash(_ attempt: PushAttempt) -> UInt64 {
        var hash = attempt.request.body.withUnsafeBytes { RequestFingerprint.mix(RequestFingerprint.start, $0) }
        for field in Self.shapingFields {
            hash = attempt.withField(field) { bytes in
                bytes.map { RequestFingerprint.mix(hash, $0) } ?? RequestFingerprint.step(hash, UInt64(field.rawValue))
            }
        }
        return RequestFingerprint.finish(hash)
    }

    /// The certificate's provider, or the key of the token that last verified.
    private var currentProvider: ProviderIdentity? {
        certificate == nil ? tokenAuthenticator.verifiedProvider : reporting?.batch.namedProvider
    }

    /// Before any token of the connection verified (a request refused before authentication, or
    /// for its token): the registered key its token names, unverified, so the request is still
    /// put down to its provider.
    private func namedProvider(_ attempt: PushAttempt) -> ProviderIdentity? {
        guard certificate == nil, let header = attempt.field(.authorization), let bearer = TokenAuthenticator.bearerToken(header),
              let claims = try? ProviderToken.parse(bearer), let key = world.key(claims.keyID)
        else { return nil }
        return .key(keyID: key.keyID, teamID: key.teamID)
    }

    private var certificateProvider: ProviderIdentity? {
        info.clientCertificate.map { .certificate(subject: $0.subject) }
    }

    /// A GOAWAY this connection sends, for the report's account of how it ended.
    func noteGoAway(_ action: ConnectionAction?, forErrors: Bool = false) {
        guard case .goAway(let reason)? = action else { return }
        sentGoAway = (reason, forErrors)
    }

    /// Hands the connection's batch and events to the recorder: `now`, or when it is due.
    func publishReport(now: Bool = false) {
        guard reporting != nil, let recorder = service.report else { return }
        if !now && reporting!.inFlight > 0 && reporting!.batch.requests < Self.reportBatch.requests {
            let time = service.clock.now()
            guard time - reporting!.toldAt >= Self.reportBatch.milliseconds else { return }
            reporting!.toldAt = time
        }
        if !reporting!.latencies.isEmpty || reporting!.peakInFlight > reporting!.peakTold {
            reporting!.events.append(
                .answered(connectionID: info.id, latenciesMicroseconds: reporting!.latencies, peakInFlight: reporting!.peakInFlight, streamLimit: policy.maxConcurrentStreams)
            )
            reporting!.peakTold = reporting!.peakInFlight
            reporting!.latencies.removeAll(keepingCapacity: true)
        }
        recorder.record(&reporting!.batch, events: reporting!.events)
        reporting!.events.removeAll(keepingCapacity: true)
    }

    func reportClosing() {
        guard reporting != nil else { return }
        reporting!.events.append(
            .closed(connectionID: info.id, at: service.clock.now(), goAway: sentGoAway?.reason, forErrors: sentGoAway?.forErrors ?? false)
        )
        publishReport(now: true)
    }
}
