import Logging
import NIOCore
import NIOEmbedded
import PushlabCore
import PushlabNGHTTP2
import PushlabTransport

/// An `APNsHTTP2Handler` in an `EmbeddedChannel`, talked to by a real nghttp2 client session.
final class EmbeddedConnection {
    let channel = EmbeddedChannel()
    let client: HTTP2Session
    let events = ClientEvents()
    let registry = ConnectionRegistry()
    /// Every byte the server has written, in order: whole frames from its first SETTINGS on.
    private(set) var serverBytes: [UInt8] = []

    init(
        service: any APNsConnectionFactory, limits: HTTP2Limits = HTTP2Limits(), environment: APNsEnvironment = .development,
        role: APNsListenerRole = .both, commits: (any RecordCommits)? = nil
    ) throws {
        // --durable, composed as the runtime composes it: the rules' answers held for the commit.
        let settings = APNsHTTP2Handler.Settings(
            limits: limits, listenerEnvironment: environment, listenerRole: role, connectionID: 7, logger: Logger(label: "test")
        )
        client = try HTTP2Session(role: .client, delegate: events)
        try client.submitSettings([])
        try channel.pipeline.syncOperations.addHandler(
            APNsHTTP2Handler(
                settings: settings, service: commits.map { CommittingConnectionFactory(service: service, commits: $0) } ?? service,
                registry: registry, startWithoutTLS: true
            )
        )
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try exchange()
    }

    /// Runs what was handed to the connection's event loop (a commit's answer), then moves frames.
    func runEventLoopAndExchange() throws {
        channel.embeddedEventLoop.run()
        try exchange()
    }

    /// Moves frames both ways until both sides are quiet.
    func exchange() throws {
        for _ in 0..<100 {
            var sent = false
            var outbound = channel.allocator.buffer(capacity: 256)
            while let chunk = try client.nextOutboundChunk() { outbound.writeBytes(chunk) }
            if outbound.readableBytes > 0 {
                try channel.writeInbound(outbound)
                sent = true
            }
            var received = false
            while let inbound = try channel.readOutbound(as: ByteBuffer.self) {
                serverBytes.append(contentsOf: inbound.readableBytesView)
                try inbound.withUnsafeReadableBytes { try client.receive($0) }
                received = true
            }
            if !sent && !received { return }
        }
    }

    /// The HPACK block of each HEADERS frame the server sent on `streamID`, as it went out.
    func headerBlocks(on streamID: Int32) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var offset = 0
        while offset + 9 <= serverBytes.count {
            let length = Int(serverBytes[offset]) << 16 | Int(serverBytes[offset + 1]) << 8 | Int(serverBytes[offset + 2])
            let type = serverBytes[offset + 3]
            let stream = serverBytes[offset + 5..<offset + 9].reduce(Int32(0)) { $0 << 8 | Int32($1) } & 0x7FFF_FFFF
            if type == 0x1, stream == streamID { blocks.append(Array(serverBytes[offset + 9..<offset + 9 + length])) }
            offset += 9 + length
        }
        return blocks
    }

    func request(
        method: String = "POST", path: String = "/3/device/" + String(repeating: "ab", count: 32),
        headers: [(String, String)] = [], body: String? = #"{"aps":{"alert":"hi"}}"#
    ) throws -> Int32 {
        var list = HTTP2HeaderList([(":method", method), (":scheme", "https"), (":path", path), (":authority", "localhost")])
        for (name, value) in headers { list.append(name: name, value: value) }
        return try client.submitRequest(headers: list, body: body.map { Array($0.utf8) })
    }
}

final class ClientEvents: HTTP2SessionDelegate {
    var frames: [(type: String, streamID: Int32)] = []
    var headers: [Int32: HTTP2HeaderList] = [:]
    var bodies: [Int32: [UInt8]] = [:]
    var dataFrameStreams: [Int32] = []
    var ended: Set<Int32> = []
    var resets: [Int32: UInt32] = [:]
    var settings: [[HTTP2Setting]] = []
    var goAways: [(lastStreamID: Int32, errorCode: UInt32, debug: String)] = []
    var pingAcks = 0

    func http2Session(_ session: HTTP2Session, didBeginHeadersOn streamID: Int32) {
        headers[streamID] = HTTP2HeaderList()
    }

    func http2Session(_ session: HTTP2Session, didReceiveHeader name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, on streamID: Int32) {
        headers[streamID, default: HTTP2HeaderList()].append(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    func http2Session(_ session: HTTP2Session, didReceiveData data: UnsafeRawBufferPointer, on streamID: Int32) {
        if bodies[streamID] == nil { dataFrameStreams.append(streamID) }
        bodies[streamID, default: []].append(contentsOf: data)
    }

    func http2Session(_ session: HTTP2Session, didReceiveEndOfStream streamID: Int32) {
        ended.insert(streamID)
    }

    func http2Session(_ session: HTTP2Session, didCloseStream streamID: Int32, errorCode: UInt32) {
        if errorCode != 0 { resets[streamID] = errorCode }
    }

    func http2Session(_ session: HTTP2Session, didReceiveSettings settings: [HTTP2Setting], isAck: Bool) {
        if !isAck { self.settings.append(settings) }
    }

    func http2Session(_ session: HTTP2Session, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        goAways.append((lastStreamID, errorCode, String(decoding: debugData, as: UTF8.self)))
    }

    func http2Session(_ session: HTTP2Session, didReceivePing isAck: Bool) {
        if isAck { pingAcks += 1 }
    }

    func status(_ streamID: Int32) -> String? { headers[streamID]?.value(of: ":status") }
    func header(_ name: String, _ streamID: Int32) -> String? { headers[streamID]?.value(of: name) }
    func body(_ streamID: Int32) -> String? { bodies[streamID].map { String(decoding: $0, as: UTF8.self) } }
}
