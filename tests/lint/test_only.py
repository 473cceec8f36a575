#!/usr/bin/env python3
"""No test-only symbol in a public header.

Every function include/crt/*.h declares must be one the program uses:
named somewhere in src/ besides its own definition (a call, a table
entry), and not defined only in the test build (#ifdef CRT_TEST_POINTS).
A hook for the unit tests or for build/crt-testpoints goes in an internal
header beside its code (src/<dir>/*.h, e.g. src/util/testpoint.h,
src/cgroup/cgroup_internal.h), which tests include by path.  Prints each
such declaration and exits 1.

Usage: test_only.py [TREE]   (default: the repository)
"""
import glob
import os
import re
import sys

from header_files import declared_functions, strip

COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")


def test_build_lines(text):
    """The line numbers (1-based) compiled only with CRT_TEST_POINTS."""
    stack, out = [], set()
    for i, line in enumerate(text.splitlines(), 1):
        m = COND.match(line)
        if m:
            kind, rest = m.group(1), m.group(2)
            if kind in ("if", "ifdef", "ifndef"):
                stack.append(kind == "ifdef" and rest.strip() == "CRT_TEST_POINTS" or
                             kind == "if" and re.fullmatch(r"\s*defined\s*\(?\s*CRT_TEST_POINTS\s*\)?\s*", rest) is not None)
            elif kind in ("else", "elif") and stack:
                stack[-1] = False
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if any(stack):
            out.add(i)
    return out


def definitions(name, text):
    """Line numbers where text defines function name (its header line)."""
    pat = re.compile(r"^[A-Za-z_][^;()]*\b%s\s*\([^;]*$" % re.escape(name))
    return [i for i, line in enumerate(text.splitlines(), 1) if pat.match(line)]


def main(tree):
    os.chdir(tree)
    sources = {p: open(p).read() for p in sorted(glob.glob("src/*/*.[ch]"))}
    stripped = {p: strip(t) for p, t in sources.items()}
    # the public headers' macros use functions too (cleanup_close, CRT_STAGE)
    macros = "\n".join(m.group(0) for h in glob.glob("include/crt/*.h")
                       for m in re.finditer(r"^[ \t]*#[ \t]*define(?:[^\n]*\\\n)*[^\n]*", open(h).read(), re.M))
    bad = []
    for h in sorted(glob.glob("include/crt/*.h")):
        raw = open(h).read()
        header_test = test_build_lines(raw)
        for fn in declared_functions(h):
            word = re.compile(r"\b%s\b" % re.escape(fn))
            uses, defs, test_defs = 0, 0, 0
            for p, t in stripped.items():
                n = len(word.findall(t))
                if not n:
                    continue
                d = definitions(fn, sources[p])
                tl = test_build_lines(sources[p])
                defs += len(d)
                test_defs += sum(1 for i in d if i in tl)
                uses += n - len(definitions(fn, t))
            uses += len(word.findall(macros))
            decl = [i for i, line in enumerate(raw.splitlines(), 1) if word.search(line)]
            if defs and test_defs == defs or decl and all(i in header_test for i in decl):
                bad.append("%s: %s is defined only in the test build (CRT_TEST_POINTS)" % (h, fn))
            elif defs and uses == 0:
                bad.append("%s: %s is used by no code in src/ (only by tests)" % (h, fn))
    for b in bad:
        print(b)
    print("test_only: %d test-only declaration(s) in include/crt/" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else here))
