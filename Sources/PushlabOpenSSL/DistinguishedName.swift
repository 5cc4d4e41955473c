import COpenSSL

/// A certificate subject as plain values, most significant attribute last, as `openssl -subj`
/// writes it: `/UID=…/CN=…/OU=…/O=…/C=US` is `[userID, commonName, organizationalUnit, …]`.
public struct DistinguishedName: Equatable, Sendable {
    public struct Attribute: Equatable, Hashable, Sendable {
        public let oid: String
        /// The ASN.1 string type `openssl req` picks under `string_mask = utf8only`.
        let stringType: Int32

        public static let userID = Attribute(oid: "0.9.2342.19200300.100.1.1", stringType: V_ASN1_UTF8STRING)
        public static let commonName = Attribute(oid: "2.5.4.3", stringType: V_ASN1_UTF8STRING)
        public static let organizationalUnit = Attribute(oid: "2.5.4.11", stringType: V_ASN1_UTF8STRING)
        public static let organization = Attribute(oid: "2.5.4.10", stringType: V_ASN1_UTF8STRING)
        /// X.520 makes a country a PrintableString; OpenSSL does so whatever the mask.
        public static let country = Attribute(oid: "2.5.4.6", stringType: V_ASN1_PRINTABLESTRING)
    }

    public struct Entry: Equatable, Sendable {
        public var attribute: Attribute
        public var value: String

        public init(_ attribute: Attribute, _ value: String) {
            self.attribute = attribute
            self.value = value
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// `(oid, value)` pairs, the form `X509Certificate.subjectEntries` reads back.
    public var oidsAndValues: [SubjectEntry] {
        entries.map { SubjectEntry(oid: $0.attribute.oid, value: $0.value) }
    }

    /// Appends the entries to an `X509_NAME` owned by the caller.
    ///
    /// The value goes in as the attribute's string type directly rather than through
    /// `MBSTRING_UTF8`, which would apply X.520's 64-character upper bounds: Apple's common names
    /// ("Apple Push Services: " + bundle id) exceed them for long bundle ids.
    func append(to name: OpaquePointer) throws {
        for entry in entries {
            guard let object = OBJ_txt2obj(entry.attribute.oid, 1) else {
                throw OpenSSLError("unknown attribute OID \(entry.attribute.oid)")
            }
            defer { ASN1_OBJECT_free(object) }
            let bytes = Array(entry.value.utf8)
            guard X509_NAME_add_entry_by_OBJ(name, object, entry.attribute.stringType, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw OpenSSLError("adding \(entry.attribute.oid)=\(entry.value) to a name")
            }
        }
    }
}

/// One attribute of a certificate's subject as read back: its OID and its value as UTF-8.
public struct SubjectEntry: Equatable, Sendable, CustomStringConvertible {
    public var oid: String
    public var value: String

    public var description: String { "\(oid)=\(value)" }
}
