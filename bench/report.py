#!/usr/bin/env python3
"""Merges the per-mode JSON parts of bench.sh into one document and prints
the text table.  Usage: report.py OUT.json META.json PART.json..."""
import json
import sys

ORDER = ["run", "create", "start", "delete", "exec", "state_1", "list_1", "state_N",
         "list_N", "delete_parked", "rss_create", "rss_exec", "lifecycle_seq", "lifecycle_par2"]
LABEL = {
    "run": "run /bin/true (whole lifecycle)", "create": "create", "start": "start",
    "delete": "delete (stopped)", "exec": "exec /bin/true", "state_1": "state, 1 present",
    "list_1": "list, 1 present", "state_N": "state, N present", "list_N": "list, N present",
    "delete_parked": "delete -f (parked, N present)", "rss_create": "peak RSS create",
    "rss_exec": "peak RSS exec", "lifecycle_seq": "create+start+delete x M, serial",
    "lifecycle_par2": "create+start+delete x M, 2 parallel",
}


def cell(s):
    if s is None:
        return "-"
    if "total" in s:
        return "%.2fs (%.1f/c)" % (s["total"], s["per_container_ms"])
    if s["unit"] == "kB":
        return "%.0f kB [%.0f-%.0f]" % (s["median"], s["min"], s["max"])
    return "%.2f [%.2f-%.2f]" % (s["median"], s["p10"], s["p90"])


def paired_cell(p):
    return "%.2f [%.2f-%.2f]" % (p["median"], p["p10"], p["p90"]) if p else "-"


def table(mode, part, meta):
    names = list(part["runtimes"])
    n, life_n = part.get("n", meta["n"]), part.get("lifecycle_n", meta["lifecycle_n"])
    others = [n for n in names if n != "crt"]
    head = (["metric (ms: median [p10-p90])"] + names + ["crt/" + o for o in others] +
            ["paired crt/" + o for o in others])
    rows = [head]
    for m in ORDER:
        per = part["results"].get(m)
        if not per:
            continue
        label = LABEL[m].replace("N present", "%d present" % n).replace("x M", "x %d" % life_n)
        r = part["ratios"].get(m, {})
        pr = part.get("paired_ratios", {}).get(m, {})
        rows.append([label] + [cell(per.get(n)) for n in names] +
                    ["%.2f" % r["crt/" + o] if "crt/" + o in r else "-" for o in others] +
                    [paired_cell(pr.get("crt/" + o)) for o in others])
    probe = part.get("probe_after")
    if probe:
        rows.append(["probe right after the runtime's commands"] + [cell(probe.get(n)) for n in names] +
                    ["-" for o in others] * 2)
    w = [max(len(row[i]) for row in rows) for i in range(len(head))]
    out = ["== %s: %s" % (mode, part["description"]), "   " + like_line(part)]
    if "seed" in part:
        out.append("   runtime order: shuffled every round (seed %d); paired: per-round crt/peer, "
                   "median [p10-p90]" % part["seed"])
    for name in names:
        if name == "floor":
            out.append("   floor: bench/floor.c, the kernel work of `run` alone (timed in the run row only)")
            continue
        c = part["cgroup_work"][name]
        out.append("   %s: %s" % (name, c.get("verdict") or "%s cgroup work (%s)" % (
            "did" if c["did_cgroup_work"] else "did NOT do", c["unified"] or "no unified line")))
    for i, row in enumerate(rows):
        out.append("  ".join(x.ljust(w[j]) if j == 0 else x.rjust(w[j]) for j, x in enumerate(row)))
        if i == 0:
            out.append("  ".join("-" * x for x in w))
    return "\n".join(out)


def like_line(part):
    names = ", ".join(part["runtimes"])
    if part.get("like_for_like"):
        return "like-for-like: %s all did the same cgroup work" % names
    if part.get("like_for_like") is None:
        return "like-for-like: unknown (part written before the check existed)"
    return "NOT like-for-like: not all of %s did the same cgroup work (see below)" % names


def main():
    out_path, meta_path, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(meta_path) as f:
        doc = json.load(f)
    doc["modes"] = {}
    for p in parts:
        with open(p) as f:
            part = json.load(f)
        if "floor" in part:
            doc["floor"] = part.pop("floor")
            doc["floor_layout"] = part["mode"]
        doc["modes"][part["mode"]] = part
    descr = doc["mode_descriptions"]
    on_tmpfs = doc["meta"].get("env", {}).get("BENCH_STATE_TMPFS") == "1"
    print("== state roots (--root of every runtime): %s" % (
        "a tmpfs (BENCH_STATE_TMPFS=1)" if on_tmpfs else "the work dir under /tmp"))
    print()
    for mode, part in doc["modes"].items():
        part["description"] = descr.get(mode, "")
        print(table(mode, part, doc["meta"]))
        print()
    fair = [m for m, p in doc["modes"].items() if p.get("like_for_like")]
    print("== like-for-like layouts (every runtime did the same cgroup work): %s" % (
        ", ".join("%s (%s)" % (m, "/".join(doc["modes"][m]["runtimes"])) for m in fair)
        or "none"))
    unfair = [m for m in doc["modes"] if m not in fair]
    if unfair:
        print("   not like-for-like: %s" % ", ".join(unfair))
    print()
    if "floor" in doc:
        f = doc["floor"]
        print("== floor (no runtime; measured in the %s layout)" % doc.get("floor_layout", "?"))
        for k, label in (("unshare", "unshare --fork --pid --mount --uts --ipc --net /bin/true"),
                         ("spawn_true", "spawning /bin/true from the driver (in every number)")):
            print("  %-58s %s ms" % (label, cell(f[k])))
        print()
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
