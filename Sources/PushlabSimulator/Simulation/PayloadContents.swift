import PushlabCore
import Synchronization

/// The pushes' payloads read once each: a load test sends one payload to a hundred thousand
/// phones, and parsing it for each, and keeping a copy in each Notification Center, cost more
/// time and memory than everything else a phone does with it.
///
/// A small cache keyed by the payload's bytes: the newest payload of each of 512 slots (by
/// hash) is kept with what the phone read from it and the part its Notification Center entries
/// share. A payload that misses is read as before; nothing depends on a hit but the cost.
final class PayloadContents: Sendable {
    /// One payload as read, with the entry parts made of it so far (per apns-id case).
    final class Reading: Sendable {
        let bytes: [UInt8]
        /// Nil when the payload is not JSON.
        let content: NotificationContent?
        let upperCaseEntry: DeliveredNotification.Shared?
        let lowerCaseEntry: DeliveredNotification.Shared?

        init(bytes: [UInt8], content: NotificationContent?) {
            self.bytes = bytes
            self.content = content
            upperCaseEntry = content.map { .remote($0, collapseID: nil, lowercaseID: false) }
            lowerCaseEntry = content.map { .remote($0, collapseID: nil, lowercaseID: true) }
        }
    }

    private static let slotCount = 512
    private let slots = Mutex<[Reading?]>(Array(repeating: nil, count: PayloadContents.slotCount))

    /// What the phone reads from `push`'s payload (nil if it is not JSON), and the part its
    /// entry can share (nil with a collapse id, which entries do not share).
    func read(_ push: AcceptedPush) -> (content: NotificationContent?, entry: DeliveredNotification.Shared?) {
        let reading: Reading = push.payloadBytes.withUnsafeBytes { bytes in self.reading(of: bytes) }
        let uuid = push.apnsIDValue.canonical
        let entry = push.collapseID == nil ? (uuid?.isLowercase == true ? reading.lowerCaseEntry : reading.upperCaseEntry) : nil
        return (reading.content, uuid == nil ? nil : entry)
    }

    private func reading(of bytes: UnsafeRawBufferPointer) -> Reading {
        let slot = Int(WordHash.hash(bytes) % UInt64(Self.slotCount))
        if let cached = slots.withLock({ $0[slot] }), Self.same(cached.bytes, bytes) { return cached }
        let content = (try? JSONParser.parse(Array(bytes))).map(NotificationContent.init(payload:))
        let reading = Reading(bytes: Array(bytes), content: content)
        slots.withLock { $0[slot] = reading }
        return reading
    }

    /// Eight bytes at a time: `elementsEqual` compared one at a time, through the generic
    /// sequence, a tenth of a phone's time per push.
    static func same(_ cached: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard cached.count == bytes.count else { return false }
        return cached.withUnsafeBytes { cached in
            var offset = 0
            while offset + 8 <= bytes.count {
                if cached.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                    return false
                }
                offset += 8
            }
            while offset < bytes.count {
                if cached[offset] != bytes[offset] { return false }
                offset += 1
            }
            return true
        }
    }
}
