/* libFuzzer harness: crt_mountinfo_parse, the reader of /proc/self/mountinfo
 * (src/linux/procinfo.c).  The body is fuzz_mountinfo_one in harness.h;
 * build and run with tests/fuzz/run.sh (FUZZ_ONLY=mountinfo). */
#define _GNU_SOURCE
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_mountinfo_one(data, size); }
