/* What both ends of crt's two channels agree on, alone and free of
 * includes, so that the freestanding crt-stub and every layer use the same
 * values: the message types of the runtime-init socket (crt/sync.h) and
 * the bytes of the exec FIFO (crt/execfifo.h).
 * Requests come from the init (or the exec'd process) and get one answer
 * each; the table of who sends what, and when: docs/architecture.md. */
#ifndef CRT_SYNC_WIRE_H
#define CRT_SYNC_WIRE_H

enum crt_sync_type {
  CRT_SYNC_PID = 1,       /* joiner -> runtime: pid of the real init (two-stage spawn; crt-stub too) */
  CRT_SYNC_MAPS_DONE,     /* answers MAPS */
  CRT_SYNC_CGROUP_DONE,   /* answers CGROUP: payload the cgroup path; with the tasks files of a v1
                           * cgroup made after the clone, which the init joins itself.  exec: the
                           * process is in its cgroup (unasked) */
  CRT_SYNC_PRESTART,      /* init (prestart or createRuntime hooks): mounts done, run the hooks */
  CRT_SYNC_PRESTART_DONE, /* answers PRESTART */
  CRT_SYNC_SECCOMP_FD,    /* init or exec: the seccomp notify fd attached, for the agent */
  CRT_SYNC_SECCOMP_DONE,  /* answers SECCOMP_FD */
  CRT_SYNC_READY,         /* init: set up; it parks on the FIFO (or execs: direct) and loads its filter */
  CRT_SYNC_ERROR,         /* init or exec: payload: the message; it exits next */
  CRT_SYNC_TTY_DONE,      /* runtime -> exec -t (foreground): the master's modes are set (unasked) */
  CRT_SYNC_MAPS,          /* init (new user namespace): write my uid/gid maps */
  CRT_SYNC_MOUNT_SOURCE,  /* init (new user namespace): payload a bind mount's index; clone its source */
  CRT_SYNC_MOUNT_FD,      /* answers MOUNT_SOURCE: the source tree attached */
  CRT_SYNC_CGROUP,        /* init: put me into my cgroup and configure it */
  CRT_SYNC_NETDEVS,       /* init (linux.netDevices): move the devices into my network namespace */
  CRT_SYNC_NETDEVS_DONE,  /* answers NETDEVS */
  CRT_SYNC_FIFO,          /* init: the exec FIFO to park on */
  CRT_SYNC_FIFO_FD,       /* answers FIFO: the FIFO attached, none for run's direct start */
  CRT_SYNC_LOG,           /* init or exec: payload a level digit and a log line, for the runtime's
                           * log (never answered; crt_sync_recv writes it and reads on) */
};

/* The exec FIFO: written by the init once start opened it */
#define CRT_FIFO_OPENED "0"
/* what create fills the pipe with (start skips it) */
#define CRT_FIFO_FILL "\0"
/* After CRT_FIFO_OPENED: a failing startContainer hook's message follows;
 * start then destroys the container (runtime.md lifecycle step 7 -> 12). */
#define CRT_FIFO_HOOK_FAILED "\2"

#endif
