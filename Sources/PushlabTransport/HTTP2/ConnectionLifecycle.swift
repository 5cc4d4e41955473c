import PushlabCore

/// One connection's HTTP/2 lifecycle, as a value: streams opened and answered, GOAWAYs that
/// wait for their answer to be out, reads paused while the peer does not read, and when to
/// close. Events come in as calls; what the connection must do comes back as the result. No I/O:
/// `APNsHTTP2Handler` executes what it answers (and owns the timer and the session).
struct ConnectionLifecycle {
    /// Streams the client opened that have not closed yet (what nghttp2 counts against the limit).
    private(set) var openStreams = 0
    /// The highest stream answered: a GOAWAY for too many streams names it as the last processed.
    private(set) var lastAnsweredStreamID: Int32 = 0
    /// A GOAWAY of our own is queued after a connection error; nghttp2's generic one is not needed.
    private var ownGoAwaySubmitted = false
    /// Close once whatever nghttp2 queued (a GOAWAY) is out.
    private(set) var closeAfterFlush = false
    /// GOAWAYs that wait for their answer's stream to close.
    private var goAwaysAfterStream: [Int32: [ConnectionAction]] = [:]
    /// GOAWAYs whose answer is out: they follow it in a later write.
    private var pendingGoAways: [ConnectionAction] = []
    private var goAwayTimerArmed = false
    private(set) var readsPaused = false
    private var readPending = false
    /// Empty DATA frames in a row (without END_STREAM): a flood ends the connection.
    private var consecutiveEmptyFrames = 0

    // MARK: Streams

    mutating func streamOpened() {
        openStreams += 1
    }

    /// An answer was decided for `streamID`. Its GOAWAYs wait until the answer is out: nghttp2
    /// sends control frames ahead of DATA, and a GOAWAY between an answer's HEADERS and DATA reads
    /// to a client as the connection ending early.
    mutating func streamAnswered(_ streamID: Int32, goAways: [ConnectionAction]) {
        lastAnsweredStreamID = max(lastAnsweredStreamID, streamID)
        if !goAways.isEmpty { goAwaysAfterStream[streamID] = goAways }
    }

    /// What the connection does once a stream closed.
    enum AfterStreamClosed: Equatable {
        case nothing
        /// GOAWAYs are pending now: send them at the next read, or when this timer fires.
        case armGoAwayTimer
    }

    /// A GOAWAY written together with the answer that triggered it reaches the client in the same
    /// read, and a client may then reuse the connection it has just been told is closing (aioapns
    /// sends its next push on it and fails). So it follows the answer: as soon as the client
    /// sends anything more, or after a short pause.
    mutating func streamClosed(_ streamID: Int32) -> AfterStreamClosed {
        openStreams -= 1
        guard let goAways = goAwaysAfterStream.removeValue(forKey: streamID) else { return .nothing }
        pendingGoAways.append(contentsOf: goAways)
        guard !goAwayTimerArmed else { return .nothing }
        goAwayTimerArmed = true
        return .armGoAwayTimer
    }

    /// A client that opens a stream past the limit: APNs answers GOAWAY REFUSED_STREAM naming the
    /// last stream answered, returned here (the client may retry the others elsewhere). Nil: not
    /// past the limit.
    mutating func refuseStream(isNew: Bool, limit: Int) -> Int32? {
        guard isNew, openStreams >= limit else { return nil }
        ownGoAwaySubmitted = true
        return lastAnsweredStreamID
    }

    /// A frame with payload, or a new request: the empty frames before it were no flood.
    mutating func payloadReceived() {
        consecutiveEmptyFrames = 0
    }

    /// An empty DATA frame that does not end its stream. Past `limit` in a row the connection
    /// ends with GOAWAY ENHANCE_YOUR_CALM naming the last stream answered, returned here (our
    /// own GOAWAY, so no PROTOCOL_ERROR one follows). Nil: go on.
    mutating func emptyFrameReceived(limit: Int) -> Int32? {
        consecutiveEmptyFrames += 1
        guard consecutiveEmptyFrames > limit else { return nil }
        ownGoAwaySubmitted = true
        return lastAnsweredStreamID
    }

    // MARK: Reads and writes

    /// Bytes arrived. Pending GOAWAYs go out before they are parsed, so nghttp2 ignores the
    /// streams the read opens and the GOAWAY's last stream id tells the client to retry them.
    mutating func readArrived() -> [ConnectionAction] {
        takePendingGoAways()
    }

    /// The pause after an answer with GOAWAYs is over.
    mutating func goAwayTimerFired() -> [ConnectionAction] {
        takePendingGoAways()
    }

    private mutating func takePendingGoAways() -> [ConnectionAction] {
        goAwayTimerArmed = false
        defer { pendingGoAways = [] }
        return pendingGoAways
    }

    /// nghttp2 refused the peer's bytes: the connection ends once its GOAWAY is out. True when
    /// that GOAWAY is still to be submitted (PROTOCOL_ERROR), false when ours is already queued.
    mutating func sessionFailed() -> Bool {
        closeAfterFlush = true
        return !ownGoAwaySubmitted
    }

    mutating func serializationFailed() {
        closeAfterFlush = true
    }

    /// Whether the connection closes after this flush (also when nghttp2 wants no more after a GOAWAY).
    func closesAfterFlush(sessionActive: Bool) -> Bool {
        closeAfterFlush || !sessionActive
    }

    /// The peer stopped reading our frames: stop reading its (TCP then pushes back on it), so
    /// Pushlab holds at most one window of frames for it.
    mutating func outputBlocked() {
        readsPaused = true
    }

    /// NIO asks for a read: true to read now, false to wait until the peer reads again.
    mutating func readRequested() -> Bool {
        if readsPaused { readPending = true }
        return !readsPaused
    }

    /// The peer reads again: frames may flow.
    mutating func becameWritable() {
        readsPaused = false
    }

    /// After the flush that writability allowed: true when a read was held back and is due now.
    mutating func takeHeldRead() -> Bool {
        defer { readPending = false }
        return readPending
    }

    /// The connection is gone: nothing waits any more.
    mutating func connectionClosed() {
        goAwaysAfterStream.removeAll()
        pendingGoAways.removeAll()
        goAwayTimerArmed = false
    }
}

extension ConnectionAction {
    var isGoAway: Bool {
        if case .goAway = self { return true }
        return false
    }
}
