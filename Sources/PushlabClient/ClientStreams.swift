import NIOCore
import PushlabCore
import PushlabNGHTTP2

/// Each open stream's answer as it arrives, and the promise waiting for it.
final class ClientStreams: HTTP2SessionDelegate {
    private struct Pending {
        var promise: EventLoopPromise<APNsAnswer>
        var headers: [(String, String)] = []
        var body: [UInt8] = []
    }

    private var pending: [Int32: Pending] = [:]
    /// `{"reason":…}` (or the error code) of a GOAWAY the server sent.
    private(set) var goAway: String?
    /// The last stream that GOAWAY says the server processed: a later one it never saw.
    private var goAwayLastStreamID: Int32?

    func await(_ stream: Int32, _ promise: EventLoopPromise<APNsAnswer>) {
        pending[stream] = Pending(promise: promise)
    }

    func failAll(_ error: APNsClientError) {
        let waiting = pending.values
        pending = [:]
        for stream in waiting { stream.promise.fail(error) }
    }

    func http2Session(_ session: HTTP2Session, didBeginHeadersOn streamID: Int32) {}

    func http2Session(_ session: HTTP2Session, didReceiveHeader name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, on streamID: Int32) {
        pending[streamID]?.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    func http2Session(_ session: HTTP2Session, didReceiveData data: UnsafeRawBufferPointer, on streamID: Int32) {
        pending[streamID]?.body.append(contentsOf: data)
    }

    func http2Session(_ session: HTTP2Session, didReceiveEndOfStream streamID: Int32) {
        guard let stream = pending.removeValue(forKey: streamID) else { return }
        stream.promise.succeed(Self.answer(headers: stream.headers, body: stream.body))
    }

    func http2Session(_ session: HTTP2Session, didCloseStream streamID: Int32, errorCode: UInt32) {
        // Closed without END_STREAM from the server: reset.
        guard let stream = pending.removeValue(forKey: streamID) else { return }
        let why = goAway.map { "after GOAWAY \($0)" } ?? "RST_STREAM error code \(errorCode)"
        // RFC 9113 6.8: a stream after the GOAWAY's last one was not processed, and may be sent
        // again on a new connection.
        let unprocessed = goAwayLastStreamID.map { streamID > $0 } ?? false
        stream.promise.fail(APNsClientError("The server reset the stream (\(why))", unprocessed: unprocessed))
    }

    func http2Session(_ session: HTTP2Session, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        goAway = debugData.isEmpty ? "error code \(errorCode)" : String(decoding: debugData, as: UTF8.self)
        goAwayLastStreamID = lastStreamID
    }

    static func answer(headers: [(String, String)], body: [UInt8]) -> APNsAnswer {
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        let json = body.isEmpty ? nil : try? JSONParser.parse(body)
        return APNsAnswer(
            status: Int(header(":status") ?? "") ?? 0, apnsID: header("apns-id"), apnsUniqueID: header("apns-unique-id"),
            reason: json?["reason"]?.stringValue, timestamp: json?["timestamp"]?.integerValue,
            body: String(decoding: body, as: UTF8.self), requestID: header("apns-request-id"), channelID: header("apns-channel-id")
        )
    }
}
