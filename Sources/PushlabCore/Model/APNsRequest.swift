/// One request as it arrived on a stream: pseudo-headers, every header in order (duplicates
/// kept, so `DuplicateHeaders` can be told apart), and the body.
public struct APNsRequest: Sendable {
    public var method: String?
    public var authority: String?
    public var scheme: String?
    /// `:path` and the regular headers (lower-case names, in arrival order) as bytes.
    public var fields: RequestFields
    /// The body, up to the transport's buffering limit.
    public var body: [UInt8]
    /// The body's full length, which may exceed `body.count` for an oversized payload.
    public var bodyLength: Int
    /// The HTTP/2 stream the request came on.
    public var streamID: Int32

    public init(
        method: String? = "POST", path: String? = nil, authority: String? = nil, scheme: String? = "https",
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], bodyLength: Int? = nil, streamID: Int32 = 1
    ) {
        self.method = method
        self.authority = authority
        self.scheme = scheme
        self.fields = RequestFields(path: path, headers: headers)
        self.body = body
        self.bodyLength = bodyLength ?? body.count
        self.streamID = streamID
    }

    public var path: String? { fields.path }

    /// Regular (non-pseudo) headers, lower-case names, in arrival order.
    public var headers: [(name: String, value: String)] { fields.headers }

    /// The first value of a header (names are compared as given: HTTP/2 names are lower case).
    public func header(_ name: String) -> String? {
        for index in 0..<fields.headerCount where fields.name(at: index) == name { return fields.value(at: index) }
        return nil
    }

    /// How many times a header occurs.
    public func occurrences(of name: String) -> Int {
        (0..<fields.headerCount).reduce(0) { $0 + (fields.name(at: $1) == name ? 1 : 0) }
    }
}
