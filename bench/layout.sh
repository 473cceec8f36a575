# shellcheck shell=bash disable=SC2016  # the bash -c scripts expand in the namespace
# The cgroup layouts of bench.sh and ab.sh (sourced).  Each function runs
# "$@" in a private mount namespace, so the host's mounts are untouched.

# cgroup2ns: /sys/fs/cgroup is a fresh cgroup2 mount (mount options from
# $CG2_OPTS, e.g. favordynmods).  crun 1.8.1 can run here only with its
# cgroup manager disabled (see bench.sh), so it is not like-for-like.
in_cgroup2ns() {
  unshare -m --propagation private bash -c \
    'umount -l /sys/fs/cgroup && mount -t cgroup2 ${CG2_OPTS:+-o "$CG2_OPTS"} none /sys/fs/cgroup &&
     exec "$@"' cgroup2ns "$@"
}

# v1ns: the host's v1 hierarchies, with every cgroup2 mount under
# /sys/fs/cgroup (the hybrid layout's "unified") lazily unmounted.  crun
# 1.8.1 refuses hybrid ("cgroups in hybrid mode not supported") but runs on
# pure v1 with its cgroupfs manager, so here crt, runc and crun all create
# and join a cgroup in every v1 hierarchy: the like-for-like layout.
# Refuses (exit 1) a host without v1 hierarchies rather than measure
# something else under this name.
in_v1ns() {
  unshare -m --propagation private bash -c '
    set -e
    fail() { echo "v1ns: $*" >&2; exit 1; }
    [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] ||
      fail "/sys/fs/cgroup is a cgroup2 mount (pure v2 host): no v1 hierarchies to measure"
    findmnt -rn -t cgroup -o TARGET | grep -q "^/sys/fs/cgroup/" ||
      fail "no cgroup v1 hierarchy mounted under /sys/fs/cgroup"
    for m in $(findmnt -rn -t cgroup2 -o TARGET); do
      case $m in /sys/fs/cgroup/*) umount -l "$m" ;; esac
    done
    if findmnt -rn -t cgroup2 -o TARGET | grep -q "^/sys/fs/cgroup/"; then
      fail "a cgroup2 mount is still under /sys/fs/cgroup after umount -l"
    fi
    exec "$@"' v1ns "$@"
}
