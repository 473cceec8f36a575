#!/usr/bin/env python3
"""pidfd_recv: a --pidfd-socket server for tests, like runc's
contrib/cmd/pidfd-kill.

    pidfd_recv.py SOCKET_PATH SIGNAL

Listens on SOCKET_PATH (touching SOCKET_PATH.ready once it does), accepts
one connection, receives one message with one fd (SCM_RIGHTS), prints
"NAME PID" (the message text and the Pid: line of the fd's fdinfo, which
for a pidfd is the process's pid), then, once it gets SIGUSR1 (the
test's go: the runtime's command has returned), sends SIGNAL (a number)
through the pidfd with pidfd_send_signal and prints "signalled".  Exit 1 on any
error (no fd, not a pidfd)."""
import os
import signal
import socket
import sys

path, sig = sys.argv[1], int(sys.argv[2])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if os.path.exists(path):
    os.unlink(path)
srv.bind(path)
srv.listen(1)
open(path + ".ready", "w").close()
conn, _ = srv.accept()
msg, fds, _, _ = socket.recv_fds(conn, 4096, 4)
if len(fds) != 1:
    sys.exit("pidfd_recv: expected one fd, got %d" % len(fds))
pid = None
with open("/proc/self/fdinfo/%d" % fds[0]) as f:
    for line in f:
        if line.startswith("Pid:"):
            pid = line.split()[1]
if pid is None:
    sys.exit("pidfd_recv: the fd is not a pidfd")
print(msg.decode(), pid, flush=True)
signal.sigwait({signal.SIGUSR1})
signal.pidfd_send_signal(fds[0], sig)
print("signalled", flush=True)
