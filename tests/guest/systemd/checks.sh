# The systemd cgroup driver checks, run inside the systemd guest (bash)
# once per runtime with the same expectations: crt --systemd-cgroup and
# runc --systemd-cgroup (Debian's runc 1.1.5, the reference) must both
# pass them.  Each check prints "ok   systemd/RT:name" or
# "FAIL systemd/RT:name: why"; the last line counts them.
T=/tmp/checks
CG=/sys/fs/cgroup
BASE=/guest/base.json
passed=0 failed=0 n=0

why() { echo "$*" >>"$T/why"; return 1; }
# expect WHAT WANT GOT
expect() { [ "$2" = "$3" ] || why "$1: want '$2', got '$3'"; }
expect_in() { case $3 in *"$2"*) ;; *) why "$1: want '$2' in '$3'" ;; esac; }

# bundle SCRIPT [JQ]: a new bundle $B (container id $ID) in the scope
# $UNIT of system.slice (cgroup $C), running sh -c SCRIPT, with the jq
# filter JQ applied to the base config.
bundle() {
  n=$((n + 1))
  ID=$RT_NAME-$n B=$T/b$n UNIT=crt-$RT_NAME-$n.scope
  C=/system.slice/$UNIT
  mkdir -p "$B"
  jq --arg s "$1" --arg cg "system.slice:crt:$ID" \
    ".process.args = [\"sh\", \"-c\", \$s] | .linux.cgroupsPath = \$cg | ${2:-.}" \
    "$BASE" >"$B/config.json" || why "jq filter: ${2:-.}"
}
rt() { timeout -k 2 60 "$RT" --systemd-cgroup "$@"; }
run_d() {
  [ -s "$B/config.json" ] || return 1
  rt run -d -b "$B" "$ID" </dev/null >"$T/out" 2>&1 || why "run -d $ID: $(cat "$T/out")"
}
status() { rt state "$ID" 2>/dev/null | jq -r .status; }
pid_of() { rt state "$ID" | jq -r .pid; }
prop() { timeout 20 systemctl show -p "$1" --value "$UNIT" 2>&1; }
# wait_for COND...: up to 10 s
wait_for() {
  i=0
  while ! "$@"; do
    i=$((i + 1)); [ $i -lt 100 ] || return 1
    sleep 0.1
  done
}
stopped() { [ "$(status)" = stopped ]; }
gone() { [ ! -d "$CG$C" ]; }
unit_gone() {
  case $(prop LoadState)/$(prop ActiveState) in not-found/* | */inactive) return 0 ;; esac
  return 1
}
# systemd answers again (after a daemon-reload or daemon-reexec)
sd_up() { timeout 5 systemctl is-active "$UNIT" >/dev/null 2>&1; }
cleanup() {
  rt delete -f "$ID" >/dev/null 2>&1
  timeout 10 systemctl kill -s KILL "$UNIT" >/dev/null 2>&1
  timeout 20 systemctl stop "$UNIT" >/dev/null 2>&1
  return 0
}

c_systemd_pid1() {
  expect "PID 1" systemd "$(cat /proc/1/comm)" || return 1
  expect "/sys/fs/cgroup" cgroup2fs "$(stat -f -c %T $CG)" || return 1
  local k
  for k in cpu memory pids io; do
    expect_in "controllers of the root" "$k" "$(cat $CG/cgroup.controllers)" || return 1
  done
  # the checks run in the boot transaction: the system is still starting
  expect_in "system state" "$(timeout 20 systemctl is-system-running 2>&1)" "starting running"
}

# The container's init is in a transient scope crt-NAME.scope in
# system.slice, active, delegated.
c_scope() {
  bundle 'sleep 100'
  run_d || return 1
  expect "systemctl is-active" active "$(timeout 20 systemctl is-active "$UNIT" 2>&1)" || return 1
  expect ControlGroup "$C" "$(prop ControlGroup)" || return 1
  expect Delegate yes "$(prop Delegate)" || return 1
  expect Slice system.slice "$(prop Slice)" || return 1
  p=$(pid_of)
  expect "cgroup of the init" "0::$C" "$(cat /proc/$p/cgroup)" || return 1
  expect "cgroup.procs of the scope" "$p" "$(cat $CG$C/cgroup.procs)" || return 1
  expect status running "$(status)" || return 1
  local k
  for k in cpu memory pids; do
    expect_in "controllers delegated to the scope" "$k" "$(cat $CG$C/cgroup.controllers)" || return 1
  done
}

# Without cgroupsPath the unit is <runtime>-<id>.scope in system.slice.
c_default_path() {
  bundle 'sleep 100' 'del(.linux.cgroupsPath)'
  UNIT=$RT_NAME-$ID.scope C=/system.slice/$UNIT
  run_d || return 1
  expect "systemctl is-active" active "$(timeout 20 systemctl is-active "$UNIT" 2>&1)" || return 1
  expect "cgroup of the init" "0::$C" "$(cat /proc/$(pid_of)/cgroup)"
}

