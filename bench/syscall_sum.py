#!/usr/bin/env python3
"""Sums the time spent in the syscalls that dominate crt's lifecycle, from
`strace -ff -y -T -o PREFIX` logs: syscall_sum.py RUNS LOG...  (all the
per-process files of RUNS runs)

Categories are what docs/performance.md talks about.  strace makes every
syscall slower, so only the blocking ones (fsync, cgroup attach, umount of
the old root, pivot_root, sendfile) are trustworthy in absolute terms; the
counts are exact."""
import re
import sys

CATS = [
    ("cgroup attach (write cgroup.procs)", r'^write\((\d+)<[^>]*cgroup\.procs>'),
    ("cgroup other writes", r'^write\(\d+<[^>]*/sys/fs/cgroup/'),
    ("cgroup mkdir", r'^mkdir\("/sys/fs/cgroup/'),
    ("cgroup rmdir", r'^rmdir\("/sys/fs/cgroup/'),
    ("fsync (state.json)", r'^fsync\('),
    ("memfd copy (sendfile)", r'^sendfile\('),
    ("execve/execveat", r'^exec(ve|veat)\('),
    ("clone (namespaces)", r'^clone3?\('),
    ("mount", r'^mount\('),
    ("pivot_root", r'^pivot_root\('),
    ("umount2 (old root, lazy)", r'^umount2\('),
    ("mknodat (devices)", r'^mknodat\('),
    ("exec.fifo open (waits for start)", r'^openat\(AT_FDCWD<[^>]*>, "/proc/self/fd/\d+", O_WRONLY'),
]
T = re.compile(r"<(\d+\.\d+)>\s*$")


def main():
    tot = {name: [0, 0.0] for name, _ in CATS}
    runs = int(sys.argv[1])
    for path in sys.argv[2:]:
        for line in open(path, errors="replace"):
            body = line  # -ff files: one process each, no pid prefix
            m = T.search(body)
            if not m:
                continue
            for name, rx in CATS:
                if re.match(rx, body):
                    tot[name][0] += 1
                    tot[name][1] += float(m.group(1))
                    break
    print("%-38s %8s %10s   (per run, %d runs)" % ("syscall group", "calls", "ms", runs))
    for name, _ in CATS:
        n, s = tot[name]
        print("%-38s %8.1f %10.2f" % (name, n / runs, s * 1000 / runs))


if __name__ == "__main__":
    main()
