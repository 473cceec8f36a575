# Shared by the cgroup v2 guests (tests/guest/*/run.sh): Debian's own
# kernel, unpacked from its package (never installed on the host), booted
# under qemu with software emulation, and a way to copy host programs
# with their libraries into a guest's root.
G=${GUEST_DIR:-$PWD/build/guest}

# guest_kernel: sets K to $G/kernel-SUITE/{vmlinuz,modules/,package}, the
# kernel of GUEST_KERNEL: "bookworm" (default; Debian 12's newest 6.1.0-N,
# from the host's apt lists) or "sid" (its newest, through
# tests/lib/sidapt.sh); kept between runs (a make clean drops it).
guest_kernel() {
  local suite=${GUEST_KERNEL:-bookworm} pkg tmp apt=()
  local k=$G/kernel-$suite
  if [ ! -s "$k/vmlinuz" ]; then
    if [ "$suite" = sid ]; then
      . "$(dirname "${BASH_SOURCE[0]}")/../lib/sidapt.sh"
      sid_apt_init || { echo "guest: no sid package lists" >&2; return 1; }
      apt=("${SID_APT[@]}")
    fi
    # bookworm: Debian 12's own series (6.1.0-N), not the 6.12 its updates
    # also carry: 6.12.118 oopsed once in devcgroup_check_permission under
    # TCG in the v2 guest (a rehearsal of make check), 6.1 never has
    local want='^linux-image-6\.1\.0-[0-9]+-amd64$'
    [ "$suite" = sid ] && want='^linux-image-[0-9][^ ]*-amd64$'
    pkg=$(apt-cache "${apt[@]}" search --names-only "$want" | awk '{print $1}' |
          grep -vE -- '-(cloud|rt)-amd64$' | sort -V | tail -1)
    [ -n "$pkg" ] || { echo "guest: no linux-image-*-amd64 package known to apt ($suite)" >&2; return 1; }
    mkdir -p "$G"
    tmp=$(mktemp -d "$G/kernel.XXXXXX")
    # newer kernels split the image into linux-binary-* (vmlinuz),
    # linux-modules-* and linux-base-* (modules.builtin) packages that the
    # image package depends on
    local parts
    parts=$(apt-cache "${apt[@]}" show "$pkg" | sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' |
            grep -oE 'linux-(binary|modules|base)-[^ ]+' || true)
    (cd "$tmp" && apt-get "${apt[@]}" download -q "$pkg" $parts >/dev/null 2>&1) ||
      { echo "guest: apt-get download $pkg $parts failed" >&2; rm -rf "$tmp"; return 1; }
    local deb
    for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/x"; done
    mkdir -p "$tmp/k"
    mv "$tmp"/x/lib/modules/* "$tmp/k/modules" 2>/dev/null || mv "$tmp"/x/usr/lib/modules/* "$tmp/k/modules"
    if [ -e "$tmp/k/modules/vmlinuz" ]; then mv "$tmp/k/modules/vmlinuz" "$tmp/k/vmlinuz"
    else cp "$tmp"/x/boot/vmlinuz-* "$tmp/k/vmlinuz"; fi
    echo "$pkg" >"$tmp/k/package"
    rm -rf "$k"
    mv "$tmp/k" "$k"
    rm -rf "$tmp"
  fi
  K=$k
}

# guest_add_bin ROOT PROGRAM [DEST]: the program and every library ldd
# names, at their host paths (DEST: where the program goes instead).
guest_add_bin() {
  local root=$1 prog=$2 dest=${3:-$2} lib
  mkdir -p "$root$(dirname "$dest")"
  cp -L "$prog" "$root$dest"
  for lib in $(ldd "$prog" 2>/dev/null | grep -oE '/[^ ]+'); do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

# guest_modules ROOT NAME...: kernel modules copied flat into ROOT/modules,
# in the order given (the guest insmods them in that order); a module built
# into the kernel is skipped, and so is an absent ?NAME.
guest_modules() {
  local root=$1 m f; shift
  mkdir -p "$root/modules"
  for m in "$@"; do
    local optional=0
    case $m in \?*) optional=1 m=${m#\?} ;; esac
    f=$(find "$K/modules" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" | head -1)
    if [ -z "$f" ]; then
      # built into this kernel, or (?NAME) a module older kernels need
      # and newer ones fold into another (libcrc32c, nfnetlink in 7.x)
      grep -qE "/$m\.ko$" "$K/modules/modules.builtin" 2>/dev/null && continue
      [ $optional = 1 ] && continue
      echo "guest: no module $m in $(cat "$K/package")" >&2; return 1
    fi
    # the guest's busybox insmod takes a plain .ko
    case $f in
      *.xz) xz -dc "$f" >"$root/modules/$m.ko" ;;
      *.zst) zstd -qdc "$f" >"$root/modules/$m.ko" ;;
      *) cp "$f" "$root/modules/" ;;
    esac
    echo "$m" >>"$root/modules/order"
  done
}

# guest_boot INITRD LOG SECONDS [qemu args...]: boots the kernel with the
# initramfs under TCG; the guest powers off when done.  The serial console
# goes to LOG.  Fails when qemu does not stop within SECONDS.
guest_boot() {
  local initrd=$1 log=$2 secs=$3; shift 3
  timeout -k 5 "$secs" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 2048 -nodefaults \
    -display none -monitor none -serial "file:$log" -no-reboot \
    -kernel "$K/vmlinuz" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 cgroup_no_v1=all ${GUEST_APPEND:-}" "$@"
}
