/* libFuzzer harness: crt_mount_opts_parse, the input split at NUL bytes
 * into an options list.  The body is fuzz_mountopts_one in harness.h; build
 * and run with tests/fuzz/run.sh (FUZZ_ONLY=mountopts). */
#define _GNU_SOURCE
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_mountopts_one(data, size); }