# cpu.weight for shares 1024: crt (and runc 1.1, crun) convert linearly
# (1 + (shares - 2) * 9999 / 262142 = 39); runc 1.3.6 already uses runc
# main's quadratic conversion, where 1024, cgroup v1's default, is v2's 100.
# crt has not changed its conversion yet (issue 57, "shares -> weight"):
# each runtime is held to its own.
weight_1024() { case $RT_NAME in runc) echo 100 ;; *) echo 39 ;; esac; }

RES='.linux.resources.memory = {"limit": 67108864} | .linux.resources.pids = {"limit": 20}
  | .linux.resources.cpu = {"quota": 50000, "period": 100000, "shares": 1024}'

# The limits are unit properties and cgroup files alike.
c_resources() {
  bundle 'sleep 100' "$RES"
  run_d || return 1
  expect MemoryMax 67108864 "$(prop MemoryMax)" || return 1
  expect TasksMax 20 "$(prop TasksMax)" || return 1
  expect CPUQuotaPerSecUSec 500ms "$(prop CPUQuotaPerSecUSec)" || return 1
  expect "CPUWeight (shares 1024)" "$(weight_1024)" "$(prop CPUWeight)" || return 1
  expect memory.max 67108864 "$(cat $CG$C/memory.max)" || return 1
  expect pids.max 20 "$(cat $CG$C/pids.max)" || return 1
  expect cpu.max "50000 100000" "$(cat $CG$C/cpu.max)" || return 1
  expect "cpu.weight (shares 1024)" "$(weight_1024)" "$(cat $CG$C/cpu.weight)"
}

# update changes the files and the unit properties, so a daemon-reload
# keeps the new values.
c_update() {
  bundle 'sleep 100' "$RES"
  run_d || return 1
  rt update --memory 100663296 --pids-limit 30 "$ID" >"$T/out" 2>&1 || why "update: $(cat "$T/out")" || return 1
  local bad=0
  expect "memory.max after update" 100663296 "$(cat $CG$C/memory.max)" || bad=1
  expect "pids.max after update" 30 "$(cat $CG$C/pids.max)" || bad=1
  expect "MemoryMax after update" 100663296 "$(prop MemoryMax)" || bad=1
  expect "TasksMax after update" 30 "$(prop TasksMax)" || bad=1
  timeout 60 systemctl daemon-reload || why "daemon-reload" || return 1
  expect "memory.max after update and daemon-reload" 100663296 "$(cat $CG$C/memory.max)" || bad=1
  expect "pids.max after update and daemon-reload" 30 "$(cat $CG$C/pids.max)" || bad=1
  return $bad
}

# org.systemd.property.* annotations are unit properties.
c_annotations() {
  bundle 'sleep 100' '.annotations = {"org.systemd.property.TimeoutStopUSec": "uint64 123456789",
    "org.systemd.property.CollectMode": "'"'inactive-or-failed'"'"}'
  run_d || return 1
  local bad=0
  expect TimeoutStopUSec "2min 3.456789s" "$(prop TimeoutStopUSec)" || bad=1
  expect CollectMode inactive-or-failed "$(prop CollectMode)" || bad=1
  return $bad
}

# daemon-reload and daemon-reexec make systemd apply the unit's
# properties again: the limits must survive them.
c_daemon_reload() {
  bundle 'sleep 100' "$RES"
  run_d || return 1
  timeout 60 systemctl daemon-reload || why "daemon-reload" || return 1
  expect "memory.max after daemon-reload" 67108864 "$(cat $CG$C/memory.max)" || return 1
  expect "pids.max after daemon-reload" 20 "$(cat $CG$C/pids.max)" || return 1
  expect "cpu.max after daemon-reload" "50000 100000" "$(cat $CG$C/cpu.max)" || return 1
  expect "cpu.weight after daemon-reload" "$(weight_1024)" "$(cat $CG$C/cpu.weight)" || return 1
  timeout 60 systemctl daemon-reexec || why "daemon-reexec" || return 1
  wait_for sd_up || why "systemd did not come back after daemon-reexec" || return 1
  expect "memory.max after daemon-reexec" 67108864 "$(cat $CG$C/memory.max)" || return 1
  expect "pids.max after daemon-reexec" 20 "$(cat $CG$C/pids.max)" || return 1
  expect "cpu.weight after daemon-reexec" "$(weight_1024)" "$(cat $CG$C/cpu.weight)" || return 1
  expect "scope after daemon-reexec" active "$(prop ActiveState)" || return 1
  expect status running "$(status)"
}

