#!/usr/bin/env bash
# containerd (ctr) drives ./crt through the runc v2 shim.
#
# containerd.sh [WORKDIR]: starts a private containerd (socket, root and state
# under WORKDIR, default a fresh temp dir), imports a locally built busybox
# image, runs containers through `ctr -a SOCK` with the shim's BinaryName set
# to a wrapper that records every argv it gets and execs ./crt, checks what
# ctr sees and what the shim passed to crt, then stops containerd by its pid
# and checks that nothing remains.  Exit 0 only if every check passed.
# Needs root and Debian's containerd (1.6).
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
CRT=${CRT_BIN:-$REPO/crt}
if [ $# -gt 0 ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d /tmp/crt-containerd.XXXXXX); fi
W=$(cd "$W" && pwd)
SOCK=$W/containerd.sock
IMG=docker.io/library/crt-busybox:latest
P=crt-tc$$            # prefix of every container id
NS=default            # containerd namespace: crt's --root is $W/crt/$NS
fails=0 cpid=

. "$here/lib.sh"   # say, bad, die, ok_eq, ok_has
ctr_() { timeout 30 ctr -a "$SOCK" -n "$NS" "$@"; }
RUNC_OPTS=(--runc-binary "$W/crt-wrapper" --runc-root "$W/crt")

[ "$(id -u)" = 0 ] || die "needs root"
for b in containerd ctr containerd-shim-runc-v2 python3 script; do
  command -v "$b" >/dev/null || die "$b is not installed (Debian package containerd)"
done
[ -x "$CRT" ] || die "no $CRT: run make"

# What exists before we start, to tell our leftovers from others'.
run_s_before=$(ls /run/containerd/s 2>/dev/null | sort)
fifo_before=$(ls /run/containerd/fifo 2>/dev/null | sort)
cg_before=$(ls -d /sys/fs/cgroup/*/$NS 2>/dev/null | sort)
run_made=""
for d in /run/containerd/s /run/containerd/fifo /run/containerd; do [ -e "$d" ] || run_made="$run_made $d"; done

cleanup() {
  set +e
  if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
    for id in $(ctr_ task ls -q 2>/dev/null); do ctr_ task delete -f "$id" >/dev/null 2>&1; done
    for id in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$id" >/dev/null 2>&1; done
    kill -TERM "$cpid"
    for _ in $(seq 50); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$cpid" 2>/dev/null && { bad "containerd ($cpid) ignored SIGTERM"; kill -KILL "$cpid"; }
    wait "$cpid" 2>/dev/null
  fi
  # Shims exit once their task is deleted; give them a moment.
  for _ in $(seq 30); do pgrep -f "$W/" >/dev/null || break; sleep 0.1; done
  left=$(pgrep -af "$W/"); [ -z "$left" ] || { bad "processes left: $left"; kill -KILL $(pgrep -f "$W/"); }
  m=$(grep -c " $W" /proc/self/mountinfo)
  [ "$m" = 0 ] || { bad "$m mounts left under $W"; grep " $W" /proc/self/mountinfo | awk '{print $5}' | sort -r | xargs -r -n1 umount -l; }
  st=$("$CRT" --root "$W/crt/$NS" list -q 2>/dev/null)
  [ -z "$st" ] || bad "crt state left in $W/crt/$NS: $st"
  cg=$(find /sys/fs/cgroup -maxdepth 4 -type d -name "$P-*" 2>/dev/null)
  [ -z "$cg" ] || bad "cgroups left: $cg"
  new_s=$(comm -13 <(echo "$run_s_before") <(ls /run/containerd/s 2>/dev/null | sort))
  [ -z "$new_s" ] || bad "shim sockets left in /run/containerd/s: $new_s"
  new_f=$(comm -13 <(echo "$fifo_before") <(ls /run/containerd/fifo 2>/dev/null | sort))
  [ -z "$new_f" ] || bad "ctr fifos left in /run/containerd/fifo: $new_f"
  # The namespace's parent cgroups are made on the way (as with runc); remove
  # them if they are ours and empty.
  for d in $(comm -13 <(echo "$cg_before") <(ls -d /sys/fs/cgroup/*/$NS 2>/dev/null | sort)); do rmdir "$d" 2>/dev/null; done
  for d in $run_made; do rmdir "$d" 2>/dev/null; done   # ours, if empty
  report_and_exit
}
trap cleanup EXIT

cat >"$W/config.toml" <<TOML
version = 2
root = "$W/root"
state = "$W/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[debug]
  address = "$SOCK.debug"
TOML
cat >"$W/crt-wrapper" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>"$W/argv.log"
exec "$CRT" "\$@"
SH
chmod +x "$W/crt-wrapper"
python3 "$here/mkimage.py" "$W/image" "$IMG" || die "mkimage.py failed"

