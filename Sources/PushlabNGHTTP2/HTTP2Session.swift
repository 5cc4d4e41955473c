import CNGHTTP2

/// One HTTP/2 connection's protocol state: an owned `nghttp2_session`, fed bytes with
/// `receive(_:)` and drained with `nextOutboundChunk()`. It does no I/O of its own.
///
/// Not thread-safe: it belongs to the event loop of its channel.
/// Used on one event loop only, never re-entrantly: its stored state skips Swift's run-time
/// exclusivity checks (`@exclusivity(unchecked)`, see Benchmarks/results/performance-history.md).
public final class HTTP2Session {
    public enum Role: Sendable { case server, client }

    public let role: Role
    /// Fixed at init and held strongly, so that a callback borrows it instead of retaining and
    /// releasing it for every header. A delegate that owns its session (a channel handler) breaks
    /// the cycle by dropping the session when the connection closes.
    public let delegate: (any HTTP2SessionDelegate)?

    @exclusivity(unchecked) private var pointer: OpaquePointer!
    @exclusivity(unchecked) private var pendingBodies: [Int32: PendingBody] = [:]
    @exclusivity(unchecked) private var nameValueScratch: UnsafeMutablePointer<nghttp2_nv>
    @exclusivity(unchecked) private var nameValueCapacity = 16

    public init(role: Role, delegate: (any HTTP2SessionDelegate)? = nil) throws {
        self.role = role
        self.delegate = delegate
        self.nameValueScratch = .allocate(capacity: nameValueCapacity)

        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            nameValueScratch.deallocate()
            throw NGHTTP2Error(NGHTTP2_ERR_NOMEM.rawValue, "nghttp2_session_callbacks_new")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        HTTP2Session.install(callbacks)

        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Apple answers PING itself; nghttp2 does too unless told otherwise: keep its default.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1000)
        // Our encoder's table holds only what repeats in answers: the id header names (indexed by
        // the first answer, whose values later answers mark never-indexed) and the error content
        // type. Fresh ids indexed in a 4096-byte table churned both sides' tables (-20% CPU per
        // request at 100x10 without it); with no table at all every answer spelled out the names.
        // The peer's encoder keeps its 4096-byte table (our decoder is unaffected).
        nghttp2_option_set_max_deflate_dynamic_table_size(option, HTTP2Session.deflateTableSize)
        // Closed streams are forgotten at once instead of kept for RFC 7540 priority references,
        // which APNs clients do not send: less bookkeeping per stream.
        nghttp2_option_set_no_closed_streams(option, 1)

