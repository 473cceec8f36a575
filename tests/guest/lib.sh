# Shared by the cgroup v2 guests (tests/guest/*/run.sh): Debian's own
# kernel, unpacked from its package (never installed on the host), booted
# under qemu with software emulation, and a way to copy host programs
# with their libraries into a guest's root.
G=${GUEST_DIR:-$PWD/build/guest}

# guest_kernel: $G/kernel/{vmlinuz,modules/} for the newest 6.1 kernel
# package apt knows; kept between runs (a make clean drops it).
guest_kernel() {
  [ -s "$G/kernel/vmlinuz" ] && return 0
  local pkg tmp
  pkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64$' | awk '{print $1}' | sort -V | tail -1)
  [ -n "$pkg" ] || { echo "guest: no linux-image-*-amd64 package known to apt" >&2; return 1; }
  tmp=$(mktemp -d "$G/kernel.XXXXXX")
  (cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) || { echo "guest: apt-get download $pkg failed" >&2; rm -rf "$tmp"; return 1; }
  dpkg-deb -x "$tmp"/*.deb "$tmp/x"
  mkdir -p "$tmp/k"
  cp "$tmp"/x/boot/vmlinuz-* "$tmp/k/vmlinuz"
  mv "$tmp"/x/lib/modules/* "$tmp/k/modules"
  echo "$pkg" >"$tmp/k/package"
  rm -rf "$G/kernel"
  mv "$tmp/k" "$G/kernel"
  rm -rf "$tmp"
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
# in the order given (the guest insmods them in that order).
guest_modules() {
  local root=$1 m f; shift
  mkdir -p "$root/modules"
  for m in "$@"; do
    f=$(find "$G/kernel/modules" -name "$m.ko" | head -1)
    [ -n "$f" ] || { echo "guest: no module $m in $(cat "$G/kernel/package")" >&2; return 1; }
    cp "$f" "$root/modules/"
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
    -kernel "$G/kernel/vmlinuz" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 cgroup_no_v1=all ${GUEST_APPEND:-}" "$@"
}
