# Smoke test of bench/bench.sh: a tiny run of every measurement, in all
# three cgroup layouts, and the JSON it writes has every expected key; in
# v1ns (the like-for-like layout) crun too joined every v1 hierarchy.

test_bench_quick_json() {
  local r
  for r in /usr/sbin/runc /usr/bin/crun /usr/bin/time; do
    # bench.sh would apt-get a missing runtime; a test must not install.
    [ -x "$r" ] || { echo "SKIP: $r missing (contrib/install-deps.sh installs it)"; return 0; }
  done
  run_rc env BENCH_QUICK=1 BENCH_ITERS=2 BENCH_WARMUP=1 BENCH_RSS_ITERS=1 BENCH_N=3 \
    BENCH_LIFECYCLE_N=4 BENCH_OUT="$T/out.json" bash "$REPO/bench/bench.sh"
  assert_eq 0 "$rc" "bench.sh exit status (output: $out)"
  assert_contains "$out" "results: $T/out.json"
  assert_contains "$out" "crt/crun"
  assert_contains "$out" "runtime order: shuffled every round, seed"
  local w
  w=$(printf '%s\n' "$out" | sed -n 's/^bench: work dir //p')
  local pure_v2=0
  [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && pure_v2=1
  run_rc python3 - "$T/out.json" "$pure_v2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pure_v2 = sys.argv[2] == "1"  # bench.sh measures cgroup2ns alone there
want = ["run", "create", "start", "delete", "exec", "state_1", "list_1", "state_N", "list_N",
        "delete_parked", "rss_create", "rss_exec", "lifecycle_seq", "lifecycle_par2"]
bad = []
for k in ("date", "kernel", "iters", "n", "lifecycle_n", "versions", "command"):
    if k not in d["meta"]:
        bad.append("meta." + k)
for k in ("unshare", "spawn_true"):
    if not d.get("floor", {}).get(k, {}).get("median"):
        bad.append("floor." + k)
layouts = (("v1ns", ["crt", "runc", "crun"]), ("cgroup2ns", ["crt", "runc", "crun"]), ("host", ["crt", "runc"]))
for mode, rts in layouts[1:2] if pure_v2 else layouts:
    m = d["modes"][mode]
    for rt in rts:
        if "did_cgroup_work" not in m["cgroup_work"].get(rt, {}):
            bad.append("%s.cgroup_work.%s" % (mode, rt))
        for w in want:
            s = m["results"].get(w, {}).get(rt)
            v = s and (s.get("median") or s.get("total"))
            if not v or v <= 0:
                bad.append("%s.results.%s.%s" % (mode, w, rt))
    for w in want:
        for o in rts[1:]:
            if not m["ratios"].get(w, {}).get("crt/" + o):
                bad.append("%s.ratios.%s.crt/%s" % (mode, w, o))
    # order-neutral: a seed, per-round paired ratios, the probe by runtime
    if not isinstance(m.get("seed"), int):
        bad.append("%s.seed" % mode)
    for w in ("run", "create", "exec", "list_N"):
        for o in rts[1:]:
            if not m.get("paired_ratios", {}).get(w, {}).get("crt/" + o, {}).get("median"):
                bad.append("%s.paired_ratios.%s.crt/%s" % (mode, w, o))
    for rt in rts:
        if not m.get("probe_after", {}).get(rt, {}).get("median"):
            bad.append("%s.probe_after.%s" % (mode, rt))
if d["modes"]["cgroup2ns"]["cgroup_work"]["crun"]["did_cgroup_work"]:
    bad.append("crun --cgroup-manager=disabled reported cgroup work")
v1 = d["modes"].get("v1ns", {"like_for_like": True, "cgroup_work": {}}) if pure_v2 else d["modes"]["v1ns"]
if not v1.get("like_for_like"):
    bad.append("v1ns not like-for-like")
for rt in () if pure_v2 else ("crt", "runc", "crun"):
    cw = v1["cgroup_work"][rt]
    if not cw.get("did_cgroup_work") or sorted(cw.get("joined", {})) != sorted(cw.get("expected", [])):
        bad.append("v1ns: %s did not join every v1 hierarchy: %s" % (rt, cw.get("verdict")))
last = "cgroup2ns" if pure_v2 else "host"
if d["meta"]["n"] != 3 or d["modes"][last]["results"]["lifecycle_seq"]["crt"]["n"] != 4:
    bad.append("BENCH_N / BENCH_LIFECYCLE_N not honoured")
print("missing or bad: " + ", ".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PY
  assert_eq 0 "$rc" "JSON keys: $out"
  # Nothing left behind: the work dir is gone, no process runs from it.
  [ -n "$w" ] || fail "bench.sh did not print its work dir"
  [ ! -e "$w" ] || fail "work dir $w left behind"
  assert_eq "" "$(pgrep -f "$w")" "processes left from $w"
}

# bench/floor.c, the same-work floor `run` is measured against, must do the
# same kernel work: a container seen from inside (mounts, /dev, capabilities,
# no_new_privs, cgroups, hostname, NOFILE) is the same under both, but for
# mount ids, device numbers and times.
test_floor_same_inside() {
  is_crt || { echo "crt's own bench: not a runc-compatibility test"; return 0; }
  cc -O2 -Wall -Wextra -Werror -o "$T/floor" "$REPO/bench/floor.c" || fail "bench/floor.c does not build"
  local script='cat /proc/self/mountinfo; ls -la /dev; grep -E "^(Cap|NoNewPrivs|Seccomp)" /proc/self/status; cat /proc/self/cgroup; hostname; ulimit -n'
  make_bundle "$T/b" sh -c "$script"
  local id; id=$(new_id)
  crt run --bundle "$T/b" "$id" >"$T/crt.out" 2>&1 || fail "crt run: $(cat "$T/crt.out")"
  "$T/floor" "$T/b/rootfs" "$id" sh -c "$script" >"$T/floor.out" 2>&1 || fail "floor: $(cat "$T/floor.out")"
  norm() { sed -E 's/^[0-9]+ [0-9]+ [0-9]+:[0-9]+ //; s/[A-Z][a-z]{2} +[0-9]+ +[0-9:]+ //' "$1"; }
  local d; d=$(diff <(norm "$T/crt.out") <(norm "$T/floor.out"))
  [ -z "$d" ] || fail "crt's container and the floor's differ inside (< crt, > floor):
$d"
  [ "$(grep -c cgroup "$T/floor.out")" -gt 0 ] || fail "no cgroup lines: $(cat "$T/floor.out")"
  assert_eq "" "$(find /sys/fs/cgroup -maxdepth 2 -name "$id")" "cgroups left by the floor"
}
