# Building a Debian tree (debootstrap) without leaving anything mounted.
# Sourced by tests/guest/systemd/run.sh and the sid userland
# (tests/lib/sid.sh).
#
# debootstrap mounts /proc (and more) inside the tree it builds and
# unmounts them at its end; on a loaded machine that unmount can be
# refused as busy, and debootstrap returns with /proc still mounted in the
# tree.  A later `mkfs.ext4 -d` or `rm -rf` of the tree then walks into
# the host's procfs.  So debootstrap runs in a mount namespace of its own:
# whatever it mounts dies with that namespace and is never seen in the
# host's.  Every copy or removal of a tree checks first that nothing is
# mounted under it, in this namespace, and refuses otherwise.

# tree_mounts DIR: the mount points at or below DIR in this mount namespace.
tree_mounts() {
  local d
  d=$(realpath -m "$1")
  awk -v d="$d" '{ p = $5; gsub(/\\040/, " ", p) } p == d || index(p, d "/") == 1 { print p }' /proc/self/mountinfo
}

# tree_unmounted DIR: fails, naming them, when anything is mounted under DIR.
tree_unmounted() {
  local m
  m=$(tree_mounts "$1")
  [ -z "$m" ] && return 0
  echo "tree: still mounted under $1: $(echo $m)" >&2
  return 1
}

# tree_remove DIR: rm -rf DIR, never across a mount point.
tree_remove() {
  [ -e "$1" ] || return 0
  tree_unmounted "$1" || return 1
  rm -rf --one-file-system "$1"
}

# tree_debootstrap SUITE DIR MIRROR LOG [debootstrap options...]: debootstrap
# in a private mount namespace; fails when it fails or when anything is
# left mounted under DIR afterwards.
tree_debootstrap() {
  local suite=$1 dir=$2 mirror=$3 log=$4
  shift 4
  unshare --mount --propagation private \
    debootstrap "$@" "$suite" "$dir" "$mirror" >"$log" 2>&1 || {
    tail -20 "$log" >&2
    echo "tree: debootstrap $suite failed (log: $log)" >&2
    return 1
  }
  tree_unmounted "$dir"
}

# tree_apt_install DIR LOG PKG...: apt-get install (no recommends) inside the
# debootstrapped DIR, chrooted in a private mount namespace with its own
# /proc, services kept from starting (policy-rc.d); apt's own ordering
# configures what debootstrap's batches may fail to.  Fails when apt fails
# or anything is left mounted under DIR.
tree_apt_install() {
  local dir=$1 log=$2
  shift 2
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
  unshare --mount --propagation private --fork bash -c '
    set -e
    d=$1; shift
    mount -t proc proc "$d/proc"
    apt=(-o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root -y -q --no-install-recommends)
    chroot "$d" env DEBIAN_FRONTEND=noninteractive apt-get "${apt[@]}" update
    chroot "$d" env DEBIAN_FRONTEND=noninteractive apt-get "${apt[@]}" install "$@"
  ' tree_apt_install "$dir" "$@" >"$log" 2>&1
  local rc=$?
  rm -f "$dir/usr/sbin/policy-rc.d"
  [ $rc = 0 ] || { tail -20 "$log" >&2; echo "tree: apt-get install in $dir failed (log: $log)" >&2; return 1; }
  tree_unmounted "$dir"
}
