/* libFuzzer harness: crt_parse_signal, the SIGNAL argument of `crt kill`.
 * The body is fuzz_signal_one in harness.h; build and run with
 * tests/fuzz/run.sh (FUZZ_ONLY=signal). */
#define _GNU_SOURCE
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_signal_one(data, size); }