# What runc 1.1.5's systemd driver also makes unit properties: a period
# other than systemd's 100 ms, memory.low and memory.swap.max.
c_reload_more() {
  bundle 'sleep 100' '.linux.resources.cpu = {"quota": 50000, "period": 200000}
    | .linux.resources.memory = {"limit": 67108864, "reservation": 16777216, "swap": 134217728}'
  run_d || return 1
  expect cpu.max "50000 200000" "$(cat $CG$C/cpu.max)" || return 1
  expect memory.low 16777216 "$(cat $CG$C/memory.low)" || return 1
  expect memory.swap.max 67108864 "$(cat $CG$C/memory.swap.max)" || return 1
  local bad=0
  timeout 60 systemctl daemon-reload || why "daemon-reload" || return 1
  expect "cpu.max after daemon-reload" "50000 200000" "$(cat $CG$C/cpu.max)" || bad=1
  expect "memory.low after daemon-reload" 16777216 "$(cat $CG$C/memory.low)" || bad=1
  expect "memory.swap.max after daemon-reload" 67108864 "$(cat $CG$C/memory.swap.max)" || bad=1
  expect "CPUQuotaPeriodUSec" 200ms "$(prop CPUQuotaPeriodUSec)" || bad=1
  expect "MemoryLow" 16777216 "$(prop MemoryLow)" || bad=1
  expect "MemorySwapMax" 67108864 "$(prop MemorySwapMax)" || bad=1
  return $bad
}

# A daemon-reload keeps what crt wrote to cgroupfs only (cpuset, the
# device filter: systemd leaves a delegated scope's files alone) and a
# unified key systemd has a property for (memory.high -> MemoryHigh, as
# runc's unifiedResToSystemdProps: systemd rewrites memory.high).
c_reload_files() {
  mm=$(cat /sys/block/vda/dev)
  bundle 'sleep 100' '.linux.resources.cpu = {"cpus": "0"} | .linux.resources.unified = {"memory.high": "52428800"}
    | .linux.devices = [{"path": "/dev/vda", "type": "b", "major": '"${mm%:*}"', "minor": '"${mm#*:}"'}]'
  run_d || return 1
  local bad=0
  timeout 60 systemctl daemon-reload || why "daemon-reload" || return 1
  expect "cpuset.cpus after daemon-reload" 0 "$(cat $CG$C/cpuset.cpus)" || bad=1
  expect "memory.high after daemon-reload" 52428800 "$(cat $CG$C/memory.high)" || bad=1
  expect "MemoryHigh (from unified)" 52428800 "$(prop MemoryHigh)" || bad=1
  rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 && { why "read /dev/vda after daemon-reload"; bad=1; }
  rt exec "$ID" sh -c 'echo x >/dev/null' >"$T/out" 2>&1 || why "write /dev/null after daemon-reload: $(cat "$T/out")" || bad=1
  return $bad
}

# delete -f stops the unit and the cgroup goes.
c_delete() {
  bundle 'sleep 100'
  run_d || return 1
  rt delete -f "$ID" >"$T/out" 2>&1 || why "delete -f: $(cat "$T/out")" || return 1
  wait_for unit_gone || why "unit after delete -f: $(prop LoadState)/$(prop ActiveState)" || return 1
  wait_for gone || why "$C left after delete -f"
}

# A created (not started) container: its unit exists, delete removes it.
# A container OOM-killed: systemd marks its scope failed, and a failed
# unit stays loaded until reset; delete resets it, as runc's does.
c_delete_failed() {
  bundle 'tail /dev/zero' '.linux.resources.memory = {"limit": 16777216, "swap": 16777216}'
  run_d || return 1
  wait_for stopped || why "the memory hog was not killed: $(status)" || return 1
  rt delete "$ID" >"$T/out" 2>&1 || why "delete: $(cat "$T/out")" || return 1
  wait_for unit_gone || why "unit after delete of an OOM-killed container: $(prop LoadState)/$(prop ActiveState)/$(prop Result)"
}

c_create_delete() {
  bundle 'sleep 100'
  rt create -b "$B" "$ID" </dev/null >"$T/out" 2>&1 || why "create: $(cat "$T/out")" || return 1
  expect "unit of a created container" active "$(prop ActiveState)" || return 1
  rt delete "$ID" >"$T/out" 2>&1 || why "delete: $(cat "$T/out")" || return 1
  wait_for unit_gone || why "unit after delete: $(prop LoadState)/$(prop ActiveState)" || return 1
  wait_for gone || why "$C left after delete"
}

# systemctl stop of the scope (SIGTERM) stops the container; delete
# then works.  (A pid namespace's init ignores a TERM it has no handler
# for: systemd would wait TimeoutStopSec, 90 s, before its SIGKILL.)
c_systemctl_stop() {
  bundle 'trap "exit 0" TERM; sleep 100 & wait'
  run_d || return 1
  sleep 0.5
  timeout 30 systemctl stop "$UNIT" >"$T/out" 2>&1 || why "systemctl stop: $(cat "$T/out")" || return 1
  wait_for stopped || why "still $(status) after systemctl stop" || return 1
  rt delete "$ID" >"$T/out" 2>&1 || why "delete: $(cat "$T/out")" || return 1
  wait_for gone || why "$C left after delete"
}

