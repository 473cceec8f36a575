#!/usr/bin/env python3
"""Timing driver for bench/bench.sh: measures OCI runtimes side by side.

One invocation measures one cgroup layout ("mode"), inside the mount
namespace bench.sh set up for it (bench/layout.sh); it first checks that
every runtime did the cgroup work the layout calls for.  Runtimes are
interleaved in a fresh random order every round (seeded; the seed is printed
and saved), so that drift in machine load hits all of them alike and no
runtime always runs right after another: what a command leaves behind for
the next one (a cold kernel path, dirty pages) lands on each runtime alike.
That cost is also measured: a fixed probe (a pid written to a cgroup's
cgroup.procs, then /bin/true spawned) is timed right after every command,
and reported by the runtime that ran just before it.  Per-round paired
ratios (crt's time over each peer's in the same round) are reported with
their spread beside the ratio of medians.  The first `warmup` rounds are
dropped.  Writes one JSON document (see bench.sh for the merged layout).
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

DEVNULL = subprocess.DEVNULL


class Runtime:
    def __init__(self, name, path, root, extra):
        self.name, self.path, self.root, self.extra = name, path, root, extra
        os.makedirs(root, exist_ok=True)

    def argv(self, *args):
        return [self.path, "--root", self.root] + self.extra + list(args)


class BenchError(Exception):
    pass


_tls = threading.local()


def errfile():
    """A per-thread file for stderr: a pipe would be inherited by container
    processes (create's stdio becomes the container's) and never reach EOF."""
    f = getattr(_tls, "f", None)
    if f is None:
        f = _tls.f = tempfile.TemporaryFile()
    f.seek(0)
    f.truncate()
    return f


def call(argv, capture=False):
    """Runs argv; returns (elapsed ns, stdout).  A failure aborts the bench:
    a number measured on a failing command would be meaningless.  Only
    `state`/`list` are captured (they start no container)."""
    err = errfile()
    t0 = time.perf_counter_ns()
    p = subprocess.run(argv, stdin=DEVNULL, stdout=subprocess.PIPE if capture else DEVNULL,
                       stderr=err)
    dt = time.perf_counter_ns() - t0
    if p.returncode != 0:
        err.seek(0)
        raise BenchError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                              err.read().decode(errors="replace").strip()))
    return dt, (p.stdout.decode() if capture else "")


def percentile(sorted_v, q):
    if not sorted_v:
        return None
    k = (len(sorted_v) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(sorted_v) - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (k - lo)


def stats(samples, unit="ms", scale=1e6):
    v = sorted(x / scale for x in samples)
    r = {"unit": unit, "n": len(v), "median": percentile(v, 0.5), "p10": percentile(v, 0.1),
         "p90": percentile(v, 0.9), "min": v[0], "max": v[-1], "mean": sum(v) / len(v)}
    return {k: (round(x, 3) if isinstance(x, float) else x) for k, x in r.items()}


class Bench:
    def __init__(self, args, runtimes):
        self.a, self.rts = args, runtimes
        self.seq = 0
        self.results = {}
        self.notes = []
        self.like_for_like = None
        self.rng = random.Random(args.seed)
        self.samples = {}        # metric -> runtime -> per-round ns, in round order
        self.probe_samples = {}  # runtime -> probe ns right after its commands
        self.probe = None
        self.floor_rt = Runtime("floor", args.floor_bin, os.path.join(args.work, "root-floor"), []) \
            if args.floor_bin else None

    def new_id(self, tag):
        # Unique across runtimes and concurrent bench runs: with no
        # cgroupsPath the runtimes derive the cgroup from the id.
        self.seq += 1
        return "crtb%d-%s%d" % (os.getpid(), tag, self.seq)

    def rounds(self, fn, iters=None, extra=()):
        """fn(rt) -> dict name->ns (several timings per call allowed).
        Interleaves runtimes in a new random order every round, times the
        probe after each call; returns {name: {rt: stats}} and keeps the
        per-round samples for the paired ratios."""
        iters = self.a.iters if iters is None else iters
        acc = {}
        order = list(self.rts) + list(extra)
        for i in range(self.a.warmup + iters):
            self.rng.shuffle(order)
            for rt in order:
                got = fn(rt)
                if self.probe:
                    got = dict(got, probe_after=self.probe.time())
                if i < self.a.warmup:
                    continue
                for name, ns in got.items():
                    acc.setdefault(name, {}).setdefault(rt.name, []).append(ns)
        probe = acc.pop("probe_after", None)
        if probe:
            for rt, v in probe.items():
                self.probe_samples.setdefault(rt, []).extend(v)
        for name, per in acc.items():
            self.samples[name] = per
        return {name: {rt: stats(v) for rt, v in per.items()} for name, per in acc.items()}

    def record(self, d):
        self.results.update(d)
        for name in d:
            log("  %-18s %s" % (name, "  ".join(
                "%s %.2f" % (rt, s["median"]) for rt, s in d[name].items())))

    # --- helpers ---------------------------------------------------------
    def state(self, rt, cid):
        _, out = call(rt.argv("state", cid), capture=True)
        return json.loads(out)

    def wait_stopped(self, rt, cid):
        for _ in range(500):
            if self.state(rt, cid)["status"] == "stopped":
                return
            time.sleep(0.002)
        raise BenchError("%s: container %s did not stop" % (rt.name, cid))

    def ids(self, rt):
        _, out = call(rt.argv("list", "-q"), capture=True)
        return out.split()

    def cleanup(self):
        for rt in self.rts:
            try:
                for cid in self.ids(rt):
                    subprocess.run(rt.argv("delete", "-f", cid), stdin=DEVNULL, stdout=DEVNULL,
                                   stderr=DEVNULL)
            except BenchError:
                pass

    # --- measurements ----------------------------------------------------
    def m_run(self, rt):
        cid = self.new_id("r")
        if rt.name == "floor":
            dt, _ = call([rt.path, os.path.join(self.a.bundle, "rootfs"), cid, "/bin/true"])
            return {"run": dt}
        dt, _ = call(rt.argv("run", "--bundle", self.a.bundle, cid))
        # `run` deletes the container when its process exits; a leftover
        # would mean the lifecycle was not complete.
        if cid in self.ids(rt):
            raise BenchError("%s: run left container %s behind" % (rt.name, cid))
        return {"run": dt}

    def m_create_start_delete(self, rt):
        cid = self.new_id("c")
        tc, _ = call(rt.argv("create", "--bundle", self.a.bundle, cid))
        ts, _ = call(rt.argv("start", cid))
        self.wait_stopped(rt, cid)
        td, _ = call(rt.argv("delete", cid))
        return {"create": tc, "start": ts, "delete": td}

    def start_sleeper(self, rt):
        cid = self.new_id("s")
        call(rt.argv("run", "-d", "--bundle", self.a.sleep_bundle, cid))
        return cid

    def cgroup_probe(self, rt):
        """Where the runtime put a container's init: in each hierarchy where
        the init's cgroup differs from ours and is named after the
        container, the runtime created and joined a cgroup."""
        cid = self.new_id("g")
        call(rt.argv("create", "--bundle", self.a.bundle, cid))
        try:
            theirs = read_cgroups(self.state(rt, cid)["pid"])
        finally:
            call(rt.argv("delete", "-f", cid))
        ours = read_cgroups("self")
        moved = {h: p for h, p in theirs.items() if p != ours.get(h)}
        joined = {h: p for h, p in moved.items() if cid in p.rsplit("/", 1)[-1]}
        return {"did_cgroup_work": bool(joined), "joined": joined,
                "init_cgroups_changed": ["%s:%s" % (h, p) for h, p in sorted(moved.items())],
                "unified": "0::" + theirs["unified"] if "unified" in theirs else None}

    def rss(self, argv):
        """Peak RSS (kB) as GNU time reports it: ru_maxrss of the runtime
        process and the children it waited for."""
        out = os.path.join(self.a.work, "time.out")
        err = errfile()
        p = subprocess.run(["/usr/bin/time", "-v", "-o", out] + argv, stdin=DEVNULL,
                           stdout=DEVNULL, stderr=err)
        if p.returncode != 0:
            err.seek(0)
            raise BenchError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                                  err.read().decode(errors="replace").strip()))
        with open(out) as f:
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
        if not m:
            raise BenchError("no 'Maximum resident set size' in GNU time output")
        return int(m.group(1))

    def lifecycle(self, rt, n, workers):
        """n containers created, started and deleted; `workers` at a time."""
        def worker(k, errs):
            try:
                for j in range(k, n, workers):
                    cid = "%s-%d" % (tag, j)
                    call(rt.argv("create", "--bundle", self.a.bundle, cid))
                    call(rt.argv("start", cid))
                    call(rt.argv("delete", "-f", cid))
            except BenchError as e:
                errs.append(e)
        tag = self.new_id("l")
        errs = []
        threads = [threading.Thread(target=worker, args=(k, errs)) for k in range(workers)]
        t0 = time.perf_counter_ns()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        dt = time.perf_counter_ns() - t0
        if errs:
            raise errs[0]
        return dt

    def run_all(self):
        a = self.a
        log("[%s] runtimes: %s" % (a.mode, ", ".join(rt.name for rt in self.rts)))
        cg = {rt.name: self.cgroup_probe(rt) for rt in self.rts}
        self.like_for_like = check_cgroup_work(cg, a.cgroup_expect, a.cgroup_exempt)

        # `run` beside the same-work floor (bench/floor.c), in the same rounds
        self.record(self.rounds(self.m_run, extra=[self.floor_rt] if self.floor_rt else []))
        self.record(self.rounds(self.m_create_start_delete))

        sleepers = {rt.name: self.start_sleeper(rt) for rt in self.rts}
        self.record(self.rounds(lambda rt: {"exec": call(rt.argv("exec", sleepers[rt.name],
                                                                 "/bin/true"))[0]}))
        self.record(self.rounds(lambda rt: {
            "state_1": call(rt.argv("state", sleepers[rt.name]))[0],
            "list_1": call(rt.argv("list"))[0]}))
        if a.suite == "latency":
            for rt in self.rts:
                call(rt.argv("delete", "-f", sleepers[rt.name]))
            return cg

        rss = {}
        for i in range(a.rss_iters):
            for rt in self.rng.sample(self.rts, len(self.rts)):
                cid = self.new_id("m")
                rss.setdefault("rss_create", {}).setdefault(rt.name, []).append(
                    self.rss(rt.argv("create", "--bundle", a.bundle, cid)))
                call(rt.argv("delete", "-f", cid))
                rss.setdefault("rss_exec", {}).setdefault(rt.name, []).append(
                    self.rss(rt.argv("exec", sleepers[rt.name], "/bin/true")))
        self.record({k: {rt: stats(v, "kB", 1) for rt, v in per.items()}
                     for k, per in rss.items()})

        # N containers present: the sleeper plus N-1 parked (created only).
        t0 = time.time()
        parked = {rt.name: [self.new_id("p") for _ in range(a.n - 1)] for rt in self.rts}
        for i in range(a.n - 1):
            for rt in self.rts:
                call(rt.argv("create", "--bundle", a.bundle, parked[rt.name][i]))
        log("  parked %d containers per runtime in %.1fs" % (a.n - 1, time.time() - t0))
        for rt in self.rts:
            got = len(self.ids(rt))
            if got != a.n:
                raise BenchError("%s: %d containers present, expected %d" % (rt.name, got, a.n))
        self.record(self.rounds(lambda rt: {
            "state_N": call(rt.argv("state", sleepers[rt.name]))[0],
            "list_N": call(rt.argv("list"))[0]}))
        dels = {}
        for i in range(a.n - 1):
            for rt in self.rts:
                dels.setdefault(rt.name, []).append(
                    call(rt.argv("delete", "-f", parked[rt.name][i]))[0])
        self.record({"delete_parked": {rt: stats(v) for rt, v in dels.items()}})
        for rt in self.rts:
            call(rt.argv("delete", "-f", sleepers[rt.name]))

        # Throughput: sequential, then 2 at a time; total wall time.
        life = {}
        for workers, key in ((1, "lifecycle_seq"), (2, "lifecycle_par2")):
            for rt in self.rng.sample(self.rts, len(self.rts)):
                ns = self.lifecycle(rt, a.lifecycle_n, workers)
                life.setdefault(key, {})[rt.name] = {
                    "unit": "s", "n": a.lifecycle_n, "workers": workers,
                    "total": round(ns / 1e9, 3),
                    "per_container_ms": round(ns / 1e6 / a.lifecycle_n, 3)}
        self.results.update(life)
        for key, per in life.items():
            log("  %-18s %s" % (key, "  ".join("%s %.2fs" % (rt, s["total"])
                                              for rt, s in per.items())))
        return cg


def read_cgroups(pid):
    """/proc/PID/cgroup as {hierarchy: path}: a v1 hierarchy is named by its
    controllers ("cpu", "name=systemd"), the v2 one "unified"."""
    out = {}
    with open("/proc/%s/cgroup" % pid) as f:
        for line in f:
            hid, ctrl, path = line.rstrip("\n").split(":", 2)
            out["unified" if hid == "0" else ctrl] = path
    return out


def expected_hierarchies(kind):
    """The hierarchies a runtime must join in a layout: "v1" every v1
    hierarchy of the kernel (all mounted on this host), "v2" the unified
    one, "hybrid" both."""
    v1 = sorted(h for h in read_cgroups("self") if h != "unified")
    return {"v1": v1, "v2": ["unified"], "hybrid": v1 + ["unified"]}[kind]


def check_cgroup_work(cg, expect, exempt):
    """Logs, per runtime, which hierarchies it joined, and raises BenchError
    unless every runtime not in `exempt` joined all the `expect` hierarchies
    and the same set as the others: ratios between runtimes doing different
    cgroup work would be reported as like-for-like.  Stores the verdict in
    cg[name]["verdict"]; returns whether all runtimes (exempt or not) did
    the same work."""
    want = expected_hierarchies(expect)
    ref = None
    for name, c in cg.items():
        got = sorted(c["joined"])
        missing = [h for h in want if h not in c["joined"]]
        paths = sorted(set(c["joined"].values()))
        c["expected"] = want
        c["verdict"] = "joined %d/%d %s hierarchies%s%s" % (
            len(want) - len(missing), len(want), expect, (" at " + ", ".join(paths)) if paths else "",
            (": missing " + " ".join(missing)) if missing else ": " + " ".join(got))
        log("  cgroup work by %s: %s" % (name, c["verdict"]))
        if name in exempt:
            if missing:
                log("  (%s is exempt from the check: its ratios are NOT like-for-like)" % name)
            continue
        if missing:
            raise BenchError("%s did not join a cgroup of its own in every %s hierarchy "
                             "(missing %s): not the same cgroup work as the others"
                             % (name, expect, " ".join(missing)))
        if ref is None:
            ref = (name, got)
        elif got != ref[1]:
            raise BenchError("%s joined %s but %s joined %s: not the same cgroup work"
                             % (name, " ".join(got), ref[0], " ".join(ref[1])))
    return len({tuple(sorted(c["joined"])) for c in cg.values()}) == 1


def ratios(results, names):
    out = {}
    for metric, per in results.items():
        crt = per.get("crt")
        if not crt:
            continue
        key = "median" if "median" in crt else "total"
        for other in names:
            o = per.get(other)
            if other != "crt" and o and o.get(key):
                out.setdefault(metric, {})["crt/" + other] = round(crt[key] / o[key], 3)
    return out


def paired(samples, names):
    """Per-round ratios crt/peer (same round, same metric): median and
    p10-p90.  A ratio of medians hides how the two moved together; this
    shows it."""
    out = {}
    for metric, per in samples.items():
        crt = per.get("crt")
        if not crt:
            continue
        for other in names:
            o = per.get(other)
            if other == "crt" or not o or len(o) != len(crt):
                continue
            r = sorted(a / b for a, b in zip(crt, o) if b)
            if r:
                out.setdefault(metric, {})["crt/" + other] = {
                    "median": round(percentile(r, 0.5), 3), "p10": round(percentile(r, 0.1), 3),
                    "p90": round(percentile(r, 0.9), 3), "n": len(r)}
    return out


class Probe:
    """A fixed piece of kernel work timed right after each runtime command:
    a helper process moved between two cgroups by writing its pid to
    cgroup.procs (the cgroup threadgroup lock every runtime's cgroup join
    takes), then /bin/true spawned.  Its time by preceding runtime says what
    that runtime's command left for whoever runs next."""

    def __init__(self, work):
        ours = read_cgroups("self")
        if "pids" in ours and os.path.isdir("/sys/fs/cgroup/pids"):
            base = "/sys/fs/cgroup/pids" + ours["pids"]
        elif os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            base = "/sys/fs/cgroup" + ours.get("unified", "/")
        else:
            raise BenchError("probe: no pids v1 hierarchy and no cgroup2 root here")
        self.dirs = [os.path.join(base, "crtb%d-probe-%s" % (os.getpid(), x)) for x in "ab"]
        for d in self.dirs:
            os.makedirs(d, exist_ok=True)
        self.helper = subprocess.Popen(["sleep", "1000000"], stdin=DEVNULL, stdout=DEVNULL,
                                       stderr=DEVNULL)
        self.k = 0

    def time(self):
        self.k ^= 1
        t0 = time.perf_counter_ns()
        with open(os.path.join(self.dirs[self.k], "cgroup.procs"), "w") as f:
            f.write(str(self.helper.pid))
        subprocess.run(["/bin/true"], stdin=DEVNULL, stdout=DEVNULL, stderr=DEVNULL)
        return time.perf_counter_ns() - t0

    def close(self):
        self.helper.kill()
        self.helper.wait()
        for d in self.dirs:
            for _ in range(100):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.01)


