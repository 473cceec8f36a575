#!/usr/bin/env bash
# `run /bin/true` and `delete` of a stopped container, two crt builds
# alternating, in bench's v1ns layout (bench/layout.sh):
#   bash bench/rundelete.sh OLD_CRT [NEW_CRT] [ROUNDS]   (NEW_CRT: ./crt, ROUNDS: 40)
# Per round and build: time `run -b B ID`; `run --keep -b B ID2`; time
# `delete ID2`.  Prints medians of wall time and of the command's CPU time
# (getrusage of the children: less sensitive to a loaded machine).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OLD=${1:?usage: rundelete.sh OLD_CRT [NEW_CRT] [ROUNDS]}
NEW=${2:-$here/../crt}
[ "$(id -u)" = 0 ] || { echo "rundelete.sh: needs root" >&2; exit 1; }
W=$(mktemp -d /tmp/crt-rundelete.XXXXXX)
trap 'rm -rf "$W"' EXIT
export CRT_BIN=$NEW CRT_TEST_WORK=$W
# shellcheck source=../tests/integration/lib.sh
. "$here/../tests/integration/lib.sh"
# shellcheck source=layout.sh
. "$here/layout.sh"
make_bundle "$W/b" /bin/true >/dev/null
in_v1ns python3 - "$OLD" "$NEW" "$W" "${3:-40}" <<'PY'
import resource, statistics, subprocess, sys, time
old, new, w, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
root, bundle = w + "/root", w + "/b"
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def timed(argv):
    c, t = cpu(), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000, (cpu() - c) * 1000
res = {b: {"run": [], "run cpu": [], "delete": [], "delete cpu": []} for b in (old, new)}
for i in range(n):
    for b in (old, new):
        w_, c_ = timed([b, "--root", root, "run", "-b", bundle, "rd-r%d" % i])
        res[b]["run"].append(w_); res[b]["run cpu"].append(c_)
        subprocess.run([b, "--root", root, "run", "--keep", "-b", bundle, "rd-d%d" % i], check=True)
        w_, c_ = timed([b, "--root", root, "delete", "rd-d%d" % i])
        res[b]["delete"].append(w_); res[b]["delete cpu"].append(c_)
print("| ms (median of %d) | old | new |\n|---|---|---|" % n)
for k in res[old]:
    print("| %s | %.2f | %.2f |" % (k, statistics.median(res[old][k]), statistics.median(res[new][k])))
PY
