# Real clients drive crt: containerd (ctr + runc v2 shim), podman (conmon, as
# root and rootless), buildah (as root and rootless) and
# Docker (dockerd + its managed containerd).
# The work happens in tests/clients/*.sh, which print one line per check; here
# each runs with its work dir under $T (so run.sh's leak check sees it) and a
# time limit.  A missing client is a failure, not a skip: the packages come
# from contrib/install-deps.sh.  clients_run is in lib.sh (t_cri.sh uses it
# too).

test_containerd() { clients_run containerd.sh; }
test_podman() { clients_run podman.sh; }
# rootless podman as a throw-away user: the runtime is euid 0 in podman's
# user namespace (about 10 s here)
test_podman_rootless() { clients_run podman-rootless.sh; }
# rootless buildah (from, run, commit) as a throw-away user (about 5 s)
test_buildah_rootless() { clients_run buildah-rootless.sh; }
# dockerd 20.10 (managed containerd, runc v2 shim) with crt as its default
# runtime: about 35 s here.
test_docker() { clients_run docker.sh; }

# The same scripts with Debian sid's clients (tests/lib/sid.sh): containerd
# 2.1, Docker 28.5, podman 5.8, buildah 1.43 on this kernel and paths, in
# a mount namespace of their own.  Times on this loaded 2-core machine:
# containerd 17-26 s, docker 72 s, podman 41 s, rootless podman 30 s,
# rootless buildah 23 s (with runc 1.3.6: 34, 77, 40, 29, 42 s).
test_sid_containerd() { sid_clients_run containerd.sh; }
test_sid_docker() { sid_clients_run docker.sh; }
test_sid_podman() { sid_clients_run podman.sh; }
test_sid_podman_rootless() { sid_clients_run podman-rootless.sh; }
test_sid_buildah_rootless() { sid_clients_run buildah-rootless.sh; }
