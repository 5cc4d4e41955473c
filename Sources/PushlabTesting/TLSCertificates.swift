import Foundation

/// The files Pushlab serves TLS with: its certificate chain and key, and the CA that signed it
/// (which clients trust, and which client certificates are verified against).
public struct TLSCertificates: Sendable, Equatable {
    public var serverCertificateChain: URL
    public var serverPrivateKey: URL
    public var certificateAuthority: URL

    public init(serverCertificateChain: URL, serverPrivateKey: URL, certificateAuthority: URL) {
        self.serverCertificateChain = serverCertificateChain
        self.serverPrivateKey = serverPrivateKey
        self.certificateAuthority = certificateAuthority
    }

    /// The repository's test CA and its server certificate for `localhost`, `127.0.0.1`, `::1`
    /// and Apple's three host names, shipped inside this library so a consumer's tests find them
    /// wherever the package was checked out. For testing only.
    public static var bundled: TLSCertificates {
        TLSCertificates(
            serverCertificateChain: BundledFile.url("server.pem"),
            serverPrivateKey: BundledFile.url("server-key.pem"),
            certificateAuthority: BundledFile.url("ca.pem")
        )
    }

    /// Fails with the file at fault, which OpenSSL's own error would not name.
    func checkReadable() throws(PushlabTestingError) {
        for (what, file) in [("server certificate", serverCertificateChain), ("server key", serverPrivateKey), ("CA certificate", certificateAuthority)]
        where !FileManager.default.isReadableFile(atPath: file.path) {
            throw PushlabTestingError("The \(what) \(file.path) cannot be read")
        }
    }
}

/// The copies of `certs/` in `Resources/Certificates`. They are a consistent set of their own
/// (the server certificate is signed by this CA); `certs/generate.sh`, when it remakes `certs/`,
/// copies `ca.pem`, `server.pem`, `server-key.pem` and the `AuthKey_PUSHLAB001` pair here again.
enum BundledFile {
    static func url(_ name: String) -> URL {
        // Where the file should be when the lookup fails, so the error that follows names it.
        Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Certificates")
            ?? (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Certificates/\(name)")
    }
}
