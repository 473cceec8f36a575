#!/usr/bin/env python3
"""Paired A/B timer: abpair.py [-n ROUNDS] [-w WARMUP] NAME=CMD NAME=CMD ...

Like abtime.py (each CMD a shell command, "{id}" a fresh container id), but
the order of the commands is reversed every other round, so that whatever
one command leaves behind for the next (a network namespace torn down by a
kworker, a cgroup's css freed after an RCU grace period) falls on each in
turn, and the result is the median of the per-round differences to the
first command, which cancels the machine's drift over the run.  On the
team VM the medians of `run` moved by 0.3-1 ms between runs of 100 rounds
(abtime.py), the median paired difference of 300-400 rounds by 0.08 ms.
Any failing command aborts (exit 1)."""
import argparse
import os
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=300)
    ap.add_argument("-w", type=int, default=5)
    ap.add_argument("cmds", nargs="+")
    a = ap.parse_args()
    cmds = [c.split("=", 1) for c in a.cmds]
    acc = [[] for _ in cmds]
    seq = 0
    for i in range(a.w + a.n):
        order = list(range(len(cmds)))
        if i % 2:
            order.reverse()
        for k in order:
            seq += 1
            line = cmds[k][1].replace("{id}", "ap%d-%d" % (os.getpid(), seq))
            t0 = time.perf_counter_ns()
            p = subprocess.run(line, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            dt = (time.perf_counter_ns() - t0) / 1e6
            if p.returncode != 0:
                sys.exit("abpair: %s: exit %d" % (line, p.returncode))
            if i >= a.w:
                acc[k].append(dt)
    for k, (name, _) in enumerate(cmds):
        d = sorted(x - y for x, y in zip(acc[k], acc[0]))
        cut = len(d) // 10
        print("%-12s median %6.2f ms   minus %s, per round: median %+.3f ms, mean of the middle 80%% %+.3f ms" % (
            name, statistics.median(acc[k]), cmds[0][0], statistics.median(d), statistics.mean(d[cut:len(d) - cut])))


if __name__ == "__main__":
    main()
