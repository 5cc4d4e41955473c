import ArgumentParser
import Foundation
import PushlabOpenSSL

struct Certs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a test CA, a server certificate, APNs client certificates and a token key (for testing only).",
        discussion: """
        Writes into OUTPUT_DIR Pushlab's test PKI, through OpenSSL's library (no openssl \
        command needed); certs/generate.sh runs this. For testing only: never trust ca.pem \
        outside tests.

          ca.pem, ca-key.pem          test CA, EC P-256, 10 years
          server.pem, server-key.pem  server certificate, EC P-256, 825 days, for
                                      localhost, 127.0.0.1, ::1, api.push.apple.com,
                                      api.sandbox.push.apple.com,
                                      api.development.push.apple.com and the
                                      api-broadcast and api-manage-broadcast
                                      hosts (both environments)
          server-chain.pem            server.pem followed by ca.pem
          client.pem                  APNs client certificate, RSA 2048: UID and CN
                                      from --bundle-id, OU --team-id, O --org; both
                                      environments; topics <bundle id>, .voip and
                                      .complication
          client-development.pem      development (sandbox) only
          client-production.pem       production only
          client-single-topic.pem     no topic list: the bundle id is the only topic
          client-expired.pem          expired in 2021: must be refused
          client-untrusted.pem        signed by another CA: must be refused
          client-combined.pem         client.pem followed by client-key.pem
          client.p12                  client.pem + key + ca.pem as PKCS#12, password
                                      --p12-password (pushlab); 3DES and a SHA-1 MAC,
                                      which macOS Keychain and older tools read
          AuthKey_<key id>.p8         provider-token (ES256) key, EC P-256 PKCS#8,
          AuthKey_<key id>.pub.pem    and its public key (no comment lines)
          sample-key.json             key id, team id, bundle id and the key files
          README.md                   a "for testing only" note, when missing
        Each NAME.pem comes with its NAME-key.pem. Private keys get mode 0600.

        Running it again is safe. An existing ca.pem with its ca-key.pem is reused, so \
        whoever trusts it trusts the new certificates; a CA without its key, with a key \
        that is not its own, or expired is an error (--new-ca replaces it). A certificate \
        that is still right (its key matches, ca.pem signed it, it has the subject, \
        environments and topics asked for, and 30 days left) is kept as it is. One that \
        is not (another bundle id, team, org or CA, or about to expire) stops the \
        command before anything is written; --force reissues every certificate with a \
        new key under the same CA, and makes a new token key. server-chain.pem, \
        client-combined.pem, client.p12 and the token key's .pub.pem follow their parts.

        Examples:
          pushlab certs            # in certs/: make what is missing, keep the rest
          pushlab certs /tmp/pki --bundle-id com.example.app --team-id ABCDE12345
          pushlab certs /tmp/pki --bundle-id com.example.other --force   # same CA
          pushlab serve --tls-cert /tmp/pki/server-chain.pem \\
            --tls-key /tmp/pki/server-key.pem --client-ca /tmp/pki/ca.pem
          pushlab send <token> --topic com.example.app --ca /tmp/pki/ca.pem \\
            --cert /tmp/pki/client.pem --cert-key /tmp/pki/client-key.pem
          pushlab send <token> --topic com.example.app --ca /tmp/pki/ca.pem \\
            --cert /tmp/pki/client.p12 --cert-password pushlab
        """
    )

    @Argument(help: "Folder to write into, made if missing.")
    var outputDir = "certs"

    @Option(help: "The app's bundle id: the client certificates' UID, CN and topics.")
    var bundleId = APNsClientIdentity.demo.bundleID

    @Option(help: "The team id: the client certificates' OU.")
    var teamId = APNsClientIdentity.demo.teamID

    @Option(help: "The organisation: the client certificates' O.")
    var org = APNsClientIdentity.demo.organization

    @Option(help: "The provider-token key id (kid): names AuthKey_<key id>.p8.")
    var keyId = CertificateSet.defaultKeyID

    @Option(help: "The password of client.p12.")
    var p12Password = CertificateSet.defaultPKCS12Password

    @Flag(help: "Reissue every server and client certificate with a new key, even those still right, and make a new token key (the CA is kept).")
    var force = false

    @Flag(help: "Replace the CA too, and so every certificate: whoever trusts the old ca.pem must be given the new one.")
    var newCa = false

    func validate() throws {
        _ = try identity()
        if let problem = CertificateSet.problem(withKeyID: keyId) { throw ValidationError(problem) }
    }

    func run() throws {
        let set = CertificateSet(identity: try identity())
        let folder = try CertsOutputFolder(outputDir)
        // Decide everything before writing anything: a conflict leaves the folder as it was.
        let existingAuthority = newCa ? nil : try reusableAuthority(in: folder)
        let kept = try keptCertificates(in: folder, of: set, authority: existingAuthority)
        let keptTokenKey = try reusableTokenKey(in: folder)

        let authority: CertificateWithKey
        if let existingAuthority {
            authority = existingAuthority
            report("kept", folder, CertificateSet.authorityFile, CertificateSet.authorityKeyFile)
        } else {
            authority = try set.makeAuthority()
            try write(set.authorityFiles(authority), into: folder)
        }
        var issued: [CertificateSet.Member: CertificateWithKey] = [:]
        for member in CertificateSet.Member.allCases {
            if let pair = kept[member] {
                issued[member] = pair
                report("kept", folder, member.certificateFile, member.keyFile)
            } else {
                let pair = try set.issue(member, by: authority)
                issued[member] = pair
                try write(set.files(of: member, pair), into: folder)
            }
        }
        if let server = issued[.server], let client = issued[.client] {
            try writeIfChanged(set.serverChainFile(server: server.certificate, authority: authority.certificate), into: folder)
            try writeIfChanged(set.clientCombinedFile(client), into: folder)
            try writeClientPKCS12(set, client, authority: authority.certificate, into: folder)
        }
        try writeTokenKey(set, kept: keptTokenKey, into: folder)
        try writeFolderNoteIfMissing(into: folder)
        print("For testing only. Serve with: pushlab serve --tls-cert \(folder.filePath(CertificateSet.serverChainFile)) "
            + "--tls-key \(folder.filePath(CertificateSet.Member.server.keyFile)) --client-ca \(folder.filePath(CertificateSet.authorityFile))")
    }

    /// The certificates already in the folder that can stay (none with --force or --new-ca).
    /// Throws, naming each, when some are there that are not what was asked for.
    private func keptCertificates(
        in folder: CertsOutputFolder, of set: CertificateSet, authority: CertificateWithKey?
    ) throws -> [CertificateSet.Member: CertificateWithKey] {
        guard !force, !newCa else { return [:] }
        let now = Int64(Date().timeIntervalSince1970)
        var kept: [CertificateSet.Member: CertificateWithKey] = [:]
        var conflicts: [String] = []
        for member in CertificateSet.Member.allCases {
            guard let authority else {
                // A new CA in a folder that still holds certificates: none of them chains to it.
                if folder.exists(member.certificateFile) || folder.exists(member.keyFile) {
                    conflicts.append("\(member.certificateFile): it was issued by a CA that is no longer here (no ca.pem, ca-key.pem)")
                }
                continue
            }
            switch try folder.pair(member.certificateFile, member.keyFile) {
            case nil:
                continue
            case .failure(let problem):
                conflicts.append("\(member.certificateFile): \(problem.description)")
            case .success(let pair):
                if let problem = set.problem(with: pair.certificate, as: member, authority: authority.certificate, now: now) {
                    conflicts.append("\(member.certificateFile): \(problem)")
                } else {
                    kept[member] = pair
                }
            }
        }
        guard conflicts.isEmpty else {
            throw CLIFailure("""
                \(folder.path) holds certificates that are not the ones asked for; nothing was written:
                  \(conflicts.joined(separator: "\n  "))
                Pass --force to reissue the server and client certificates \(authority == nil ? "under a new CA" : "under the same CA"), \
                or choose another folder.
                """)
        }
        return kept
    }

    private func identity() throws -> APNsClientIdentity {
        do {
            return try APNsClientIdentity(bundleID: bundleId, teamID: teamId, organization: org)
        } catch let invalid as APNsClientIdentity.InvalidIdentity {
            throw ValidationError(invalid.description)
        }
    }

    /// The CA already in the folder, nil when there is none; one that cannot sign is an error.
    private func reusableAuthority(in folder: CertsOutputFolder) throws -> CertificateWithKey? {
        let replace = "Restore it, or pass --new-ca to make a new CA (whoever trusts the old ca.pem must then be given the new one)."
        switch try folder.pair(CertificateSet.authorityFile, CertificateSet.authorityKeyFile) {
        case nil:
            return nil
        case .failure(let problem):
            throw CLIFailure("\(folder.path): \(problem.description). \(replace)")
        case .success(let pair):
            if let problem = CertificateSet.problem(withAuthority: pair.certificate) {
                throw CLIFailure("\(folder.path): \(problem). \(replace)")
            }
            return pair
        }
    }

    func write(_ files: [CertificateSet.File], into folder: CertsOutputFolder) throws {
        for file in files {
            try folder.write(file)
            print(Self.line("wrote", folder.filePath(file.name), file.isPrivate ? "mode 0600, \(file.description)" : file.description))
        }
    }

    /// For the files made of others: rewritten only when their parts changed.
    func writeIfChanged(_ file: CertificateSet.File, into folder: CertsOutputFolder) throws {
        if try folder.bytes(of: file.name) == file.bytes {
            report("kept", folder, file.name)
        } else {
            try write([file], into: folder)
        }
    }

    func report(_ verb: String, _ folder: CertsOutputFolder, _ names: String...) {
        for name in names {
            print(Self.line(verb, folder.filePath(name), "already right, unchanged"))
        }
    }

    private static func line(_ verb: String, _ path: String, _ note: String) -> String {
        let padded = path.count < 36 ? path + String(repeating: " ", count: 36 - path.count) : path
        return "\(verb.padding(toLength: 5, withPad: " ", startingAt: 0)) \(padded)  \(note)"
    }
}
