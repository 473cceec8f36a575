# --systemd-cgroup.  systemd is not PID 1 on this VM, so the D-Bus side is
# tests/lib/mock_systemd.py on a private dbus-daemon: crt talks to it with
# libsystemd's sd-bus exactly as to systemd (DBUS_SYSTEM_BUS_ADDRESS), and
# the test checks what crt asked for (unit, slice, properties, StopUnit) and
# the cgroups it ended up in.  The mock needs Debian's python3-dbus and
# python3-gi, hence /usr/bin/python3 (not whatever python3 is first in
# PATH).  /run/systemd/system, which crt checks to know that systemd runs,
# exists only in the test's private mount namespace.

# sd_start: a dbus-daemon on $T/bus with the mock manager on it.
sd_start() {
  trap sd_stop EXIT
  cat >"$T/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>custom</type>
  <listen>unix:path=$T/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
  </policy>
</busconfig>
EOF
  dbus-daemon --config-file="$T/bus.conf" --nofork --nopidfile >"$T/dbus.log" 2>&1 &
  SD_DBUS=$!
  wait_for test -S "$T/bus" || fail "dbus-daemon did not start: $(cat "$T/dbus.log")"
  export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus
  /usr/bin/python3 "$REPO/tests/lib/mock_systemd.py" "$DBUS_SYSTEM_BUS_ADDRESS" "$T/calls.log" "$T/ready" >"$T/mock.log" 2>&1 &
  SD_MOCK=$!
  wait_for test -e "$T/ready" || fail "mock systemd did not start: $(cat "$T/mock.log")"
}

