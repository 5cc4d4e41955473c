import PushlabCore
import PushlabSimulator

/// Up to `maximumCount` observations of one batch as one blob: a row per observation (four or
/// five per push, each with its details as JSON) cost the writer far more than the push cost the
/// server, in CPU and in bytes written.
///
/// Layout (numbers are LEB128 varints): format version, count, then per observation the
/// sequence and time as zig-zag deltas from the observation before, device id and bundle id
/// (string tables), the notification id (a form byte: none, a canonical UUID in upper or lower
/// case as two words, or text), the kind (string table), and the details in one of two forms:
/// JSON text (string table: a load test's banners and deliveries repeat it), or, for a
/// Notification Center entry added, the entry's fields with its content's JSON in a string table:
/// every entry of one payload shares it, and the entry's identifier and time are the
/// observation's own.
enum ObservationChunk {
    static let formatVersion: UInt8 = 1
    /// Bounds the work of a query that needs one observation of a chunk.
    static let maximumCount = 2048

    private enum DetailsForm {
        static let json: UInt8 = 0
        static let addedEntry: UInt8 = 1
        /// Set on the form byte of an observation made after a restart (`Observation.afterRestart`);
        /// chunks written before it have none.
        static let afterRestart: UInt8 = 0x80
    }

    private enum EntryFlag {
        static let isLocal: UInt8 = 1 << 0
        static let ownIdentifier: UInt8 = 1 << 1
        static let ownTime: UInt8 = 1 << 2
        static let collapseID: UInt8 = 1 << 3
    }

    /// The batch's observations in `range`, encoded where they lie: each is read in place, never
    /// copied.
    static func encode(_ observations: BatchItems<Observation>, in range: Range<Int>, contents: inout ContentTexts) -> [UInt8] {
        var encoder = Encoder(count: range.count)
        observations.forEach(in: range) { observation in encoder.add(observation, contents: &contents) }
        return encoder.writer.bytes
    }

    /// One chunk's writer and string tables. A struct with a method rather than a local function
    /// capturing them: the captured variables were checked for exclusive access at run time on
    /// every use, a twelfth of the encoding.
    private struct Encoder {
        var writer: ChunkWriter
        private var devices = ChunkStringTable(), bundles = ChunkStringTable(), details = ChunkStringTable()
        private var kinds = KindTable()
        private var triggers = ChunkStringTable(), collapseIDs = ChunkStringTable(), contentTexts = ChunkStringTable()
        private var previousSequence: Int64 = 0
        private var previousTime: Int64 = 0
        /// Each kind's last details and their index in `details`: a load test's banners,
        /// deliveries and sounds repeat them, and comparing events whose strings share storage
        /// costs less than writing their JSON. Kept as three arrays: a search through tuples
        /// copied each one it looked at.
        private var detailKinds: [ObservationKind] = []
        private var detailEvents: [ObservationEvent] = []
        private var detailIndexes: [UInt64] = []

        init(count: Int) {
            writer = ChunkWriter(capacity: 16 + count * 48)
            writer.byte(formatVersion)
            writer.unsigned(UInt64(count))
        }

        mutating func add(_ observation: UnsafePointer<Observation>, contents: inout ContentTexts) {
            writer.signed(observation.pointee.sequence &- previousSequence)
            writer.signed(observation.pointee.time &- previousTime)
            (previousSequence, previousTime) = (observation.pointee.sequence, observation.pointee.time)
            devices.write(observation.pointee.deviceID, to: &writer)
            bundles.write(observation.pointee.bundleID, to: &writer)
            let id = observation.pointee.notificationIDValue
            ChunkNotificationIDs.write(id, to: &writer)
            kinds.write(observation.pointee.kind, to: &writer)
            // The kind first: matching the case copies the event out.
            if observation.pointee.kind == .notificationCenter, case .notificationCenter(.added, nil, let entry?) = observation.pointee.event {
                writer.byte(DetailsForm.addedEntry | restarted(observation))
                var flags: UInt8 = 0
                if entry.isLocal { flags |= EntryFlag.isLocal }
                let sameID = id.map { entry.hasIdentifier($0) } ?? false
                if !sameID { flags |= EntryFlag.ownIdentifier }
                if entry.deliveredAt != observation.pointee.time { flags |= EntryFlag.ownTime }
                if entry.collapseID != nil { flags |= EntryFlag.collapseID }
                writer.byte(flags)
                if flags & EntryFlag.ownIdentifier != 0 { writer.text(entry.identifier) }
                if flags & EntryFlag.ownTime != 0 { writer.signed(entry.deliveredAt &- observation.pointee.time) }
                triggers.write(entry.trigger, to: &writer)
                if let collapseID = entry.collapseID { collapseIDs.write(collapseID, to: &writer) }
                contentTexts.write(contents.text(of: entry), to: &writer)
            } else {
                writer.byte(DetailsForm.json | restarted(observation))
                writeDetails(of: observation)
            }
        }

