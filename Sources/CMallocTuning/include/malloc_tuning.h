#ifndef PUSHLAB_MALLOC_TUNING_H
#define PUSHLAB_MALLOC_TUNING_H

/// 1 when jemalloc serves every malloc of the process (on Linux, any program that links this
/// module links jemalloc ahead of the C library), 0 otherwise.
int pushlab_jemalloc_serves_malloc(void);

/// jemalloc's version ("5.3.0-0-g…"), or NULL where jemalloc is not linked.
const char *pushlab_jemalloc_version(void);

/// Gives each glibc malloc arena a whole heap up front and keeps free memory at the top of each
/// instead of trimming it after every burst. Runs before main in any program that links this
/// module and where glibc still serves malloc; calling it again is harmless. Returns 1 when glibc
/// took both settings, 0 where glibc is not the C library (nothing is changed there).
int pushlab_keep_malloc_arenas_warm(void);

#endif