criu=$(pick_criu)
ck_ok=0
if "$criu" check >/dev/null 2>&1; then mkdir -p "$W/bin" && ln -sf "$criu" "$W/bin/criu" && ck_ok=1; fi
ctrd_before=$(ls -d /tmp/ctrd-checkpoint* 2>/dev/null | sort)
PATH=$W/bin:$PATH containerd --config "$W/config.toml" >"$W/containerd.log" 2>&1 &
cpid=$!
for _ in $(seq 100); do ctr -a "$SOCK" version >/dev/null 2>&1 && break; kill -0 $cpid 2>/dev/null || break; sleep 0.1; done
ctr -a "$SOCK" version >/dev/null 2>&1 || { tail -20 "$W/containerd.log"; die "containerd did not come up"; }
out=$(ctr_ images import "$W/image/oci.tar" 2>&1) || die "ctr images import: $out"

# 1. foreground run, output
out=$(ctr_ run --rm "${RUNC_OPTS[@]}" "$IMG" "$P-hello" echo hello 2>&1); rc=$?
ok_eq "0 hello" "$rc $out" "run --rm echo hello"

# 2. exit status
out=$(ctr_ run --rm "${RUNC_OPTS[@]}" "$IMG" "$P-exit3" sh -c 'exit 3' 2>&1); rc=$?
ok_eq 3 "$rc" "run sh -c 'exit 3' exit status ($out)"

out=$(ctr_ run --rm "${RUNC_OPTS[@]}" "$IMG" "$P-nobin" /nonexistent 2>&1); rc=$?
ok_eq 1 "$rc" "run of a missing binary fails"
ok_has "$out" 'exec: "/nonexistent": stat /nonexistent: no such file or directory' "run of a missing binary reports crt's message"
ctr_ containers rm "$P-nobin" >/dev/null 2>&1   # ctr leaves it when the task never started