        private func restarted(_ observation: UnsafePointer<Observation>) -> UInt8 {
            observation.pointee.afterRestart ? DetailsForm.afterRestart : 0
        }

        /// An event equal to its kind's last one repeats that one's index in the details table,
        /// without its JSON being written, compared or hashed again.
        private mutating func writeDetails(of observation: UnsafePointer<Observation>) {
            let kind = observation.pointee.kind
            if let slot = detailKinds.firstIndex(of: kind) {
                if detailEvents[slot] == observation.pointee.event {
                    details.write(index: detailIndexes[slot], to: &writer)
                    return
                }
                detailEvents[slot] = observation.pointee.event
                detailIndexes[slot] = details.write(observation.pointee.event.detailsText, to: &writer)
                return
            }
            detailKinds.append(kind)
            detailEvents.append(observation.pointee.event)
            detailIndexes.append(details.write(observation.pointee.event.detailsText, to: &writer))
        }
    }

    /// The kinds' string table, searched by kind rather than by text: a push's five kinds took
    /// turns in a string table's four recent slots, and each one missed them and hashed its text.
    private struct KindTable {
        private var known: [ObservationKind] = []

        mutating func write(_ kind: ObservationKind, to writer: inout ChunkWriter) {
            if let index = known.firstIndex(of: kind) {
                writer.unsigned(UInt64(index))
                return
            }
            writer.unsigned(UInt64(known.count))
            writer.text(kind.rawValue)
            known.append(kind)
        }
    }

    /// The observations, their details still as stored: a query parses only those it keeps.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> [StoredObservation] {
        var reader = ChunkReader(bytes, what: "a chunk of saved observations")
        let version = try reader.byte()
        guard version == formatVersion else { throw reader.damaged("has format \(version); this Pushlab reads format \(formatVersion)") }
        let count = try reader.count()
        var devices = ChunkStrings(), bundles = ChunkStrings(), kinds = ChunkStrings(), details = ChunkStrings()
        var triggers = ChunkStrings(), collapseIDs = ChunkStrings(), contentTexts = ChunkStrings()
        var stored: [StoredObservation] = []
        stored.reserveCapacity(count)
        var sequence: Int64 = 0
        var time: Int64 = 0
        for _ in 0..<count {
            sequence &+= try reader.signed()
            time &+= try reader.signed()
            let deviceID = try devices.read(from: &reader)
            let bundleID = try bundles.read(from: &reader)
            let notificationID = try ChunkNotificationIDs.read(from: &reader)
            let kindText = try kinds.read(from: &reader)
            guard let kind = ObservationKind(rawValue: kindText) else { throw reader.damaged("holds observation \(sequence) of an unknown kind \(kindText)") }
            let formByte = try reader.byte()
            let form = formByte & ~DetailsForm.afterRestart
            let storedDetails: StoredObservation.Details
            switch form {
            case DetailsForm.json:
                storedDetails = .json(try details.read(from: &reader))
            case DetailsForm.addedEntry:
                let flags = try reader.byte()
                let identifier = flags & EntryFlag.ownIdentifier != 0 ? try reader.text() : notificationID ?? ""
                let deliveredAt = flags & EntryFlag.ownTime != 0 ? time &+ (try reader.signed()) : time
                let trigger = try triggers.read(from: &reader)
                let collapseID = flags & EntryFlag.collapseID != 0 ? try collapseIDs.read(from: &reader) : nil
                let content = try contentTexts.read(from: &reader)
                storedDetails = .addedEntry(
                    identifier: identifier, isLocal: flags & EntryFlag.isLocal != 0, collapseID: collapseID, deliveredAt: deliveredAt,
                    trigger: trigger, content: content
                )
            default:
                throw reader.damaged("holds observation \(sequence) with details of an unknown form \(form)")
            }
            stored.append(StoredObservation(
                sequence: sequence, time: time, deviceID: deviceID, bundleID: bundleID, notificationID: notificationID, kind: kind, details: storedDetails,
                afterRestart: formByte & DetailsForm.afterRestart != 0
            ))
        }
        guard reader.isAtEnd else { throw reader.damaged("has bytes after its \(count) observations") }
        return stored
    }
}

/// The JSON text of entries' contents, kept for the last few shared parts the writer met: a load
/// test's entries share one, and writing its JSON once instead of per push was most of the cost.
struct ContentTexts {
    private var recent: [(part: DeliveredNotification.Shared, text: String)] = []
    private var next = 0
    private static let size = 16

    mutating func text(of entry: DeliveredNotification) -> String {
        let part = entry.sharedPart
        if let found = recent.first(where: { $0.part === part }) { return found.text }
        let text = entry.content.jsonText
        // Holding the part keeps it alive, so another part can never take its address.
        if recent.count < Self.size {
            recent.append((part, text))
        } else {
            recent[next] = (part, text)
            next = (next + 1) % Self.size
        }
        return text
    }
}
