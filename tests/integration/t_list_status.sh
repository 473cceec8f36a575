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

# Enough containers that crt probes them on several threads (one per CPU,
# 32 or more each): every status still matches `state`'s, in name order,
# in the table, the json and -q; a half-made state dir is skipped; a
# forged rescue file reads as stopped wherever it falls.  crt: the probe
# threads exist (2+ CPUs), and the ASan build lists them leak-free.
test_list_many_containers() {
  make_bundle "$T/b" sleep 1000
  make_bundle "$T/t" true
  local ids=() i id
  for i in $(seq 1 70); do
    id=$(new_id)-$i
    ids+=("$id")
    crt create --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create $i"
  done
  local run=$(new_id)-run stop=$(new_id)-stop pau=$(new_id)-pau
  crt run -d --bundle "$T/b" "$run" </dev/null >/dev/null 2>&1 || fail "run -d"
  crt run -d --bundle "$T/b" "$pau" </dev/null >/dev/null 2>&1 || fail "run -d (to pause)"
  crt pause "$pau" || fail "pause"
  crt run -d --bundle "$T/t" "$stop" </dev/null >/dev/null 2>&1 || fail "run -d true"
  wait_eval "[ \"\$(state_field $stop status)\" = stopped ]" || fail "$stop never stopped"
  ids+=("$run" "$stop" "$pau")
  local init40; init40=$(state_field "${ids[40]}" pid)
  if is_crt; then
    mkdir "$CRT_ROOT/$(new_id)-half" || fail "half-made dir"
    rescue_pid "${ids[40]}" 1
  fi
  # every container's state, then list's view of all of them
  for id in "${ids[@]}"; do crt state "$id" || fail "state $id"; done >"$T/states" 2>&1
  crt list --format json >"$T/list.json" || fail "list --format json"
  crt list >"$T/list.table" || fail "list"
  crt list -q >"$T/list.q" || fail "list -q"
  python3 - "$T" "${ids[@]}" <<'PY' || fail "list disagrees with state: $(cat "$T/why")"
import json, sys
t, ids = sys.argv[1], sys.argv[2:]
why = open(t + "/why", "w")
dec, text, states = json.JSONDecoder(), open(t + "/states").read(), {}
pos = 0
while pos < len(text):
    while pos < len(text) and text[pos].isspace(): pos += 1
    if pos == len(text): break
    s, pos = dec.raw_decode(text, pos)
    states[s["id"]] = s
listed = json.load(open(t + "/list.json"))
rows = [l.split() for l in open(t + "/list.table").read().splitlines()[1:]]
quiet = open(t + "/list.q").read().split()
ok = True
def bad(m):
    global ok
    ok = False
    print(m, file=why)
if [c["id"] for c in listed] != sorted(ids): bad("json ids: %s" % [c["id"] for c in listed])
if [r[0] for r in rows] != sorted(ids): bad("table ids: %s" % [r[0] for r in rows])
if quiet != sorted(ids): bad("-q ids: %s" % quiet)
for c in listed:
    s = states[c["id"]]
    if c["status"] != s["status"] or c["pid"] != s["pid"]: bad("json %s: %s/%s, state %s/%s" % (c["id"], c["status"], c["pid"], s["status"], s["pid"]))
for r in rows:
    s = states[r[0]]
    pid = "0" if s["status"] == "stopped" else str(s["pid"])
    if r[2] != s["status"] or r[1] != pid: bad("table %s: %s/%s, state %s/%s" % (r[0], r[2], r[1], s["status"], pid))
for k, st in ((-3, "running"), (-2, "stopped"), (-1, "paused"), (0, "created")):
    if states[ids[k]]["status"] != st: bad("%s is %s, not %s" % (ids[k], states[ids[k]]["status"], st))
sys.exit(0 if ok else 1)
PY
  if is_crt; then
    assert_eq stopped "$(state_field "${ids[40]}" status)" "a forged rescue file"
    if [ "$(nproc)" -ge 2 ]; then
      strace -f -qq -e trace=clone3 -o "$T/clone" "$CRT_BIN" --root "$CRT_ROOT" list >/dev/null 2>&1 || fail "strace list"
      grep -q CLONE_THREAD "$T/clone" || fail "list of 73 probed on one thread: $(cat "$T/clone")"
    fi
    local asan=$REPO/build-asan/crt
    if [ -x "$asan" ]; then
      ASAN_OPTIONS=detect_leaks=1:exitcode=23 UBSAN_OPTIONS=halt_on_error=1:exitcode=23 \
        "$asan" --root "$CRT_ROOT" list >"$T/asan.table" 2>"$T/asan.err" || fail "asan list: $(cat "$T/asan.err")"
      [ ! -s "$T/asan.err" ] || fail "asan list: $(cat "$T/asan.err")"
      cmp -s "$T/asan.table" "$T/list.table" || fail "asan list differs: $(diff "$T/asan.table" "$T/list.table")"
    fi
    rmdir "$CRT_ROOT"/*-half
    rescue_pid "${ids[40]}" "$init40"
  fi
  crt resume "$pau" || fail "resume"
  for id in "${ids[@]}"; do crt delete -f "$id" || fail "delete -f $id"; done
  assert_eq "" "$(crt list -q)" "list -q after delete"
}

# runc >= 1.2: a --root that does not exist is an error for list (runc 1.1
# made the directory and listed nothing).
test_list_missing_root_fails() {
  run_rc "$CRT_BIN" --root "$T/no/such/root" list
  if runc_before_1_2; then
    assert_eq 0 "$rc" "runc 1.1: list of a missing root"
    return 0
  fi
  assert_eq 1 "$rc" "list of a missing --root: $out"
  assert_contains "$out" "$T/no/such/root"
  [ ! -e "$T/no" ] || fail "list made the missing root"
}
