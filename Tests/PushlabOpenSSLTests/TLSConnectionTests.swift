import Foundation
import Testing
@testable import PushlabOpenSSL

/// Two TLS endpoints wired back to back through memory, with no sockets.
private struct Pair {
    let client: TLSConnection
    let server: TLSConnection

    /// Shuttles ciphertext both ways until neither side has anything to say.
    func pump() throws {
        for _ in 0..<20 {
            let toServer = drain(client)
            let toClient = drain(server)
            if toServer.isEmpty && toClient.isEmpty { return }
            toServer.withUnsafeBytes { server.feedCiphertext($0) }
            toClient.withUnsafeBytes { client.feedCiphertext($0) }
            if !server.isHandshakeComplete { _ = try server.handshake() }
            if !client.isHandshakeComplete { _ = try client.handshake() }
        }
    }

    func handshake() throws {
        _ = try client.handshake()
        try pump()
    }

    func drain(_ connection: TLSConnection) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: connection.pendingCiphertextCount)
        let count = bytes.withUnsafeMutableBytes { connection.drainCiphertext(into: $0) }
        return Array(bytes.prefix(count))
    }
}

private func serverContext(clientCA: Bool = true) throws -> TLSContext {
    try TLSContext(
        serverCertificateChainFile: TestCertificates.path("server.pem"),
        privateKeyFile: TestCertificates.path("server-key.pem"),
        clientCertificateAuthoritiesFile: clientCA ? TestCertificates.path("ca.pem") : nil
    )
}

private func clientContext(alpn: [String] = ["h2"], certificate: String? = nil) throws -> TLSContext {
    try TLSContext(
        trustedCertificatesFile: TestCertificates.path("ca.pem"),
        certificateFile: certificate.map { TestCertificates.path("\($0).pem") },
        privateKeyFile: certificate.map { TestCertificates.path("\($0)-key.pem") },
        alpn: alpn
    )
}

private func read(_ connection: TLSConnection) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let result = try buffer.withUnsafeMutableBytes { try connection.readPlaintext(into: $0) }
    guard case .bytes(let count) = result else { return [] }
    return Array(buffer.prefix(count))
}

/// Every plaintext byte `connection` can decrypt while `ciphertext` is lent to it.
private func readAll(_ connection: TLSConnection, lending ciphertext: [UInt8]) throws -> [UInt8] {
    try ciphertext.withUnsafeBytes { bytes in
        try connection.receiving(bytes) {
            var received: [UInt8] = []
            while case let plaintext = try read(connection), !plaintext.isEmpty { received += plaintext }
            return received
        }
    }
}

@Suite("TLS through BIOs in memory")
struct TLSConnectionTests {
    @Test func handshakeNegotiatesH2AndSNIAndCarriesDataBothWays() throws {
        let pair = Pair(
            client: try TLSConnection(context: clientContext(), serverName: "api.sandbox.push.apple.com"),
            server: try TLSConnection(context: serverContext())
        )
        try pair.handshake()
        #expect(pair.server.isHandshakeComplete && pair.client.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == "h2")
        #expect(pair.client.negotiatedALPN == "h2")
        #expect(pair.server.serverName == "api.sandbox.push.apple.com")
        #expect(pair.server.protocolVersion == "TLSv1.3")
        #expect(pair.server.peerCertificate == nil)

        try Array("PRI * HTTP/2.0".utf8).withUnsafeBytes { try pair.client.writePlaintext($0) }
        try pair.pump()
        #expect(try read(pair.server) == Array("PRI * HTTP/2.0".utf8))
        try Array("pong".utf8).withUnsafeBytes { try pair.server.writePlaintext($0) }
        try pair.pump()
        #expect(try read(pair.client) == Array("pong".utf8))
    }

