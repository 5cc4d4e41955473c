#ifndef PUSHLAB_MALLOC_TUNING_H
#define PUSHLAB_MALLOC_TUNING_H

/// Keeps free memory at the top of each glibc malloc arena instead of trimming it with mprotect
/// after every burst. No effect where glibc is not the allocator.
void pushlab_keep_malloc_arenas_warm(void);

#endif
