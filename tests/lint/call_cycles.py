#!/usr/bin/env python3
"""No two .c files of crt may call each other, directly or through others.

Reads the object files (build/src/*/*.o by default): each file's undefined
symbols, mapped to the file defining them, make a graph of files; any
strongly connected component of more than one file is a cycle.  Prints each
with the symbols that close it and exits 1.  Data references count too
(a driver table referenced from the dispatcher is an edge).

Usage: call_cycles.py [OBJ...]
"""
import collections
import sys

from objects import object_files, short, symbols


def cycles(graph, nodes):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan, iterative enough for a few hundred files
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main(argv):
    objs = object_files(argv, "call_cycles")
    if not objs:
        return 2
    defs, undef = {}, {}
    for o in objs:
        defs[o], undef[o] = symbols(o)
    owner = {s: o for o, d in defs.items() for s in d}
    graph = collections.defaultdict(set)
    via = collections.defaultdict(set)
    for o, u in undef.items():
        for s in u:
            d = owner.get(s)
            if d and d != o:
                graph[o].add(d)
                via[(o, d)].add(s)
    bad = 0
    for comp in cycles(graph, objs):
        bad += 1
        print("call cycle among: " + " ".join(sorted(short(o) for o in comp)))
        for a in sorted(comp):
            for b in sorted(graph[a] & comp):
                print("  %s -> %s: %s" % (short(a), short(b), ", ".join(sorted(via[(a, b)]))))
    print("call_cycles: %d files, %d cycle(s)" % (len(objs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
