#!/usr/bin/env python3
"""A/B timer for profile.sh: abtime.py [-n ITERS] [-w WARMUP] NAME=CMD ...

Each CMD is a shell command; "{id}" in it becomes a fresh container id.
Commands are interleaved round by round; prints median [p10-p90] ms and the
ratio of each to the first.  Any failing command aborts (exit 1)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def pct(v, q):
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("-w", type=int, default=3)
    ap.add_argument("cmds", nargs="+")
    a = ap.parse_args()
    cmds = [c.split("=", 1) for c in a.cmds]
    acc = {name: [] for name, _ in cmds}
    seq = 0
    for i in range(a.w + a.n):
        for name, cmd in cmds:
            seq += 1
            line = cmd.replace("{id}", "ab%d-%d" % (os.getpid(), seq))
            # stderr to a file: a container started by CMD would hold a pipe open.
            with tempfile.TemporaryFile() as err:
                t0 = time.perf_counter_ns()
                p = subprocess.run(line, shell=True, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err)
                dt = time.perf_counter_ns() - t0
                if p.returncode != 0:
                    err.seek(0)
                    sys.exit("abtime: %s: exit %d: %s" % (line, p.returncode,
                                                          err.read().decode(errors="replace")))
            if i >= a.w:
                acc[name].append(dt / 1e6)
    base = None
    for name, _ in cmds:
        v = sorted(acc[name])
        med = pct(v, 0.5)
        base = base or med
        print("%-28s %8.2f ms [%.2f-%.2f]  x%.2f" % (name, med, pct(v, 0.1), pct(v, 0.9),
                                                    med / base))


if __name__ == "__main__":
    main()
