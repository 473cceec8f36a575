#!/usr/bin/env bash
# Where the time of `run` and `exec` goes, stage by stage, for two crt
# builds (crt --debug's stage timings), in one of bench's layouts:
#   bash bench/stages.sh OLD_CRT [NEW_CRT]      (NEW_CRT defaults to ./crt)
# STAGES_LAYOUT=v1ns (default) or cgroup2ns; STAGES_N rounds (15), the two
# builds alternating.  Prints one markdown table per command: the median
# of each stage's milliseconds, old and new (a stage only one build has
# shows "-"), and the median wall time of the whole command.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OLD=${1:?usage: stages.sh OLD_CRT [NEW_CRT]}
NEW=${2:-$here/../crt}
[ "$(id -u)" = 0 ] || { echo "stages.sh: needs root" >&2; exit 1; }
W=$(mktemp -d /tmp/crt-stages.XXXXXX)
trap 'rm -rf "$W"' EXIT
export CRT_BIN=$NEW CRT_TEST_WORK=$W
# shellcheck source=../tests/integration/lib.sh
. "$here/../tests/integration/lib.sh"
# shellcheck source=layout.sh
. "$here/layout.sh"
make_bundle "$W/b" /bin/true >/dev/null
make_bundle "$W/s" sleep 1000 >/dev/null
case ${STAGES_LAYOUT:-v1ns} in
  v1ns) run_in=in_v1ns ;;
  cgroup2ns) run_in=in_cgroup2ns ;;
  *) echo "stages.sh: unknown layout $STAGES_LAYOUT" >&2; exit 1 ;;
esac
$run_in python3 - "$OLD" "$NEW" "$W" "${STAGES_N:-15}" <<'PY'
import re, statistics, subprocess, sys, time
old, new, w, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
builds = {"old": old, "new": new}
stage = re.compile(r'msg="((?:create|init|start|exec|delete|run): (?:stage )?[^"]*?) took ([0-9.]+)ms"')
seq = 0

def run(name, argv):
    global seq
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = (time.perf_counter() - t0) * 1000
    if p.returncode != 0:
        sys.exit("%s: %s: exit %d: %s" % (name, " ".join(argv), p.returncode, p.stderr[-500:]))
    got = {}
    for m in stage.finditer(p.stderr):
        key = re.sub(r"\(init pid \d+\)|\(namespaces joined, pid \d+\)", "", m.group(1)).strip()
        got[key] = got.get(key, 0) + float(m.group(2))
    return wall, got

acc = {}
for cmd in ("run", "exec"):
    for b, path in builds.items():
        if cmd == "exec":
            subprocess.run([path, "--root", "%s/r-%s" % (w, b), "run", "-d", "-b", w + "/s", "sl-" + b], check=True,
                           stdout=subprocess.DEVNULL)
    for i in range(n + 2):
        for b, path in builds.items():
            seq += 1
            root = "%s/r-%s" % (w, b)
            argv = [path, "--root", root, "--debug"] + (
                ["run", "-b", w + "/b", "st%d" % seq] if cmd == "run" else ["exec", "sl-" + b, "/bin/true"])
            wall, got = run(b, argv)
            if i < 2:
                continue
            a = acc.setdefault(cmd, {}).setdefault(b, {})
            a.setdefault("(wall, as the caller sees it)", []).append(wall)
            for k, v in got.items():
                a.setdefault(k, []).append(v)
    for b, path in builds.items():
        if cmd == "exec":
            subprocess.run([path, "--root", "%s/r-%s" % (w, b), "delete", "-f", "sl-" + b], check=True)

for cmd, per in acc.items():
    keys = []
    for b in builds:
        for k in per.get(b, {}):
            if k not in keys:
                keys.append(k)
    print("\n`%s` (median ms of %d rounds)\n" % (cmd, n))
    print("| stage | old | new |")
    print("|---|---|---|")
    for k in keys:
        cells = []
        for b in builds:
            v = per.get(b, {}).get(k)
            cells.append("%.2f" % statistics.median(v) if v else "-")
        print("| %s | %s | %s |" % (k, cells[0], cells[1]))
PY