        var session: OpaquePointer?
        let userData = Unmanaged.passUnretained(self).toOpaque()
        let result: Int32 = switch role {
        case .server: nghttp2_session_server_new2(&session, callbacks, userData, option)
        case .client: nghttp2_session_client_new2(&session, callbacks, userData, option)
        }
        guard result == 0, let session else {
            nameValueScratch.deallocate()
            throw NGHTTP2Error(result, "nghttp2_session_new")
        }
        self.pointer = session
    }

    /// Room for `apns-id` and `apns-unique-id` with one value each and
    /// `content-type: application/json` (RFC 7541 4.1: name + value + 32 bytes an entry).
    public static let deflateTableSize = 256

    deinit {
        nghttp2_session_del(pointer)
        nameValueScratch.deallocate()
    }

    // MARK: Bytes in and out

    /// Parses `bytes`, calling the delegate for each event. A thrown error is fatal for the
    /// connection; frames nghttp2 queued in response (a GOAWAY) should still be sent.
    public func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let result = nghttp2_session_mem_recv(pointer, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 { throw NGHTTP2Error(Int32(result), "receiving HTTP/2 frames") }
    }

    /// The next serialized frames to send, valid until the next call; nil when nothing is queued.
    public func nextOutboundChunk() throws -> UnsafeRawBufferPointer? {
        var data: UnsafePointer<UInt8>?
        let length = nghttp2_session_mem_send(pointer, &data)
        if length < 0 { throw NGHTTP2Error(Int32(length), "serializing HTTP/2 frames") }
        guard length > 0, let data else { return nil }
        return UnsafeRawBufferPointer(start: data, count: length)
    }

    /// False once the session has nothing more to read or write (after GOAWAY, all streams done).
    public var isActive: Bool {
        nghttp2_session_want_read(pointer) != 0 || nghttp2_session_want_write(pointer) != 0
    }

    // MARK: Submitting frames

    public func submitSettings(_ settings: [HTTP2Setting]) throws {
        let entries = settings.map(\.entry)
        let result = nghttp2_submit_settings(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
        if result != 0 { throw NGHTTP2Error(result, "submitting SETTINGS") }
    }

    /// A response: HEADERS alone with END_STREAM when `body` is nil, else HEADERS then DATA.
    public func submitResponse(streamID: Int32, headers: HTTP2HeaderList, body: [UInt8]? = nil) throws {
        try withNameValues(headers) { nva, count in
            try submitResponse(streamID: streamID, nva: nva, count: count, body: body)
        }
    }

    /// The same with fields given as borrowed bytes: nothing is allocated for the header block.
    public func submitResponse(streamID: Int32, fields: UnsafeBufferPointer<HTTP2FieldBytes>, body: [UInt8]? = nil) throws {
        reserveNameValues(fields.count)
        for (index, field) in fields.enumerated() {
            nameValueScratch[index] = nghttp2_nv(name: field.name, value: field.value, neverIndex: field.neverIndex)
        }
        try submitResponse(streamID: streamID, nva: nameValueScratch, count: fields.count, body: body)
    }

    private func submitResponse(streamID: Int32, nva: UnsafePointer<nghttp2_nv>, count: Int, body: [UInt8]?) throws {
        let result: Int32
        if let body, !body.isEmpty {
            pendingBodies[streamID] = PendingBody(bytes: body)
            var provider = nghttp2_data_provider()
            provider.read_callback = HTTP2Session.readPendingBody
            result = nghttp2_submit_response(pointer, streamID, nva, count, &provider)
        } else {
            result = nghttp2_submit_response(pointer, streamID, nva, count, nil)
        }
        if result != 0 {
            pendingBodies[streamID] = nil
            throw NGHTTP2Error(result, "submitting response")
        }
    }

    /// A request (client role); returns its stream id.
    public func submitRequest(headers: HTTP2HeaderList, body: [UInt8]? = nil) throws -> Int32 {
        let streamID = withNameValues(headers) { nva, count -> Int32 in
            guard let body else {
                return nghttp2_submit_request(pointer, nil, nva, count, nil, nil)
            }
            var provider = nghttp2_data_provider()
            provider.read_callback = HTTP2Session.readPendingBody
            let id = nghttp2_submit_request(pointer, nil, nva, count, &provider, nil)
            if id > 0 { pendingBodies[id] = PendingBody(bytes: body) }
            return id
        }
        if streamID < 0 { throw NGHTTP2Error(streamID, "submitting request") }
        return streamID
    }

    public func submitPing(_ payload: [UInt8] = Array(repeating: 0, count: 8)) throws {
        let result = payload.withUnsafeBufferPointer {
            nghttp2_submit_ping(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress)
        }
        if result != 0 { throw NGHTTP2Error(result, "submitting PING") }
    }

    /// GOAWAY; `lastStreamID` defaults to the last stream this side processed.
    public func submitGoAway(lastStreamID: Int32? = nil, errorCode: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) throws {
        let last = lastStreamID ?? lastProcessedStreamID
        let result = debugData.withUnsafeBufferPointer {
            nghttp2_submit_goaway(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode.rawValue, $0.baseAddress, $0.count)
        }
        if result != 0 { throw NGHTTP2Error(result, "submitting GOAWAY") }
    }

    public func submitResetStream(_ streamID: Int32, errorCode: HTTP2ErrorCode) throws {
        let result = nghttp2_submit_rst_stream(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.rawValue)
        if result != 0 { throw NGHTTP2Error(result, "submitting RST_STREAM") }
    }

    /// The highest peer-initiated stream id this side has processed.
    public var lastProcessedStreamID: Int32 { nghttp2_session_get_last_proc_stream_id(pointer) }

    /// A setting as the peer announced it.
    public func remoteSetting(_ identifier: HTTP2Setting.Identifier) -> UInt32 {
        nghttp2_session_get_remote_settings(pointer, nghttp2_settings_id(UInt32(identifier.rawValue)))
    }

    /// A setting as this side announced it and the peer acknowledged it.
    public func localSetting(_ identifier: HTTP2Setting.Identifier) -> UInt32 {
        nghttp2_session_get_local_settings(pointer, nghttp2_settings_id(UInt32(identifier.rawValue)))
    }

    // MARK: Internals

    private struct PendingBody {
        var bytes: [UInt8]
        var offset = 0
    }

    private func withNameValues<Result>(
        _ headers: HTTP2HeaderList,
        _ body: (UnsafePointer<nghttp2_nv>, Int) throws -> Result
    ) rethrows -> Result {
        reserveNameValues(headers.count)
        return try headers.withNameValues(scratch: nameValueScratch, body)
    }

    private func reserveNameValues(_ count: Int) {
        guard count > nameValueCapacity else { return }
        nameValueScratch.deallocate()
        nameValueCapacity = count * 2
        nameValueScratch = .allocate(capacity: nameValueCapacity)
    }

    fileprivate func copyPendingBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard var pending = pendingBodies[streamID] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(capacity, pending.bytes.count - pending.offset)
        pending.bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + pending.offset, count: count)
        }
        pending.offset += count
        if pending.offset == pending.bytes.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            pendingBodies[streamID] = nil
        } else {
            pendingBodies[streamID] = pending
        }
        return count
    }

    fileprivate func streamDidClose(_ streamID: Int32, errorCode: UInt32) {
        // Most answers have no body: no hashing into an empty table per stream.
        if !pendingBodies.isEmpty { pendingBodies[streamID] = nil }
        delegate?.http2Session(self, didCloseStream: streamID, errorCode: errorCode)
    }

    /// The session a callback belongs to. The session outlives its `nghttp2_session` and so every
    /// callback: borrowing it costs no reference counting per header.
    private static func with<Result>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> Result) -> Result {
        Unmanaged<HTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    private static let readPendingBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        HTTP2Session.with(userData) { $0.copyPendingBody(streamID: streamID, into: buffer!, capacity: length, flags: flags!) }
    }

    private static func install(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            HTTP2Session.with(userData) { session in
                session.delegate?.http2Session(session, didBeginHeadersOn: frame!.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            HTTP2Session.with(userData) { session in
                session.delegate?.http2Session(
                    session,
                    didReceiveHeader: UnsafeRawBufferPointer(start: name, count: nameLength),
                    value: UnsafeRawBufferPointer(start: value, count: valueLength),
                    on: frame!.pointee.hd.stream_id
                )
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            HTTP2Session.with(userData) { session in
                session.delegate?.http2Session(session, didReceiveData: UnsafeRawBufferPointer(start: data, count: length), on: streamID)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            HTTP2Session.with(userData) { session in session.didReceive(frame!) } ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, libErrorCode, userData in
            HTTP2Session.with(userData) { session in
                let header = frame!.pointee.hd
                if libErrorCode == NGHTTP2_ERR_REFUSED_STREAM.rawValue {
                    // A stream past the limit not yet acknowledged: nghttp2 resets it, and goes on.
                    session.delegate?.http2Session(session, didRefuseStream: header.stream_id)
                    return 0
                }
                // Only connection errors are offered: returning a failure here stops nghttp2 before it
                // queues its own GOAWAY.
                guard libErrorCode == NGHTTP2_ERR_PROTO.rawValue,
                      session.delegate?.http2Session(session, takesOverConnectionErrorFor: header.type, streamID: header.stream_id) == true else {
                    return 0
                }
                return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
            }
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            HTTP2Session.with(userData) { $0.streamDidClose(streamID, errorCode: errorCode) }
            return 0
        }
    }

    /// A complete frame: the end of a request or response, an empty DATA frame, SETTINGS, GOAWAY,
    /// PING. False stops reading the peer's input.
    private func didReceive(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
        let header = frame.pointee.hd
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch Int(header.type) {
        case Int(NGHTTP2_HEADERS.rawValue), Int(NGHTTP2_DATA.rawValue):
            if endStream {
                delegate?.http2Session(self, didReceiveEndOfStream: header.stream_id)
            } else if header.length == 0, header.type == UInt8(NGHTTP2_DATA.rawValue) {
                return delegate?.http2Session(self, shouldAcceptEmptyDataFrameOn: header.stream_id) ?? true
            }
        case Int(NGHTTP2_SETTINGS.rawValue):
            let isAck = header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
            let settings = frame.pointee.settings
            var parsed: [HTTP2Setting] = []
            for index in 0..<settings.niv {
                let entry = settings.iv[index]
                if let identifier = HTTP2Setting.Identifier(rawValue: entry.settings_id) {
                    parsed.append(HTTP2Setting(identifier, entry.value))
                }
            }
            delegate?.http2Session(self, didReceiveSettings: parsed, isAck: isAck)
        case Int(NGHTTP2_GOAWAY.rawValue):
            let goAway = frame.pointee.goaway
            let debugData = goAway.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goAway.opaque_data_len)) } ?? []
            delegate?.http2Session(self, didReceiveGoAway: goAway.last_stream_id, errorCode: goAway.error_code, debugData: debugData)
        case Int(NGHTTP2_PING.rawValue):
            delegate?.http2Session(self, didReceivePing: header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0)
        default:
            break
        }
        return true
    }
}
