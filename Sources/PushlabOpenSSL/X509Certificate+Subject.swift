import COpenSSL

extension X509Certificate {
    /// The subject's attributes in certificate order (least significant first: `UID`, `CN`, … `C`),
    /// to compare with a `DistinguishedName` without RFC 2253's escaping rules in the way.
    public var subjectEntries: [SubjectEntry] {
        guard let name = X509_get_subject_name(pointer) else { return [] }
        var entries: [SubjectEntry] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index),
                  let object = X509_NAME_ENTRY_get_object(entry),
                  let data = X509_NAME_ENTRY_get_data(entry) else { continue }
            var oid = [CChar](repeating: 0, count: 128)
            let oidLength = OBJ_obj2txt(&oid, Int32(oid.count), object, 1)
            guard oidLength > 0, Int(oidLength) < oid.count else { continue }
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            guard length >= 0, let utf8 else { continue }
            defer { pushlab_OPENSSL_free(utf8) }
            entries.append(SubjectEntry(
                oid: String(decoding: oid.prefix(Int(oidLength)).map { UInt8(bitPattern: $0) }, as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
            ))
        }
        return entries
    }

    /// The subject's DER, attribute types and string types included: two certificates with equal
    /// `subjectDER` have the same subject byte for byte, as OpenSSL compares names.
    public var subjectDER: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_NAME(X509_get_subject_name(pointer), &output)
        guard length > 0, let output else { return [] }
        defer { pushlab_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
