import PushlabCore

/// A notification id in a chunk: a form byte (none, a canonical UUID in upper or lower case as
/// two words, or text) and its value.
enum ChunkNotificationIDs {
    private enum Form {
        static let none: UInt8 = 0
        static let upperCaseUUID: UInt8 = 1
        static let lowerCaseUUID: UInt8 = 2
        static let text: UInt8 = 3
    }

    /// An id as an observation carries it: a push's as its two words, never as text.
    static func write(_ id: APNsID?, to writer: inout ChunkWriter) {
        guard let id else {
            writer.byte(Form.none)
            return
        }
        if let uuid = id.canonical {
            write(uuid, to: &writer)
        } else {
            writer.byte(Form.text)
            writer.text(id.text)
        }
    }

    /// An id already read as a UUID.
    static func write(_ uuid: CanonicalUUID, to writer: inout ChunkWriter) {
        writer.byte(uuid.isLowercase ? Form.lowerCaseUUID : Form.upperCaseUUID)
        writer.word(uuid.high)
        writer.word(uuid.low)
    }

    static func read(from reader: inout ChunkReader) throws(StoreError) -> String? {
        try readValue(from: &reader)?.text
    }

    static func readValue(from reader: inout ChunkReader) throws(StoreError) -> APNsID? {
        switch try reader.byte() {
        case Form.none: return nil
        case Form.text: return APNsID(try reader.text())
        case let form where form == Form.upperCaseUUID || form == Form.lowerCaseUUID:
            return APNsID(CanonicalUUID(high: try reader.word(), low: try reader.word(), isLowercase: form == Form.lowerCaseUUID))
        case let form: throw reader.damaged("holds a notification id of an unknown form \(form)")
        }
    }
}
