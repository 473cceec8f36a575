#!/usr/bin/env bash
# Rootless podman (podman 4, conmon) drives ./crt, as an unprivileged user.
#
# podman-rootless.sh [WORKDIR]: makes a throw-away user (tests/lib/
# rootless-user.sh: /etc/subuid and /etc/subgid ranges), and runs podman as
# that user with --runtime = a wrapper named crt that records every argv,
# the runtime's own uid_map and each bundle's config.json, then execs
# $CRT_BIN (default ./crt; CRT_BIN=/usr/sbin/runc runs the same checks with
# runc).  vfs storage under WORKDIR, cgroupfs (podman uses no cgroup on this
# cgroup v1 host: rootless), no network (netns "none").  This is how podman
# runs a runtime rootless: euid 0 in podman's user namespace, XDG_RUNTIME_DIR
# set, USER unset, no --root, a config without a user namespace, devices or
# cgroupsPath.  Removes everything, the user and its processes; exit 0 only
# if every check passed.  Needs root (to make the user), podman, conmon,
# catatonit (the pod's infra), uidmap.
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
CRT=${CRT_BIN:-$REPO/crt}
CRT=$(readlink -f "$CRT" 2>/dev/null || echo "$CRT")
name=${CRT##*/}
if [ $# -gt 0 ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d /tmp/crt-podman-rl.XXXXXX); fi
W=$(cd "$W" && pwd)
# podman refuses a runroot longer than 50 characters: the runroot and the
# runtime dir live in a short directory of their own.
R=$(mktemp -d /tmp/crt-prl.XXXXXX)
IMG=localhost/crt-busybox:latest
P=crt-prl$$   # prefix of every container name
fails=0

. "$here/lib.sh"                       # say, bad, die, ok_eq, ok_has, report_and_exit
. "$REPO/tests/lib/rootless-user.sh"   # ru_create, ru_remove, ru_as, ru_reach
PM=(podman --runtime "$W/bin/crt" --root "$W/home/storage" --runroot "$R/rr" --tmpdir "$R/tmp" --storage-driver vfs)
pm() { ru_as timeout 60 "${PM[@]}" "$@"; }
status() { pm inspect --format '{{.State.Status}} {{.State.ExitCode}}' "$1" 2>&1; }
# j FILE EXPR: a Python expression over the JSON document d in FILE
j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
# cfg_of ID: the config.json podman gave the runtime for container ID
cfg_of() { echo "$W/log/bundles/$1.json"; }
cid() { pm inspect --format '{{.Id}}' "$1" 2>/dev/null; }

[ "$(id -u)" = 0 ] || die "needs root (to make the test user)"
for b in podman conmon catatonit newuidmap python3 script setpriv; do
  command -v "$b" >/dev/null || die "$b is not installed (contrib/install-deps.sh)"
done
[ -x "$CRT" ] || die "no $CRT: run make"

cleanup() {
  set +e
  pm rm -af -t 0 >/dev/null 2>&1
  pm pod rm -af -t 0 >/dev/null 2>&1
  pm rmi -af >/dev/null 2>&1
  # conmon runs `podman container cleanup` after each exit; let those finish.
  for _ in $(seq 50); do pgrep -f "$W/" >/dev/null || break; sleep 0.1; done
  left=$(pgrep -af "$W/|$R/" | grep -v "pause.pid")
  [ -z "$left" ] || bad "processes left: $left"
  # podman's pause process (it holds the user namespace) and anything else
  # of the user's
  ru_remove
  st=$(ls "$R/run/$name" 2>/dev/null)
  [ -z "$st" ] || bad "runtime state left in \$XDG_RUNTIME_DIR/$name: $st"
  m=$(grep -cE " ($W|$R)" /proc/self/mountinfo)
  [ "$m" = 0 ] || bad "$m mounts left under $W or $R on the host"
  rm -rf "$R"
  report_and_exit
}
trap cleanup EXIT
trap 'bad "killed by a signal"; exit 1' TERM INT HUP

ru_reach "$W" || die "make $W reachable for the test user"
chmod 0755 "$R"
ru_create "$W/home" || die "useradd"
mkdir -p "$W/bin" "$W/log/bundles" "$R/run" "$R/rr" "$R/tmp" "$W/home/vol"
chown "$RU_USER:" "$W/log" "$W/log/bundles" "$R/run" "$R/rr" "$R/tmp" "$W/home/vol"
chmod 0700 "$R/run"
# podman 5 on a cgroup v1 host warns on every command that v1 is
# deprecated, into the output the checks read (podman 4 ignores this)
RU_ENV=(HOME="$W/home" XDG_RUNTIME_DIR="$R/run" CONTAINERS_CONF="$W/containers.conf" PODMAN_IGNORE_CGROUPSV1_WARNING=1)

# The contrib snippet, with this run's runtime and paths.
sed -e "s#\"/usr/local/bin/crt\", \"/usr/bin/crt\"#\"$W/bin/crt\"#" \
    -e "/^\[containers\]/a netns = \"none\"\nlog_driver = \"k8s-file\"" \
    -e "/^\[engine\]/a events_logfile_path = \"$W/log/events.log\"\nvolume_path = \"$W/home/volumes\"" \
    "$REPO/contrib/podman/containers.conf" >"$W/containers.conf"
install -m 0755 "$CRT" "$W/bin/$name.real" || die "copy $CRT for the user"
# The wrapper records argv, the runtime's uid_map and euid (once), and the
# bundle's config.json, as the user in podman's user namespace.
cat >"$W/bin/crt" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>"$W/log/argv.log"
[ -e "$W/log/whoami" ] || { id -u; head -1 /proc/self/uid_map; echo "USER=\${USER-unset} XDG=\$XDG_RUNTIME_DIR"; } >"$W/log/whoami"
prev=
for a in "\$@"; do
  [ "\$prev" = --bundle ] && cp "\$a/config.json" "$W/log/bundles/\$(basename "\$(dirname "\$a")").json" 2>/dev/null
  prev=\$a
done
exec "$W/bin/$name.real" "\$@"
SH
chmod 0755 "$W/bin/crt"
python3 "$here/mkimage.py" "$W/image" >/dev/null || die "mkimage.py failed"
chmod -R a+rX "$W/image"
out=$(pm import "$W/image/rootfs.tar" "$IMG" 2>&1) || die "podman import: $out"

# 1. foreground runs, exit codes; how the runtime was called
out=$(pm run --rm "$IMG" echo hi 2>&1); rc=$?
ok_eq "0 hi" "$rc $out" "run --rm echo hi"
ok_eq "0" "$(sed -n 1p "$W/log/whoami")" "the runtime runs as euid 0 ..."
ok_eq "0 $RU_UID 1" "$(sed -n 2p "$W/log/whoami" | awk '{print $1, $2, $3}')" "... in podman's user namespace (uid_map)"
ok_eq "USER=unset XDG=$R/run" "$(sed -n 3p "$W/log/whoami")" "... with USER unset and XDG_RUNTIME_DIR set"
out=$(pm run --rm "$IMG" sh -c 'exit 7' 2>&1); rc=$?
ok_eq 7 "$rc" "run exit status ($out)"
out=$(pm run --rm "$IMG" /nonexistent 2>&1); rc=$?
ok_eq 127 "$rc" "run of a missing binary: exit status ($out)"
case $name in
  crt) ok_has "$out" 'exec: "/nonexistent": stat /nonexistent: no such file or directory' "run of a missing binary: crt's message" ;;
esac
c=$P-cfg
out=$(pm run --name "$c" "$IMG" sh -c 'grep Seccomp: /proc/self/status; stat -c "%F %t:%T" /dev/null' 2>&1); rc=$?
cfg=$(cfg_of "$(cid "$c")")
ok_eq "False False False" "$(j "$cfg" '" ".join(str(x) for x in (any(n["type"] == "user" for n in d["linux"]["namespaces"]), "devices" in d["linux"], "cgroupsPath" in d["linux"]))')" \
  "podman's config.json: no user namespace, no devices, no cgroupsPath"
# 2. default seccomp, /dev nodes (bound from the host: no mknod here)
ok_eq "True" "$(j "$cfg" '"seccomp" in d["linux"]')" "podman sends its default seccomp profile"
ok_has "$out" "Seccomp:	2" "default seccomp: the process is filtered"
ok_has "$out" "character special file 1:3" "/dev/null is the null device"
pm rm "$c" >/dev/null 2>&1 || bad "rm $c"

# 3. -it under a pty (timeout outside script: see podman.sh)
out=$(ru_as timeout 60 script -qec "$(printf '%q ' "${PM[@]}") run --rm -it $IMG sh -c 'sleep 1; tty; exit 2'" /dev/null 2>&1); rc=$?
ok_eq 2 "$rc" "run -it under a pty: exit status ($out)"
ok_has "$out" /dev/pts/0 "run -it: the process has a terminal"

# 4. detached: exec, stop, rm; the runtime's state under XDG_RUNTIME_DIR
c=$P-d
out=$(pm run -d --name "$c" "$IMG" sh -c 'trap "exit 0" TERM; echo started; while :; do sleep 0.1; done' 2>&1) \
  || die "run -d: $out"
ok_eq "running 0" "$(status "$c")" "run -d: running"
id=$(cid "$c")
[ -d "$R/run/$name/$id" ] && say "ok: the runtime's state is in \$XDG_RUNTIME_DIR/$name" \
  || bad "no state dir $R/run/$name/$id (have: $(ls "$R/run" "$R/run/$name" 2>&1 | tr '\n' ' '))"
out=$(pm exec "$c" echo in-exec 2>&1); rc=$?
ok_eq "0 in-exec" "$rc $out" "exec echo"
out=$(pm exec "$c" sh -c 'exit 4' 2>&1); rc=$?
ok_eq 4 "$rc" "exec exit status ($out)"
out=$(pm exec --user 65534 "$c" id -u 2>&1)
ok_eq 65534 "$out" "exec --user 65534"
s0=$(date +%s)
out=$(pm stop -t 10 "$c" 2>&1) || bad "stop: $out"
ok_eq "exited 0" "$(status "$c")" "stop: SIGTERM handled, exit 0"
[ $(($(date +%s) - s0)) -lt 8 ] || bad "stop took until the SIGKILL timeout"
out=$(pm rm "$c" 2>&1) || bad "rm: $out"
[ ! -e "$R/run/$name/$id" ] && say "ok: rm removed the runtime's state" || bad "state dir $R/run/$name/$id left after rm"

# 5. bind mounts, rw and ro
out=$(pm run --rm -v "$W/home/vol:/v" -v "$W/image:/ro:ro" "$IMG" sh -c 'echo w >/v/f && touch /ro/x' 2>&1); rc=$?
ok_eq "w $RU_UID" "$(cat "$W/home/vol/f" 2>&1) $(stat -c %u "$W/home/vol/f" 2>&1)" "rw bind mount: written, owned by the user on the host"
ok_has "$rc $out" "Read-only file system" "ro bind mount: not writable"

# 6. --userns=keep-id, --user, --read-only
out=$(pm run --rm --userns=keep-id "$IMG" id -u 2>&1)
ok_eq "$RU_UID" "$out" "--userns=keep-id: the user's uid inside"
out=$(pm run --rm --user 1000:1000 "$IMG" sh -c 'echo $(id -u):$(id -g)' 2>&1)
ok_eq "1000:1000" "$out" "--user 1000:1000"
out=$(pm run --rm --read-only "$IMG" sh -c 'touch /x || echo refused; touch /tmp/y && echo tmp-ok' 2>&1)
ok_has "$out" "Read-only file system" "--read-only: / is read-only"
ok_has "$out" "tmp-ok" "--read-only: /tmp is a tmpfs"

# 7. a pod with a shared pid namespace (catatonit is the infra's init)
out=$(pm pod create --name "$P-pod" --share pid,ipc 2>&1) || bad "pod create: $out"
out=$(pm run -d --pod "$P-pod" --name "$P-p1" "$IMG" sleep 100 2>&1) || bad "run -d in the pod: $out"
out=$(pm run --rm --pod "$P-pod" "$IMG" ps -o args 2>&1)
ok_has "$out" "catatonit" "pod: the infra's process is visible"
ok_has "$out" "sleep 100" "pod: the other container's process is visible (shared pid namespace)"
out=$(pm pod rm -f -t 0 "$P-pod" 2>&1) || bad "pod rm: $out"
ok_eq "" "$(pm ps -aq 2>&1)" "no containers left in podman"

# 8. what podman asked of the runtime: the lifecycle, never --root
got=$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^(create|start|exec|kill|delete|state)$/) {print $i; break}}' "$W/log/argv.log" | sort -u | tr '\n' ' ')
ok_eq "create delete exec kill start " "$(echo "$got" | sed 's/state //')" "podman used create/start/exec/kill/delete"
ok_eq "0" "$(grep -c -- '--root' "$W/log/argv.log")" "podman passed no --root (the runtime chose its state root)"
