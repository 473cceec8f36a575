/* Network devices (src/linux/netdev.c). */
#ifndef CRT_NETDEV_H
#define CRT_NETDEV_H

#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* linux.netDevices moved into the init's network namespace
 * (runtime side, right after the clone). */
int crt_netdev_move(pid_t init, const crt_kvv *devs, crt_err **err);

#endif
