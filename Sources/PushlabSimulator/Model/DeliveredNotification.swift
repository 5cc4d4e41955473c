import PushlabCore

/// A notification the user can still see in Notification Center.
///
/// An entry is 32 bytes: the apns-id as 128 bits, the time it arrived, and a reference to what
/// it shares with every entry of the same payload (`Shared`). A million phones with 64 entries
/// each then fit in a few GB: a load test's or a broadcast's entries all point at one `Shared`
/// (`PayloadContents` makes it once per distinct payload). An identifier that is no canonical
/// UUID (a local notification's) lives in `Shared`, which such an entry has of its own.
public struct DeliveredNotification: Sendable, Equatable {
    /// What entries made from one payload have in common. Immutable: changing an entry's
    /// content gives that entry a `Shared` of its own.
    public final class Shared: Sendable {
        let content: NotificationContent
        let collapseID: String?
        let trigger: String
        let isLocal: Bool
        /// The identifier's text when it is no canonical UUID; nil: the entry's 128 bits hold it.
        let textIdentifier: String?
        /// The canonical UUID's letters are lower case (the entry's bits do not say).
        let lowercaseID: Bool

        init(content: NotificationContent, collapseID: String?, trigger: String, isLocal: Bool, textIdentifier: String?, lowercaseID: Bool) {
            self.content = content
            self.collapseID = collapseID
            self.trigger = trigger
            self.isLocal = isLocal
            self.textIdentifier = textIdentifier
            self.lowercaseID = lowercaseID
        }

        /// The part remote pushes of `content` share whose apns-ids are canonical UUIDs in `uuidCase`.
        static func remote(_ content: NotificationContent, collapseID: String?, lowercaseID: Bool) -> Shared {
            Shared(content: content, collapseID: collapseID, trigger: "push", isLocal: false, textIdentifier: nil, lowercaseID: lowercaseID)
        }

        func with(content: NotificationContent? = nil, collapseID: String?? = nil, trigger: String? = nil, isLocal: Bool? = nil) -> Shared {
            Shared(
                content: content ?? self.content, collapseID: collapseID ?? self.collapseID, trigger: trigger ?? self.trigger,
                isLocal: isLocal ?? self.isLocal, textIdentifier: textIdentifier, lowercaseID: lowercaseID
            )
        }
    }

    private var idHigh: UInt64
    private var idLow: UInt64
    public var deliveredAt: EpochMilliseconds
    private var shared: Shared

    public init(identifier: String, isLocal: Bool, collapseID: String?, content: NotificationContent, deliveredAt: EpochMilliseconds, trigger: String) {
        let uuid = isLocal ? nil : CanonicalUUID(identifier)
        idHigh = uuid?.high ?? 0
        idLow = uuid?.low ?? 0
        self.deliveredAt = deliveredAt
        shared = Shared(
            content: content, collapseID: collapseID, trigger: trigger, isLocal: isLocal,
            textIdentifier: uuid == nil ? identifier : nil, lowercaseID: uuid?.isLowercase ?? false
        )
    }

    /// An entry for a push whose `shared` part was made for its payload already; nil when the
    /// identifier does not fit it (no canonical UUID, or in the other case).
    init?(apnsID: String, deliveredAt: EpochMilliseconds, shared: Shared) {
        guard shared.textIdentifier == nil, let uuid = CanonicalUUID(apnsID), uuid.isLowercase == shared.lowercaseID else { return nil }
        idHigh = uuid.high
        idLow = uuid.low
        self.deliveredAt = deliveredAt
        self.shared = shared
    }

    /// The same for an apns-id APNs has read already; nil in the same cases.
    init?(uuid: CanonicalUUID, deliveredAt: EpochMilliseconds, shared: Shared) {
        guard shared.textIdentifier == nil, uuid.isLowercase == shared.lowercaseID else { return nil }
        idHigh = uuid.high
        idLow = uuid.low
        self.deliveredAt = deliveredAt
        self.shared = shared
    }