def floor(args):
    """The kernel work alone (fresh namespaces, no runtime), and the cost of
    spawning a process from this driver (included in every number)."""
    fl = {}
    cmds = {"unshare": ["unshare", "--fork", "--pid", "--mount", "--uts", "--ipc", "--net",
                        "/bin/true"], "spawn_true": ["/bin/true"]}
    for i in range(args.warmup + args.iters):
        for k, argv in cmds.items():
            dt, _ = call(argv)
            if i >= args.warmup:
                fl.setdefault(k, []).append(dt)
    return {k: stats(v) for k, v in fl.items()}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--sleep-bundle", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--roots", help="directory of the runtimes' --root directories (default: --work)")
    ap.add_argument("--runtime", action="append", default=[],
                    help="name=path[,extra-global-option...]")
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rss-iters", type=int, default=5)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--lifecycle-n", type=int, default=100)
    ap.add_argument("--floor", action="store_true")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the per-round runtime order (default: from the clock; printed)")
    ap.add_argument("--no-probe", action="store_true", help="no probe after each command")
    ap.add_argument("--floor-bin", help="bench/floor.c built: timed beside `run` in the same rounds")
    ap.add_argument("--cgroup-expect", choices=["v1", "v2", "hybrid"], required=True,
                    help="hierarchies every runtime must join (the bench aborts otherwise)")
    ap.add_argument("--cgroup-exempt", action="append", default=[], metavar="NAME",
                    help="runtime allowed to skip cgroup work (its ratios are marked unlike)")
    ap.add_argument("--suite", choices=["all", "latency"], default="all",
                    help="latency: only run, create/start/delete, exec, state/list (profile.sh)")
    a = ap.parse_args()
    if a.n < 1 or a.iters < 1 or a.lifecycle_n < 1 or a.rss_iters < 1:
        ap.error("counts must be >= 1")
    rts = []
    for spec in a.runtime:
        name, rest = spec.split("=", 1)
        path, *extra = rest.split(",")
        rts.append(Runtime(name, path, os.path.join(a.roots or a.work, "root-%s-%s" % (a.mode, name)), extra))
    if a.seed is None:
        a.seed = int(time.time() * 1000) % 1000000
    log("[%s] runtime order: shuffled every round, seed %d" % (a.mode, a.seed))
    b = Bench(a, rts)
    t0 = time.time()
    try:
        if not a.no_probe:
            b.probe = Probe(a.work)
        cg = b.run_all()
        names = [rt.name for rt in rts] + (["floor"] if b.floor_rt else [])
        doc = {"mode": a.mode, "runtimes": {rt.name: {"path": rt.path, "global_options": rt.extra}
                                            for rt in rts + ([b.floor_rt] if b.floor_rt else [])},
               "cgroup_work": cg, "cgroup_expect": a.cgroup_expect,
               "like_for_like": b.like_for_like, "n": a.n, "lifecycle_n": a.lifecycle_n,
               "results": b.results,
               "ratios": ratios(b.results, names),
               "paired_ratios": paired(b.samples, names),
               "probe_after": {rt: stats(v) for rt, v in b.probe_samples.items()},
               "seed": a.seed,
               "seconds": round(time.time() - t0, 1)}
        if a.floor:
            doc["floor"] = floor(a)
    except BenchError as e:
        log("bench(%s): %s" % (a.mode, e))
        b.cleanup()
        return 1
    finally:
        if b.probe:
            b.probe.close()
    b.cleanup()
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
