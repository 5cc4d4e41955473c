/// The files of the set, as text: PEM with generate.sh's two "for testing only" comment lines in
/// front (every PEM reader Pushlab's users were found to use skips text before `-----BEGIN`).
extension CertificateSet {
    public struct File: Sendable, Equatable {
        public let name: String
        public let bytes: [UInt8]
        /// Holds a private key: written with mode 0600.
        public let isPrivate: Bool
        /// What the file is, for the line `pushlab certs` prints.
        public let description: String

        /// The bytes as text (every file but `client.p12` is text).
        public var contents: String { String(decoding: bytes, as: UTF8.self) }

        public init(name: String, contents: String, isPrivate: Bool, description: String) {
            self.init(name: name, bytes: Array(contents.utf8), isPrivate: isPrivate, description: description)
        }

        init(name: String, bytes: [UInt8], isPrivate: Bool, description: String) {
            self.name = name
            self.bytes = bytes
            self.isPrivate = isPrivate
            self.description = description
        }
    }

    public func authorityFiles(_ authority: CertificateWithKey) throws -> [File] {
        [
            Self.file(Self.authorityFile, kind: "CA certificate", pem: try authority.certificate.pem(),
                      description: "Pushlab test CA; trust it only in tests (curl --cacert, cafile=, trustRoots)"),
            Self.file(Self.authorityKeyFile, kind: "CA private key", pem: try authority.key.pem(),
                      description: "private key of the Pushlab test CA", isPrivate: true),
        ]
    }

    /// The certificate and its key.
    public func files(of member: Member, _ issued: CertificateWithKey) throws -> [File] {
        [
            Self.file(member.certificateFile, kind: member.kind, pem: try issued.certificate.pem(),
                      description: member.summary(bundleID: identity.bundleID)),
            Self.file(member.keyFile, kind: "private key", pem: try issued.key.pem(),
                      description: "private key of \(member.certificateFile)", isPrivate: true),
        ]
    }

    /// `server.pem` followed by `ca.pem`, for servers that want the chain in one file.
    public func serverChainFile(server: X509Certificate, authority: X509Certificate) throws -> File {
        Self.file(Self.serverChainFile, kind: "server certificate chain", pem: try server.pem() + authority.pem(),
                  description: "server.pem followed by ca.pem")
    }

    /// `client.pem` followed by `client-key.pem`, for tools that take one file (aioapns, PyAPNs2,
    /// Python's `load_cert_chain(certfile)` without a key file).
    public func clientCombinedFile(_ client: CertificateWithKey) throws -> File {
        Self.file(Self.clientCombinedFile, kind: "APNs client certificate and private key",
                  pem: try client.certificate.pem() + client.key.pem(),
                  description: "client.pem followed by client-key.pem", isPrivate: true)
    }

    private static func file(_ name: String, kind: String, pem: String, description: String, isPrivate: Bool = false) -> File {
        let header = """
            # Pushlab TEST \(kind) - for testing only, never trust or use it outside tests
            # \(name): \(description)

            """
        return File(name: name, contents: header + pem, isPrivate: isPrivate, description: description)
    }
}
