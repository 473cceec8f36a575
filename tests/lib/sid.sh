# The current clients from Debian sid (containerd 2.x, Docker 28, podman 5,
# buildah 1.4x, runc 1.3, crun 1.28, criu 4) as a userland the tests enter:
#
#   . tests/lib/sid.sh
#   sid_root              # prints the root's path, building it if missing
#   sid_enter CMD...      # runs CMD inside it, on the host's kernel and paths
#   bash tests/lib/sid.sh --build   # builds it (tests/check.sh does, in the background)
#
# The root is debootstrap's minbase sid plus the client packages, installed
# by apt inside it: Debian packages only, nothing prebuilt.  It is cached as
# $SID_DIR/root-KEY, KEY a hash of its inputs (suite, mirror, packages and
# sid_setup below): a change of any of them builds a new root, and a fresh
# clone of the checkout on the same machine reuses the one built before
# (it lives outside the checkout, like tests/lib/peers.sh's runtimes; a
# build takes a few minutes).  Older roots are removed when a new one is
# made.
#
# sid_enter runs CMD in a private mount namespace: the root is bind-mounted
# onto itself, /proc /sys /dev /run /tmp /var/tmp and the checkout ($REPO)
# are rbound at their host paths, then pivot_root into it (not chroot: CRIU
# refuses to dump a container when its own root is not its mount
# namespace's).  sid's daemons thus run on the
# host's kernel with the host's paths (sockets under /run, state under
# /tmp), and drive ./crt built on the host as it is.  Every mount dies with
# the namespace: nothing of it is ever seen in the host's.

SID_DIR=${SID_DIR:-/var/tmp/crt-sid}
SID_SUITE=sid
SID_PKGS="containerd docker.io docker-cli podman buildah conmon runc crun catatonit uidmap passwd
  containernetworking-plugins netavark aardvark-dns passt slirp4netns fuse-overlayfs tini
  iptables iproute2 python3 python3-grpcio python3-grpc-tools python3-protobuf
  bsdextrautils bsdutils util-linux procps criu ca-certificates busybox-static"

. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"

sid_mirror() {
  local m
  m=$(awk '/^URIs:/ && /debian\/?$/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  [ -n "$m" ] || m=$(awk '$1 == "deb" && $3 ~ /^bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  echo "${m:-http://deb.debian.org/debian}"
}

# sid_setup ROOT: what the root gets after debootstrap (part of the key).
sid_setup() {
  local r=$1
  # apt inside, by hand too: the mirror may serve a snapshot whose Release
  # is past its Valid-Until
  echo 'Acquire::Check-Valid-Until "false";' >"$r/etc/apt/apt.conf.d/90crt-snapshot"
  # shellcheck disable=SC2086
  tree_apt_install "$r" "$SID_DIR/apt.log" $SID_PKGS || return 1
  rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/* "$r"/usr/share/{doc,man,locale,info}/*
}

sid_key() {
  { echo "$SID_SUITE $(sid_mirror) $SID_PKGS"; declare -f sid_setup tree_apt_install; } | sha256sum | cut -c1-16
}

# sid_root: prints the root's path; builds it when missing (one build at a
# time: a second caller waits for the first).
sid_root() {
  local key top
  key=$(sid_key)
  top=$SID_DIR/root-$key
  mkdir -p "$SID_DIR"
  if [ ! -e "$top/.done" ]; then
    (
      flock 9
      [ -e "$top/.done" ] || sid_build "$top" >&2
    ) 9>"$SID_DIR/.lock" || return 1
  fi
  echo "$top"
}

sid_build() { # TOP
  local top=$1 tmp t0=$SECONDS old
  tmp=$SID_DIR/.build-$$
  tree_remove "$tmp" || return 1
  echo "sid: building $top (debootstrap --variant=minbase $SID_SUITE, then apt-get install)"
  if ! tree_debootstrap "$SID_SUITE" "$tmp" "$(sid_mirror)" "$SID_DIR/debootstrap.log" --variant=minbase ||
     ! sid_setup "$tmp" || ! tree_unmounted "$tmp"; then
    echo "sid: building the root failed" >&2
    tree_remove "$tmp"
    return 1
  fi
  for old in "$SID_DIR"/root-*; do
    [ -d "$old" ] && [ "$old" != "$top" ] && tree_remove "$old"
  done
  tree_remove "$top" || return 1
  mv "$tmp" "$top"
  touch "$top/.done"
  echo "sid: built in $((SECONDS - t0)) s"
}

# sid_enter CMD...: CMD inside the sid root, with the host's /proc /sys /dev
# /run /tmp /var/tmp and $REPO (the checkout) at their paths.  REPO defaults
# to the checkout this file is in.
sid_enter() {
  local r repo
  r=$(sid_root) || return 1
  repo=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
  unshare --mount --propagation private -- sh -ec '
    r=$1 repo=$2; shift 2
    mount --bind "$r" "$r"
    for d in /proc /sys /dev /run /tmp /var/tmp "$repo"; do
      mkdir -p "$r$d"
      mount --rbind "$d" "$r$d"
    done
    here=$(pwd)
    cd "$r"
    pivot_root . .
    umount -l .
    cd "$here" 2>/dev/null || cd /
    exec "$@"' sh "$r" "$repo" "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -eu
  case ${1:-} in
    --build) sid_root ;;
    --enter) shift; sid_enter "$@" ;;
    *) echo "usage: sid.sh --build | --enter CMD..." >&2; exit 2 ;;
  esac
fi
