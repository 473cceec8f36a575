#!/usr/bin/env bash
# make check-v2: boots Debian's kernel under qemu (TCG) on a busybox
# initramfs with every controller on a pure cgroup2 hierarchy, and runs
# tests/guest/v2/checks.sh there for crt, runc and crun alike.
# GUEST_RUNTIMES="crt runc" picks runtimes (runc136: runc 1.3.6, not among
# the default ones), GUEST_CHECKS="io devices" checks.
set -eu
cd "$(dirname "$0")/../../.."
. tests/guest/lib.sh
here=$PWD
t0=$(date +%s)
mkdir -p "$G"
guest_kernel
root=$G/v2/root
rm -rf "$G/v2"; mkdir -p "$root"/{bin,etc,guest/rootfs/bin,usr/local/bin}
cp /bin/busybox "$root/bin/busybox"
guest_add_bin "$root" ./crt /usr/local/bin/crt
for p in /usr/sbin/runc /usr/bin/crun /usr/bin/jq /usr/bin/setpriv /usr/sbin/ip; do guest_add_bin "$root" "$p"; done
# CRIU for the checkpoint checks: $CRIU, else 4.2 beside the checkout
# (the guest's kernel is Debian 12's 6.1, where CRIU 4.2 works)
criu=${CRIU:-$here/../shared/criu/criu}
[ -x "$criu" ] || criu=$(command -v criu)
guest_add_bin "$root" "$criu" /usr/local/bin/criu
# runc 1.3.6 (the reference, tests/lib/peers.sh) only when asked for:
# GUEST_RUNTIMES="crt runc136".  Its ELF interpreter and RPATH are absolute
# paths into the peers cache, so those files go to the same paths.
case " ${GUEST_RUNTIMES:-} " in *" runc136 "*)
  r136=$(bash tests/lib/peers.sh runc)
  cp -L "$r136" "$root/usr/local/bin/runc136"
  lib=$(readelf -d "$r136" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
  mkdir -p "$root$lib"
  for f in ld-linux-x86-64.so.2 $(readelf -d "$r136" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    cp -L "$lib/$f" "$root$lib/$f"
  done ;;
esac
# what criu runs: iproute2's ip (ip addr save; busybox's ip has no netns
# or save), GNU tar (tmpfs contents), iptables-restore for its network
# lock (the nft variant)
guest_add_bin "$root" /usr/sbin/ip /usr/local/bin/ip
guest_add_bin "$root" /usr/bin/tar /usr/local/bin/tar
for t in iptables-restore ip6tables-restore iptables-save ip6tables-save; do
  guest_add_bin "$root" /usr/sbin/xtables-nft-multi /usr/local/bin/$t
done
xt=/usr/lib/x86_64-linux-gnu/xtables
mkdir -p "$root$xt" && cp "$xt"/libxt_mark.so "$xt"/libxt_standard.so "$root$xt/"
guest_modules "$root" virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk dummy \
  tun veth inet_diag tcp_diag udp_diag unix_diag netlink_diag af_packet_diag ?nfnetlink ?crc32c_generic ?libcrc32c nf_tables x_tables nft_compat xt_mark \
  nf_defrag_ipv4 nf_defrag_ipv6 nf_conntrack nf_conntrack_netlink # criu
install -m 755 tests/guest/v2/init "$root/init"
cp tests/guest/v2/checks.sh "$root/guest/"
echo "${GUEST_RUNTIMES:-crt runc crun}" >"$root/guest/runtimes"
echo "${GUEST_CHECKS:-}" >"$root/guest/checks" # empty: all
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
# The containers' rootfs: busybox and its applets.
cp /bin/busybox "$root/guest/rootfs/bin/"
for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$root/guest/rootfs/bin/$a"; done
mkdir -p "$root"/guest/rootfs/{proc,sys,dev,tmp,etc}
cp "$root/etc/passwd" "$root/etc/group" "$root/guest/rootfs/etc/"
(cd "$G/v2" && "$here/crt" spec)
jq '.ociVersion = "1.0.2" | .process.terminal = false | .root = {"path": "/guest/rootfs", "readonly": true}
    | .process.env += ["PATH=/bin"]' "$G/v2/config.json" >"$root/guest/base.json"
mkdir -p "$G/v2/rl" && (cd "$G/v2/rl" && "$here/crt" spec --rootless)
jq '.ociVersion = "1.0.2" | .process.terminal = false | .root = {"path": "/guest/rootfs", "readonly": true}
    | .process.env += ["PATH=/bin"] | .linux.uidMappings[0].hostID = 1000 | .linux.gidMappings[0].hostID = 1000' \
  "$G/v2/rl/config.json" >"$root/guest/rootless.json"
printf 'user:x:1000:1000:user:/tmp:/bin/sh\n' >>"$root/etc/passwd"
printf 'user:x:1000:\n' >>"$root/etc/group"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$G/v2/initrd"
truncate -s 64M "$G/v2/disk"
log=$G/v2/console.log
guest_boot "$G/v2/initrd" "$log" "${GUEST_TIMEOUT:-600}" \
  -drive "file=$G/v2/disk,if=virtio,format=raw,cache=none" || echo "guest: qemu stopped with $?"
grep -aE '^(ok   |FAIL |guest)' "$log" | tr -d '\r' || true
line=$(grep -aE '^guest-v2: [0-9]+ passed, [0-9]+ failed' "$log" | tr -d '\r' | tail -1)
echo "guest-v2: stage took $(($(date +%s) - t0)) s ($(cat "$K/package"))"
if [ -z "$line" ]; then
  echo "guest-v2: no result from the guest; its console:"; tail -30 "$log"
  echo "guest-v2: 0 passed, 1 failed"; exit 1
fi
case $line in *" 0 failed") exit 0 ;; *) exit 1 ;; esac
