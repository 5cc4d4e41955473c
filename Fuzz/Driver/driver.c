#include "CLibFuzzerDriver.h"

// libFuzzer's entry point for programs with a main of their own (a SwiftPM executable has
// one); declared here because libFuzzer ships no header for it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int pushlab_run_libfuzzer(int argc, char **argv, int (*test_one_input)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, test_one_input);
}