    /// The apns-id, or the local notification's identifier.
    public var identifier: String {
        shared.textIdentifier ?? CanonicalUUID(high: idHigh, low: idLow, isLowercase: shared.lowercaseID).text
    }

    /// The identifier as the canonical UUID it is (nil: it is no canonical UUID), without reading
    /// its text: a store writes every entry's.
    public var canonicalIdentifier: CanonicalUUID? {
        shared.textIdentifier == nil ? CanonicalUUID(high: idHigh, low: idLow, isLowercase: shared.lowercaseID) : nil
    }

    /// The identifier as an observation carries it.
    public var notificationIDValue: APNsID {
        canonicalIdentifier.map(APNsID.init) ?? APNsID(identifier)
    }

    /// Whether the identifier is `id`, compared as UUIDs when both are.
    public func hasIdentifier(_ id: APNsID) -> Bool {
        guard let uuid = id.canonical else { return hasIdentifier(id.text) }
        if let own = canonicalIdentifier { return own == uuid }
        return shared.textIdentifier == uuid.text
    }

    /// Whether the identifier is `text`, without making the identifier's text: the store asks
    /// for every entry it writes, and the answer is almost always yes.
    public func hasIdentifier(_ text: String?) -> Bool {
        guard let text else { return false }
        if let own = shared.textIdentifier { return own == text }
        guard let uuid = CanonicalUUID(text), uuid.high == idHigh, uuid.low == idLow else { return false }
        // A UUID of digits only reads the same in either case.
        return uuid.isLowercase == shared.lowercaseID || identifier == text
    }

    public var isLocal: Bool {
        get { shared.isLocal }
        set { shared = shared.with(isLocal: newValue) }
    }

    public var collapseID: String? {
        get { shared.collapseID }
        set { shared = shared.with(collapseID: .some(newValue)) }
    }

    public var content: NotificationContent {
        get { shared.content }
        set { shared = shared.with(content: newValue) }
    }

    /// `push`, or the local trigger's kind.
    public var trigger: String {
        get { shared.trigger }
        set { shared = shared.with(trigger: newValue) }
    }

    /// Whether the two entries share their payload's part (a test of the memory layout).
    func sharesContent(with other: DeliveredNotification) -> Bool { shared === other.shared }

    /// What this entry shares with the entries of the same payload: the same object means the
    /// same content, so a writer can encode the content once per object.
    public var sharedPart: Shared { shared }

    public static func == (lhs: DeliveredNotification, rhs: DeliveredNotification) -> Bool {
        guard lhs.idHigh == rhs.idHigh, lhs.idLow == rhs.idLow, lhs.deliveredAt == rhs.deliveredAt else { return false }
        if lhs.shared === rhs.shared { return true }
        return lhs.identifier == rhs.identifier && lhs.isLocal == rhs.isLocal && lhs.collapseID == rhs.collapseID
            && lhs.trigger == rhs.trigger && lhs.content == rhs.content
    }
}

/// Coded as the plain fields it stands for, as before entries were compact.
extension DeliveredNotification: Codable {
    private enum CodingKeys: String, CodingKey {
        case identifier, isLocal, collapseID, content, deliveredAt, trigger
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            identifier: try container.decode(String.self, forKey: .identifier), isLocal: try container.decode(Bool.self, forKey: .isLocal),
            collapseID: try container.decodeIfPresent(String.self, forKey: .collapseID),
            content: try container.decode(NotificationContent.self, forKey: .content),
            deliveredAt: try container.decode(EpochMilliseconds.self, forKey: .deliveredAt), trigger: try container.decode(String.self, forKey: .trigger)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(isLocal, forKey: .isLocal)
        try container.encodeIfPresent(collapseID, forKey: .collapseID)
        try container.encode(content, forKey: .content)
        try container.encode(deliveredAt, forKey: .deliveredAt)
        try container.encode(trigger, forKey: .trigger)
    }
}
