#ifndef PUSHLAB_LIBFUZZER_DRIVER_H
#define PUSHLAB_LIBFUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver (its command-line flags in argv) over `test_one_input`; returns the
/// driver's exit status. The binary must be linked with -sanitize=fuzzer.
int pushlab_run_libfuzzer(int argc, char **argv, int (*test_one_input)(const uint8_t *data, size_t size));

#endif
