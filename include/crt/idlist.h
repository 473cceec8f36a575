/* Lists of CPU or NUMA node numbers in the kernel's format ("0-3,7"):
 * one strict parser for process.execCPUAffinity, linux.memoryPolicy and
 * anything else that takes such a list. */
#ifndef CRT_IDLIST_H
#define CRT_IDLIST_H

#include <stddef.h>

#include "crt/error.h"

#define CRT_IDLIST_BITS 4096 /* the highest number a list may name, plus one */

/* Into a bit mask of `bits` bits (zeroed first).  Refuses an empty list,
 * empty elements ("1,,2"), signs, spaces, reversed ranges ("3-1") and
 * numbers >= bits; the error says which. */
int crt_parse_id_list(const char *s, unsigned long *mask, size_t bits, crt_err **err);

#endif