# 3. detached task, exec, ps, pause/resume, kill, delete
id=$P-det
out=$(ctr_ run -d "${RUNC_OPTS[@]}" --memory-limit 67108864 "$IMG" "$id" sleep 100 2>&1) || die "run -d: $out"
# ctr's default spec mounts no cgroupfs in the container: read it on the host.
ok_eq 67108864 "$(cat /sys/fs/cgroup/memory/$NS/$id/memory.limit_in_bytes 2>&1)" "run --memory-limit: the container's cgroup limit"
out=$(ctr_ task exec --exec-id x1 "$id" echo hi 2>&1); rc=$?
ok_eq "0 hi" "$rc $out" "task exec echo hi"
out=$(ctr_ task exec --exec-id x5 --user 65534 --cwd /tmp "$id" sh -c 'echo $(id -u) $(pwd)' 2>&1)
ok_eq "65534 /tmp" "$out" "task exec --user --cwd"
# timeout goes outside script: inside, a shell that forks (dash, or bash when
# SHELL is unset and script falls back to /bin/sh) leaves timeout in its own
# process group, not the pty's foreground one, and ctr stops on SIGTTOU when
# it puts the terminal in raw mode.  SHELL is pinned so every run is the same.
out=$(SHELL=/bin/sh timeout 30 script -qec "ctr -a $SOCK -n $NS task exec -t --exec-id x6 $id sh -c 'tty; exit 4'" /dev/null 2>&1); rc=$?
ok_eq 4 "$rc" "task exec -t: exit status ($out)"
ok_has "$out" /dev/pts/ "task exec -t: the process has a terminal"
out=$(ctr_ task exec --exec-id x2 "$id" sh -c 'exit 5' 2>&1); rc=$?
ok_eq 5 "$rc" "task exec exit status ($out)"
out=$(ctr_ task exec --exec-id x3 "$id" /nonexistent 2>&1); rc=$?
ok_eq 1 "$rc" "exec of a missing binary fails"
ok_has "$out" 'exec: "/nonexistent": stat /nonexistent: no such file or directory' "exec of a missing binary reports crt's message"
# The shim reads crt's --log (log.json) for that message: every line must be
# logrus-style JSON with level, msg and time.
out=$(python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "empty"
for l in lines:
    e = json.loads(l)
    assert set(e) >= {"level", "msg", "time"}, l
print("ok", any("/nonexistent" in json.loads(l)["msg"] for l in lines))
' "$W/state/io.containerd.runtime.v2.task/$NS/$id/log.json" 2>&1)
ok_eq "ok True" "$out" "crt's log.json is JSON lines with level/msg/time and holds the exec error"
pid=$(ctr_ task ls | awk -v id="$id" '$1 == id {print $2}')
out=$(ctr_ task ps "$id" 2>&1)
ok_eq "$pid" "$(echo "$out" | awk 'NR > 1 {print $1}' | tr '\n' ' ' | sed 's/ $//')" "task ps lists the init pid"
# metrics: the shim reads the container's cgroup (found through crt's state)
out=$(ctr_ task metrics "$id" 2>&1); rc=$?
ok_eq 0 "$rc" "task metrics ($out)"
ok_eq 67108864 "$(echo "$out" | awk '$1 == "memory.limit_in_bytes" {print $2}')" "task metrics: memory limit"
ok_eq 1 "$(echo "$out" | awk '$1 == "pids.current" {print $2}')" "task metrics: pids.current"
out=$(ctr_ task pause "$id" 2>&1) || bad "task pause: $out"
ok_eq PAUSED "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" "task pause"
ok_eq "$(printf 'FROZEN')" "$(cat /sys/fs/cgroup/freezer/$NS/$id/freezer.state 2>&1)" "freezer state after pause"
out=$(ctr_ task resume "$id" 2>&1) || bad "task resume: $out"
ok_eq RUNNING "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" "task resume"
out=$(ctr_ task exec --exec-id x4 "$id" echo after-resume 2>&1)
ok_eq after-resume "$out" "exec after resume"
out=$(ctr_ task kill -s SIGKILL "$id" 2>&1) || bad "task kill: $out"
for _ in $(seq 50); do [ "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" = STOPPED ] && break; sleep 0.1; done
ok_eq STOPPED "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" "task stopped after kill"
out=$(ctr_ task delete "$id" 2>&1) || bad "task delete: $out"
out=$(ctr_ containers rm "$id" 2>&1) || bad "containers rm: $out"
ok_eq "" "$("$CRT" --root "$W/crt/$NS" list -q)" "crt state gone after delete"

# 4. SIGKILL from `ctr task kill` reaches a foreground `ctr run`
id=$P-fg
ctr_ run --rm "${RUNC_OPTS[@]}" "$IMG" "$id" sleep 100 >"$W/fg.out" 2>&1 &
fg=$!
for _ in $(seq 100); do [ "$(ctr_ task ls 2>/dev/null | awk -v id="$id" '$1 == id {print $3}')" = RUNNING ] && break; sleep 0.1; done
out=$(ctr_ task kill -s SIGKILL "$id" 2>&1) || bad "task kill (foreground): $out"
wait "$fg"; rc=$?
ok_eq 137 "$rc" "foreground run killed by SIGKILL ($(cat "$W/fg.out"))"

# 5. a terminal: ctr run -t under a pty
out=$(SHELL=/bin/sh timeout 30 script -qec "ctr -a $SOCK -n $NS run --rm -t ${RUNC_OPTS[*]} $IMG $P-tty sh -c 'tty; exit 2'" /dev/null 2>&1); rc=$?
ok_eq 2 "$rc" "run -t: exit status ($out)"
ok_has "$out" /dev/pts/0 "run -t: the process has a terminal"

# 6. twenty containers up, then all removed
for i in $(seq 20); do
  out=$(ctr_ run -d "${RUNC_OPTS[@]}" "$IMG" "$P-l$i" sleep 100 2>&1) || bad "loop run $i: $out"
done
ok_eq 20 "$("$CRT" --root "$W/crt/$NS" list -q | grep -c "^$P-l")" "twenty containers running in crt"
for i in $(seq 20); do
  out=$(ctr_ task delete -f "$P-l$i" 2>&1) || bad "loop task delete -f $i: $out"
  out=$(ctr_ containers rm "$P-l$i" 2>&1) || bad "loop containers rm $i: $out"
done
ok_eq "" "$(ctr_ containers ls -q)" "no containers left in containerd"
ok_eq "" "$("$CRT" --root "$W/crt/$NS" list -q)" "no crt state left"
ok_eq "" "$(find /sys/fs/cgroup -maxdepth 4 -type d -name "$P-*")" "no cgroups left"

# 6b. checkpoint and restore (CRIU: $CRIU, else criu on PATH if `criu check`
# passes, else ../shared/criu/criu; crt finds it on containerd's PATH).
# `ctr task checkpoint --exit`: paused, dumped, the task stops;
# `ctr containers checkpoint --task --image` + `containers restore --live`:
# dumped with --leave-running, then restored into a new task.
did_ck=0
if [ "$ck_ok" = 1 ]; then
  id=$P-ck
  out=$(ctr_ run -d "${RUNC_OPTS[@]}" "$IMG" "$id" sh -c 'i=0; while :; do i=$((i+1)); echo $i >/tmp/count; sleep 0.2; done' 2>&1) || die "run -d: $out"
  sleep 1
  out=$(ctr_ task checkpoint --exit "$id" 2>&1) || bad "task checkpoint --exit: $out"
  ok_eq STOPPED "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" "task checkpoint --exit: the task stopped"
  ok_has "$(ctr_ images ls -q)" "containerd.io/checkpoint/$id:" "task checkpoint: a checkpoint image"
  ctr_ task delete "$id" >/dev/null 2>&1; ctr_ containers rm "$id" >/dev/null 2>&1
  id=$P-cr
  out=$(ctr_ run -d "${RUNC_OPTS[@]}" "$IMG" "$id" sh -c 'i=0; while :; do i=$((i+1)); echo $i >/tmp/count; sleep 0.2; done' 2>&1) || die "run -d: $out"
  sleep 1
  out=$(ctr_ containers checkpoint --task --image "$id" "docker.io/library/$id:ck" 2>&1) || bad "containers checkpoint --task: $out"
  ok_eq RUNNING "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" "containers checkpoint --task: left running"
  n=$(ctr_ task exec --exec-id x7 "$id" cat /tmp/count 2>&1)
  ctr_ task kill -s SIGKILL "$id" >/dev/null 2>&1
  for _ in $(seq 50); do [ "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" = STOPPED ] && break; sleep 0.1; done
  ctr_ task delete "$id" >/dev/null 2>&1; ctr_ containers rm "$id" >/dev/null 2>&1
  out=$(ctr_ containers restore --live "$id" "docker.io/library/$id:ck" 2>&1) || bad "containers restore --live: $out"
  ok_eq RUNNING "$(ctr_ task ls | awk -v id="$id" '$1 == id {print $3}')" "containers restore --live: running"
  sleep 0.5
  m=$(ctr_ task exec --exec-id x8 "$id" cat /tmp/count 2>&1)
  [ "$m" -gt "$n" ] 2>/dev/null && say "ok: restored task goes on counting ($n, then $m)" || bad "restored task: count $n before, '$m' after"
  out=$(ctr_ task delete -f "$id" 2>&1) || bad "task delete -f after restore: $out"
  ctr_ containers rm "$id" >/dev/null 2>&1
  for i in $(ctr_ images ls -q | grep -E "checkpoint/$P-|/$P-cr:ck"); do ctr_ images rm "$i" >/dev/null 2>&1; done
  # containerd (not the runtime) leaves its restore image dir behind
  for d in $(comm -13 <(echo "$ctrd_before") <(ls -d /tmp/ctrd-checkpoint* 2>/dev/null | sort)); do rm -rf "$d"; done
  [ -s /run/criu.kdat.tmp ] || rm -f /run/criu.kdat.tmp   # criu 4.2 leaves it empty
  did_ck=1
else
  bad "checkpoint/restore: $criu fails 'criu check' (CRIU=PATH names another)"
fi

# 7. What the shim asked of crt.  Every distinct command line, with the work
# dir, container ids, exec ids and process.json temp names made generic, must
# be one we know: a new flag or subcommand fails here.
B="--root W/crt/$NS --log W/state/io.containerd.runtime.v2.task/$NS/ID/log.json --log-format json"
TD="W/state/io.containerd.runtime.v2.task/$NS/ID"
expected=$(sort -u <<EXP
$B create --bundle $TD --pid-file $TD/init.pid ID
$B create --bundle $TD --pid-file $TD/init.pid --console-socket SOCKET ID
$B start ID
$B exec --process PROCESS --detach --pid-file $TD/EXEC.pid ID
$B exec --process PROCESS --console-socket SOCKET --detach --pid-file $TD/EXEC.pid ID
$B ps --format json ID
$B pause ID
$B resume ID
$B kill ID 9
$B kill --all ID 9
$B delete ID
$B delete --force ID
$B checkpoint --image-path TMPCK --work-path $TD/work/criu-work ID
$B checkpoint --image-path TMPCK --work-path $TD/work/criu-work --file-locks --leave-running ID
$B restore --image-path TMPCK --work-path $TD/work --detach --pid-file $TD/init.pid -no-subreaper --bundle $TD ID
EXP
)
[ "$did_ck" = 1 ] || expected=$(grep -Ev ' (checkpoint|restore) ' <<<"$expected")
got=$(sed -E "s#$W#W#g; s#$P-[a-z0-9]+#ID#g; s#/tmp/runc-process[0-9]+#PROCESS#g; s#/ID/x[0-9]+\.pid#/ID/EXEC.pid#g; s#--console-socket [^ ]+#--console-socket SOCKET#g; s#/tmp/ctr?d-checkpoint[0-9]+#TMPCK#g" "$W/argv.log" | sort -u)
if [ "$got" = "$expected" ]; then say "ok: crt argv from the shim"; else
  bad "crt argv from the shim differs (< expected, > got):"; diff <(echo "$expected") <(echo "$got")
fi
# Order per container: create before start before delete.
ok_eq "create start delete" "$(grep -E " (create|start|delete) .*$P-det\$" "$W/argv.log" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^(create|start|delete)$/) {print $i; break}}' | uniq | tr '\n' ' ' | sed 's/ $//')" "create, start, delete in order"