c_freeze() {
  bundle 'while :; do :; done'
  run_d || return 1
  rt pause "$ID" >"$T/out" 2>&1 || why "pause: $(cat "$T/out")" || return 1
  expect status paused "$(status)" || return 1
  expect cgroup.freeze 1 "$(cat $CG$C/cgroup.freeze)" || return 1
  expect_in cgroup.events "frozen 1" "$(cat $CG$C/cgroup.events)" || return 1
  expect "unit while paused" active "$(prop ActiveState)" || return 1
  rt resume "$ID" >"$T/out" 2>&1 || why "resume: $(cat "$T/out")" || return 1
  expect status running "$(status)" || return 1
  expect_in cgroup.events "frozen 0" "$(cat $CG$C/cgroup.events)"
}

# A fork loop is held at pids.max (TasksMax).
c_pids_enforced() {
  bundle '(i=0; while [ $i -lt 40 ]; do sleep 100 & i=$((i + 1)); done) 2>/dev/null; exec sleep 100' \
    '.linux.resources.pids = {"limit": 20}'
  run_d || return 1
  sleep 2
  cur=$(cat $CG$C/pids.current)
  [ "$cur" -le 20 ] && [ "$cur" -ge 10 ] || why "pids.current $cur, want 10..20" || return 1
  ev=$(awk '$1 == "max" {print $2}' $CG$C/pids.events)
  [ "${ev:-0}" -ge 1 ] || why "pids.events: $(cat $CG$C/pids.events)" || return 1
  expect TasksCurrent "$cur" "$(prop TasksCurrent)"
}

