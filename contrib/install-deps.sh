#!/usr/bin/env bash
# Installs every Debian package crt's build and tests need (idempotent).
set -eu
# build: compiler and the four libraries; tests: busybox rootfs, python3
# (JSON edits), util-linux (nsenter/unshare), procps (crt ps), tmux
# (terminal tests), man-db/groff (man page tests), runc/crun (peers),
# containerd/podman/conmon (real clients in tests/clients), uidmap/passwd
# (rootless tests: newuidmap, useradd), catatonit (the infra process of
# rootless podman's pod in tests/clients/podman-rootless.sh), strace (cgroup v2 tests), libsystemd-dev
# (sd-bus header; the library is dlopened), dbus-daemon/python3-dbus/python3-gi
# (the mock systemd of the --systemd-cgroup tests), docker.io/buildah (real
# clients), containernetworking-plugins/python3-grpcio/python3-grpc-tools
# (the Kubernetes CRI tests: CNI plugins and a small CRI client), criu
# (checkpoint/restore; on kernels newer than Debian's criu knows, its
# libraries serve ../shared/criu/criu: docs/checkpoint.md), qemu-system-x86/
# cpio/jq (the cgroup v2 guest of tests/guest: Debian's kernel under qemu,
# a busybox initramfs, jq for the guest's config edits), debootstrap/
# e2fsprogs (the systemd guest's Debian image), bindfs/fuse3 (a FUSE
# filesystem as the source of the bind-mount flag tests, runc's
# mounts_sshfs.bats without an ssh server), patchelf (runc 1.3.6 and crun 1.28
# from sid on this host: tests/lib/peers.sh).
pkgs=(gcc make pkg-config libseccomp-dev libcap-dev libyajl-dev libmount-dev libcmocka-dev
      busybox-static python3 iproute2 util-linux procps tmux man-db groff-base coreutils
      runc crun containerd podman conmon catatonit clang libclang-rt-14-dev uidmap passwd strace
      libsystemd-dev dbus-daemon python3-dbus python3-gi docker.io buildah
      containernetworking-plugins python3-grpcio python3-grpc-tools criu
      qemu-system-x86 cpio jq debootstrap e2fsprogs bindfs fuse3 patchelf)
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
