/* What the unit tests and the fuzzers reach in src/linux beyond the public
 * headers: hooks no production code calls, so they stay out of
 * include/crt/ (tests/lint/test_only.py, t_docs).  Tests include this file
 * by its path. */
#ifndef CRT_LINUX_TEST_HOOKS_H
#define CRT_LINUX_TEST_HOOKS_H

#include <stdbool.h>
#include <stdio.h>

#include "crt/error.h"
#include "crt/procinfo.h"

/* procfs.c: which fallbacks may be used (all by default). */
void crt_procfs_test_allow(bool fsmount, bool clone);

/* procinfo.c: the mountinfo parser, on any stream of mountinfo lines;
 * lines that are not mountinfo are skipped. */
int crt_mountinfo_parse(FILE *f, const char *fstype, const char *under, crt_mountinfo *out, crt_err **err);

#endif
