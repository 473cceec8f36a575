#!/usr/bin/env bash
# make check-systemd: boots Debian's kernel under qemu (TCG) on a Debian
# bookworm image with systemd as PID 1 on a pure cgroup2 hierarchy, and
# runs tests/guest/systemd/checks.sh there for crt --systemd-cgroup and
# runc --systemd-cgroup alike.  GUEST_RUNTIMES="crt runc" picks runtimes,
# GUEST_CHECKS="scope docker" checks; --image builds the image alone.
#
# The image (debootstrap + the unit setup below) is cached under
# build/guest/systemd/image-KEY.ext4, KEY a hash of its build inputs; it
# is booted as a qemu snapshot, so it stays clean.  What changes between
# runs (crt, runc, the checks, the containers' rootfs) goes in the
# initramfs, which copies it onto the root before starting systemd.
set -eu
cd "$(dirname "$0")/../../.."
. tests/guest/lib.sh
. tests/lib/tree.sh
here=$PWD
t0=$(date +%s)
S=$G/systemd
mkdir -p "$S"

# GUEST_SUITE: sid (default; systemd 262, podman 5.8, Docker 28.5,
# containerd 2.1, runc 1.3.6: what users run today) or bookworm (Debian
# 12's systemd 252, podman 4.3, Docker 20.10 and the host's runc 1.1.5).
suite=${GUEST_SUITE:-sid}
mirror=$(awk '/^URIs:/ && /debian\/?$/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
# debootstrap's packages, then the clients through apt in the tree
# (tree_apt_install: apt orders their configuration; debootstrap's batches
# fail on sid's python3-grpcio)
pkgs=systemd,systemd-sysv,dbus,libseccomp2,libcap2,libyajl2,libmount1,jq
clients="netavark podman docker.io apparmor"
# sid: docker-cli is its own package; runc and containerd are sid's;
# rootless podman under a systemd --user session (logind, dbus-user-session,
# uidmap, passt); containerd's CRI plugin driven by tests/clients/cri/cri.py
[ "$suite" = sid ] &&
  clients="$clients docker-cli containerd runc conmon catatonit uidmap passt dbus-user-session python3-grpcio python3-grpc-tools python3-protobuf"

# the guest's kernel: sid's with the sid userland, else bookworm's (6.1)
[ "$suite" = sid ] && GUEST_KERNEL=${GUEST_KERNEL:-sid}
guest_kernel

# customize ROOT: the guest's systemd setup, part of the image's key.
customize() {
  local r=$1 u
  # Nothing but the checks: no gettys, timers, first-boot or logind.
  for u in getty@tty1.service serial-getty@ttyS0.service getty.target console-getty.service \
    systemd-logind.service systemd-firstboot.service systemd-machine-id-commit.service \
    systemd-update-utmp.service systemd-update-utmp-runlevel.service systemd-pstore.service \
    systemd-timesyncd.service systemd-networkd-wait-online.service systemd-hwdb-update.service \
    ldconfig.service e2scrub_reap.service e2scrub_all.timer fstrim.timer apt-daily.timer \
    apt-daily-upgrade.timer dpkg-db-backup.timer systemd-tmpfiles-clean.timer \
    remote-fs.target systemd-remount-fs.service systemd-random-seed.service \
    systemd-journal-flush.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
    sys-kernel-debug.mount sys-kernel-tracing.mount sys-fs-fuse-connections.mount \
    systemd-ask-password-console.path systemd-ask-password-wall.path \
    docker.service docker.socket containerd.service podman.service podman.socket podman-restart.service \
    podman-auto-update.service podman-auto-update.timer podman-clean-transient.service; do
    ln -sf /dev/null "$r/etc/systemd/system/$u"
  done
  if [ "$suite" = sid ]; then
    # rootless podman's user: logind starts its systemd --user session
    rm -f "$r/etc/systemd/system/systemd-logind.service"
    echo 'guest:x:1000:1000:guest:/home/guest:/bin/sh' >>"$r/etc/passwd"
    echo 'guest:x:1000:' >>"$r/etc/group"
    echo 'guest:!:20000:0:99999:7:::' >>"$r/etc/shadow"
    echo 'guest:100000:65536' >"$r/etc/subuid"
    echo 'guest:100000:65536' >"$r/etc/subgid"
    mkdir -p "$r/home/guest" && chown 1000:1000 "$r/home/guest"
  fi
  rm -f "$r"/etc/systemd/system/*.wants/{getty@tty1.service,e2scrub_reap.service,remote-fs.target,systemd-pstore.service}
  rm -f "$r"/etc/systemd/system/timers.target.wants/*
  cat >"$r/etc/systemd/system/crt-checks.service" <<'UNIT'
[Unit]
Description=crt systemd cgroup checks
Requires=dbus.socket
After=dbus.service dbus.socket systemd-journald.service
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/guest/guest-checks
TimeoutStartSec=1050
StandardInput=null
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
  mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
  ln -sf ../crt-checks.service "$r/etc/systemd/system/multi-user.target.wants/crt-checks.service"
  ln -sf /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
  mkdir -p "$r/etc/systemd/journald.conf.d"
  printf '[Journal]\nStorage=volatile\nForwardToConsole=no\n' >"$r/etc/systemd/journald.conf.d/guest.conf"
  echo guest >"$r/etc/hostname"
  printf '0123456789abcdef0123456789abcdef\n' >"$r/etc/machine-id"
  : >"$r/etc/fstab"
  rm -rf "$r"/usr/share/{doc,man,locale,info}/* "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*
}

key=$({ echo "$suite $mirror $pkgs $clients"; declare -f customize; } | sha256sum | cut -c1-16)
img=$S/image-$key.ext4
if [ ! -s "$img" ]; then
  echo "guest-systemd: building the image ($suite from $mirror, key $key)"
  tree=$S/tree
  image_failed() { echo "guest-systemd: $1"; tree_remove "$tree"; rm -f "$img.tmp"; echo "guest-systemd: 0 passed, 1 failed"; exit 1; }
  tree_remove "$tree" || image_failed "an earlier build left mounts under $tree"
  rm -f "$S"/image-*.ext4
  tree_debootstrap $suite "$tree" "$mirror" "$S/debootstrap.log" --variant=minbase --include=$pkgs ||
    image_failed "debootstrap failed"
  tree_apt_install "$tree" "$S/apt.log" $clients || image_failed "apt-get install of the clients failed"
  customize "$tree"
  # mkfs copies what it sees: nothing may be mounted in the tree
  tree_unmounted "$tree" || image_failed "mounts in the image tree"
  mkfs.ext4 -q -F -d "$tree" -L guestroot "$img.tmp" 2600M || image_failed "mkfs.ext4 failed"
  mv "$img.tmp" "$img"
  tree_remove "$tree"
  echo "guest-systemd: image built in $(($(date +%s) - t0)) s"
fi
# --image: only the image (make check builds it while the unit tests run)
[ "${1:-}" = --image ] && exit 0

# The initramfs: busybox, the disk and ext4 modules, and the payload.
ir=$S/initramfs p=$S/initramfs/payload
rm -rf "$ir"; mkdir -p "$ir"/{bin,proc,sys,dev} "$p"/{guest/rootfs/bin,usr/local/bin,usr/sbin}
cp /bin/busybox "$ir/bin/busybox"
guest_modules "$ir" virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk \
  crc16 mbcache jbd2 ?crc32c_generic ext4
install -m 755 tests/guest/systemd/init "$ir/init"
cp ./crt "$p/usr/local/bin/crt"
# bookworm's image has no runc: the host's 1.1.5 is its reference; sid's
# image has its own runc 1.3.6
[ "$suite" = sid ] || cp /usr/sbin/runc "$p/usr/sbin/runc"
if [ "$suite" = sid ]; then
  : >"$p/guest/sid"
  # the CRI check: cri.py, its proto, a busybox image and a pause image
  mkdir -p "$p/guest/cri"
  cp tests/clients/cri/cri.py tests/clients/cri/api.proto "$p/guest/cri/"
  python3 tests/clients/mkimage.py "$p/guest/images/busybox" docker.io/library/crt-busybox:latest >/dev/null
  python3 tests/clients/mkimage.py --cmd '["sleep", "2147483647"]' "$p/guest/images/pause" docker.io/library/crt-pause:1 >/dev/null
  rm -f "$p"/guest/images/*/rootfs.tar
fi
install -m 755 tests/guest/systemd/guest-checks "$p/guest/guest-checks"
cp tests/guest/systemd/checks.sh "$p/guest/"
echo "${GUEST_RUNTIMES:-crt runc}" >"$p/guest/runtimes"
echo "${GUEST_CHECKS:-}" >"$p/guest/checks" # empty: all
echo "${GUEST_CHECKS_TIMEOUT:-1100}" >"$p/guest/timeout"
# The containers' rootfs: busybox and its applets.
cp /bin/busybox "$p/guest/rootfs/bin/"
for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$p/guest/rootfs/bin/$a"; done
mkdir -p "$p"/guest/rootfs/{proc,sys,dev,tmp,etc}
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$p/guest/rootfs/etc/passwd"
printf 'root:x:0:\n' >"$p/guest/rootfs/etc/group"
(cd "$S" && rm -f config.json && "$here/crt" spec)
jq '.ociVersion = "1.0.2" | .process.terminal = false | .root = {"path": "/guest/rootfs", "readonly": true}
    | .process.env += ["PATH=/bin"]' "$S/config.json" >"$p/guest/base.json"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$S/initrd"

log=$S/console.log
t1=$(date +%s)
GUEST_APPEND="systemd.unified_cgroup_hierarchy=1 systemd.show_status=0 systemd.log_level=warning" \
  guest_boot "$S/initrd" "$log" "${GUEST_TIMEOUT:-1300}" \
  -drive "file=$img,if=virtio,format=raw,snapshot=on,cache=unsafe" || echo "guest: qemu stopped with $?"
grep -aE '^(ok   |FAIL |guest)' "$log" | tr -d '\r' | grep -avE '^guest-systemd: [0-9]+ passed' || true
line=$(grep -aE '^guest-systemd: [0-9]+ passed, [0-9]+ failed' "$log" | tr -d '\r' | tail -1)
echo "guest-systemd: stage took $(($(date +%s) - t0)) s, the guest $(($(date +%s) - t1)) s ($(cat "$K/package"))"
if [ -z "$line" ]; then
  echo "guest-systemd: no result from the guest; its console:"; tail -40 "$log" | tr -d '\r'
  echo "guest-systemd: 0 passed, 1 failed"; exit 1
fi
echo "$line"
case $line in *" 0 failed") exit 0 ;; *) exit 1 ;; esac
