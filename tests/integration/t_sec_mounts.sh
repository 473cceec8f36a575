# Attacks on the setup's mounts and /proc writes (issue 30, the 2025 runc
# breakout classes), each with the bundle an attacker would write:
#   CVE-2025-52565: /dev/console bound to what /dev/pts/N points to
#   CVE-2025-31133: maskedPaths bound from a /dev/null that is a symlink
#   CVE-2025-52881: a /proc write redirected by a symlink or mount
# Guards src/linux/terminal.c (bind_dev_console), src/linux/rootfs.c
# (masked_path) and src/linux/procfs.c.  Every one of them changed the host
# or unmasked a file with crt 9dc6c0a (except test_sysctl_mount_redirect,
# see there).

# sm_recvtty_start NAME: the console-socket receiver on $T/NAME.sock (as in
# t_terminal.sh), output in $T/NAME.out; sets SM_RECVTTY_PID.
sm_recvtty_start() {
  [ -x "$T/recvtty" ] || cc -O2 -Wall -o "$T/recvtty" "$REPO/tests/lib/recvtty.c" || fail "cannot build recvtty.c"
  rm -f "$T/$1.pid"
  timeout 20 "$T/recvtty" --mode single --pid-file "$T/$1.pid" "$T/$1.sock" >"$T/$1.out" 2>"$T/$1.err" </dev/null &
  SM_RECVTTY_PID=$!
  wait_for test -s "$T/$1.pid" || fail "recvtty $1 did not start: $(cat "$T/$1.err")"
}

# sm_guard_core_pattern: remembers the host's kernel.core_pattern and puts
# it back when the test ends, whatever happened.
sm_guard_core_pattern() {
  SM_CORE=$(cat /proc/sys/kernel/core_pattern)
  trap '[ "$(cat /proc/sys/kernel/core_pattern)" = "$SM_CORE" ] || printf "%s\n" "$SM_CORE" >/proc/sys/kernel/core_pattern' EXIT
}

# sm_attacker_dev DIR: the /dev a container can write, bind-mounted over
# the container's own (no tmpfs /dev, no devpts at /dev/pts).
sm_attacker_dev() { # bundle devdir
  mkdir -p "$2"
  bundle_edit "$1" "
c['mounts']=[m for m in c['mounts'] if not m['destination'].startswith('/dev')]
c['mounts'].append({'destination':'/dev','type':'bind','source':'$2','options':['rbind','rw']})"
}

# The issue's bundle: ptmx -> a devpts of the container's (/realpts),
# pts/0..15 -> /proc/sys/kernel/core_pattern, a terminal.  crt bound
# /dev/console to the host's core_pattern; the echo then rewrote it.
# runc 1.1.5 dies at setctty here; the host is untouched with both.
test_console_pts_symlink_to_core_pattern() {
  sm_guard_core_pattern
  make_bundle "$T/b" sh -c 'echo crt-sec-console-payload >/dev/console; echo console-done'
  bundle_edit "$T/b" "c['process']['terminal']=True"
  sm_attacker_dev "$T/b" "$T/dev"
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/realpts','type':'devpts','source':'devpts',
    'options':['nosuid','noexec','newinstance','ptmxmode=0666','mode=0620']})"
  ln -s /realpts/ptmx "$T/dev/ptmx"
  mknod -m 666 "$T/dev/null" c 1 3 # a real one: masking needs it
  mkdir "$T/dev/pts"
  local i; for i in $(seq 0 15); do ln -s /proc/sys/kernel/core_pattern "$T/dev/pts/$i"; done
  sm_recvtty_start tty
  local id; id=$(new_id)
  run_rc crt run -d --console-socket "$T/tty.sock" -b "$T/b" "$id"
  local created=$rc created_out=$out
  [ "$created" = 0 ] && wait_eval "! kill -0 $SM_RECVTTY_PID 2>/dev/null"
  kill "$SM_RECVTTY_PID" 2>/dev/null; wait "$SM_RECVTTY_PID" 2>/dev/null
  crt delete -f "$id" >/dev/null 2>&1
  assert_eq "$SM_CORE" "$(cat /proc/sys/kernel/core_pattern)" "host kernel.core_pattern after the container wrote /dev/console"
  is_crt || return 0
  # crt: the console is the container's real pty, the write reached it
  assert_eq 0 "$created" "run -d: $created_out"
  assert_contains "$(cat "$T/tty.out")" "crt-sec-console-payload" "the console write on the console socket's pty"
}

# /dev/null -> /proc/timer_list in a /dev the container wrote: masking bound
# the symlink's target onto itself and /proc/timer_list was readable.
test_masked_path_null_symlink() {
  [ -n "$(head -c 1 /proc/timer_list 2>/dev/null)" ] || { echo "host has no readable /proc/timer_list: not checked"; return 0; }
  make_bundle "$T/b" sh -c 'echo "timer_list=$(wc -c </proc/timer_list)"; echo "keys=$(wc -c </proc/keys)"'
  sm_attacker_dev "$T/b" "$T/dev"
  ln -s /proc/timer_list "$T/dev/null"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  if runc_before_1_2; then echo "runc 1.1.5 binds the symlink's target (CVE-2025-31133): not asserted"; return 0; fi
  assert_contains "$out" "timer_list=0" "masked /proc/timer_list"
  assert_contains "$out" "keys=0" "masked /proc/keys"
}

