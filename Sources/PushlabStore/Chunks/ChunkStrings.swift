/// Repeated strings (topics, push types, reasons) written once per chunk: the first time as text,
/// after that as their index.
struct ChunkStringTable {
    private var indexes: [String: UInt64] = [:]
    private var lastText: String?
    private var lastIndex: UInt64 = 0

    mutating func write(_ text: String, to writer: inout ChunkWriter) {
        // Consecutive records mostly repeat the same value; a comparison of identical strings is
        // a pointer check, cheaper than hashing.
        if text == lastText {
            writer.unsigned(lastIndex)
            return
        }
        if let index = indexes[text] {
            writer.unsigned(index)
            (lastText, lastIndex) = (text, index)
            return
        }
        let index = UInt64(indexes.count)
        indexes[text] = index
        writer.unsigned(index)
        writer.text(text)
        (lastText, lastIndex) = (text, index)
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
