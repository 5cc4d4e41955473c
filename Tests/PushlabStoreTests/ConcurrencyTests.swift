import PushlabSimulator
import PushlabStore
import Testing

@Suite("Recording from many threads at once")
struct ConcurrencyTests {
    @Test func nothingIsLostWhileTheWriterAndQueriesRun() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .milliseconds(1))
        let writers = 8
        let perWriter = 1_000

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        let sequence = Int64(writer * perWriter + index + 1)
                        store.record([.badge(sequence, device: "phone-\(writer)")])
                    }
                }
            }
            group.addTask {
                // Reads while batches commit: every answer is in order and without repeats.
                for _ in 0..<10 {
                    let seen = try store.observations(limit: 100_000).map(\.sequence)
                    #expect(seen == seen.sorted() && Set(seen).count == seen.count)
                }
            }
            try await group.waitForAll()
        }
        try await store.flush()

        let all = try store.observations(limit: 100_000)
        #expect(all.map(\.sequence) == (1...Int64(writers * perWriter)).map { $0 })
        #expect(try store.observations(deviceID: "phone-3", limit: 100_000).count == perWriter)
        #expect(store.statistics.itemsWritten == writers * perWriter && store.statistics.droppedItems == 0)
        try await store.close()
    }
}