# A runtime killed in the middle of create (in a createRuntime hook, the
# unit made and the init in it): the init dies with it, systemd stops the
# empty scope, and delete -f clears the half-made container.
c_killed_runtime() {
  bundle 'sleep 100' '.hooks = {"createRuntime": [{"path": "/bin/sleep", "args": ["sleep", "30"]}]}'
  rt create -b "$B" "$ID" </dev/null >"$T/out" 2>&1 &
  local rp=$!
  wait_for test -d "$CG$C" || why "no cgroup $C while create runs: $(cat "$T/out")" || return 1
  kill -KILL $rp
  wait $rp 2>/dev/null
  local q # the orphaned hook (no procps in the image)
  for q in /proc/[0-9]*; do [ "$(tr '\0' ' ' <$q/cmdline 2>/dev/null)" = "sleep 30 " ] && kill -KILL ${q#/proc/}; done
  rt delete -f "$ID" >/dev/null 2>&1
  wait_for unit_gone || why "unit after the killed create: $(prop LoadState)/$(prop ActiveState)" || return 1
  wait_for gone || why "$C left after the killed create"
  expect "containers left" "" "$(rt list -q)"
}

# ---- clients with the systemd cgroup driver, driving $RT unchanged ----

# podman (cgroup_manager systemd): the container's unit libpod-ID.scope
# in machine.slice has the limits; exec, exit codes, stop and rm.
PODMAN_ROOT=/var/lib/guest-podman
podman_() {
  timeout -k 2 120 podman --runtime "$RT" --cgroup-manager systemd --storage-driver vfs \
    --root "$PODMAN_ROOT" --runroot /run/guest-podman --events-backend file "$@"
}
c_podman() {
  if ! podman_ image exists localhost/bb 2>/dev/null; then
    tar -C /guest/rootfs -c . | podman_ import - localhost/bb >"$T/out" 2>&1 || why "podman import: $(cat "$T/out")" || return 1
  fi
  local cid
  cid=$(podman_ run -d --network none --memory 64m --pids-limit 50 localhost/bb sleep 100 2>"$T/err") ||
    why "podman run -d: $(cat "$T/err")" || return 1
  UNIT=libpod-$cid.scope C=/machine.slice/$UNIT
  local bad=0
  expect "podman's unit" active "$(prop ActiveState)" || bad=1
  expect "MemoryMax of $UNIT" 67108864 "$(prop MemoryMax)" || bad=1
  expect "TasksMax of $UNIT" 50 "$(prop TasksMax)" || bad=1
  expect "memory.max" 67108864 "$(cat $CG$C/memory.max 2>&1)" || bad=1
  expect "podman exec" "0::/" "$(podman_ exec "$cid" cat /proc/self/cgroup 2>&1)" || bad=1
  podman_ run --rm --network none localhost/bb sh -c 'exit 3' >/dev/null 2>&1
  expect "exit code of podman run --rm" 3 $? || bad=1
  podman_ rm -f -t 1 "$cid" >"$T/out" 2>&1 || why "podman rm -f: $(cat "$T/out")" || bad=1
  wait_for unit_gone || why "podman's unit after rm: $(prop ActiveState)" || bad=1
  wait_for gone || why "$C left after podman rm" || bad=1
  return $bad
}

# Docker (native.cgroupdriver=systemd, the runtime added by path): one
# dockerd for every runtime, started on a private socket.
DOCKER_SOCK=unix:///run/guest-docker.sock
docker_() { timeout -k 2 120 docker -H "$DOCKER_SOCK" "$@"; }
dockerd_up() { docker_ version >/dev/null 2>&1; }
c_docker() {
  if ! dockerd_up; then
    dockerd -H "$DOCKER_SOCK" --data-root /var/lib/guest-docker --exec-root /run/guest-docker \
      --pidfile /run/guest-docker.pid --exec-opt native.cgroupdriver=systemd --storage-driver vfs \
      --iptables=false --ip6tables=false --bridge=none --add-runtime crt=/usr/local/bin/crt \
      >/tmp/dockerd.log 2>&1 &
    local i=0
    while ! dockerd_up; do
      i=$((i + 1)); [ $i -lt 120 ] || { why "dockerd did not start: $(tail -5 /tmp/dockerd.log)"; return 1; }
      sleep 0.5
    done
    tar -C /guest/rootfs -c . | docker_ import - bb >"$T/out" 2>&1 || why "docker import: $(cat "$T/out")" || return 1
  fi
  expect "docker's cgroup driver" systemd "$(docker_ info -f '{{.CgroupDriver}}' 2>&1)" || return 1
  local cid
  cid=$(docker_ run -d --runtime "$RT_NAME" --network none --memory 64m --pids-limit 50 bb sleep 100 2>"$T/err") ||
    why "docker run -d: $(cat "$T/err")" || return 1
  UNIT=docker-$cid.scope C=/system.slice/$UNIT
  local bad=0
  expect "docker's unit" active "$(prop ActiveState)" || bad=1
  expect "MemoryMax of the unit" 67108864 "$(prop MemoryMax)" || bad=1
  expect "TasksMax of the unit" 50 "$(prop TasksMax)" || bad=1
  expect "memory.max" 67108864 "$(cat $CG$C/memory.max 2>&1)" || bad=1
  expect "docker exec" hi "$(docker_ exec "$cid" echo hi 2>&1)" || bad=1
  docker_ run --rm --runtime "$RT_NAME" --network none bb sh -c 'exit 3' >/dev/null 2>&1
  expect "exit code of docker run --rm" 3 $? || bad=1
  docker_ rm -f "$cid" >"$T/out" 2>&1 || why "docker rm -f: $(cat "$T/out")" || bad=1
  wait_for unit_gone || why "docker's unit after rm: $(prop ActiveState)" || bad=1
  wait_for gone || why "$C left after docker rm" || bad=1
  return $bad
}

# runc's update.bats on systemd: the cpuset becomes AllowedCPUs (kept at a
# daemon-reload), an unlimited memory without a swap value makes swap
# unlimited too, and a cpu period alone changes cpu.max's period.
c_update_more() {
  bundle 'sleep 100' '.linux.resources.memory = {"limit": 67108864, "swap": 134217728}'
  run_d || return 1
  local bad=0
  rt update --cpuset-cpus 1 "$ID" >"$T/out" 2>&1 || why "update --cpuset-cpus: $(cat "$T/out")" || bad=1
  expect "AllowedCPUs after update" 1 "$(prop AllowedCPUs)" || bad=1
  expect "cpuset.cpus after update" 1 "$(cat $CG$C/cpuset.cpus)" || bad=1
  rt update --memory -1 "$ID" >"$T/out" 2>&1 || why "update --memory -1: $(cat "$T/out")" || bad=1
  expect "memory.max after update --memory -1" max "$(cat $CG$C/memory.max)" || bad=1
  expect "memory.swap.max after update --memory -1" max "$(cat $CG$C/memory.swap.max)" || bad=1
  rt update --cpu-period 50000 "$ID" >"$T/out" 2>&1 || why "update --cpu-period: $(cat "$T/out")" || bad=1
  expect "cpu.max after update --cpu-period 50000" "max 50000" "$(cat $CG$C/cpu.max)" || bad=1
  timeout 60 systemctl daemon-reload || why "daemon-reload" || return 1
  expect "cpuset.cpus after update and daemon-reload" 1 "$(cat $CG$C/cpuset.cpus)" || bad=1
  return $bad
}

# Rootless podman as a desktop user runs it: user "guest" (uid 1000, made
# in the image) with a systemd --user session (linger: logind starts
# user@1000.service, whose cgroup v2 subtree is delegated to it), podman's
# systemd cgroup manager on the user's bus.  Limits, pause, stats and kill
# work as with root; on the v1 host rootless podman can do none of these.
GUEST_UID=1000
as_guest() {
  runuser -u guest -- env XDG_RUNTIME_DIR=/run/user/$GUEST_UID HOME=/home/guest \
    DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$GUEST_UID/bus "$@"
}
podman_user() {
  as_guest timeout -k 2 120 podman --runtime "$RT" --cgroup-manager systemd --storage-driver vfs \
    --events-backend file "$@"
}
user_bus() { [ -S /run/user/$GUEST_UID/bus ]; }
c_podman_rootless() {
  timeout 30 loginctl enable-linger guest >"$T/out" 2>&1 || why "loginctl enable-linger: $(cat "$T/out")" || return 1
  wait_for user_bus || why "no systemd --user session for guest: $(timeout 10 systemctl status user@$GUEST_UID.service 2>&1 | tail -3)" ||
    return 1
  if ! podman_user image exists localhost/bb 2>/dev/null; then
    tar -C /guest/rootfs -c . | podman_user import - localhost/bb >"$T/out" 2>&1 ||
      why "podman import (rootless): $(cat "$T/out")" || return 1
  fi
  local cid cg bad=0
  cid=$(podman_user run -d --network none --memory 64m --pids-limit 50 localhost/bb sleep 100 2>"$T/err") ||
    why "podman run -d (rootless): $(cat "$T/err")" || return 1
  # the container's cgroup, in the user's delegated subtree
  cg=$(awk -F: '$1 == "0" {print $3}' "/proc/$(podman_user inspect -f '{{.State.Pid}}' "$cid")/cgroup" 2>/dev/null)
  expect_in "rootless container's cgroup" "/user.slice/user-$GUEST_UID.slice/user@$GUEST_UID.service/" "$cg" || bad=1
  expect "memory.max (rootless)" 67108864 "$(cat "$CG$cg/memory.max" 2>&1)" || bad=1
  expect "pids.max (rootless)" 50 "$(cat "$CG$cg/pids.max" 2>&1)" || bad=1
  podman_user pause "$cid" >"$T/out" 2>&1 || why "podman pause (rootless): $(cat "$T/out")" || bad=1
  expect "status after pause (rootless)" paused "$(podman_user inspect -f '{{.State.Status}}' "$cid" 2>&1)" || bad=1
  expect "cgroup.freeze after pause (rootless)" 1 "$(cat "$CG$cg/cgroup.freeze" 2>&1)" || bad=1
  podman_user unpause "$cid" >"$T/out" 2>&1 || why "podman unpause (rootless): $(cat "$T/out")" || bad=1
  expect "status after unpause (rootless)" running "$(podman_user inspect -f '{{.State.Status}}' "$cid" 2>&1)" || bad=1
  local st
  st=$(podman_user stats --no-stream --format '{{.PIDs}} {{.MemUsage}}' "$cid" 2>&1)
  case $st in [1-9]*" / 67.11MB"|[1-9]*" / 64MiB"|[1-9]*" / 67.1MB") ;; *) why "podman stats (rootless): '$st'"; bad=1 ;; esac
  podman_user kill "$cid" >"$T/out" 2>&1 || why "podman kill (rootless): $(cat "$T/out")" || bad=1
  podman_user wait "$cid" >/dev/null 2>&1
  expect "status after kill (rootless)" exited "$(podman_user inspect -f '{{.State.Status}}' "$cid" 2>&1)" || bad=1
  podman_user rm -f -t 1 "$cid" >"$T/out" 2>&1 || why "podman rm -f (rootless): $(cat "$T/out")" || bad=1
  [ ! -d "$CG$cg" ] || wait_for eval "[ ! -d '$CG$cg' ]" || why "$cg left after podman rm (rootless)" || bad=1
  return $bad
}

