import PushlabCore

/// A notification id in a chunk: a form byte (none, a canonical UUID in upper or lower case as
/// two words, or text) and its value. The writer remembers the last id: a push's records repeat it.
struct ChunkNotificationIDs {
    private enum Form {
        static let none: UInt8 = 0
        static let upperCaseUUID: UInt8 = 1
        static let lowerCaseUUID: UInt8 = 2
        static let text: UInt8 = 3
    }

    private var last: (text: String, uuid: CanonicalUUID?)?

    /// Returns the id as a UUID, if it is one.
    @discardableResult
    mutating func write(_ notificationID: String?, to writer: inout ChunkWriter) -> CanonicalUUID? {
        guard let notificationID else {
            writer.byte(Form.none)
            return nil
        }
        let uuid: CanonicalUUID?
        if let last, last.text == notificationID {
            uuid = last.uuid
        } else {
            uuid = CanonicalUUID(notificationID)
            last = (notificationID, uuid)
        }
        guard let uuid else {
            writer.byte(Form.text)
            writer.text(notificationID)
            return nil
        }
        write(uuid, to: &writer)
        return uuid
    }

    /// An id already read as a UUID.
    func write(_ uuid: CanonicalUUID, to writer: inout ChunkWriter) {
        writer.byte(uuid.isLowercase ? Form.lowerCaseUUID : Form.upperCaseUUID)
        writer.word(uuid.high)
        writer.word(uuid.low)
    }

    static func read(from reader: inout ChunkReader) throws(StoreError) -> String? {
        switch try reader.byte() {
        case Form.none: return nil
        case Form.text: return try reader.text()
        case let form where form == Form.upperCaseUUID || form == Form.lowerCaseUUID:
            return CanonicalUUID(high: try reader.word(), low: try reader.word(), isLowercase: form == Form.lowerCaseUUID).text
        case let form: throw reader.damaged("holds a notification id of an unknown form \(form)")
        }
    }
}
