/// Repeated strings (topics, push types, reasons) written once per chunk: the first time as text,
/// after that as their index.
struct ChunkStringTable {
    private var indexes: [String: UInt64] = [:]
    /// The last few values written, newest first.
    private var recent: [(text: String, index: UInt64)] = []
    private static let recentCount = 4

    mutating func write(_ text: String, to writer: inout ChunkWriter) {
        // Records mostly repeat one of the last few values (a push's observations take turns
        // with their kinds' details); comparing identical strings is a pointer check, cheaper
        // than hashing.
        for slot in recent.indices where recent[slot].text == text {
            let index = recent[slot].index
            writer.unsigned(index)
            if slot > 0 { recent.swapAt(slot, 0) }
            return
        }
        // One hash of the text, found or added (a load test's devices are mostly new to a chunk).
        var isNew = false
        let index = Self.index(in: &indexes[text], next: UInt64(indexes.count), isNew: &isNew)
        writer.unsigned(index)
        if isNew { writer.text(text) }
        if recent.count == Self.recentCount { recent.removeLast() }
        recent.insert((text, index), at: 0)
    }
}

extension ChunkStringTable {
    private static func index(in slot: inout UInt64?, next: UInt64, isNew: inout Bool) -> UInt64 {
        if let known = slot { return known }
        slot = next
        isNew = true
        return next
    }
}

/// The reading side of `ChunkStringTable`.
struct ChunkStrings {
    private var texts: [String] = []

    mutating func read(from reader: inout ChunkReader) throws(StoreError) -> String {
        let index = try reader.unsigned()
        if index < UInt64(texts.count) { return texts[Int(index)] }
        guard index == UInt64(texts.count) else { throw reader.damaged("refers to string \(index) of \(texts.count)") }
        let text = try reader.text()
        texts.append(text)
        return text
    }
}
