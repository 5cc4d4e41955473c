import Logging
import NIOCore
import PushlabCore
import PushlabNGHTTP2
import PushlabOpenSSL

/// One APNs connection's HTTP/2 side: an `nghttp2_session` fed with TLS plaintext, each
/// complete request handed to the connection's `APNsConnectionHandler`, each answer written
/// back as APNs writes it.
/// Used on one event loop only, never re-entrantly: its stored state skips Swift's run-time
/// exclusivity checks (`@exclusivity(unchecked)`, see Benchmarks/results/performance-history.md).
public final class APNsHTTP2Handler: ChannelDuplexHandler, HTTP2SessionDelegate {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    public struct Settings: Sendable {
        public var limits: HTTP2Limits
        public var listenerEnvironment: APNsEnvironment
        public var listenerRole: APNsListenerRole
        public var connectionID: UInt64
        public var logger: Logger

        public init(
            limits: HTTP2Limits, listenerEnvironment: APNsEnvironment, listenerRole: APNsListenerRole = .both, connectionID: UInt64, logger: Logger
        ) {
            self.limits = limits
            self.listenerEnvironment = listenerEnvironment
            self.listenerRole = listenerRole
            self.connectionID = connectionID
            self.logger = logger
        }
    }

    private let settings: Settings
    private let service: any APNsConnectionFactory
    private let registry: ConnectionRegistry?
    /// Answers waiting for their verdict (`APNsOutcome.isHeld`), oldest first.
    @exclusivity(unchecked) private var heldAnswers = HeldAnswers()
    @exclusivity(unchecked) private var session: HTTP2Session?
    @exclusivity(unchecked) private var connectionHandler: (any APNsConnectionHandler)?
    @exclusivity(unchecked) private var streams: [Int32: StreamState] = [:]
    /// The stream most recently touched: headers and data of one request arrive together.
    /// Borrowed, not retained (each header would otherwise retain and release it): `streams`
    /// owns it, and `forget` and `channelInactive` clear it before a stream can go.
    @exclusivity(unchecked) private var lastStream: Unmanaged<StreamState>?
    @exclusivity(unchecked) private var lastStreamID: Int32 = 0
    /// Records of finished streams, reused so a request does not cost fresh arrays.
    @exclusivity(unchecked) private var spareStreams: [StreamState] = []
    /// When each request completed, while the connection handler times its answers (the provider
    /// report): uptime nanoseconds by stream.
    @exclusivity(unchecked) private var answerClock: [Int32: UInt64] = [:]
    /// The read being handled, once a request of it asked for the time (one clock read a read).
    @exclusivity(unchecked) private var readStarted: UInt64?
    /// When the requests of the answers written since the last flush completed: the flush reads
    /// the clock once for all of them.
    @exclusivity(unchecked) private var answeredSince: [UInt64] = []
    /// Which id header names an earlier answer has put in nghttp2's encoder table.
    @exclusivity(unchecked) private var idNamesIndexed = (apnsID: false, uniqueID: false, requestID: false)
    private let headerValues = HeaderValueCache(slots: HeaderName.cacheSlots)
    @exclusivity(unchecked) private var outputBuffer = ByteBufferAllocator().buffer(capacity: 4096)
    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    /// Streams, GOAWAYs waiting for their answer, paused reads: the state machine whose answers
    /// this handler carries out.
    @exclusivity(unchecked) private var lifecycle = ConnectionLifecycle()
    @exclusivity(unchecked) private var intakePacing = IntakePacing()
    /// A read waits out an `IntakePacing.pause`.
    @exclusivity(unchecked) private var readPaused = false
    private var tickTask: RepeatedTask?
    private var pendingGoAwayTimer: Scheduled<Void>?
    /// Plain-TCP use (tests, h2c): start at channelActive instead of waiting for TLS.
    private let startWithoutTLS: Bool

    public init(settings: Settings, service: any APNsConnectionFactory, registry: ConnectionRegistry? = nil, startWithoutTLS: Bool = false) {
        self.settings = settings
        self.service = service
        self.registry = registry
        self.startWithoutTLS = startWithoutTLS
    }