# Kubernetes on a systemd host: containerd 2.1's CRI plugin with
# SystemdCgroup = true (the kubelet's cgroupDriver: systemd), one handler per
# runtime (BinaryName), driven by tests/clients/cri/cri.py as the kubelet
# would: a pod in a kubepods slice, a container with limits, exec, stats,
# stop, removal.  The container's scope is cri-containerd-ID.scope in the
# pod's slice, with the limits as unit properties.
CRI_SOCK=/run/guest-containerd/containerd.sock
cri() { timeout 60 python3 /guest/cri/cri.py --sock "$CRI_SOCK" --gen /tmp/cri-gen --timeout 40 "$@"; }
jf() { python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
containerd_up() { cri Version '{"version": "v1"}' >/dev/null 2>&1; }
start_containerd() {
  containerd_up && return 0
  mkdir -p /run/guest-containerd
  cat >/run/guest-containerd/config.toml <<TOML
version = 3
root = "/var/lib/guest-containerd"
state = "/run/guest-containerd/state"
[grpc]
  address = "$CRI_SOCK"
[ttrpc]
  address = "$CRI_SOCK.ttrpc"
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'native'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = 'docker.io/library/crt-pause:1'
[plugins.'io.containerd.cri.v1.runtime']
  enable_selinux = false
  disable_apparmor = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.crt]
    runtime_type = 'io.containerd.runc.v2'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.crt.options]
      BinaryName = '/usr/local/bin/crt'
      SystemdCgroup = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = 'io.containerd.runc.v2'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
      BinaryName = '/usr/sbin/runc'
      SystemdCgroup = true
