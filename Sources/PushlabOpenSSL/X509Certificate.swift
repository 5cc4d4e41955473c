import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An owned `X509`. Everything the APNs layer needs is read out as plain Swift values, so the
/// core never sees an OpenSSL type.
public final class X509Certificate: @unchecked Sendable {
    // Never mutated after init; OpenSSL's read accessors on X509 are thread-safe. Internal, not
    // private, for the extensions in the other X509Certificate+ files (PEM, verification).
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Reads the first certificate of a PEM file or string.
    public convenience init(pem: String) throws {
        self.init(taking: try PEMInput.read(pem, what: "reading PEM certificate") { PEM_read_bio_X509($0, nil, nil, nil) })
    }

    deinit {
        X509_free(pointer)
    }

    /// The subject as RFC 2253 text, e.g. `UID=com.example.app,CN=Apple Push Services: com.example.app`.
    public var subject: String { Self.rfc2253(X509_get_subject_name(pointer)) }

    /// The issuer (who signed it) as RFC 2253 text, e.g. `CN=Pushlab Test CA (for testing only)`.
    public var issuer: String { Self.rfc2253(X509_get_issuer_name(pointer)) }

    private static func rfc2253(_ name: OpaquePointer?) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        X509_NAME_print_ex(bio, name, 0, pushlab_XN_FLAG_RFC2253())
        return MemoryBIO.drain(bio)
    }

    /// Every value of one subject attribute, by OID text (`0.9.2342.19200300.100.1.1` is UID).
    public func subjectValues(oid: String) -> [String] {
        guard let object = OBJ_txt2obj(oid, 1) else { return [] }
        defer { ASN1_OBJECT_free(object) }
        let name = X509_get_subject_name(pointer)
        var values: [String] = []
        var index: Int32 = -1
        while true {
            index = X509_NAME_get_index_by_OBJ(name, object, index)
            if index < 0 { break }
            guard let entry = X509_NAME_get_entry(name, index),
                  let data = X509_NAME_ENTRY_get_data(entry) else { continue }
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            if length >= 0, let utf8 {
                values.append(String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self))
                pushlab_OPENSSL_free(utf8)
            }
        }
        return values
    }

    /// The DER content of an extension's value (inside its OCTET STRING), or nil when absent.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(pointer, object, -1)
        guard index >= 0, let ext = X509_get_ext(pointer, index),
              let octets = X509_EXTENSION_get_data(ext),
              let data = ASN1_STRING_get0_data(octets) else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(octets))))
    }

    /// Seconds since 1970 of notBefore and notAfter.
    public var validity: (notBefore: Int64, notAfter: Int64) {
        (Self.epochSeconds(X509_get0_notBefore(pointer)), Self.epochSeconds(X509_get0_notAfter(pointer)))
    }

    public var derBytes: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(pointer, &output)
        guard length > 0, let output else { return [] }
        defer { pushlab_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    private static func epochSeconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        guard let time else { return 0 }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return 0 }
        return Int64(timegm(&parts))
    }
}