    // MARK: Channel events

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if startWithoutTLS, context.channel.isActive { start(context: context, tls: nil) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        // The session holds this handler as its delegate: dropping it ends the cycle.
        session = nil
    }

    public func channelActive(context: ChannelHandlerContext) {
        if startWithoutTLS, session == nil { start(context: context, tls: nil) }
        context.fireChannelActive()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let handshake = event as? TLSHandshakeCompleted {
            start(context: context, tls: handshake)
        }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session else { return }
        let bytes = unwrapInboundIn(data)
        connectionHandler?.peerWasActive()
        readStarted = nil
        let goAways = lifecycle.readArrived()
        if !goAways.isEmpty {
            sendGoAways(goAways, session: session)
            if flushSession(context: context) { return }
        }
        do {
            try bytes.withUnsafeReadableBytes { try session.receive($0) }
        } catch {
            settings.logger.debug("HTTP/2 session error", metadata: ["connection": "\(settings.connectionID)", "error": "\(error)"])
            if lifecycle.sessionFailed() { try? session.submitGoAway(errorCode: .protocolError) }
        }
        flushSession(context: context)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        tickTask?.cancel()
        tickTask = nil
        pendingGoAwayTimer?.cancel()
        pendingGoAwayTimer = nil
        lifecycle.connectionClosed()
        lastStream = nil
        streams.removeAll()
        answerClock.removeAll()
        answeredSince.removeAll()
        heldAnswers.removeAll()
        connectionHandler?.connectionDidClose()
        connectionHandler = nil
        registry?.remove(settings.connectionID)
        session = nil
        context.fireChannelInactive()
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            lifecycle.becameWritable()
            flushSession(context: context)
            if lifecycle.takeHeldRead() { context.read() }
        }
        context.fireChannelWritabilityChanged()
    }

    /// A peer that does not read its responses stops being read from: TCP pushes back on it,
    /// and Pushlab holds at most one window of frames for it.
    /// While the sink is backed up, a read waits a moment first (`IntakePacing`).
    public func read(context: ChannelHandlerContext) {
        guard !readPaused, lifecycle.readRequested() else { return }
        guard intakePacing.shouldPause(intakeBackedUp: connectionHandler?.intakeIsBackedUp ?? false) else {
            context.read()
            return
        }
        readPaused = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: IntakePacing.pause) {
            let handler = loopBound.value
            handler.readPaused = false
            guard handler.session != nil, let context = handler.context else { return }
            handler.read(context: context)
        }
    }

    // MARK: Control from outside the event loop (through ConnectionRegistry)

    /// Announces a new MAX_CONCURRENT_STREAMS on this live connection.
    func setMaxConcurrentStreams(_ value: UInt32) {
        guard let session, let context else { return }
        try? session.submitSettings([HTTP2Setting(.maxConcurrentStreams, value)])
        flushSession(context: context)
    }

    /// GOAWAY with `{"reason":…}`; in-flight streams finish, then the connection closes.
    func goAway(_ reason: APNsErrorReason) {
        guard let session, let context else { return }
        sendGoAway(reason, session: session)
        flushSession(context: context)
    }

    // MARK: HTTP2SessionDelegate

    public func http2Session(_ session: HTTP2Session, didBeginHeadersOn streamID: Int32) {
        guard streams[streamID] == nil else { return }
        lifecycle.streamOpened()
        lifecycle.payloadReceived()
        let stream: StreamState
        if let spare = spareStreams.popLast() {
            spare.reuse(for: streamID)
            stream = spare
        } else {
            stream = StreamState(streamID: streamID)
        }
        streams[streamID] = stream
        lastStream = Unmanaged.passUnretained(stream)
        lastStreamID = streamID
    }

    public func http2Session(_ session: HTTP2Session, didReceiveHeader name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, on streamID: Int32) {
        let cache = headerValues, limit = Int(settings.limits.maxHeaderListSize)
        withStream(streamID) { $0.addHeader(name: name, value: value, cache: cache, limit: limit) }
    }

    public func http2Session(_ session: HTTP2Session, didReceiveData data: UnsafeRawBufferPointer, on streamID: Int32) {
        lifecycle.payloadReceived()
        let limit = settings.limits.maxBufferedBodyBytes
        withStream(streamID) { $0.addBody(data, limit: limit) }
    }

    /// Headers and data of one request arrive together: the stream last touched is borrowed
    /// without a lookup or a reference count.
    private func withStream(_ streamID: Int32, _ body: (StreamState) -> Void) {
        if let lastStream, lastStreamID == streamID {
            lastStream._withUnsafeGuaranteedRef(body)
            return
        }
        guard let stream = streams[streamID] else { return }
        lastStream = Unmanaged.passUnretained(stream)
        lastStreamID = streamID
        body(stream)
    }

    private func forget(_ streamID: Int32) -> StreamState? {
        if lastStream != nil, lastStreamID == streamID { lastStream = nil }
        return streams.removeValue(forKey: streamID)
    }

    public func http2Session(_ session: HTTP2Session, didReceiveEndOfStream streamID: Int32) {
        guard let stream = forget(streamID), let connectionHandler else { return }
        if stream.headerListSize > Int(settings.limits.maxHeaderListSize) {
            // RFC 9113 10.5.1: a header section larger than announced may be refused.
            try? session.submitResetStream(streamID, errorCode: .refusedStream)
            return
        }
        let outcome = connectionHandler.handle(stream.request)
        if connectionHandler.timesAnswers {
            if readStarted == nil { readStarted = NIODeadline.now().uptimeNanoseconds }
            answerClock[streamID] = readStarted!
        }
        let isHead = stream.request.method == "HEAD"
        if spareStreams.count < 64 { spareStreams.append(stream) }
        if outcome.isHeld {
            // Held in the order the handler decided, so that its verdicts match; a delay runs
            // from now, and what is left of it once the verdict comes is waited then.
            heldAnswers.hold(outcome, on: streamID, isHead: isHead, at: outcome.delayMilliseconds > 0 ? context?.eventLoop.now : nil)
            return
        }
        if outcome.delayMilliseconds > 0, let context {
            // Frames for other streams keep flowing; this answer (and its actions) waits.
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(outcome.delayMilliseconds)) {
                loopBound.value.deliver(outcome, on: streamID, isHead: isHead)
            }
            return
        }
        answer(outcome, on: streamID, isHead: isHead, session: session)
    }

    private func deliver(_ outcome: APNsOutcome, on streamID: Int32, isHead: Bool) {
        guard let session, let context else { return }
        answer(outcome, on: streamID, isHead: isHead, session: session)
        flushSession(context: context)
    }

    private func answer(_ outcome: APNsOutcome, on streamID: Int32, isHead: Bool, session: HTTP2Session) {
        if !answerClock.isEmpty, let started = answerClock.removeValue(forKey: streamID) { answeredSince.append(started) }
        guard let response = outcome.response else {
            lifecycle.streamAnswered(streamID, goAways: [])
            try? session.submitResetStream(streamID, errorCode: .internalError)
            apply(outcome.actions, session: session)
            return
        }
        write(response, on: streamID, omitBody: isHead, session: session)
        lifecycle.streamAnswered(streamID, goAways: outcome.actions.filter(\.isGoAway))
        apply(outcome.actions.filter { !$0.isGoAway }, session: session)
    }

    /// APNs answers a client that opens more streams than it was allowed with GOAWAY
    /// REFUSED_STREAM and a plain-text reason (O1); nghttp2 would say PROTOCOL_ERROR.
    public func http2Session(_ session: HTTP2Session, takesOverConnectionErrorFor frameType: UInt8, streamID: Int32) -> Bool {
        let isNewStream = frameType == 0x1 && streamID > session.lastProcessedStreamID
        guard let lastAnswered = lifecycle.refuseStream(isNew: isNewStream, limit: Int(session.localSetting(.maxConcurrentStreams))) else {
            return false
        }
        // The session cannot go on after this, so only streams already answered count as processed:
        // the client may retry the others on a new connection.
        try? session.submitGoAway(
            lastStreamID: lastAnswered, errorCode: .refusedStream,
            debugData: Array("Maximum active streams violated for this endpoint.".utf8)
        )
        connectionHandler?.streamLimitWasExceeded()
        return true
    }

    /// A flood of empty DATA frames ends the connection, as strict HTTP/2 servers end it.
    /// A client that opens streams before it reads SETTINGS has the excess refused, as APNs does
    /// (1 stream until the first valid provider token); the provider report counts them.
    public func http2Session(_ session: HTTP2Session, didRefuseStream streamID: Int32) {
        connectionHandler?.streamLimitWasExceeded()
    }

    public func http2Session(_ session: HTTP2Session, shouldAcceptEmptyDataFrameOn streamID: Int32) -> Bool {
        guard let lastAnswered = lifecycle.emptyFrameReceived(limit: settings.limits.maxConsecutiveEmptyFrames) else { return true }
        try? session.submitGoAway(lastStreamID: lastAnswered, errorCode: .enhanceYourCalm, debugData: Array("Too many empty frames.".utf8))
        return false
    }

    public func http2Session(_ session: HTTP2Session, didCloseStream streamID: Int32, errorCode: UInt32) {
        _ = forget(streamID)
        if lifecycle.streamClosed(streamID) == .armGoAwayTimer, let context {
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            pendingGoAwayTimer = context.eventLoop.scheduleTask(in: Self.goAwayPause) {
                let handler = loopBound.value
                handler.pendingGoAwayTimer = nil
                let goAways = handler.lifecycle.goAwayTimerFired()
                guard let session = handler.session, let context = handler.context else { return }
                handler.apply(goAways, session: session)
                handler.flushSession(context: context)
            }
        }
    }

    /// How long GOAWAYs wait after their answer when the client sends nothing more.
    private static let goAwayPause = TimeAmount.milliseconds(50)

    /// GOAWAYs that waited for their answer, ahead of the read that follows it.
    private func sendGoAways(_ goAways: [ConnectionAction], session: HTTP2Session) {
        pendingGoAwayTimer?.cancel()
        pendingGoAwayTimer = nil
        apply(goAways, session: session)
    }

    // MARK: Internals

    private func start(context: ChannelHandlerContext, tls: TLSHandshakeCompleted?) {
        guard session == nil else { return }
        let info = ConnectionInfo(
            id: settings.connectionID,
            listenerEnvironment: settings.listenerEnvironment,
            listenerRole: settings.listenerRole,
            serverName: tls?.serverName,
            alpn: tls?.alpn,
            tlsVersion: tls?.tlsVersion,
            remoteAddress: context.channel.remoteAddress?.description,
            clientCertificate: tls.flatMap { handshake in
                handshake.peerCertificate.map { ClientCertificate($0, verification: handshake.peerVerification) }
            }
        )
        let handler = service.makeConnectionHandler(for: info)
        connectionHandler = handler
        do {
            let session = try HTTP2Session(role: .server, delegate: self)
            self.session = session
            let limits = settings.limits
            try session.submitSettings([
                HTTP2Setting(.headerTableSize, limits.headerTableSize),
                HTTP2Setting(.maxConcurrentStreams, handler.initialMaxConcurrentStreams),
                HTTP2Setting(.initialWindowSize, limits.initialWindowSize),
                HTTP2Setting(.maxFrameSize, limits.maxFrameSize),
                HTTP2Setting(.maxHeaderListSize, limits.maxHeaderListSize),
            ])
            registry?.add(settings.connectionID, handler: self, channel: context.channel)
            apply(handler.connectionDidStart(), session: session)
            flushSession(context: context)
            scheduleTicks(context: context, handler: handler)
        } catch {
            settings.logger.error("Could not start HTTP/2 session", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    /// Time-driven rules (idle timeout) run on the connection's loop at the handler's interval.
    private func scheduleTicks(context: ChannelHandlerContext, handler: any APNsConnectionHandler) {
        guard let interval = handler.tickIntervalMilliseconds, interval > 0 else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        tickTask = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(interval), delay: .milliseconds(interval)) { _ in
            loopBound.value.tick()
        }
    }

    private func tick() {
        guard let session, let context, let connectionHandler else { return }
        let actions = connectionHandler.tick()
        guard !actions.isEmpty else { return }
        apply(actions, session: session)
        flushSession(context: context)
    }

    /// The one place a response becomes frames. The fields are borrowed bytes on the stack: an
    /// answer costs nghttp2's own copy and nothing more.
    private func write(_ response: APNsResponse, on streamID: Int32, omitBody: Bool, session: HTTP2Session) {
        // The first answer puts each id name in the encoder's small table; later answers refer to
        // it and send their fresh values never indexed, so the table never churns.
        let namesIndexed = idNamesIndexed
        let carriesRequestID = response.idHeader == .requestID
        idNamesIndexed = (
            apnsID: namesIndexed.apnsID || !carriesRequestID, uniqueID: namesIndexed.uniqueID || response.uniqueIDValue != nil,
            requestID: namesIndexed.requestID || carriesRequestID
        )
        let idName: StaticString = carriesRequestID ? "apns-request-id" : "apns-id"
        let idNameIndexed = carriesRequestID ? namesIndexed.requestID : namesIndexed.apnsID
        let body = response.body
        withUnsafeTemporaryAllocation(of: HTTP2FieldBytes.self, capacity: 5) { fields in
            StatusText.withBytes(response.status) { status in
                response.apnsIDValue.withUTF8 { apnsID in
                    response.uniqueIDValue.withOptionalUTF8 { uniqueID in
                        response.channelID.withOptionalUTF8 { channelID in
                            var count = 0
                            func add(_ field: HTTP2FieldBytes) {
                                fields.initializeElement(at: count, to: field)
                                count += 1
                            }
                            add(HTTP2FieldBytes(name: ":status", value: status))
                            if body != nil { add(HTTP2FieldBytes(name: "content-type", value: "application/json")) }
                            add(HTTP2FieldBytes(name: idName, value: apnsID, neverIndex: idNameIndexed))
                            if let uniqueID { add(HTTP2FieldBytes(name: "apns-unique-id", value: uniqueID, neverIndex: namesIndexed.uniqueID)) }
                            if let channelID { add(HTTP2FieldBytes(name: "apns-channel-id", value: channelID, neverIndex: true)) }
                            do {
                                // A HEAD answer has the headers a GET would have, and no content (RFC 9110 9.3.2).
                                try session.submitResponse(
                                    streamID: streamID, fields: UnsafeBufferPointer(rebasing: fields[0..<count]), body: omitBody ? nil : body
                                )
                            } catch {
                                settings.logger.debug("Could not submit response", metadata: ["stream": "\(streamID)", "error": "\(error)"])
                            }
                        }
                    }
                }
            }
        }
    }

    private func apply(_ actions: [ConnectionAction], session: HTTP2Session) {
        for action in actions {
            switch action {
            case .setMaxConcurrentStreams(let value):
                try? session.submitSettings([HTTP2Setting(.maxConcurrentStreams, value)])
            case .goAway(let reason):
                sendGoAway(reason, session: session)
            case .close:
                context?.close(promise: nil)
            }
        }
    }

    private func sendGoAway(_ reason: APNsErrorReason, session: HTTP2Session) {
        let debugData = Array(#"{"reason":""#.utf8) + Array(reason.rawValue.utf8) + Array(#""}"#.utf8)
        try? session.submitGoAway(errorCode: .noError, debugData: debugData)
    }

    /// Moves every frame nghttp2 has queued into one buffer and writes it, unless the peer
    /// is not reading, in which case frames wait in nghttp2 and reading pauses.
    /// Returns whether the connection is now closing.
    @discardableResult
    private func flushSession(context: ChannelHandlerContext) -> Bool {
        if !answeredSince.isEmpty {
            let now = NIODeadline.now().uptimeNanoseconds
            for started in answeredSince { connectionHandler?.answerWasSent(afterNanoseconds: now &- started) }
            answeredSince.removeAll(keepingCapacity: true)
        }
        // Before any answer goes out, its record is visible (published once per read, not per request).
        connectionHandler?.flushRecords()
        if heldAnswers.hasUnticketed { requestVerdicts(context: context) }
        guard let session else { return false }
        guard context.channel.isWritable else {
            lifecycle.outputBlocked()
            return false
        }
        // One buffer for the life of the connection: the TLS handler below encrypts what it is
        // given before `write` returns, so the storage is ours again afterwards.
        outputBuffer.clear()
        do {
            while let chunk = try session.nextOutboundChunk() { outputBuffer.writeBytes(chunk) }
        } catch {
            settings.logger.debug("HTTP/2 serialization error", metadata: ["error": "\(error)"])
            lifecycle.serializationFailed()
        }
        if outputBuffer.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(outputBuffer), promise: nil) }
        // After a GOAWAY, nghttp2 stops wanting to read once no stream is open.
        guard lifecycle.closesAfterFlush(sessionActive: session.isActive) else { return false }
        context.close(promise: nil)
        return true
    }
}