# A masked path that is itself a symlink is refused, not followed.
test_masked_path_symlink_refused() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux']['maskedPaths']=['/etc/masked-link']"
  echo secret >"$T/b/rootfs/etc/target"
  ln -s target "$T/b/rootfs/etc/masked-link"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  if runc_before_1_2; then echo "runc 1.1.5 follows the symlink and masks its target (rc $rc): not asserted"; return 0; fi
  assert_eq 1 "$rc" "run with a symlinked maskedPaths entry: $out"
  assert_contains "$out" "mask /etc/masked-link: a symlink"
}

# The image's /proc/self is a symlink to a directory of the host's (no
# procfs mounted at /proc): crt wrote oomScoreAdj through it into the
# host file.  Now the write goes to the init's own oom_score_adj, looked
# up in crt's procfs.  (No masks: without a procfs at /proc they could not
# be applied, by 9dc6c0a either.)
test_oom_score_adj_symlink_redirect() {
  make_bundle "$T/b" sleep 100
  mkdir -p "$T/hostdir"; echo untouched >"$T/hostdir/oom_score_adj"
  bundle_edit "$T/b" "
c['mounts']=[m for m in c['mounts'] if m['destination']!='/proc']
c['mounts'].append({'destination':'/hostdir','type':'bind','source':'$T/hostdir','options':['rbind','rw']})
c['process']['oomScoreAdj']=123
c['linux']['maskedPaths']=[]; c['linux']['readonlyPaths']=[]"
  ln -s /hostdir "$T/b/rootfs/proc/self"
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/run.err"; rc=$?; out=$(cat "$T/run.err")
  local pid; pid=$(state_field "$id" pid 2>/dev/null)
  local real=; [ -n "$pid" ] && real=$(cat "/proc/$pid/oom_score_adj" 2>/dev/null)
  crt delete -f "$id" >/dev/null 2>&1
  assert_eq untouched "$(cat "$T/hostdir/oom_score_adj")" "host file behind the image's /proc/self"
  if runc_before_1_2; then echo "runc 1.1.5 cannot start without a procfs at /proc (error closing exec fds): host file checked only"; return 0; fi
  assert_eq 0 "$rc" "run -d: $out"
  assert_eq 123 "$real" "the init's own oom_score_adj"
}

# A config mount over /proc/sys/... cannot take a sysctl's write: crt
# refuses such mounts and writes sysctls before any config mount, into its
# own procfs; the value reaches the container's network namespace and not
# the host's.  (9dc6c0a also passes this: it wrote sysctls before the
# mounts too; the guard is against moving them after, or elsewhere.)
test_sysctl_mount_redirect() {
  local host_fwd; host_fwd=$(cat /proc/sys/net/ipv4/ip_forward)
  local want=1; [ "$host_fwd" = 1 ] && want=0
  make_bundle "$T/b" cat /proc/sys/net/ipv4/ip_forward
  bundle_edit "$T/b" "c['linux']['sysctl']={'net.ipv4.ip_forward':'$want'}"
  cp -a "$T/b" "$T/b2"
  echo untouched >"$T/fake"
  bundle_edit "$T/b2" "c['mounts'].append({'destination':'/proc/sys/net/ipv4/ip_forward','type':'bind','source':'$T/fake','options':['bind','rw']})"
  run_rc crt run -b "$T/b2" "$(new_id)" </dev/null
  assert_eq untouched "$(cat "$T/fake")" "host file bound over /proc/sys/net/ipv4/ip_forward"
  [ "$rc" = 0 ] && assert_eq "$want" "$(printf '%s\n' "$out" | tail -n 1)" "ip_forward in the container"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with the sysctl: $out"
  assert_eq "$want" "$(printf '%s\n' "$out" | tail -n 1)" "ip_forward in the container"
  assert_eq "$host_fwd" "$(cat /proc/sys/net/ipv4/ip_forward)" "the host's ip_forward"
}

# The image's /sys/fs/cgroup (no sysfs mounted over /sys) is a symlink to a
# host directory, or holds one such symlink per hierarchy name: the cgroup
# mount follows neither out of the rootfs (its tmpfs is resolved inside the
# rootfs, each hierarchy made and bound inside that fresh tmpfs:
# src/linux/mounts.c cgroup_v1, v1_target), and every hierarchy is there.
# 34578ba passes this too: it guards the trimmed per-hierarchy syscalls.
test_cgroup_mount_symlinks_stay_in_rootfs() {
  [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || return 0
  local names; names=$(findmnt -rn -t cgroup -o TARGET | sed -n 's|^/sys/fs/cgroup/||p' | sort)
  [ -n "$names" ] || return 0
  local script n kind
  script="for n in $(echo $names); do [ -f /sys/fs/cgroup/\$n/tasks ] && echo \$n; done"
  mkdir -p "$T/outside"
  for kind in dir each; do
    make_bundle "$T/$kind" sh -c "$script"
    bundle_edit "$T/$kind" "c['mounts']=[m for m in c['mounts'] if m['destination']!='/sys']"
    mkdir -p "$T/$kind/rootfs/sys/fs"
    if [ $kind = dir ]; then
      ln -s "$T/outside" "$T/$kind/rootfs/sys/fs/cgroup"
    else
      mkdir "$T/$kind/rootfs/sys/fs/cgroup"
      for n in $names; do ln -s "$T/outside/$n" "$T/$kind/rootfs/sys/fs/cgroup/$n"; done
    fi
    out=$(crt run -b "$T/$kind" "$(new_id)" </dev/null 2>"$T/$kind.err"); rc=$?
    assert_eq 0 "$rc" "$kind: run: $(cat "$T/$kind.err")"
    assert_eq "$names" "$(printf '%s\n' "$out" | sort)" "$kind: hierarchies in the container"
    assert_eq "" "$(ls -A "$T/outside")" "$kind: the host directory behind the symlinks"
  done
}