    @Test func clientWithoutALPNStillCompletesTheHandshake() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(alpn: [])), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == nil)
    }

    @Test func clientOfferingOnlyHTTP1GetsNoProtocol() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(alpn: ["http/1.1"])), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        #expect(pair.server.negotiatedALPN == nil)
    }

    @Test func trustedClientCertificateIsSeenAndVerified() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(certificate: "client")), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        let certificate = try #require(pair.server.peerCertificate)
        #expect(pair.server.peerVerification.isTrusted)
        #expect(certificate.subjectValues(oid: "0.9.2342.19200300.100.1.1") == ["com.pushlab.demo"])
        #expect(certificate.subject.contains("CN=Apple Push Services: com.pushlab.demo"))
    }

    @Test(arguments: [("client-untrusted", false), ("client-expired", true)])
    func unverifiableClientCertificateStillConnectsButIsNotTrusted(name: String, expired: Bool) throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(certificate: name)), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.peerCertificate != nil)
        #expect(!pair.server.peerVerification.isTrusted)
        #expect(pair.server.peerVerification.isExpired == expired)
    }

    @Test func clientCertificateWithoutConfiguredCAIsNotTrusted() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(certificate: "client")), server: try TLSConnection(context: serverContext(clientCA: false)))
        try pair.handshake()
        #expect(pair.server.peerCertificate != nil)
        #expect(!pair.server.peerVerification.isTrusted)
    }

    @Test func clientRejectsServerNotSignedByItsTrustRoots() throws {
        let distrustful = try TLSContext(trustedCertificatesFile: TestCertificates.path("client-untrusted.pem"))
        let pair = Pair(client: try TLSConnection(context: distrustful, serverName: "localhost"), server: try TLSConnection(context: serverContext()))
        #expect(throws: OpenSSLError.self) { try pair.handshake() }
        // What a message needs: OpenSSL's verdict, and whose certificate it refused.
        #expect(!pair.client.peerVerification.isTrusted && !pair.client.peerVerification.isNameMismatch)
        #expect(pair.client.rejectedPeerCertificate?.subject == "CN=localhost")
        #expect(pair.client.rejectedPeerCertificate?.issuer == "CN=Pushlab Test CA (for testing only)")
    }

    @Test func clientRejectsServerWithoutTheNameItConnectedBy() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(), serverName: "elsewhere.example"), server: try TLSConnection(context: serverContext()))
        #expect(throws: OpenSSLError.self) { try pair.handshake() }
        #expect(pair.client.peerVerification.isNameMismatch)
        #expect(pair.client.rejectedPeerCertificate?.subject == "CN=localhost")
    }

    @Test func acceptedServerLeavesNoRejectedCertificate() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext(), serverName: "localhost"), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        #expect(pair.client.rejectedPeerCertificate == nil)
    }

    @Test func clientPresentsTheCertificateOfAPKCS12File() throws {
        let context = try TLSContext(
            trustedCertificatesFile: TestCertificates.path("ca.pem"),
            certificateFile: TestCertificates.path("client.p12"), certificatePassword: "pushlab"
        )
        let pair = Pair(client: try TLSConnection(context: context), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        #expect(pair.server.peerVerification.isTrusted)
        let committed = try X509Certificate(pem: String(contentsOfFile: TestCertificates.path("client.pem"), encoding: .utf8))
        #expect(pair.server.peerCertificate?.derBytes == committed.derBytes)
        #expect(throws: PKCS12ReadError.self) {
            try TLSContext(certificateFile: TestCertificates.path("client.p12"), certificatePassword: "wrong")
        }
    }

    @Test func missingCertificateFileIsAReadableError() {
        #expect {
            try TLSContext(serverCertificateChainFile: "/nonexistent.pem", privateKeyFile: "/nonexistent-key.pem")
        } throws: { error in
            "\(error)".contains("/nonexistent.pem")
        }
    }

    /// Records arrive split at arbitrary points: each piece is lent only while it is read, and
    /// OpenSSL finishes a record from the next piece.
    @Test(arguments: [1, 7, 100])
    func recordsSplitAcrossLoansAreReadInPlace(pieceSize: Int) throws {
        let pair = Pair(client: try TLSConnection(context: clientContext()), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        let messages = ["first message", String(repeating: "second ", count: 300)]
        for message in messages { try Array(message.utf8).withUnsafeBytes { try pair.client.writePlaintext($0) } }
        let ciphertext = pair.drain(pair.client)
        var received: [UInt8] = []
        for start in stride(from: 0, to: ciphertext.count, by: pieceSize) {
            let piece = Array(ciphertext[start..<min(start + pieceSize, ciphertext.count)])
            received += try readAll(pair.server, lending: piece)
        }
        #expect(received == Array(messages.joined().utf8))
    }

    /// A loan that ends before OpenSSL read everything (the reader stopped after one record) keeps
    /// the rest: it is read on a later call that lends nothing new.
    @Test func ciphertextLeftUnreadIsKeptForTheNextCall() throws {
        let pair = Pair(client: try TLSConnection(context: clientContext()), server: try TLSConnection(context: serverContext()))
        try pair.handshake()
        for message in ["one", "two", "three"] { try Array(message.utf8).withUnsafeBytes { try pair.client.writePlaintext($0) } }
        let ciphertext = pair.drain(pair.client)
        let first = try ciphertext.withUnsafeBytes { bytes in try pair.server.receiving(bytes) { try read(pair.server) } }
        #expect(first == Array("one".utf8))
        let second = try [UInt8]().withUnsafeBytes { bytes in try pair.server.receiving(bytes) { try read(pair.server) } }
        #expect(second == Array("two".utf8))
        // New bytes lent later come after the kept ones.
        try Array("four".utf8).withUnsafeBytes { try pair.client.writePlaintext($0) }
        let more = pair.drain(pair.client)
        #expect(try readAll(pair.server, lending: more) == Array("threefour".utf8))
    }
}