// MARK: Held answers

extension APNsHTTP2Handler {
    /// The answers held so far wait for their verdicts (their records are published); they go
    /// out on this event loop once the verdicts are known.
    private func requestVerdicts(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        guard let ticket = connectionHandler?.requestVerdicts({ ticket, verdicts in
            eventLoop.execute { loopBound.value.verdictsArrived(ticket, verdicts: verdicts) }
        }) else {
            // A handler that holds an answer and asks for nothing: not one to hang for ever.
            settings.logger.error("Held answers without a verdict to wait for: their streams are reset", metadata: ["connection": "\(settings.connectionID)"])
            heldAnswers.stamp(AnswerTicket(0))
            verdictsArrived(AnswerTicket(0), verdicts: [])
            return
        }
        heldAnswers.stamp(ticket)
    }

    /// Sends the answers that waited for `ticket`, as the handler finishes them with their
    /// verdicts: the final answer replaces the provisional one, its actions follow the
    /// provisional's, and the provisional's delay is what is left of it.
    private func verdictsArrived(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) {
        let released = heldAnswers.release(ticket)
        guard let session, let context, let connectionHandler, !released.isEmpty else { return }
        let outcomes = ticket.number == 0 ? [] : connectionHandler.finishHeldAnswers(ticket, verdicts: verdicts)
        let now = context.eventLoop.now
        for (index, held) in released.enumerated() {
            var outcome = index < outcomes.count ? outcomes[index] : APNsOutcome(nil)
            outcome.actions = held.outcome.actions + outcome.actions
            if let heldAt = held.heldAt {
                let waited = (now - heldAt).nanoseconds / 1_000_000
                outcome.delayMilliseconds += max(0, held.outcome.delayMilliseconds - waited)
            }
            if outcome.isHeld {
                // A verdict that leads to another (a counted fault rule passed, and the push now
                // waits for its sink's verdict): held again, asked for at the flush below.
                heldAnswers.hold(outcome, on: held.streamID, isHead: held.isHead, at: outcome.delayMilliseconds > 0 ? now : nil)
                continue
            }
            if outcome.delayMilliseconds > 0 {
                let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(outcome.delayMilliseconds)) {
                    loopBound.value.deliver(outcome, on: held.streamID, isHead: held.isHead)
                }
                continue
            }
            answer(outcome, on: held.streamID, isHead: held.isHead, session: session)
        }
        flushSession(context: context)
    }
}

/// `:status` values as bytes without formatting an integer per response.
enum StatusText {
    static func withBytes<Result>(_ status: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let known: StaticString? = switch status {
        case 200: "200"
        case 201: "201"
        case 204: "204"
        case 400: "400"
        case 403: "403"
        case 404: "404"
        case 405: "405"
        case 410: "410"
        case 413: "413"
        case 429: "429"
        case 500: "500"
        case 503: "503"
        default: nil
        }
        if let known { return body(UnsafeRawBufferPointer(start: known.utf8Start, count: known.utf8CodeUnitCount)) }
        var text = String(status)
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}

extension Optional where Wrapped == APNsID {
    func withOptionalUTF8<Result>(_ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard let self else { return body(nil) }
        return self.withUTF8 { body($0) }
    }
}

extension Optional where Wrapped == String {
    func withOptionalUTF8<Result>(_ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard var text = self else { return body(nil) }
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
