#!/usr/bin/env bash
# The current reference runtimes from Debian sid, runnable on this
# Debian 12 host: runc 1.3.6 and crun 1.28, and sid's CRIU 4.2.1.
#
#   bash tests/lib/peers.sh runc    # prints the path of runc 1.3.6 (built on first use)
#   bash tests/lib/peers.sh crun    # likewise crun 1.28
#   bash tests/lib/peers.sh criu    # likewise CRIU 4.2.1 (the checkpoint tests' criu)
#
# sid's binaries need sid's glibc (2.38 or newer; bookworm has 2.36), so
# each is unpacked from its .deb (apt-get download through a private apt
# configuration: /etc/apt is not touched) with its libraries from sid, and
# its ELF interpreter and RPATH point at those libraries (patchelf).  The
# program is otherwise Debian's, byte for byte: /proc/self/exe (runc's
# re-exec of itself) is the same file, and its init runs before any
# pivot_root, on the host's paths.  Cached under $PEERS_DIR by a hash of the
# package versions; a new sid upload gives a new directory.
set -eu
what=${1:-runc}
. "$(dirname "$0")/sidapt.sh"
sid_apt_init
apto=("${SID_APT[@]}")

case $what in
  runc) prog=usr/sbin/runc pkgs="runc libc6 libseccomp2" ;;
  crun) prog=usr/bin/crun
        pkgs="crun libc6 libseccomp2 libsystemd0 libcap2 libblake3-0 libjson-c5 libgcrypt20 liblzma5 libzstd1 liblz4-1 libgpg-error0" ;;
  criu) prog=usr/sbin/criu
        pkgs="criu libc6 libbsd0 libmd0 libgnutls30t64 libp11-kit0 libffi8 libidn2-0 libunistring5 libtasn1-6
              libhogweed6t64 libnettle8t64 libgmp10 libnftables1 libmnl0 libnftnl11 libxtables12 libjansson4
              libprotobuf-c1 libnl-3-200 libnet9 libuuid1" ;;
  *) echo "peers.sh: runc, crun or criu, not $what" >&2; exit 2 ;;
esac
command -v patchelf >/dev/null || { echo "peers.sh: patchelf is missing (contrib/install-deps.sh installs it)" >&2; exit 1; }
vers=$(apt-cache "${apto[@]}" policy $pkgs | awk '/^[a-z0-9]/ {p=$1} /Candidate:/ {print p $2}')
key=$(echo "$what $vers" | sha256sum | cut -c1-12)
top=$PEERS_DIR/$what-$key
if [ ! -x "$top/$what" ]; then
  tmp=$(mktemp -d "$PEERS_DIR/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get "${apto[@]}" -qq download $pkgs >&2)
  for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
  lib=$top/root/usr/lib/x86_64-linux-gnu
  cp "$tmp/root/$prog" "$tmp/$what"
  patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$tmp/$what"
  rm -rf "$top"
  mkdir -p "$top"
  mv "$tmp/root" "$top/root"
  mv "$tmp/$what" "$top/$what"
  echo "$vers" >"$top/versions"
  "$top/$what" --version >/dev/null
fi
echo "$top/$what"
