#define _GNU_SOURCE
/* libFuzzer harness for crt_mount_opts_parse: the input is split at NUL
 * bytes into an options list.  Build (not part of `make`):
 *   clang -g -fsanitize=fuzzer,address,undefined -Iinclude $(pkg-config --cflags mount) \
 *     tests/fuzz/fuzz_mountopts.c src/linux/mounts.c src/util/error.c src/util/log.c \
 *     src/util/fs.c src/linux/resolve.c $(pkg-config --libs mount) -o build/fuzz_mountopts */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crt/rootfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = 0;
  char *v[65];
  size_t n = 0;
  for (char *p = buf; p <= buf + size && n < 64; p += strlen(p) + 1) v[n++] = p;
  v[n] = NULL;
  crt_strv opts = {v, n};
  crt_mount_opts o;
  crt_err *err = NULL;
  if (crt_mount_opts_parse(&opts, &o, &err) == 0) {
    /* Invariant: a bit is never both set and cleared. */
    if (o.flags & o.clear) abort();
    if (o.attr_set & o.attr_clr & ~0x70u) abort();
    crt_mount_opts_free(&o);
  }
  crt_err_free(&err);
  free(buf);
  return 0;
}
