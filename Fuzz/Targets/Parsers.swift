import PushlabCore

/// A parsed value written back and parsed again is the same value.
func fuzzJSON(_ bytes: UnsafeRawBufferPointer) {
    guard let value = try? JSONParser.parse(Array(bytes)) else { return }
    guard let again = try? JSONParser.parse(Array(value.description.utf8)) else {
        fatalError("JSON written back does not parse: \(value.description)")
    }
    if again != value { fatalError("JSON round trip changed the value: \(value.description)") }
}

/// A provider token either parses or is refused; a parsed one names its key and its team.
func fuzzProviderToken(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let token = try? ProviderToken.parse(Substring(text)) else { return }
    if token.keyID.isEmpty || token.teamID.isEmpty { fatalError("a token without a key id or team parsed: \(text)") }
}

/// The topic and environment extensions of a client certificate, as arbitrary DER.
func fuzzCertificateExtensions(_ bytes: UnsafeRawBufferPointer) {
    let der = Array(bytes)
    let half = der.count / 2
    let certificate = ClientCertificate(
        subject: "UID=com.example.app", userIDs: ["com.example.app"],
        extensions: ["1.2.840.113635.100.6.3.6": Array(der[..<half]), "1.2.840.113635.100.6.3.4": Array(der[half...]), "1.2.840.113635.100.6.3.1": der],
        notBefore: 0, notAfter: Int64.max, isTrusted: true, verificationError: nil
    )
    let identity = CertificateIdentity(certificate)
    // The subject's UID is always the first topic, whatever the extensions hold.
    if identity.topics.first != "com.example.app" { fatalError("the UID is not the first topic: \(identity.topics)") }
}
