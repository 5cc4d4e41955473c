import PushlabOpenSSL

/// The files senders use besides the PEM pairs: `client.p12` (certificate auth in PushMeBaby- and
/// Knuff-style tools), the provider-token key with `sample-key.json` (token auth); and a note for
/// folders other than `certs/`, which has its own README.
extension Certs {
    /// Rewritten when the client certificate or the CA changed, or the old one does not open with
    /// the password asked for; kept otherwise (its salts are random, so a new one always differs).
    func writeClientPKCS12(_ set: CertificateSet, _ client: CertificateWithKey, authority: X509Certificate, into folder: CertsOutputFolder) throws {
        let name = CertificateSet.clientPKCS12File
        if let existing = try folder.bytes(of: name),
           CertificateSet.pkcs12(existing, holds: client.certificate, authority: authority, password: p12Password) {
            report("kept", folder, name)
        } else {
            try write([set.clientPKCS12File(client, authority: authority, password: p12Password)], into: folder)
        }
    }

    /// The key in `AuthKey_<key id>.p8` when it can stay (not with --force); nil when there is
    /// none. One that is not an EC P-256 PKCS#8 key without comment lines stops the command
    /// before anything is written.
    func reusableTokenKey(in folder: CertsOutputFolder) throws -> PrivateKey? {
        let name = CertificateSet.tokenKeyFile(keyID: keyId)
        guard !force, let text = try folder.text(of: name) else { return nil }
        switch CertificateSet.tokenKey(from: text) {
        case .success(let key):
            return key
        case .failure(let problem):
            throw CLIFailure("""
                \(folder.path) holds a token key that is not the one asked for; nothing was written:
                  \(name): \(problem)
                Pass --force to make a new one, another --key-id, or choose another folder.
                """)
        }
    }

    func writeTokenKey(_ set: CertificateSet, kept: PrivateKey?, into folder: CertsOutputFolder) throws {
        let files = try set.tokenKeyFiles(kept ?? PrivateKey.generateP256(), keyID: keyId)
        if kept != nil {
            report("kept", folder, files.privateKey.name)
        } else {
            try write([files.privateKey], into: folder)
        }
        try writeIfChanged(files.publicKey, into: folder)
        try writeIfChanged(set.sampleKeyFile(keyID: keyId), into: folder)
    }

    func writeFolderNoteIfMissing(into folder: CertsOutputFolder) throws {
        let name = "README.md"
        guard !folder.exists(name) else {
            report("kept", folder, name)
            return
        }
        try write([CertificateSet.File(name: name, contents: """
            # Pushlab TEST certificates and keys - for testing only

            Made by `pushlab certs` (certs/generate.sh runs it). Never trust ca.pem, nor use any
            of these certificates or keys, outside tests. See certs/README.md in the Pushlab
            repository for what each file is (sample-key.json names the token key's ids).

            """, isPrivate: false, description: "what these files are; for testing only")], into: folder)
    }
}
