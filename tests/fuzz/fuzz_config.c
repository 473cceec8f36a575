/* libFuzzer harness: config.json and process.json parsers, plus the
 * serialiser and the create-time checks on whatever parses. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crt/log.h"
#include "crt/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  crt_spec *s = NULL;
  crt_err *err = NULL;
  if (crt_spec_parse((const char *)data, size, "config.json", &s, &err) == 0) {
    char *j = crt_spec_to_json(s, size & 1);
    crt_spec *s2 = NULL;
    /* What the serialiser writes must parse again. */
    if (j == NULL || crt_spec_parse(j, strlen(j), "gen", &s2, &err) < 0) abort();
    crt_spec_free(s2);
    free(j);
    if (crt_spec_validate_for_create(s, &err) < 0) crt_err_free(&err);
    crt_spec_free(s);
  } else {
    if (err == NULL || err->msg == NULL) abort();
    crt_err_free(&err);
  }
  crt_process *p = NULL;
  if (crt_process_parse((const char *)data, size, "process.json", &p, &err) == 0)
    crt_process_free(p);
  else
    crt_err_free(&err);
  return 0;
}
