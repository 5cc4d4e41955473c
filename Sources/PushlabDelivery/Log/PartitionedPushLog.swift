import PushlabCore
import PushlabSimulator

/// A log of accepted pushes that several deliverers share (a cluster's engine): each reads the
/// partitions it holds in order, hands their pushes to its phones, and takes them together with
/// what the phones observed and the phones as they are now, in one step that does nothing when
/// the partition has become another deliverer's. `PartitionReader` is the deliverer, the same
/// for every such log; `InMemoryPartitionedPushLog` and the engine's log are held to the same
/// rules by one contract suite.
///
/// An entry read and not taken stays the reader's until it takes it, or until another claims it
/// (`claimAbandoned`): a reader that dies loses nothing the log holds.
public protocol PartitionedPushLog: Sendable {
    /// An entry's place in its partition, unique within it.
    associatedtype EntryID: Hashable & Sendable

    /// Up to `count` entries of `partition` nobody has read yet, oldest first; they are this
    /// reader's now. A partition whose log does not exist yet has none.
    func readNew(partition: Int, count: Int) async throws -> [PartitionEntry<EntryID>]

    /// Entries of `partition` another reader read and has not taken for `minIdle`, oldest first:
    /// this reader's now.
    func claimAbandoned(partition: Int, minIdle: Duration, count: Int) async throws -> [PartitionEntry<EntryID>]

    /// Takes `ids` of `partition` with `observations` (of its phones, in order) and `phones`
    /// (its phones changed or removed since the last taking), all or nothing. False, and nothing
    /// written, when the partition is another reader's now.
    func take(partition: Int, ids: [EntryID], observations: [Observation], phones: [PhoneChange]) async throws -> Bool
}

/// One entry of a partition's log: the pushes accepted together for its phones, in order, or a
/// broadcast to the subscribed ones.
public struct PartitionEntry<ID: Hashable & Sendable>: Sendable {
    public var id: ID
    public var content: Content

    public enum Content: Sendable {
        case pushes([AcceptedPush])
        case broadcast(AcceptedBroadcast)
        /// Written by another version, or damaged: taken without delivery, and said in the log.
        case unreadable(pushes: Int)
    }

    public init(id: ID, content: Content) {
        self.id = id
        self.content = content
    }
}

/// A phone as a taking leaves it.
public enum PhoneChange: Sendable {
    case changed(SimulatedDevice)
    case removed(id: String)

    public var deviceID: String {
        switch self {
        case .changed(let device): device.id
        case .removed(let id): id
        }
    }
}