sd_stop() {
  kill "$SD_MOCK" "$SD_DBUS" 2>/dev/null
  wait "$SD_MOCK" "$SD_DBUS" 2>/dev/null
  local d
  for d in /sys/fs/cgroup/*/crttest.slice /sys/fs/cgroup/crttest.slice; do
    [ -d "$d" ] || continue
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
  done
}

# in_sd_ns FN: FN (of this file) where /run/systemd/system exists.
in_sd_ns() {
  unshare -m --propagation private bash -c '
    mount -t tmpfs none /run/systemd && mkdir /run/systemd/system || { echo "FAIL: no /run/systemd" >&2; exit 1; }
    source "$1"; source "$2"; "$3"' in_sd_ns "$REPO/tests/integration/lib.sh" "${BASH_SOURCE[0]}" "$1"
}

calls() { # the mock's log as "call unit" lines, or one field of the last start
  python3 - "$T/calls.log" "$@" <<'PY'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
if len(sys.argv) == 2:
    for c in calls:
        if c["call"] != "Subscribe":
            print(c["call"], c.get("unit", ""))
else:
    start = [c for c in calls if c["call"] == "StartTransientUnit"][-1]
    print(json.dumps(start["props"].get(sys.argv[2])))
PY
}

_systemd_scope() {
  sd_start
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='crttest-a.slice:crtt:$id'; c['linux']['resources']={'memory':{'limit':67108864},'pids':{'limit':50},'cpu':{'shares':512,'quota':50000,'period':100000}}"
  local scope=/crttest.slice/crttest-a.slice/crtt-$id.scope
  "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id" || fail "run --systemd-cgroup"
  assert_eq "StartTransientUnit crtt-$id.scope" "$(calls)"
  assert_eq '"crttest-a.slice"' "$(calls Slice)"
  assert_eq true "$(calls Delegate)"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "[$pid]" "$(calls PIDs)" "PIDs"
  assert_eq 67108864 "$(calls MemoryLimit)"
  assert_eq 50 "$(calls TasksMax)"
  assert_eq 512 "$(calls CPUShares)"
  assert_eq 500000 "$(calls CPUQuotaPerSecUSec)"
  assert_eq "$scope" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cgroup_path"])' "$CRT_ROOT/$id/state.json")"
  # systemd made the name=systemd one; crt the rest, with the resources
  assert_contains "$(cat "/proc/$pid/cgroup")" "name=systemd:$scope"
  assert_contains "$(cat "/proc/$pid/cgroup")" "memory:$scope"
  assert_eq 67108864 "$(cat "/sys/fs/cgroup/memory$scope/memory.limit_in_bytes")"
  assert_eq 50 "$(cat "/sys/fs/cgroup/pids$scope/pids.max")"
  crt exec -d --pid-file "$T/e.pid" "$id" sleep 50 || fail "exec"
  assert_contains "$(cat "/proc/$(cat "$T/e.pid")/cgroup")" "pids:$scope"
  crt kill "$id" KILL
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "not stopped"
  crt delete "$id" || fail "delete"
  assert_eq "StartTransientUnit crtt-$id.scope
StopUnit crtt-$id.scope" "$(calls)"
  local d
  for d in /sys/fs/cgroup/*/; do [ ! -d "$d$scope" ] || fail "left: $d$scope"; done
  # a unit systemd already collected is fine on delete
  "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id" || fail "run again"
  crt kill "$id" KILL
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "not stopped"
  /usr/bin/python3 - "$DBUS_SYSTEM_BUS_ADDRESS" "crtt-$id.scope" <<'PY' || fail "StopUnit by hand"
import sys, dbus
b = dbus.bus.BusConnection(sys.argv[1])
m = dbus.Interface(b.get_object("org.freedesktop.systemd1", "/org/freedesktop/systemd1"), "org.freedesktop.systemd1.Manager")
m.StopUnit(sys.argv[2], "replace")
PY
  crt delete "$id" || fail "delete after the unit is gone"
  for d in /sys/fs/cgroup/*/; do [ ! -d "$d$scope" ] || fail "left: $d$scope"; done
}
test_systemd_cgroup_scope() { in_sd_ns _systemd_scope; }

# of CALL's last record: PROP's value and D-Bus type ("123 UInt64")
prop_of() {
  python3 - "$T/calls.log" "$1" "$2" <<'PY'
import json, sys
c = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["call"] == sys.argv[2]][-1]
print(json.dumps(c["props"].get(sys.argv[3])), c["types"].get(sys.argv[3], "-"))
PY
}

# org.systemd.property.* annotations (GVariant text, as runc) and the
# limits systemd would rewrite at a daemon-reload (cpu period, and what
# update changes: SetUnitProperties) are the unit's properties.
_systemd_properties() {
  sd_start
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='crttest-a.slice:crtt:$id'; c['linux']['resources']={'memory':{'limit':67108864},'cpu':{'quota':50000,'period':200000}}
c['annotations']={'org.systemd.property.TimeoutStopUSec':'uint64 123456789','org.systemd.property.CollectMode':\"'inactive-or-failed'\",'org.systemd.property.RuntimeMaxSec':'30','org.systemd.property.Wants':\"['a.service', 'b.service']\",'org.systemd.property.Nice':'@i -5'}"
  "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id" || fail "run --systemd-cgroup"
  assert_eq "123456789 UInt64" "$(prop_of StartTransientUnit TimeoutStopUSec)"
  assert_eq '"inactive-or-failed" String' "$(prop_of StartTransientUnit CollectMode)"
  assert_eq "30000000 UInt64" "$(prop_of StartTransientUnit RuntimeMaxUSec)" "a *Sec property takes seconds"
  assert_eq "null -" "$(prop_of StartTransientUnit RuntimeMaxSec)"
  assert_eq '["a.service", "b.service"] Array' "$(prop_of StartTransientUnit Wants)"
  assert_eq "-5 Int32" "$(prop_of StartTransientUnit Nice)"
  assert_eq "200000 UInt64" "$(prop_of StartTransientUnit CPUQuotaPeriodUSec)"
  assert_eq "250000 UInt64" "$(prop_of StartTransientUnit CPUQuotaPerSecUSec)"
  # update: the quota alone, with the period the cgroup has
  crt update --memory 104857600 --cpu-quota 100000 --pids-limit 30 "$id" || fail "update"
  assert_eq "104857600 UInt64" "$(prop_of SetUnitProperties MemoryLimit)"
  assert_eq "500000 UInt64" "$(prop_of SetUnitProperties CPUQuotaPerSecUSec)"
  assert_eq "200000 UInt64" "$(prop_of SetUnitProperties CPUQuotaPeriodUSec)"
  assert_eq "30 UInt64" "$(prop_of SetUnitProperties TasksMax)"
  assert_eq 104857600 "$(cat "/sys/fs/cgroup/memory/crttest.slice/crttest-a.slice/crtt-$id.scope/memory.limit_in_bytes")"
  crt delete -f "$id" || fail "delete -f"
  # a value that is not GVariant text: refused, nothing left
  bundle_edit "$T/b" "c['annotations']={'org.systemd.property.TimeoutStopUSec':'uint64 -1'}"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" 'annotations["org.systemd.property.TimeoutStopUSec"]: value "uint64 -1": number out of range for its type at offset 9'
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  bundle_edit "$T/b" "c['annotations']={'org.systemd.property.Bad-Name':'1'}"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_contains "$out" 'annotations["org.systemd.property.Bad-Name"]: not a systemd property name'
  bundle_edit "$T/b" "c['annotations']={'org.systemd.property.TimeoutStopSec':\"'x'\"}"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_contains "$out" "a time in seconds must be a number"
  bundle_edit "$T/b" "c['annotations']={'org.systemd.property.X':'handle 0'}"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_contains "$out" 'annotations["org.systemd.property.X"]: a handle is not a property value'
}
test_systemd_cgroup_properties() { in_sd_ns _systemd_properties; }

_systemd_errors() {
  sd_start
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='crttest.slice:crtt:$id'"
  # a failed job: nothing left behind
  kill "$SD_MOCK"; wait "$SD_MOCK" 2>/dev/null; rm -f "$T/ready"
  MOCK_JOB_RESULT=failed /usr/bin/python3 "$REPO/tests/lib/mock_systemd.py" "$DBUS_SYSTEM_BUS_ADDRESS" "$T/calls.log" "$T/ready" >"$T/mock.log" 2>&1 &
  SD_MOCK=$!
  wait_for test -e "$T/ready" || fail "mock restart"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" "systemd cgroup manager: start unit crtt-$id.scope: job failed"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left after a failed start"
  # not of the form slice:prefix:name
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/plain/path'"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" 'expected cgroupsPath of the form "slice:prefix:name", got "/plain/path"'
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='nota-slice:crtt:$id'"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_contains "$out" '"nota-slice" is not a slice name'
  # no bus
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='crttest.slice:crtt:$id'"
  run_rc env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/nosuch" "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" "systemd cgroup manager: connect to the system bus"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  # systemd not running (no /run/systemd/system)
  umount /run/systemd
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --systemd-cgroup run -d -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" "systemd cgroup manager: systemd is not running"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
}
test_systemd_cgroup_errors() { in_sd_ns _systemd_errors; }