TOML
  containerd --config /run/guest-containerd/config.toml >/tmp/containerd.log 2>&1 &
  local i=0
  while ! containerd_up; do
    i=$((i + 1)); [ $i -lt 120 ] || { why "containerd did not start: $(tail -5 /tmp/containerd.log)"; return 1; }
    sleep 0.5
  done
  local t
  for t in pause busybox; do
    ctr -a "$CRI_SOCK" -n k8s.io images import "/guest/images/$t/oci.tar" >"$T/out" 2>&1 ||
      why "ctr images import $t: $(cat "$T/out")" || return 1
  done
}
c_cri() {
  start_containerd || return 1
  local uid=pod$n$RT_NAME pod out sb cid bad=0
  # the kubelet names a besteffort pod's slice kubepods-besteffort-pod<uid>.slice
  pod=$(printf '{"metadata": {"name": "p-%s", "uid": "%s", "namespace": "crt", "attempt": 0}, "log_directory": "/tmp/cri-logs", "linux": {"cgroup_parent": "kubepods-besteffort-%s.slice", "security_context": {"namespace_options": {"network": 2}}}}' \
    "$RT_NAME" "$uid" "$uid")
  out=$(cri RunPodSandbox "{\"config\": $pod, \"runtime_handler\": \"$RT_NAME\"}") ||
    why "RunPodSandbox: $out ($(grep -i error /tmp/containerd.log | tail -2))" || return 1
  sb=$(jf "$out" 'd["pod_sandbox_id"]')
  out=$(cri CreateContainer "{\"pod_sandbox_id\": \"$sb\", \"sandbox_config\": $pod, \"config\": {\"metadata\": {\"name\": \"c\"}, \"image\": {\"image\": \"docker.io/library/crt-busybox:latest\"}, \"command\": [\"sleep\", \"1000\"], \"log_path\": \"c.log\", \"linux\": {\"resources\": {\"memory_limit_in_bytes\": 67108864, \"cpu_period\": 100000, \"cpu_quota\": 50000}}}}") ||
    why "CreateContainer: $out" || bad=1
  cid=$(jf "$out" 'd["container_id"]')
  out=$(cri StartContainer "{\"container_id\": \"$cid\"}") || why "StartContainer: $out" || bad=1
  UNIT=cri-containerd-$cid.scope
  expect "the container's unit" active "$(prop ActiveState)" || bad=1
  expect "its slice" "kubepods-besteffort-$uid.slice" "$(prop Slice)" || bad=1
  expect "MemoryMax of the unit" 67108864 "$(prop MemoryMax)" || bad=1
  expect "CPUQuotaPerSecUSec of the unit" 500ms "$(prop CPUQuotaPerSecUSec)" || bad=1
  C=$(prop ControlGroup)
  expect "memory.max" 67108864 "$(cat "$CG$C/memory.max" 2>&1)" || bad=1
  out=$(cri ExecSync "{\"container_id\": \"$cid\", \"timeout\": 20, \"cmd\": [\"cat\", \"/proc/self/cgroup\"]}")
  expect "ExecSync in the container's cgroup" "0::/" "$(jf "$out" 'd["stdout"].strip()')" || bad=1
  out=$(cri ContainerStats "{\"container_id\": \"$cid\"}")
  expect "ContainerStats: memory working set > 0" True \
    "$(jf "$out" 'int(d["stats"]["memory"]["working_set_bytes"]["value"]) > 0')" || bad=1
  out=$(cri StopContainer "{\"container_id\": \"$cid\", \"timeout\": 2}") || why "StopContainer: $out" || bad=1
  out=$(cri RemoveContainer "{\"container_id\": \"$cid\"}") || why "RemoveContainer: $out" || bad=1
  wait_for unit_gone || why "$UNIT after RemoveContainer: $(prop ActiveState)" || bad=1
  out=$(cri StopPodSandbox "{\"pod_sandbox_id\": \"$sb\"}") || why "StopPodSandbox: $out" || bad=1
  out=$(cri RemovePodSandbox "{\"pod_sandbox_id\": \"$sb\"}") || why "RemovePodSandbox: $out" || bad=1
  expect "crt state left by containerd" "" "$("$RT" --root /run/containerd/runc/k8s.io list -q 2>&1)" || bad=1
  return $bad
}

