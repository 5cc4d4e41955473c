/// What an APNs client certificate allows (reference 5.1): topics from the subject UID and the
/// `1.2.840.113635.100.6.3.6` / `.3.4` lists, environments from the `.3.1` / `.3.2` extensions.
public struct CertificateIdentity: Sendable, Equatable {
    public var uid: String?
    /// Every topic the certificate may push to, the UID first, without repeats.
    public var topics: [String]
    /// Whether the certificate lists topics (`.3.6` or `.3.4`) rather than relying on its UID.
    public var listsTopics: Bool
    public var environments: Set<APNsEnvironment>

    static let topicsOID = "1.2.840.113635.100.6.3.6"
    static let voipTopicsOID = "1.2.840.113635.100.6.3.4"
    static let developmentOID = "1.2.840.113635.100.6.3.1"
    static let productionOID = "1.2.840.113635.100.6.3.2"

    public init(_ certificate: ClientCertificate) {
        uid = certificate.userIDs.first
        var topics: [String] = uid.map { [$0] } ?? []
        var listsTopics = false
        for oid in [Self.topicsOID, Self.voipTopicsOID] {
            guard let der = certificate.extensions[oid] else { continue }
            listsTopics = true
            for topic in DERReader.strings(inTopLevelSequence: der) where !topics.contains(topic) {
                topics.append(topic)
            }
        }
        self.topics = topics
        self.listsTopics = listsTopics
        var environments: Set<APNsEnvironment> = []
        if certificate.extensions[Self.developmentOID] != nil { environments.insert(.development) }
        if certificate.extensions[Self.productionOID] != nil { environments.insert(.production) }
        self.environments = environments
    }

    /// The topic a request without `apns-topic` goes to, or nil when it must name one.
    func defaultTopic(multiTopicDefaultsToApp: Bool) -> String? {
        guard let uid else { return nil }
        return topics.count <= 1 || multiTopicDefaultsToApp ? uid : nil
    }
}

/// Just enough DER to read Apple's topic lists: `SEQUENCE { UTF8String, SEQUENCE {…}, … }`.
enum DERReader {
    /// The string elements directly inside the outer SEQUENCE (nested sequences, the topic types, are skipped).
    static func strings(inTopLevelSequence der: [UInt8]) -> [String] {
        guard let (tag, content) = element(in: der, at: 0).map({ ($0.tag, $0.content) }), tag == 0x30 else { return [] }
        var strings: [String] = []
        var offset = content.lowerBound
        while offset < content.upperBound, let child = element(in: der, at: offset) {
            // UTF8String, PrintableString, IA5String
            if [0x0C, 0x13, 0x16].contains(child.tag) {
                strings.append(String(decoding: der[child.content], as: UTF8.self))
            }
            offset = child.content.upperBound
        }
        return strings
    }

    private static func element(in der: [UInt8], at offset: Int) -> (tag: UInt8, content: Range<Int>)? {
        guard offset + 2 <= der.count else { return nil }
        let tag = der[offset]
        var length = Int(der[offset + 1])
        var start = offset + 2
        if length & 0x80 != 0 {
            let lengthBytes = length & 0x7F
            guard lengthBytes > 0, lengthBytes <= 3, start + lengthBytes <= der.count else { return nil }
            length = der[start..<start + lengthBytes].reduce(0) { $0 << 8 | Int($1) }
            start += lengthBytes
        }
        guard start + length <= der.count else { return nil }
        return (tag, start..<start + length)
    }
}
