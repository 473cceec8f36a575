#!/usr/bin/env python3
"""Layers only include down: src/cli -> src/container -> src/cgroup -> src/linux -> src/spec -> src/util.

src/cgroup stands beside src/linux as a module of its own, one step above
it: the cgroup code reads /proc through procinfo.c and asks rootless.c,
so no file of src/linux may include crt/cgroup.h (that would be a cycle).

A header include/crt/X.h belongs to the layer of the file that implements
it (src/L/X.c, or the module of header_files.py's MODULES); a header with
no implementation (types and constants only, e.g. wire.h) belongs to
no layer and anyone may include it.  Prints each include of a higher
layer's header (file:line) and exits 1.  crt-stub (src/stub) may include
only headers of no layer.

Usage: layers.py
"""
import glob
import os
import re
import sys

from header_files import MODULES

ORDER = ["util", "spec", "linux", "cgroup", "container", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:\.\./\.\./include/)?crt/([A-Za-z0-9_]+)\.h"', re.M)


def header_layer(name):
    if name in MODULES:
        layers = {p.split("/")[1] for p in MODULES[name]}
        return min(layers, key=ORDER.index)
    # the lowest of several (src/cli/state.c is the command, src/container/state.c the header's)
    layers = [p.split("/")[1] for p in glob.glob(f"src/*/{name}.c") if not p.startswith("src/stub/")]
    return min(layers, key=ORDER.index) if layers else None


def main():
    bad = []
    for path in sorted(glob.glob("src/*/*.[ch]")):
        layer = path.split("/")[1]
        text = open(path).read()
        for m in INCLUDE.finditer(text):
            hl = header_layer(m.group(1))
            if hl is None:
                continue
            line = text.count("\n", 0, m.start()) + 1
            if layer == "stub" or ORDER.index(hl) > ORDER.index(layer):
                bad.append(f"{path}:{line}: includes crt/{m.group(1)}.h of {hl} ({layer} is below it)")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    sys.exit(main())
