/* libFuzzer harness: config.json and process.json parsers, plus the
 * serialiser and the create-time checks on whatever parses.  The body is
 * fuzz_config_one in harness.h; build and run with tests/fuzz/run.sh. */
#define _GNU_SOURCE
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_config_one(data, size); }
