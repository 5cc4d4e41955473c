#include "malloc_tuning.h"

// Any libc header defines __GLIBC__ (through <features.h>); without one first, the test below
// is false and the tuning compiles to nothing.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// glibc grows a thread's arena page by page, one mprotect (and a VMA split and merge under the
// process's mmap lock) each time: a load test that queues pushes for the simulator did that about
// once per ten requests. An arena's first heap is made with M_TOP_PAD added, up to glibc's 64 MiB
// heap size, so with the pad set before any thread allocates, each arena starts with a whole heap
// it can use without a system call; later heaps are made the same way. Address space, not
// resident memory until touched. Keeping the top of each arena (no trim after a burst) saves
// the same calls on the next burst. Measured in docs/PERFORMANCE.md.
int pushlab_keep_malloc_arenas_warm(void) {
#if defined(__GLIBC__)
    return mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024) == 1 && mallopt(M_TOP_PAD, 64 * 1024 * 1024) == 1;
#else
    return 0;
#endif
}

// Before main: arenas made before the call (the Swift runtime's and Dispatch's threads start
// early, and a new thread may be handed an exited thread's arena) would keep growing page by page.
__attribute__((constructor)) static void pushlab_tune_malloc_before_main(void) {
    (void)pushlab_keep_malloc_arenas_warm();
}
