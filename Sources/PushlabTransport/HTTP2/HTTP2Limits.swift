/// The HTTP/2 parameters Pushlab announces and enforces. Defaults are what APNs sends
/// (reference section 6.2: `{4096, 1000, 65535, 16384, 8000}`); MAX_CONCURRENT_STREAMS is the
/// APNs layer's to decide per connection (`APNsConnectionHandler.initialMaxConcurrentStreams`).
public struct HTTP2Limits: Sendable, Equatable {
    public var headerTableSize: UInt32 = 4096
    public var initialWindowSize: UInt32 = 65535
    public var maxFrameSize: UInt32 = 16384
    public var maxHeaderListSize: UInt32 = 8000
    /// Body bytes kept per request; longer bodies are counted, not stored (APNs allows 5120).
    public var maxBufferedBodyBytes = 16 * 1024
    /// Empty DATA frames without END_STREAM in a row before GOAWAY ENHANCE_YOUR_CALM (a frame
    /// with payload, or a new request, starts the count again). Legal but useless: clients send
    /// none, and a flood of them makes a server work for nothing (CVE-2019-9518).
    public var maxConsecutiveEmptyFrames = 100

    public init() {}
}
