import PushlabCore

/// A chunk's string table, writing side: a text's first use writes its index and the text, each
/// later use only the index.
///
/// An open-addressed table keyed by `WordHash` of the text's bytes rather than a
/// `[String: UInt64]`: seeding and finalizing `Hasher` for every new device id, and growing the
/// dictionary from empty in every chunk, were over a quarter of the table's cost, and the table
/// was a seventh of the store writer's.
struct ChunkStringTable {
    private var texts: [String] = []
    private var hashes: [UInt64] = []
    /// Each slot holds an index into `texts` plus one; 0 is empty. At most half full.
    private var slots: [UInt32] = []
    /// The index written last: records mostly repeat it (a push's observations share a device),
    /// and comparing a string with itself is a pointer check, cheaper than hashing it.
    private var last = -1

    /// Writes `text`'s index (and, the first time, the text); returns the index.
    @discardableResult
    mutating func write(_ text: String, to writer: inout ChunkWriter) -> UInt64 {
        if last >= 0, texts[last] == text {
            writer.unsigned(UInt64(last))
            return UInt64(last)
        }
        let hash = Self.hash(text)
        if slots.count < (texts.count + 1) * 2 { grow() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let index = Int(slots[slot]) - 1
            if hashes[index] == hash, texts[index] == text {
                last = index
                writer.unsigned(UInt64(index))
                return UInt64(index)
            }
            slot = (slot + 1) & mask
        }
        let index = texts.count
        slots[slot] = UInt32(index + 1)
        texts.append(text)
        hashes.append(hash)
        last = index
        writer.unsigned(UInt64(index))
        writer.text(text)
        return UInt64(index)
    }

    /// Writes the index a `write` of this table returned: the caller knows the text is the same.
    func write(index: UInt64, to writer: inout ChunkWriter) {
        assert(index < UInt64(texts.count), "a string index this table never gave out")
        writer.unsigned(index)
    }

    private mutating func grow() {
        let capacity = max(16, slots.count * 2)
        slots = [UInt32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (index, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(index + 1)
        }
    }

    private static func hash(_ text: String) -> UInt64 {
        if let hash = text.utf8.withContiguousStorageIfAvailable({ WordHash.hash(UnsafeRawBufferPointer($0)) }) { return hash }
        var text = text
        return text.withUTF8 { WordHash.hash(UnsafeRawBufferPointer($0)) }
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
