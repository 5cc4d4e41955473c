/// What the transport knows about a connection once TLS is up, as plain values.
public struct ConnectionInfo: Sendable {
    public var id: UInt64
    /// The environment of the listener (port) the connection arrived on.
    public var listenerEnvironment: APNsEnvironment
    /// The APIs the listener the connection arrived on serves.
    public var listenerRole: APNsListenerRole
    /// The TLS SNI host name, if the client sent one.
    public var serverName: String?
    public var alpn: String?
    public var tlsVersion: String?
    public var remoteAddress: String?
    public var clientCertificate: ClientCertificate?

    public init(
        id: UInt64, listenerEnvironment: APNsEnvironment, listenerRole: APNsListenerRole = .both, serverName: String? = nil,
        alpn: String? = nil, tlsVersion: String? = nil, remoteAddress: String? = nil, clientCertificate: ClientCertificate? = nil
    ) {
        self.id = id
        self.listenerEnvironment = listenerEnvironment
        self.listenerRole = listenerRole
        self.serverName = serverName
        self.alpn = alpn
        self.tlsVersion = tlsVersion
        self.remoteAddress = remoteAddress
        self.clientCertificate = clientCertificate
    }

    /// The connection's environment: an Apple host name in SNI decides, else the listener.
    public var environment: APNsEnvironment {
        serverName.flatMap(APNsEnvironment.init(appleHost:)) ?? listenerEnvironment
    }

    /// A request's environment: an Apple host in `:authority` decides, then the connection's.
    public func environment(for request: APNsRequest) -> APNsEnvironment {
        request.authority.flatMap(APNsEnvironment.init(appleHost:)) ?? environment
    }
}

/// A client certificate presented during the TLS handshake, read out by the transport.
public struct ClientCertificate: Sendable, Equatable {
    /// RFC 2253 subject, e.g. `UID=com.example.app,CN=Apple Push Services: com.example.app`.
    public var subject: String
    /// Values of the subject's UID attribute (0.9.2342.19200300.100.1.1).
    public var userIDs: [String]
    /// DER values of the extensions APNs reads, keyed by OID (topics, VoIP topics, environments).
    public var extensions: [String: [UInt8]]
    public var notBefore: Int64
    public var notAfter: Int64
    /// Whether the chain verified against the configured certificate authorities.
    public var isTrusted: Bool
    /// OpenSSL's reason when it did not.
    public var verificationError: String?

    public init(
        subject: String, userIDs: [String], extensions: [String: [UInt8]], notBefore: Int64, notAfter: Int64,
        isTrusted: Bool, verificationError: String?
    ) {
        self.subject = subject
        self.userIDs = userIDs
        self.extensions = extensions
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isTrusted = isTrusted
        self.verificationError = verificationError
    }

    /// The extension OIDs the transport reads out of a certificate for the APNs layer.
    public static let apnsExtensionOIDs = [
        "1.2.840.113635.100.6.3.1",  // development (sandbox) environment
        "1.2.840.113635.100.6.3.2",  // production environment
        "1.2.840.113635.100.6.3.4",  // VoIP topics
        "1.2.840.113635.100.6.3.6",  // topics
    ]
}
