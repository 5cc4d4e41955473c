#if canImport(Glibc)
import CMallocTuning
import Foundation
import Glibc
import Testing

/// `pushlab serve` keeps glibc from growing each event loop's heap a page (and an `mprotect`) at
/// a time. The tuning once compiled to nothing without anyone noticing: this looks at the heap a
/// new thread is given.
@Suite("glibc arenas kept warm")
struct MallocTuningTests {
    @Test func aNewThreadAllocatesFromAHeapMappedWhole() throws {
        pushlab_keep_malloc_arenas_warm()
        let address = try #require(Self.addressAllocatedOnANewThread())
        defer { free(UnsafeMutableRawPointer(bitPattern: address)) }
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        let region = try #require(Self.writableRegion(containing: address, in: maps), "no writable mapping holds \(address)")
        // Untuned, a new thread's arena starts with about 132 KiB writable and grows it page by
        // page; tuned, its first heap is writable to glibc's 64 MiB heap size at once.
        #expect(region.count >= 32 << 20, "the heap holding a new thread's allocation is \(region.count) bytes")
    }

    /// A thread's result is its `malloc`, freed after the maps are read.
    private static func addressAllocatedOnANewThread() -> UInt? {
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { _ in malloc(64) }, nil) == 0 else { return nil }
        var allocated: UnsafeMutableRawPointer?
        pthread_join(thread, &allocated)
        return allocated.map { UInt(bitPattern: $0) }
    }

    private static func writableRegion(containing address: UInt, in maps: String) -> Range<UInt>? {
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else { continue }
            if (start..<end).contains(address) { return start..<end }
        }
        return nil
    }
}
#endif
