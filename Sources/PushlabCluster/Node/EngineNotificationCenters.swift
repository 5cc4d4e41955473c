import PushlabCore
import PushlabSimulator

/// The Notification Center entries of a partition's phones in the engine
/// (`EngineKeys.notificationCenters`), one hash field an entry, as the store keeps them in its
/// notification log: a taking writes the entries its observations added and removes the ones
/// they removed, and a removed phone's entries go with it. A phone's state is then written only
/// when something else of it changes: before, every alert rewrote its phone's whole Notification
/// Center, and encoding it was a fifth of a node's time.
///
/// A field names its phone, app, identifier and delivery time, each length-prefixed (so that a
/// phone's or an app's fields share a prefix no other phone's field has); its value is the
/// entry's place in the phone's order (the observation's sequence, 8 bytes big-endian) and the
/// entry as JSON (`DeliveredNotification.jsonText`, as the store's observations show it), the
/// content of the entries of one payload written once a taking.
enum EngineNotificationCenters {
    /// What `observations` (a taking's, in order) changed in the hash, and the entries of the
    /// `removedDevices`: removals by prefix first, then single removals, then the entries set.
    static func writes(hash: String, observations: [Observation], removedDevices: [String]) -> [EngineWrite] {
        var prefixes: [String] = []
        // A field's last change in the taking (nil: removed), in the order first changed.
        var changed: [String: [UInt8]?] = [:]
        var order: [String] = []
        var listed = Set<String>()
        var contents = SharedContents()
        func note(_ field: String, to value: [UInt8]?) {
            changed[field] = .some(value)
            if listed.insert(field).inserted { order.append(field) }
        }
        // The prefix's removal, written first, covers what the taking changed before.
        func forget(startingWith prefix: String) {
            for field in order where field.hasPrefix(prefix) { changed[field] = nil }
            prefixes.append(prefix)
        }
        for observation in observations {
            guard observation.kind == .notificationCenter, case .notificationCenter(let change, _, let entry) = observation.event,
                  let id = observation.notificationIDValue?.text else { continue }
            switch (change, entry) {
            case (.added, let entry?):
                let json = entry.jsonBytes(content: contents.json(of: entry))
                let field = field(deviceID: observation.deviceID, bundleID: observation.bundleID, identifier: id, deliveredAt: entry.deliveredAt)
                note(field, to: value(sequence: observation.sequence, json: json))
            case (.removed, _):
                if let deliveredAt = observation.removedEntryDeliveredAt {
                    let field = field(deviceID: observation.deviceID, bundleID: observation.bundleID, identifier: id, deliveredAt: deliveredAt)
                    note(field, to: nil)
                } else {
                    // Every entry of that identifier went (the store's log has such removals too).
                    forget(startingWith: entryPrefix(deviceID: observation.deviceID, bundleID: observation.bundleID, identifier: id))
                }
            case (.added, nil):
                continue
            }
        }
        for deviceID in removedDevices { forget(startingWith: devicePrefix(deviceID)) }
        var writes: [EngineWrite] = []
        if !prefixes.isEmpty { writes.append(.removeFieldsStarting(hash: hash, prefixes: prefixes)) }
        var removed: [String] = []
        var set: [(String, [UInt8])] = []
        for field in order {
            guard let last = changed[field] else { continue }
            if let value = last { set.append((field, value)) } else { removed.append(field) }
        }
        if !removed.isEmpty { writes.append(.removeFields(hash: hash, fields: removed)) }
        if !set.isEmpty { writes.append(.setFields(hash: hash, fields: set)) }
        return writes
    }

    static func devicePrefix(_ deviceID: String) -> String { part(deviceID) }

    static func entryPrefix(deviceID: String, bundleID: String, identifier: String) -> String {
        part(deviceID) + part(bundleID) + part(identifier)
    }

    static func field(deviceID: String, bundleID: String, identifier: String, deliveredAt: EpochMilliseconds) -> String {
        entryPrefix(deviceID: deviceID, bundleID: bundleID, identifier: identifier) + String(deliveredAt)
    }

    private static func part(_ text: String) -> String { "\(text.utf8.count):\(text)" }

    private static func value(sequence: Int64, json: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + json.count)
        withUnsafeBytes(of: sequence.bigEndian) { bytes += $0 }
        bytes += json
        return bytes
    }

    /// Entries by phone and app, oldest first (in the order the phones observed them).
    typealias ByPhone = [String: [String: [DeliveredNotification]]]

    /// The entries of a hash read whole (`HGETALL`'s field/value pairs); an entry that cannot be
    /// read is counted in `unreadable` and left out.
    static func entries(_ pairs: [(field: String, value: [UInt8])]) -> (entries: ByPhone, unreadable: Int) {
        var ordered: [String: [String: [(sequence: Int64, entry: DeliveredNotification)]]] = [:]
        var unreadable = 0
        for (field, value) in pairs {
            guard let (deviceID, bundleID) = phoneAndApp(of: field), value.count > 8,
                  let json = try? JSONParser.parse(Array(value[8...])), let entry = DeliveredNotification(json: json) else {
                unreadable += 1
                continue
            }
            let sequence = value[..<8].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            ordered[deviceID, default: [:]][bundleID, default: []].append((sequence, entry))
        }
        let entries = ordered.mapValues { apps in apps.mapValues { $0.sorted { $0.sequence < $1.sequence }.map(\.entry) } }
        return (entries, unreadable)
    }

    /// The fields that put `entries` (a phone's, by app, oldest first) in the hash, numbered
    /// in their order: for a phone an earlier version wrote with its entries inside.
    static func fields(deviceID: String, entries: [String: [DeliveredNotification]]) -> [(String, [UInt8])] {
        var fields: [(String, [UInt8])] = []
        var sequence: Int64 = 0
        var contents = SharedContents()
        for (bundleID, list) in entries.sorted(by: { $0.key < $1.key }) {
            for entry in list {
                let json = entry.jsonBytes(content: contents.json(of: entry))
                sequence += 1
                fields.append((field(deviceID: deviceID, bundleID: bundleID, identifier: entry.notificationIDValue.text, deliveredAt: entry.deliveredAt), value(sequence: sequence, json: json)))
            }
        }
        return fields
    }

    /// The phone and app a field names.
    private static func phoneAndApp(of field: String) -> (String, String)? {
        var rest = Substring(field)
        func next() -> String? {
            guard let colon = rest.firstIndex(of: ":"), let length = Int(rest[..<colon]), length >= 0 else { return nil }
            let utf8 = rest.utf8[rest.index(after: colon)...]
            guard utf8.count >= length else { return nil }
            let end = utf8.index(utf8.startIndex, offsetBy: length)
            let text = String(Substring(utf8[utf8.startIndex..<end]))
            rest = Substring(utf8[end...])
            return text
        }
        guard let deviceID = next(), let bundleID = next() else { return nil }
        return (deviceID, bundleID)
    }
}

/// The contents' JSON of the entries of one taking, written once a payload: a load test's
/// entries, or a broadcast's, share one content (`DeliveredNotification.sharedPart`).
private struct SharedContents {
    private var written: [ObjectIdentifier: (part: DeliveredNotification.Shared, json: [UInt8])] = [:]

    mutating func json(of entry: DeliveredNotification) -> [UInt8] {
        let part = entry.sharedPart
        if let found = written[ObjectIdentifier(part)] { return found.json }
        let json = entry.content.jsonBytes
        // Holding the part keeps it alive, so another part can never take its address.
        written[ObjectIdentifier(part)] = (part, json)
        return json
    }
}
