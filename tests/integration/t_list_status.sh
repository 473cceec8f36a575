# `list` (table, json, -q) and `state` derive each container's status with
# every check of the init made (issue 31 made them cheaper, not weaker):
# created, running, paused and stopped; an init whose rescue file names
# another pid, or whose pid, start time and rescue file all name a host
# process (not in the container's cgroup), reads as stopped; a state.json
# too big for the one-read path still loads.

# ls_status ID: the STATUS column `list` prints for ID
ls_status() { crt list | awk -v id="$1" '$1 == id {print $3}'; }

# json_status ID: the status `list --format json` gives ID
json_status() {
  crt list --format json | python3 -c '
import json, sys
print("".join(c["status"] for c in json.load(sys.stdin) if c["id"] == sys.argv[1]))' "$1"
}

# expect_status ID STATUS: list's table, list's json and state agree
expect_status() {
  assert_eq "$2" "$(ls_status "$1")" "list: status of $1"
  assert_eq "$2" "$(json_status "$1")" "list --format json: status of $1"
  assert_eq "$2" "$(state_field "$1" status)" "state: status of $1"
}

# rescue_pid ID PID: the rescue file `init` names PID, the rest unchanged
rescue_pid() {
  python3 - "$CRT_ROOT/$1/init" "$2" <<'PY' || fail "rewrite rescue file of $1"
import sys
p, pid = sys.argv[1:]
f = open(p).read().split()
open(p, "w").write(" ".join([pid] + f[1:]) + "\n")
PY
}

test_list_every_status() {
  make_bundle "$T/b" sleep 1000
  make_bundle "$T/t" true
  local c r p s
  c=$(new_id); r=$(new_id); p=$(new_id); s=$(new_id)
  crt create --bundle "$T/b" "$c" </dev/null >/dev/null 2>&1 || fail "create"
  crt run -d --bundle "$T/b" "$r" </dev/null >/dev/null 2>&1 || fail "run -d"
  crt run -d --bundle "$T/b" "$p" </dev/null >/dev/null 2>&1 || fail "run -d (to pause)"
  crt pause "$p" || fail "pause"
  crt run -d --bundle "$T/t" "$s" </dev/null >/dev/null 2>&1 || fail "run -d true"
  wait_eval "[ \"\$(state_field $s status)\" = stopped ]" || fail "$s never stopped"
  expect_status "$c" created
  expect_status "$r" running
  expect_status "$p" paused
  expect_status "$s" stopped
  assert_eq 0 "$(crt list | awk -v id="$s" '$1 == id {print $2}')" "list: pid of a stopped container"
  assert_eq "$(printf '%s\n' "$c" "$r" "$p" "$s" | sort)" "$(crt list -q | sort)" "list -q"
  crt resume "$p" || fail "resume"
  expect_status "$p" running
  local id
  for id in "$c" "$r" "$p" "$s"; do crt delete -f "$id" || fail "delete -f $id"; done
  assert_eq "" "$(crt list -q)" "list -q after delete"
}

# The rescue file names another pid: state.json was rewritten behind
# crt's back, the init is not trusted (stopped) until they agree again.
# Then pid, start time and rescue file all name a host process: the cgroup
# check tells.  list -q still names the container (delete must find it).
test_list_init_checks() {
  is_crt || return 0
  make_bundle "$T/b" sleep 1000
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  local init; init=$(state_field "$id" pid)
  expect_status "$id" running
  rescue_pid "$id" $((init + 1))
  expect_status "$id" stopped
  assert_eq "$id" "$(crt list -q)" "list -q with a forged rescue file"
  rescue_pid "$id" "$init"
  expect_status "$id" running
  sleep 1000 </dev/null >/dev/null 2>&1 &
  local victim=$!
  local vstart; vstart=$(sed 's/.*) //' "/proc/$victim/stat" | awk '{print $20}')
  python3 - "$CRT_ROOT/$id" "$victim" "$vstart" <<'PY' || fail "forge state of $id"
import json, sys
d, pid, start = sys.argv[1:]
s = json.load(open(d + "/state.json"))
s["pid"], s["init_process_start"] = int(pid), int(start)
json.dump(s, open(d + "/state.json", "w"))
f = open(d + "/init").read().split()
open(d + "/init", "w").write(" ".join([pid, start] + f[2:]) + "\n")
PY
  expect_status "$id" stopped
  assert_eq "$id" "$(crt list -q)" "list -q with a forged pid"
  crt delete -f "$id" || fail "delete -f"
  kill -0 "$victim" || fail "the host process $victim was signalled"
  kill "$victim"; wait "$victim" 2>/dev/null || true
  wait_eval "! kill -0 $init" || fail "the real init $init survived"
}

# A state.json of more than 16 KiB (20 KB of annotations) is read the full
# way; its container lists like any other.
test_list_big_state() {
  make_bundle "$T/b" sleep 1000
  bundle_edit "$T/b" "c['annotations']={'org.test.big':'x'*20000}"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  if is_crt; then
    local size; size=$(stat -c %s "$CRT_ROOT/$id/state.json")
    [ "$size" -gt 16384 ] || fail "state.json is only $size bytes"
  fi
  expect_status "$id" created
  assert_eq 20000 "$(crt state "$id" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["annotations"]["org.test.big"]))')" "annotation"
  crt delete -f "$id" || fail "delete -f"
}
