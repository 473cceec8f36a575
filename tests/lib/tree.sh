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
