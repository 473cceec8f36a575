/* libFuzzer harness: the state.json reader (crt_state_parse) and the state
 * JSON printed from what it accepts.  The body is fuzz_state_one in
 * harness.h; build and run with tests/fuzz/run.sh (FUZZ_ONLY=state). */
#define _GNU_SOURCE
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_state_one(data, size); }
