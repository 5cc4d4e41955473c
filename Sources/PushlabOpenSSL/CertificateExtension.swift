import COpenSSL

/// One X.509 v3 extension to put in a certificate being built.
public enum CertificateExtension: Sendable, Equatable {
    /// A standard extension in OpenSSL's configuration syntax, as `certs/generate.sh` writes it in
    /// its `[ v3_* ]` sections: `.configured("basicConstraints", "critical, CA:TRUE, pathlen:0")`.
    /// OpenSSL's own parser turns it into DER, so both tools encode it the same way.
    case configured(_ name: String, _ value: String)
    /// An extension OpenSSL has no name for (Apple's APNs extensions), given as its DER value:
    /// the bytes inside the extension's OCTET STRING.
    case der(oid: String, critical: Bool, value: [UInt8])

    /// Adds the extension to `certificate`; `context` knows the issuer and the subject, which
    /// `subjectKeyIdentifier = hash` and `authorityKeyIdentifier = keyid:always` are computed from.
    func add(to certificate: OpaquePointer, context: inout X509V3_CTX) throws {
        let created: OpaquePointer?
        switch self {
        case .configured(let name, let value):
            created = X509V3_EXT_nconf(nil, &context, name, value)
        case .der(let oid, let critical, let value):
            created = try Self.makeExtension(oid: oid, critical: critical, value: value)
        }
        guard let created else { throw OpenSSLError("making extension \(self)") }
        defer { X509_EXTENSION_free(created) }
        guard X509_add_ext(certificate, created, -1) == 1 else { throw OpenSSLError("adding extension \(self)") }
    }

    private static func makeExtension(oid: String, critical: Bool, value: [UInt8]) throws -> OpaquePointer? {
        guard let object = OBJ_txt2obj(oid, 1) else { throw OpenSSLError("unknown extension OID \(oid)") }
        defer { ASN1_OBJECT_free(object) }
        guard let octets = ASN1_OCTET_STRING_new() else { throw OpenSSLError("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(octets) }
        guard ASN1_OCTET_STRING_set(octets, value, Int32(value.count)) == 1 else {
            throw OpenSSLError("ASN1_OCTET_STRING_set")
        }
        // Copies the object and the value, so both are freed above.
        return X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, octets)
    }
}
