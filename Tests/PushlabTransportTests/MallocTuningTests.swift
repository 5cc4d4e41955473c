#if canImport(Glibc)
import CMallocTuning
import Testing

/// `pushlab serve` keeps glibc from growing each event loop's heap a page (and an `mprotect`) at
/// a time. The tuning once compiled to nothing (its glibc test came before any libc header)
/// without anyone noticing; this fails if it does again.
@Suite("glibc arenas kept warm")
struct MallocTuningTests {
    @Test func glibcTakesBothSettings() {
        #expect(pushlab_keep_malloc_arenas_warm() == 1)
    }
}
#endif
