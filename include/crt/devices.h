/* The container's /dev (src/linux/devices.c), set up by
 * crt_rootfs_prepare. */
#ifndef CRT_DEVICES_H
#define CRT_DEVICES_H

#include <stdbool.h>

#include "crt/error.h"
#include "crt/rootfs.h"

/* Default devices (when with_defaults), linux.devices and /dev symlinks. */
int crt_rootfs_setup_dev(const crt_rootfs_config *cfg, int rootfd, bool with_defaults, crt_err **err);

#endif
