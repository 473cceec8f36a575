/* libFuzzer harness: crt_gvariant_parse, the GVariant text of
 * org.systemd.property.* annotations.  The body is fuzz_gvariant_one in
 * harness.h; build and run with tests/fuzz/run.sh (FUZZ_ONLY=gvariant). */
#define _GNU_SOURCE
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_gvariant_one(data, size); }
