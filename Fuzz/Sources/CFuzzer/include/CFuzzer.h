#ifndef BASELINE_CFUZZER_H
#define BASELINE_CFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for a program with a main of its own: SwiftPM names an
// executable's entry point `<module>_main` and points `main` at it, so
// libFuzzer's own `main` is never linked in.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
