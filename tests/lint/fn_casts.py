#!/usr/bin/env python3
"""No call through a cast function pointer: flags casts to a function
pointer type ("(int (*)(jp *, yajl_val, void *))fn") and to a typedef'd
callback type ("(elem_fn)fn") in src/.  clang >= 16's
-Wcast-function-type-strict (used by make clang-syntax where available)
says the same; this check also runs with the clang 14 and gcc of the CI.

Usage: fn_casts.py [FILE...]   (default: src/*/*.c src/*/*.h)
"""
import glob
import re
import sys

CAST = re.compile(
    r"\(\s*[A-Za-z_][\w\s\*]*\(\s*\*\s*\)\s*\([^()]*\)\s*\)\s*[\w(&]"  # (T (*)(args))x
    r"|\(\s*\w+_(?:fn|cb|func)\s*\)\s*[\w(&]"  # (elem_fn)x
)


def main(argv):
    files = argv[1:] or sorted(glob.glob("src/*/*.c") + glob.glob("src/*/*.h"))
    bad = 0
    for f in files:
        for no, line in enumerate(open(f, encoding="utf-8", errors="replace"), 1):
            if CAST.search(line):
                bad += 1
                print("%s:%d: function pointer cast: %s" % (f, no, line.strip()))
    print("fn_casts: %d file(s), %d cast(s)" % (len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
