#!/usr/bin/env bash
# podman (with conmon) drives ./crt.
#
# podman.sh [WORKDIR]: runs podman with --runtime = a wrapper named crt that
# records every argv and execs ./crt, storage (--root, --runroot, --tmpdir,
# vfs driver) under WORKDIR (default a fresh temp dir), and CONTAINERS_CONF =
# contrib/podman/containers.conf with the test's paths filled in.  Imports a
# locally built busybox rootfs, runs containers, checks what podman reports
# and what crt was asked, then removes everything and checks that nothing
# remains.  Exit 0 only if every check passed.  Needs root, podman 4, conmon.
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
CRT=${CRT_BIN:-$REPO/crt}
if [ $# -gt 0 ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d /tmp/crt-podman.XXXXXX); fi
W=$(cd "$W" && pwd)
IMG=localhost/crt-busybox:latest
P=crt-tp$$            # prefix of every container name
fails=0

. "$here/lib.sh"   # say, bad, die, ok_eq, ok_has
# podman 5 on a cgroup v1 host warns on every command that v1 is deprecated,
# into the output the checks read (podman 4 ignores this)
export PODMAN_IGNORE_CGROUPSV1_WARNING=1
podman5=false
[ "$(podman --version 2>/dev/null | awk '{print $3}' | cut -d. -f1)" -ge 5 ] 2>/dev/null && podman5=true
pm() { timeout 60 podman --runtime "$W/bin/crt" --root "$W/root" --runroot "$W/rr" \
  --tmpdir "$W/tmp" --storage-driver vfs "$@"; }
# A known crt bug, reported to the lead: with a seccomp profile and without
# noNewPrivileges (podman's default), a non-root process.user fails because
ok_eq_user() { ok_eq "$@"; }
status() { pm inspect --format '{{.State.Status}} {{.State.ExitCode}}' "$1" 2>&1; }

[ "$(id -u)" = 0 ] || die "needs root"
for b in podman conmon python3 script; do command -v "$b" >/dev/null || die "$b is not installed"; done
[ -x "$CRT" ] || die "no $CRT: run make"
# podman refuses a runroot longer than 50 characters.
[ ${#W} -le 47 ] || die "work dir $W is too long: podman's runroot $W/rr must be <= 50 characters"

# Host paths podman writes to whatever its flags say; removed at the end only
# if this run made them.
host_paths="/var/lib/containers /run/containers /etc/containers/networks /run/crt"
for c in /sys/fs/cgroup/*/; do host_paths="$host_paths ${c}libpod_parent"; done
made=""
for h in $host_paths; do [ -e "$h" ] || made="$made $h"; done

cleanup() {
  set +e
  pm rm -af -t 0 >/dev/null 2>&1
  pm rmi -af >/dev/null 2>&1
  # conmon runs `podman container cleanup` after each exit; let those finish.
  for _ in $(seq 50); do pgrep -f "$W/" >/dev/null || break; sleep 0.1; done
  left=$(pgrep -af "$W/"); [ -z "$left" ] || { bad "processes left: $left"; kill -KILL $(pgrep -f "$W/"); }
  m=$(grep -c " $W" /proc/self/mountinfo)
  [ "$m" = 0 ] || { bad "$m mounts left under $W"; grep " $W" /proc/self/mountinfo | awk '{print $5}' | sort -r | xargs -r -n1 umount -l; }
  # podman passes no --root: crt's state is in its default root.
  st=$("$CRT" list -q 2>/dev/null | grep -xf <(grep -oE '[0-9a-f]{64}$' "$W/argv.log" 2>/dev/null | sort -u))
  [ -z "$st" ] || bad "crt state left in its default root: $st"
  cg=$(for id in $(grep -oE '[0-9a-f]{64}$' "$W/argv.log" 2>/dev/null | sort -u); do
    find /sys/fs/cgroup -maxdepth 3 -type d -name "libpod-$id" 2>/dev/null; done)
  [ -z "$cg" ] || bad "container cgroups left: $cg"
  for h in $made; do
    case $h in
      /sys/*) rmdir "$h/conmon" "$h" 2>/dev/null ;;
      /run/crt) rmdir "$h" 2>/dev/null ;;   # crt's default root, if empty
      *) rm -rf "$h" ;;
    esac
  done
  report_and_exit
}
trap cleanup EXIT

# The contrib snippet, with this run's crt and paths kept under $W.
sed -e "s#\"/usr/local/bin/crt\", \"/usr/bin/crt\"#\"$W/bin/crt\"#" \
    -e "/^\[containers\]/a netns = \"none\"\nlog_driver = \"k8s-file\"" \
    -e "/^\[engine\]/a events_logfile_path = \"$W/events.log\"\nvolume_path = \"$W/volumes\"" \
    "$REPO/contrib/podman/containers.conf" >"$W/containers.conf"
printf '[network]\nnetwork_config_dir = "%s/networks"\n' "$W" >>"$W/containers.conf"
export CONTAINERS_CONF=$W/containers.conf
mkdir -p "$W/bin"
cat >"$W/bin/crt" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>"$W/argv.log"
prev= bundle= cmd= id=
for a in "\$@"; do
  [ "\$prev" = --bundle ] && bundle=\$a
  [ "\$a" = create ] && cmd=create
  prev=\$a id=\$a
done
if [ "\$cmd" = create ] && [ -n "\$bundle" ]; then mkdir -p "$W/configs"; cp "\$bundle/config.json" "$W/configs/\$id.json"; fi
exec "$CRT" "\$@"
SH
chmod +x "$W/bin/crt"
python3 "$here/mkimage.py" "$W/image" || die "mkimage.py failed"
out=$(pm import "$W/image/rootfs.tar" "$IMG" 2>&1) || die "podman import: $out"

# 1. foreground runs, output and exit codes
out=$(pm run --rm "$IMG" echo hi 2>&1); rc=$?
ok_eq "0 hi" "$rc $out" "run --rm echo hi"
out=$(pm run --rm "$IMG" sh -c 'exit 7' 2>&1); rc=$?
ok_eq 7 "$rc" "run exit status ($out)"
out=$(pm run --rm "$IMG" /nonexistent 2>&1); rc=$?
ok_eq 127 "$rc" "run of a missing binary: exit status"
ok_has "$out" 'exec: "/nonexistent": stat /nonexistent: no such file or directory' "run of a missing binary: crt's message"
out=$(pm run --rm "$IMG" sh -c 'cat /proc/self/limits' 2>&1)
ok_eq "1024 1024" "$(echo "$out" | awk '/open files/ {print $4, $5}')" "default_ulimits nofile reaches the container"
out=$(pm run --rm --umask 0027 "$IMG" sh -c umask 2>&1)
ok_eq 0027 "$out" "run --umask 0027: the process's umask"
if $podman5; then   # podman 5 passes it as process.user.umask (0027 = 23)
  out=$(python3 -c '
import json, sys, glob
for f in glob.glob(sys.argv[1] + "/configs/*.json"):
    c = json.load(open(f))
    if c["process"]["args"] == ["sh", "-c", "umask"]:
        print(c["process"]["user"].get("umask"))
' "$W" 2>&1)
  ok_eq 23 "$out" "run --umask 0027: process.user.umask in config.json"
fi

# podman attaches to conmon while the process starts; output of a process
# that exits at once is sometimes lost (runc too: 1 in 10 here), hence the
# sleep.  timeout sits outside script so ctr/podman stay in the pty's
# foreground process group whatever $SHELL is (see containerd.sh).
out=$(SHELL=/bin/sh timeout 60 script -qec "podman --runtime $W/bin/crt --root $W/root --runroot $W/rr --tmpdir $W/tmp --storage-driver vfs run --rm -it $IMG sh -c 'sleep 1; tty; exit 2'" /dev/null 2>&1); rc=$?
ok_eq 2 "$rc" "run -it under a pty: exit status ($out)"
ok_has "$out" /dev/pts/0 "run -it: the process has a terminal"

out=$(pm run --rm --memory 64m --pids-limit 50 "$IMG" sh -c 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max' 2>&1)
ok_eq "67108864 50" "$(echo $out)" "run --memory --pids-limit: the container's cgroup limits"
out=$(pm run --rm --user 65534 "$IMG" id -u 2>&1)
ok_eq_user 65534 "$out" "run --user 65534"

# 2. detached container: exec, logs, top, pause/unpause, stop
c=$P-d
out=$(pm run -d --name "$c" "$IMG" sh -c 'trap "exit 0" TERM; echo started; while :; do sleep 0.1; done' 2>&1) \
  || die "run -d: $out"
ok_eq "running 0" "$(status "$c")" "run -d: running"
out=$(pm exec "$c" echo in-exec 2>&1); rc=$?
ok_eq "0 in-exec" "$rc $out" "exec echo"
out=$(pm exec --user 65534 -e FOO=bar -w /tmp "$c" sh -c 'echo $(id -u) $FOO $(pwd)' 2>&1)
ok_eq_user "65534 bar /tmp" "$out" "exec --user -e -w"
out=$(pm exec "$c" sh -c 'exit 4' 2>&1); rc=$?
ok_eq 4 "$rc" "exec exit status ($out)"
out=$(pm exec "$c" /nonexistent 2>&1); rc=$?
ok_eq 127 "$rc" "exec of a missing binary: exit status"
ok_has "$out" 'exec: "/nonexistent": stat /nonexistent: no such file or directory' "exec of a missing binary: crt's message"
out=$(SHELL=/bin/sh timeout 60 script -qec "podman --runtime $W/bin/crt --root $W/root --runroot $W/rr --tmpdir $W/tmp --storage-driver vfs exec -it $c sh -c 'sleep 1; tty; exit 6'" /dev/null 2>&1); rc=$?
ok_eq 6 "$rc" "exec -it under a pty: exit status ($out)"
ok_has "$out" /dev/pts/ "exec -it: the process has a terminal"
out=$(pm logs "$c" 2>&1)
ok_eq started "$out" "logs"
out=$(pm top "$c" args 2>&1)
ok_has "$out" "while :" "top lists the container's processes"
out=$(pm pause "$c" 2>&1) || bad "pause: $out"
ok_eq "paused 0" "$(status "$c")" "pause"
out=$(pm unpause "$c" 2>&1) || bad "unpause: $out"
ok_eq "running 0" "$(status "$c")" "unpause"
s0=$(date +%s)
out=$(pm stop -t 10 "$c" 2>&1) || bad "stop: $out"
ok_eq "exited 0" "$(status "$c")" "stop: SIGTERM handled, exit 0"
[ $(($(date +%s) - s0)) -lt 8 ] || bad "stop took until the SIGKILL timeout"
out=$(pm rm "$c" 2>&1) || bad "rm: $out"

# 3. kill, rm -f
c=$P-k
out=$(pm run -d --name "$c" "$IMG" sleep 100 2>&1) || die "run -d: $out"
out=$(pm kill "$c" 2>&1) || bad "kill: $out"
pm wait "$c" >/dev/null 2>&1
ok_eq "exited 137" "$(status "$c")" "kill: SIGKILL, exit 137"
out=$(pm rm "$c" 2>&1) || bad "rm after kill: $out"
c=$P-f
out=$(pm run -d --name "$c" "$IMG" sleep 100 2>&1) || die "run -d: $out"
out=$(pm rm -f -t 0 "$c" 2>&1) || bad "rm -f: $out"
ok_eq "" "$(pm ps -aq)" "no containers left in podman"

# 5. checkpoint and restore (CRIU: pick_criu in lib.sh; podman checks CRIU
# itself through PATH).
criu=$(pick_criu)
if "$criu" check >/dev/null 2>&1; then
  ln -sf "$criu" "$W/bin/criu"
  c=$P-ck
  out=$(pm run -d --name "$c" "$IMG" sh -c 'i=0; while :; do i=$((i+1)); echo $i; sleep 0.2; done' 2>&1) || die "run -d: $out"
  sleep 1
  out=$(PATH=$W/bin:$PATH pm container checkpoint "$c" 2>&1) || bad "container checkpoint: $out"
  ok_eq "exited" "$(pm inspect --format '{{.State.Status}}' "$c" 2>&1)" "checkpoint: the container stopped"
  n=$(pm logs "$c" 2>&1 | tail -n1)
  out=$(PATH=$W/bin:$PATH pm container restore "$c" 2>&1) || bad "container restore: $out"
  ok_eq "running 0" "$(status "$c")" "restore: running again"
  sleep 1
  ok_has " $(pm logs "$c" 2>&1 | tr '\n' ' ')" " $n $((n + 1)) " "restore: goes on counting after $n"
  out=$(pm rm -f -t 0 "$c" 2>&1) || bad "rm -f after restore: $out"
  # with a terminal (podman run -dt): crt dumps the pty slave (its master is
  # conmon's) and restore hands conmon the master of a new pty of the
  # container's own devpts over --console-socket
  c=$P-ckt
  out=$(pm run -dt --name "$c" "$IMG" sh -c 'i=0; while :; do i=$((i+1)); echo $i; sleep 0.2; done' 2>&1) || die "run -dt: $out"
  sleep 1
  out=$(PATH=$W/bin:$PATH pm container checkpoint "$c" 2>&1) || bad "terminal: container checkpoint: $out"
  ok_eq "exited" "$(pm inspect --format '{{.State.Status}}' "$c" 2>&1)" "terminal checkpoint: the container stopped"
  n=$(pm logs "$c" 2>&1 | tr -d '\r' | grep -E '^[0-9]+$' | tail -n1)
  out=$(PATH=$W/bin:$PATH pm container restore "$c" 2>&1) || bad "terminal: container restore: $out"
  ok_eq "running 0" "$(status "$c")" "terminal restore: running again"
  sleep 1
  ok_has " $(pm logs "$c" 2>&1 | tr -d '\r' | tr '\n' ' ')" " $((n + 1)) " "terminal restore: goes on counting after $n on the new console"
  ok_has "$(pm exec "$c" readlink /proc/1/fd/0 2>&1)" "/dev/pts/" "terminal restore: the process's stdin is a terminal"
  out=$(pm rm -f -t 0 "$c" 2>&1) || bad "rm -f after the terminal restore: $out"
  [ -s /run/criu.kdat.tmp ] || rm -f /run/criu.kdat.tmp   # criu 4.2 leaves it empty
  did_ck=1
else
  bad "checkpoint/restore: $criu fails 'criu check' (CRIU=PATH names another)"
  did_ck=0
fi

# 4. What podman/conmon asked of crt.  Every distinct command line, with the
# work dir, ids and temp names made generic, must be in this list, and the
# lifecycle ones must all have been seen: a new flag or subcommand fails here.
V="W/root/vfs-containers/ID/userdata"
# conmon passes --log-format=json only because crt is in runtime_supports_json.
L="--log-format=json --log"
tty="--tty "; $podman5 && tty=   # conmon 2.1.13 leaves it to process.terminal
allowed=$(sort -u <<EXP
$L W/rr/vfs-containers/ID/userdata/oci-log create --bundle $V --pid-file W/rr/vfs-containers/ID/userdata/pidfile ID
$L W/rr/vfs-containers/ID/userdata/oci-log create --bundle $V --pid-file W/rr/vfs-containers/ID/userdata/pidfile --console-socket SOCKET ID
start ID
$L $V/ID/oci-log exec --pid-file $V/ID/exec_pid --process $V/ID/exec-process-N --detach ID
$L $V/ID/oci-log exec --pid-file $V/ID/exec_pid --process $V/ID/exec-process-N --detach $tty--console-socket SOCKET ID
pause ID
resume ID
kill ID 15
kill ID 9
kill --all ID 9
state ID
delete --force ID
checkpoint --help
checkpoint --image-path $V/checkpoint --work-path $V ID
$L W/rr/vfs-containers/ID/userdata/oci-log restore --bundle $V --pid-file W/rr/vfs-containers/ID/userdata/pidfile --detach --image-path $V/checkpoint --work-path $V ID
$L W/rr/vfs-containers/ID/userdata/oci-log restore --bundle $V --pid-file W/rr/vfs-containers/ID/userdata/pidfile --detach --image-path $V/checkpoint --work-path $V --console-socket SOCKET ID
EXP
)
required=$(grep -Ev '^(state|kill --all)' <<<"$allowed")
[ "$did_ck" = 1 ] || required=$(grep -Ev 'checkpoint|restore' <<<"$required")
got=$(sed -E "s#$W#W#g; s#[0-9a-f]{64}#ID#g; s#exec-process-[0-9]+#exec-process-N#g; s#--console-socket [^ ]+#--console-socket SOCKET#g" "$W/argv.log" | sort -u)
extra=$(comm -13 <(echo "$allowed") <(echo "$got"))
missing=$(comm -23 <(echo "$required") <(echo "$got"))
ok_eq "" "$extra" "podman asked crt nothing unexpected"
ok_eq "" "$missing" "podman used create/start/exec/pause/resume/kill/delete"
