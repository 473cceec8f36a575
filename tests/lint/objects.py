"""What the lint scripts share: the build's object files and their symbols."""
import glob
import subprocess
import sys


def object_files(argv, tool):
    """The objects named in argv, else build/src/*/*.o; None (with a
    message) when there are none."""
    objs = sorted(argv[1:] or glob.glob("build/src/*/*.o"))
    if not objs:
        print("%s: no object files (run make crt first)" % tool, file=sys.stderr)
        return None
    return objs


def symbols(obj, kinds="TDBRVWGS"):
    """(defined, undefined) symbol names of obj; defined ones of the nm
    types in kinds (T and W alone: functions)."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in kinds:
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
    return defined, undefined


def short(path):
    """build/src/x/y.o -> src/x/y.o"""
    i = path.find("src/")
    return path[i:] if i >= 0 else path
