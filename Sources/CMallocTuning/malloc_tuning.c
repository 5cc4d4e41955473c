#include "malloc_tuning.h"

// Any libc header defines __GLIBC__ (through <features.h>); without one first, the test below
// is false and the tuning compiles to nothing.
#include <stdint.h>
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <jemalloc/jemalloc.h>
#endif

// Asks jemalloc how much this thread has allocated, around a malloc: the count moves only if
// the malloc every library calls is jemalloc's (linked into the program, ahead of the C library).
int pushlab_jemalloc_serves_malloc(void) {
#if defined(__linux__)
    uint64_t before = 0, after = 0;
    size_t size = sizeof(before);
    if (mallctl("thread.allocated", &before, &size, NULL, 0) != 0) return 0;
    void *volatile block = malloc(4096);
    size = sizeof(after);
    int served = mallctl("thread.allocated", &after, &size, NULL, 0) == 0 && after - before >= 4096;
    free(block);
    return served;
#else
    return 0;
#endif
}

const char *pushlab_jemalloc_version(void) {
#if defined(__linux__)
    const char *version = NULL;
    size_t size = sizeof(version);
    if (mallctl("version", &version, &size, NULL, 0) == 0) return version;
#endif
    return NULL;
}

// glibc grows a thread's arena page by page, one mprotect (and a VMA split and merge under the
// process's mmap lock) each time: a load test that queues pushes for the simulator did that about
// once per ten requests. An arena's first heap is made with M_TOP_PAD added, up to glibc's 64 MiB
// heap size, so with the pad set before any thread allocates, each arena starts with a whole heap
// it can use without a system call; later heaps are made the same way. Address space, not
// resident memory until touched. Keeping the top of each arena (no trim after a burst) saves
// the same calls on the next burst. Measured in Benchmarks/results/performance-history.md.
int pushlab_keep_malloc_arenas_warm(void) {
#if defined(__GLIBC__)
    return mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024) == 1 && mallopt(M_TOP_PAD, 64 * 1024 * 1024) == 1;
#else
    return 0;
#endif
}

// Before main: arenas made before the call (the Swift runtime's and Dispatch's threads start
// early, and a new thread may be handed an exited thread's arena) would keep growing page by page.
// Only where glibc still serves malloc (a program that does not link jemalloc).
__attribute__((constructor)) static void pushlab_tune_malloc_before_main(void) {
    if (!pushlab_jemalloc_serves_malloc()) (void)pushlab_keep_malloc_arenas_warm();
}
