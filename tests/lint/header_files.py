#!/usr/bin/env python3
"""Each public header is named after the file that implements it.

For every include/crt/X.h, the functions it declares (prototypes, not
static inline ones) must all be defined in one file, src/*/X.c, or in the
files the MODULES table below allows for a module header.  Reads the
definitions from the object files (build/src/*/*.o by default), so run
`make crt` first.  Prints each declaration defined elsewhere (or nowhere)
and exits 1.

Usage: header_files.py [OBJ...]
"""
import glob
import os
import re
import sys

from objects import object_files, short, symbols

# Headers that declare a module of several files rather than one file:
# header base name -> glob patterns (relative to the tree) of the .c files
# that may define its functions.  Keep it short; a new entry needs a reason.
MODULES = {
    # The runtime-spec model: parser, generator, defaults and validation
    # are one concern split by stage (src/spec/internal.h is the inside).
    "spec": ["src/spec/*.c"],
    # The cgroup manager: one dispatcher over the drivers and their shared
    # helpers (src/cgroup/cgroup_internal.h is the inside).
    "cgroup": ["src/cgroup/*.c"],
    # The CLI: one file per command and the shared option handling.
    "cli": ["src/cli/*.c"],
}

PROTO = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "defined", "__attribute__", "typeof",
            "__typeof__", "_Static_assert", "alignof", "_Alignof"}


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    # preprocessor lines, joined continuations included
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text


def top_level_statements(text):
    """Yields the top-level statements (ended by ';' at brace depth 0), with
    any brace bodies (struct/enum/inline function) left out."""
    depth, cur, out = 0, [], []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            if depth == 0:
                cur.append("{}")
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and "static" in "".join(cur).split() and "inline" in "".join(cur):
                out.append(("inline", "".join(cur)))
                cur = []
        elif depth == 0:
            if c == ";":
                out.append(("decl", "".join(cur)))
                cur = []
            else:
                cur.append(c)
        i += 1
    return out


def declared_functions(path):
    with open(path) as f:
        text = strip(f.read())
    names = []
    for kind, stmt in top_level_statements(text):
        if kind != "decl":
            continue
        s = " ".join(stmt.split())
        if s.startswith("typedef") or "{}" in s or s.startswith("extern"):
            continue
        m = PROTO.search(s)
        if not m or m.group(1) in KEYWORDS:
            continue
        # a function pointer variable "(*name)(...)" is not a function
        if re.match(r"\(\s*\*", s[m.end() - 1:]):
            continue
        names.append(m.group(1))
    return names


def main(argv):
    objs = object_files(argv, "header_files")
    if not objs:
        return 2
    where = {}
    for o in objs:
        src = short(o)[:-2] + ".c"
        for s in symbols(o, "TW")[0]:
            where.setdefault(s, set()).add(src)
    headers = sorted(glob.glob("include/crt/*.h"))
    bad = 0
    for h in headers:
        base = os.path.basename(h)[:-2]
        allowed = MODULES.get(base)
        if allowed:
            ok = {c for p in allowed for c in glob.glob(p)}
        else:
            ok = set(glob.glob("src/*/%s.c" % base))
        for fn in declared_functions(h):
            files = where.get(fn, set())
            if files & ok:
                continue
            bad += 1
            print("%s: %s is defined in %s, not in %s" % (
                h, fn, " ".join(sorted(files)) or "no file", " ".join(sorted(ok)) or "src/*/%s.c" % base))
    print("header_files: %d headers, %d misplaced declaration(s)" % (len(headers), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
