/* Capabilities (src/linux/caps.c). */
#ifndef CRT_CAPS_H
#define CRT_CAPS_H

#include <stdbool.h>

#include "crt/error.h"
#include "crt/spec.h"

/* Capabilities, in two steps around setuid/setgid:
 * crt_caps_prepare: drops the bounding set and sets PR_SET_KEEPCAPS;
 * crt_caps_apply: sets effective, permitted, inheritable, then ambient. */
int crt_caps_prepare(const crt_capabilities *c, crt_err **err);
int crt_caps_apply(const crt_capabilities *c, crt_err **err);
/* Capability name -> number, -1 when unknown to crt; not-in-kernel is
 * reported by crt_cap_supported(). */
int crt_cap_from_name(const char *name);
bool crt_cap_supported(int cap);

#endif
