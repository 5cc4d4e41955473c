import Foundation
import GRDB
import PushlabSimulator
import Synchronization

/// A device's saved state, or the fact that it was removed.
enum DeviceChange: Sendable {
    case saved(SimulatedDevice)
    case removed
}

/// How device snapshots are written to and read back from the `devices` table: one row per
/// device changed since the store was seeded from its scenario (`MetaRows.deviceRows`), the
/// `SimulatedDevice` as JSON (so a new field needs no migration) without its Notification Center
/// entries, which `NotificationLog` keeps. A device removed since is a row whose JSON is
/// `null`. A device without a row is as the scenario makes it: a million generated devices
/// cost the store nothing until they change.
enum DeviceRows {
    static let removedMark = "null"

    /// Writes `changes`; with `fingerprints`, a snapshot the same as the one last committed is
    /// skipped. Returns what was written, for the caller to record once the batch commits.
    @discardableResult
    static func write(
        _ changes: [String: DeviceChange], into db: Database, log: inout NotificationLog, unlessSaved fingerprints: SnapshotFingerprints? = nil,
        onEveryCore: Bool = true
    ) throws -> [SnapshotFingerprints.Written] {
        let upsert = try db.cachedStatement(sql: "INSERT INTO devices (id, json) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json")
        var written: [SnapshotFingerprints.Written] = []
        var removed: [String] = []
        let saved = changes.compactMap { id, change -> (id: String, device: SimulatedDevice)? in
            if case .saved(let device) = change { (id, device) } else { nil }
        }
        let snapshots = try encode(saved, onEveryCore: onEveryCore)
        for (snapshot, (id, _)) in zip(snapshots, saved) {
            if let fingerprints {
                guard let entry = fingerprints.unsaved(id, snapshot) else { continue }
                written.append(entry)
            }
            var row = RowInserter(upsert, in: db)
            row.bind(id)
            row.bind(text: snapshot)
            try row.step()
        }
        for (id, change) in changes {
            guard case .removed = change else { continue }
            var row = RowInserter(upsert, in: db)
            row.bind(id)
            row.bind(removedMark)
            try row.step()
            removed.append(id)
            written.append(SnapshotFingerprints.removed(id))
        }
        try log.removeDevices(removed, in: db)
        return written
    }

    /// Each device's JSON without its Notification Center entries, in order. A pass over many
    /// devices is encoded a slice at a time on every core (`onEveryCore`): after a load test
    /// every phone has changed (its badge, say), and the writer is the one thread that must keep
    /// pace.
    private static func encode(_ devices: [(id: String, device: SimulatedDevice)], onEveryCore: Bool) throws -> [[UInt8]] {
        let parts = !onEveryCore || devices.count < 256 ? 1 : ProcessInfo.processInfo.activeProcessorCount
        let results = Mutex([Result<[[UInt8]], any Error>](repeating: .success([]), count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = devices.count * part / parts..<devices.count * (part + 1) / parts
            var snapshots: [[UInt8]] = []
            snapshots.reserveCapacity(range.count)
            do {
                for index in range {
                    var device = devices[index].device
                    for app in device.apps.indices { device.apps[app].notificationCenter = [] }
                    snapshots.append(try StreamingJSONEncoder.encode(device))
                }
                results.withLock { $0[part] = .success(snapshots) }
            } catch {
                results.withLock { $0[part] = .failure(error) }
            }
        }
        return try results.withLock { $0 }.flatMap { try $0.get() }
    }

    /// The saved devices, without their Notification Center entries, and the ids of the removed.
    /// Rows are decoded a slice at a time on every core: a restart after a load test brings back
    /// as many changed devices as the test reached.
    static func all(in db: Database, progress: LoadProgress?) throws -> (saved: [SimulatedDevice], removed: [String]) {
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM devices") ?? 0
        var saved: [SimulatedDevice] = []
        var removed: [String] = []
        saved.reserveCapacity(total)
        var slice: [(id: String, json: String)] = []
        slice.reserveCapacity(sliceSize)
        let rows = try Row.fetchCursor(db, sql: "SELECT id, json FROM devices ORDER BY id")
        while let row = try rows.next() {
            let id: String = row["id"]
            let json: String = row["json"]
            if json == removedMark { removed.append(id) } else { slice.append((id, json)) }
            if slice.count == sliceSize {
                saved += try decode(slice)
                slice.removeAll(keepingCapacity: true)
                progress?.count(.readingSavedDevices, done: saved.count + removed.count, of: total)
            }
        }
        saved += try decode(slice)
        progress?.count(.readingSavedDevices, done: total, of: total)
        return (saved, removed)
    }

    private static let sliceSize = LoadProgress.stride

    /// The rows' devices in their order, decoded in parallel.
    private static func decode(_ rows: [(id: String, json: String)]) throws -> [SimulatedDevice] {
        let parts = rows.count < 256 ? 1 : ProcessInfo.processInfo.activeProcessorCount
        let results = Mutex([Result<[SimulatedDevice], StoreError>](repeating: .success([]), count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let decoder = JSONDecoder()
            let range = rows.count * part / parts..<rows.count * (part + 1) / parts
            var devices: [SimulatedDevice] = []
            devices.reserveCapacity(range.count)
            for row in rows[range] {
                do {
                    devices.append(try decoder.decode(SimulatedDevice.self, from: Data(row.json.utf8)))
                } catch {
                    results.withLock { $0[part] = .failure(StoreError(.unreadable, "device \(row.id) cannot be read back: \(error)")) }
                    return
                }
            }
            results.withLock { $0[part] = .success(devices) }
        }
        return try results.withLock { $0 }.flatMap { try $0.get() }
    }
}
