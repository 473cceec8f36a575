#!/usr/bin/env python3
"""A stand-in for systemd's D-Bus manager, for the --systemd-cgroup tests on
machines where systemd is not PID 1.  mock_systemd.py BUS_ADDRESS LOG READY

Serves org.freedesktop.systemd1.Manager on the bus: Subscribe,
StartTransientUnit (makes the scope's cgroup where systemd would on this
layout: the name=systemd hierarchy and the unified one on v1/hybrid, the
cgroup2 root on v2; moves PIDs there) and StopUnit (kills what is in the
scope, removes its directories), each followed by a JobRemoved signal, the
way systemd answers.  Every call is appended to LOG as a JSON line.
MOCK_JOB_RESULT (default "done") is the result StartTransientUnit's job
reports."""
import json
import os
import signal
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IFACE = "org.freedesktop.systemd1.Manager"


def plain(v):
    if isinstance(v, (dbus.Array, list)):
        return [plain(x) for x in v]
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, (dbus.String, dbus.ObjectPath)):
        return str(v)
    if isinstance(v, dbus.Byte):
        return {"y": int(v)}
    if isinstance(v, dbus.Int16):
        return {"n": int(v)}
    if isinstance(v, (dbus.UInt64, dbus.UInt32, dbus.Int64, dbus.Int32, dbus.UInt16, int)):
        return int(v)
    if isinstance(v, dbus.Double):
        return {"d": float(v)}
    if isinstance(v, (dbus.Struct, tuple)):
        return [plain(x) for x in v]
    return str(v)


def slice_path(s):
    if s == "-.slice":
        return ""
    stem = s[: -len(".slice")]
    parts = stem.split("-")
    return "".join("/" + "-".join(parts[: i + 1]) + ".slice" for i in range(len(parts)))


def roots():
    fs = {}
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        sep = f.index("-")
        fstype, opts = f[sep + 1], f[sep + 3]
        if fstype == "cgroup2":
            fs.setdefault("unified", f[4])
        elif fstype == "cgroup" and "name=systemd" in opts:
            fs["systemd"] = f[4]
    return [p for p in (fs.get("systemd"), fs.get("unified")) if p]


class Manager(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, "/org/freedesktop/systemd1")
        self.log = log
        self.units = {}
        self.job = 0

    def record(self, **kw):
        with open(self.log, "a") as f:
            f.write(json.dumps(kw) + "\n")

    def finish(self, job, unit, result):
        GLib.idle_add(lambda: (self.JobRemoved(job[0], job[1], unit, result), False)[1])

    def new_job(self):
        self.job += 1
        return (dbus.UInt32(self.job), dbus.ObjectPath("/org/freedesktop/systemd1/job/%d" % self.job))

    @dbus.service.method(IFACE, in_signature="", out_signature="")
    def Subscribe(self):
        self.record(call="Subscribe")

    @dbus.service.method(IFACE, in_signature="ssa(sv)a(sa(sv))", out_signature="o")
    def StartTransientUnit(self, name, mode, props, aux):
        p = {str(k): plain(v) for k, v in props}
        self.record(call="StartTransientUnit", unit=str(name), mode=str(mode), props=p,
                    types={str(k): type(v).__name__ for k, v in props})
        result = os.environ.get("MOCK_JOB_RESULT", "done")
        job = self.new_job()
        if result == "done":
            rel = slice_path(p.get("Slice", "-.slice")) + "/" + str(name)
            dirs = []
            for r in roots():
                d = r + rel
                os.makedirs(d, exist_ok=True)
                dirs.append(d)
                for pid in p.get("PIDs", []):
                    with open(d + "/cgroup.procs", "w") as f:
                        f.write(str(pid))
            self.units[str(name)] = dirs
        self.finish(job, name, result)
        return job[1]

    @dbus.service.method(IFACE, in_signature="sba(sv)", out_signature="")
    def SetUnitProperties(self, name, runtime, props):
        self.record(call="SetUnitProperties", unit=str(name), runtime=bool(runtime),
                    props={str(k): plain(v) for k, v in props}, types={str(k): type(v).__name__ for k, v in props})
        if str(name) not in self.units:
            raise dbus.exceptions.DBusException("Unit %s not loaded." % name,
                                                name="org.freedesktop.systemd1.NoSuchUnit")

    @dbus.service.method(IFACE, in_signature="ss", out_signature="o")
    def StopUnit(self, name, mode):
        self.record(call="StopUnit", unit=str(name), mode=str(mode))
        dirs = self.units.pop(str(name), None)
        if dirs is None:
            raise dbus.exceptions.DBusException("Unit %s not loaded." % name,
                                                name="org.freedesktop.systemd1.NoSuchUnit")
        for d in dirs:
            for _ in range(100):
                try:
                    pids = open(d + "/cgroup.procs").read().split()
                except FileNotFoundError:
                    break
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        job = self.new_job()
        self.finish(job, name, "done")
        return job[1]

    @dbus.service.signal(IFACE, signature="uoss")
    def JobRemoved(self, id, job, unit, result):
        pass


def main():
    address, log, ready = sys.argv[1:4]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    name = dbus.service.BusName("org.freedesktop.systemd1", bus)
    _m = Manager(bus, log)
    open(ready, "w").close()
    GLib.MainLoop().run()
    del name


if __name__ == "__main__":
    main()
