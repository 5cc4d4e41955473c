#if canImport(Glibc)
import CMallocTuning
import Testing

/// Programs that link CMallocTuning (`pushlab`, the benchmarks, these tests) allocate through
/// jemalloc; where glibc still serves malloc, its arenas are kept warm instead. The tuning once
/// compiled to nothing (its glibc test came before any libc header) without anyone noticing;
/// these fail if either part silently stops working.
@Suite("malloc")
struct MallocTuningTests {
    @Test func jemallocServesEveryMalloc() throws {
        #expect(pushlab_jemalloc_serves_malloc() == 1)
        let version = try #require(pushlab_jemalloc_version())
        #expect(String(cString: version).hasPrefix("5."))
    }

    @Test func glibcTakesBothSettings() {
        #expect(pushlab_keep_malloc_arenas_warm() == 1)
    }
}
#endif
