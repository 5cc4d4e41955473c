/// What an `HTTP2Session` reports while it parses frames. Every callback runs synchronously
/// inside `HTTP2Session.receive(_:)`; header and data buffers are valid only during the call.
public protocol HTTP2SessionDelegate: AnyObject {
    /// A HEADERS frame opened a stream: a request on a server, a response on a client.
    func http2Session(_ session: HTTP2Session, didBeginHeadersOn streamID: Int32)
    func http2Session(_ session: HTTP2Session, didReceiveHeader name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, on streamID: Int32)
    func http2Session(_ session: HTTP2Session, didReceiveData data: UnsafeRawBufferPointer, on streamID: Int32)
    /// The peer has finished its side of the stream (END_STREAM on HEADERS or DATA).
    func http2Session(_ session: HTTP2Session, didReceiveEndOfStream streamID: Int32)
    func http2Session(_ session: HTTP2Session, didCloseStream streamID: Int32, errorCode: UInt32)
    func http2Session(_ session: HTTP2Session, didReceiveSettings settings: [HTTP2Setting], isAck: Bool)
    func http2Session(_ session: HTTP2Session, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8])
    func http2Session(_ session: HTTP2Session, didReceivePing isAck: Bool)
    /// nghttp2 found a frame that ends the connection (RFC 9113 connection error). Return true to
    /// take over: the delegate then submits its own GOAWAY, and nghttp2 sends none.
    func http2Session(_ session: HTTP2Session, takesOverConnectionErrorFor frameType: UInt8, streamID: Int32) -> Bool
    /// The peer opened a stream past the MAX_CONCURRENT_STREAMS it has not yet acknowledged:
    /// nghttp2 reset it with REFUSED_STREAM, and the connection goes on.
    func http2Session(_ session: HTTP2Session, didRefuseStream streamID: Int32)
    /// A DATA frame with no payload that does not end its stream: legal, and useless, so a flood
    /// of them is a way to make a server work for nothing. Return false to stop reading the
    /// peer's input (the delegate submits its own GOAWAY first).
    func http2Session(_ session: HTTP2Session, shouldAcceptEmptyDataFrameOn streamID: Int32) -> Bool
}

extension HTTP2SessionDelegate {
    public func http2Session(_ session: HTTP2Session, didCloseStream streamID: Int32, errorCode: UInt32) {}
    public func http2Session(_ session: HTTP2Session, didReceiveSettings settings: [HTTP2Setting], isAck: Bool) {}
    public func http2Session(_ session: HTTP2Session, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {}
    public func http2Session(_ session: HTTP2Session, didReceivePing isAck: Bool) {}
    public func http2Session(_ session: HTTP2Session, takesOverConnectionErrorFor frameType: UInt8, streamID: Int32) -> Bool { false }
    public func http2Session(_ session: HTTP2Session, didRefuseStream streamID: Int32) {}
    public func http2Session(_ session: HTTP2Session, shouldAcceptEmptyDataFrameOn streamID: Int32) -> Bool { true }
}
