#ifndef PUSHLAB_MALLOC_TUNING_H
#define PUSHLAB_MALLOC_TUNING_H

/// Gives each glibc malloc arena a whole heap up front and keeps free memory at the top of each
/// instead of trimming it after every burst. Also runs before main in any program that links
/// this module; calling it again is harmless. Returns 1 when glibc took both settings, 0 where
/// glibc is not the allocator (nothing is changed there).
int pushlab_keep_malloc_arenas_warm(void);

#endif
