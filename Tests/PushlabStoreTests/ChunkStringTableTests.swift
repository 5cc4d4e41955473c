import PushlabCore
import Testing

@testable import PushlabStore

@Suite("A chunk's string table")
struct ChunkStringTableTests {
    /// Writes `texts` through one table, then reads them back through the reading side.
    private func roundTrip(_ texts: [String]) throws -> (read: [String], bytes: Int, indexes: [UInt64]) {
        var table = ChunkStringTable()
        var writer = ChunkWriter(capacity: 0)
        var indexes: [UInt64] = []
        for text in texts { indexes.append(table.write(text, to: &writer)) }
        let bytes = writer.bytes
        let read = try bytes.withUnsafeBytes { raw in
            var reader = ChunkReader(raw, what: "a test chunk")
            var strings = ChunkStrings()
            var read: [String] = []
            for _ in texts { read.append(try strings.read(from: &reader)) }
            #expect(reader.isAtEnd)
            return read
        }
        return (read, bytes.count, indexes)
    }

    @Test func thousandsOfTextsInAnyOrderComeBackAsWrittenEachStoredOnce() throws {
        let distinct = (0..<5000).map { "device-\($0)" } + ["", "é", String(repeating: "long text ", count: 40), "bench-000001"]
        var generator = SplitMix64(seed: 7)
        var texts = distinct + distinct + distinct
        texts.shuffle(using: &generator)
        let (read, _, indexes) = try roundTrip(texts)
        #expect(read == texts)
        // One index per distinct text, numbered in order of first use.
        var firstUse: [String: UInt64] = [:]
        for (text, index) in zip(texts, indexes) {
            let expected = firstUse[text] ?? UInt64(firstUse.count)
            firstUse[text] = expected
            #expect(index == expected, "\(text)")
        }
        #expect(firstUse.count == distinct.count)
    }

    @Test func equalTextsInDifferentStorageShareOneIndex() throws {
        let literal = "a device id longer than fifteen bytes"
        let built = String(["a device id", "longer than", "fifteen bytes"].joined(separator: " "))
        let small = "bench-7"
        let smallBuilt = "bench-" + String(7)
        let (read, bytes, indexes) = try roundTrip([literal, small, built, smallBuilt, literal])
        #expect(read == [literal, small, literal, small, literal])
        #expect(indexes == [0, 1, 0, 1, 0])
        // Each text once (a length byte and its bytes) and five one-byte indexes.
        #expect(bytes == 5 + (1 + literal.utf8.count) + (1 + small.utf8.count))
    }

    @Test func aRepeatedIndexWritesWhatWritingTheTextAgainWould() throws {
        var table = ChunkStringTable(), again = ChunkStringTable()
        var byIndex = ChunkWriter(capacity: 0), byText = ChunkWriter(capacity: 0)
        let first = table.write("{\"kind\":\"banner\"}", to: &byIndex)
        table.write("other", to: &byIndex)
        table.write(index: first, to: &byIndex)
        for text in ["{\"kind\":\"banner\"}", "other", "{\"kind\":\"banner\"}"] { again.write(text, to: &byText) }
        #expect(byIndex.bytes == byText.bytes)
    }
}
