import PushlabNGHTTP2

/// Records what one side of an HTTP/2 session observed.
final class RecordingDelegate: HTTP2SessionDelegate {
    var headers: [Int32: HTTP2HeaderList] = [:]
    var data: [Int32: [UInt8]] = [:]
    var endedStreams: [Int32] = []
    var closedStreams: [Int32: UInt32] = [:]
    var settings: [[HTTP2Setting]] = []
    var settingsAcks = 0
    var goAways: [(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8])] = []
    var pingAcks = 0
    var onEndOfStream: ((HTTP2Session, Int32) -> Void)?

    func http2Session(_ session: HTTP2Session, didBeginHeadersOn streamID: Int32) {
        if headers[streamID] == nil { headers[streamID] = HTTP2HeaderList() }
    }

    func http2Session(_ session: HTTP2Session, didReceiveHeader name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, on streamID: Int32) {
        headers[streamID, default: HTTP2HeaderList()].append(
            name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)
        )
    }

    func http2Session(_ session: HTTP2Session, didReceiveData data: UnsafeRawBufferPointer, on streamID: Int32) {
        self.data[streamID, default: []].append(contentsOf: data)
    }

    func http2Session(_ session: HTTP2Session, didReceiveEndOfStream streamID: Int32) {
        endedStreams.append(streamID)
        onEndOfStream?(session, streamID)
    }

    func http2Session(_ session: HTTP2Session, didCloseStream streamID: Int32, errorCode: UInt32) {
        closedStreams[streamID] = errorCode
    }

    func http2Session(_ session: HTTP2Session, didReceiveSettings settings: [HTTP2Setting], isAck: Bool) {
        if isAck { settingsAcks += 1 } else { self.settings.append(settings) }
    }

    func http2Session(_ session: HTTP2Session, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        goAways.append((lastStreamID, errorCode, debugData))
    }

    func http2Session(_ session: HTTP2Session, didReceivePing isAck: Bool) {
        if isAck { pingAcks += 1 }
    }
}

/// A client and a server session wired back to back.
final class SessionPair {
    let clientEvents = RecordingDelegate()
    let serverEvents = RecordingDelegate()
    let client: HTTP2Session
    let server: HTTP2Session

    init() throws {
        client = try HTTP2Session(role: .client, delegate: clientEvents)
        server = try HTTP2Session(role: .server, delegate: serverEvents)
        // A client's preface is the magic plus its SETTINGS; nghttp2 leaves SETTINGS to us.
        try client.submitSettings([])
    }

    /// Moves frames both ways until both sides are quiet.
    func exchange() throws {
        for _ in 0..<50 {
            let toServer = try drain(client)
            let toClient = try drain(server)
            if toServer.isEmpty && toClient.isEmpty { return }
            try toServer.withUnsafeBytes { try server.receive($0) }
            try toClient.withUnsafeBytes { try client.receive($0) }
        }
    }

    private func drain(_ session: HTTP2Session) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try session.nextOutboundChunk() { bytes.append(contentsOf: chunk) }
        return bytes
    }
}
