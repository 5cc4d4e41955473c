import PushlabCore
import Synchronization

/// The log in memory: what `--db :memory:` and PushlabTesting use. Nothing survives the
/// process, which is all that such a run promises (`durability` is `.process`).
///
/// Each append keeps the caller's array as it is, with its positions (the delivery queue hands
/// over one read's pushes under its lock: copying them there would cost every event loop), and
/// an array goes once every push of it is taken.
public final class InMemoryAcceptedPushLog: AcceptedPushLog {
    public let partitions: DevicePartitions
    public var durability: AcceptedPushLogDurability { .process }

    private struct Appended {
        var pushes: [AcceptedPush]
        var positions: LoggedPositions
    }

    private struct State {
        /// Oldest first; an entry goes once every push of it is taken.
        var appended: [Appended] = []
        var head = 0
        var lastOffsets: [Int: Int64] = [:]
        var takenThrough: [Int64]

        init(partitions: Int) {
            takenThrough = Array(repeating: 0, count: partitions)
        }

        func isTaken(_ position: LoggedPushPosition?) -> Bool {
            position.map { $0.offset <= takenThrough[$0.partition] } ?? true
        }

        func isTaken(_ entry: Appended) -> Bool {
            if case .run(let partition, let first, let count) = entry.positions {
                return first + Int64(count) - 1 <= takenThrough[partition]
            }
            return entry.positions.allSatisfy { isTaken($0) }
        }

        mutating func dropTakenEntries() {
            while head < appended.count, isTaken(appended[head]) { head += 1 }
            if head == appended.count {
                appended.removeAll(keepingCapacity: appended.count <= 1024)
                head = 0
            } else if head > 1024 && head * 2 > appended.count {
                appended.removeFirst(head)
                head = 0
            }
        }
    }

    private let state: Mutex<State>

    public init(partitions: DevicePartitions = DevicePartitions(count: 1)) {
        self.partitions = partitions
        state = Mutex(State(partitions: partitions.count))
    }

    public func append(_ pushes: [AcceptedPush]) -> LoggedPositions {
        let oneRun = partitions.numbersAsOneRun(pushes)
        return state.withLock { state in
            let positions = partitions.number(pushes, oneRun: oneRun, after: &state.lastOffsets)
            if !pushes.isEmpty { state.appended.append(Appended(pushes: pushes, positions: positions)) }
            return positions
        }
    }

    /// Past the last push appended, only what was appended is taken.
    public func markTaken(through position: LoggedPushPosition) {
        guard (0..<partitions.count).contains(position.partition) else { return }
        state.withLock { state in
            let through = min(position.offset, state.lastOffsets[position.partition, default: 0])
            guard through > state.takenThrough[position.partition] else { return }
            state.takenThrough[position.partition] = through
            state.dropTakenEntries()
        }
    }

    public func untaken() throws(AcceptedPushLogError) -> [LoggedPush] {
        state.withLock { state in
            var logged: [LoggedPush] = []
            for entry in state.appended[state.head...] {
                for index in entry.positions.indices {
                    if let position = entry.positions[index], !state.isTaken(position) {
                        logged.append(LoggedPush(position: position, push: entry.pushes[index]))
                    }
                }
            }
            return logged.sorted { $0.position < $1.position }
        }
    }

    /// Pushes waiting to be taken, in every partition.
    public var count: Int {
        state.withLock { state in
            state.appended[state.head...].reduce(0) { total, entry in total + entry.positions.filter { !state.isTaken($0) }.count }
        }
    }
}