# issue 57: runc's exec.bats "runc exec [init changes cgroup]" with the
# systemd driver: the init moves itself out of its scope, systemd removes
# the empty scope at once, and an exec must join the init's cgroup, never
# stay in the caller's (this service's).
rm_cg() { rmdir "$CG$1" 2>/dev/null || [ ! -d "$CG$1" ]; }
c_exec_scope_gone() {
  bundle 'sleep 100' '.linux.namespaces |= map(select(.type != "cgroup"))'
  run_d || return 1
  M=/crt-moved-$RT_NAME-$n
  mkdir "$CG$M" && echo "$(pid_of)" >"$CG$M/cgroup.procs" || why "move the init to $M" || return 1
  wait_for gone || why "systemd kept the empty scope $C" || return 1
  rt exec "$ID" cat /proc/self/cgroup >"$T/out" 2>&1
  r=$?
  rt delete -f "$ID" >/dev/null 2>&1
  wait_for rm_cg "$M" || why "$M still busy after delete -f: $(cat "$CG$M/cgroup.procs")"
  expect "exec's status: $(cat "$T/out")" 0 "$r" || return 1
  expect "the exec'd process's cgroup" "0::$M" "$(cat "$T/out")"
}

# ps of a stopped container: systemd removed its empty scope at once; no
# process and exit 0, as runc (json: the image has no ps(1) for the table).
c_ps_stopped() {
  bundle 'true'
  run_d || return 1
  wait_for stopped || why "still $(status)" || return 1
  wait_for gone || why "systemd kept the empty scope $C" || return 1
  rt ps -f json "$ID" >"$T/out" 2>&1 || why "ps of a stopped container: $(cat "$T/out")" || return 1
  expect "ps -f json" null "$(cat "$T/out")"
}

# issue 57: cgroup_delegation.bats "runc exec (cgroup v2, rw cgroupfs, new
# cgroupns) does chown cgroup": a user namespace, a new cgroup namespace
# and a read-write cgroup mount: the scope's cgroup and its delegatable
# files belong to the container's root (host uid 100000), the limits stay
# root's; the container sees /sys/fs/cgroup as its root's.
USERNS='.linux.namespaces |= (map(select(.type != "cgroup" and .type != "user")) + [{"type": "user"}, {"type": "cgroup"}])
  | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
  | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
c_cgroup_chown() {
  bundle 'sleep 100' "$USERNS"' | .mounts |= map(if .destination == "/sys/fs/cgroup" then .options = (.options - ["ro"] + ["rw"]) else . end)'
  run_d || return 1
  expect "owner of $C" 100000 "$(stat -c %u "$CG$C")" || return 1
  expect "owner of cgroup.procs" 100000 "$(stat -c %u "$CG$C/cgroup.procs")" || return 1
  expect "owner of cgroup.subtree_control" 100000 "$(stat -c %u "$CG$C/cgroup.subtree_control")" || return 1
  expect "owner of memory.max (a limit)" 0 "$(stat -c %u "$CG$C/memory.max")" || return 1
  expect "/sys/fs/cgroup in the container" root "$(rt exec "$ID" stat -c %U /sys/fs/cgroup 2>&1)"
}
# ... and with the cgroup mount read-only, nothing is chowned.
c_cgroup_no_chown_ro() {
  bundle 'sleep 100' "$USERNS"' | .mounts |= map(if .destination == "/sys/fs/cgroup" then .options = (.options - ["rw"] + ["ro"]) else . end)'
  run_d || return 1
  expect "owner of $C" 0 "$(stat -c %u "$CG$C")"
}

c_nothing_left() {
  left=$(ls -d $CG/system.slice/crt-$RT_NAME-*.scope $CG/system.slice/$RT_NAME-$RT_NAME-*.scope 2>/dev/null)
  expect "cgroups left behind" "" "$left" || return 1
  units=$(systemctl list-units --all --plain --no-legend "crt-$RT_NAME-*" "$RT_NAME-$RT_NAME-*" 2>&1 | awk '{print $1 "=" $3 "/" $4}')
  expect "units left behind" "" "$units" || return 1
  expect "containers left behind" "" "$(rt list -q)"
}

CHECKS="systemd_pid1 scope default_path resources update update_more annotations daemon_reload reload_more reload_files delete
 delete_failed create_delete systemctl_stop freeze pids_enforced killed_runtime podman docker exec_scope_gone ps_stopped
 cgroup_chown cgroup_no_chown_ro $([ -e /guest/sid ] && echo podman_rootless cri) nothing_left"

for RT_NAME in "$@"; do
  RT=$(command -v "$RT_NAME")
  for c in ${GUEST_CHECKS:-$CHECKS}; do
    rm -rf "$T"; mkdir -p "$T"
    t0=$(date +%s)
    if "c_$c"; then
      passed=$((passed + 1)); echo "ok   systemd/$RT_NAME:$c ($(($(date +%s) - t0))s)"
    else
      failed=$((failed + 1)); echo "FAIL systemd/$RT_NAME:$c: $(awk 'NR > 1 {printf "; "} {printf "%s", $0}' "$T/why" 2>/dev/null)"
    fi
    [ "$c" = nothing_left ] || cleanup
  done
done
echo "guest-systemd: $passed passed, $failed failed"
