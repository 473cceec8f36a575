# Performance properties that do not depend on the machine's load: what a
# command loads and runs, not how long it takes (that is bench/).

# ld_files CMD...: runs CMD with LD_DEBUG=files; the loader's lines (of
# every process it started) in $out.  Into files: a container process
# keeps the command's stdout and stderr open.
ld_files() {
  rm -rf "$T/ld"; mkdir -p "$T/ld"
  LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld/ld "$@" </dev/null >/dev/null 2>&1; rc=$?
  out=$(cat "$T"/ld/ld.* 2>/dev/null)
}

# Guards src/util/libmount_lazy.c, the common options of
# src/spec/mount_opts.c and the mountinfo reader of src/linux/procinfo.c:
# run, create, start, exec, state and delete of a default config never load
# libmount (and its libblkid, libselinux, libpcre2), nor do the v1 cgroup
# mount (the host's hierarchies, from mountinfo) and --no-pivot (which reads
# mountinfo too); `features` (its option map) loads it, and works.  Loading
# it cost the init 0.3 ms and its table 0.1 ms, on create's critical path
# wherever a config mounts cgroup v1.
test_hot_paths_do_not_load_libmount() {
  is_crt || return 0
  make_bundle "$T/c" sleep 100
  ld_files crt run -d -b "$T/c" "$(new_id)"; assert_eq 0 "$rc" "run -d with a cgroup mount"
  assert_not_contains "$out" "libmount" "run -d with a cgroup mount (on v1: mountinfo)"
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['mounts']=[m for m in c['mounts'] if m['type']!='cgroup']"
  local id; id=$(new_id)
  ld_files crt create -b "$T/b" "$id"
  assert_eq 0 "$rc" "create"
  assert_not_contains "$out" "libmount" "create"
  ld_files crt start "$id"; assert_not_contains "$out" "libmount" "start"
  ld_files crt exec "$id" true; assert_eq 0 "$rc" "exec"; assert_not_contains "$out" "libmount" "exec"
  ld_files crt state "$id"; assert_not_contains "$out" "libmount" "state"
  ld_files crt delete -f "$id"; assert_not_contains "$out" "libmount" "delete"
  make_bundle "$T/t" true
  bundle_edit "$T/t" "c['mounts']=[m for m in c['mounts'] if m['type']!='cgroup']"
  ld_files crt run -b "$T/t" "$(new_id)"; assert_eq 0 "$rc" "run"; assert_not_contains "$out" "libmount" "run"
  ld_files crt features; assert_contains "$out" "file=libmount.so.1" "features"
  assert_contains "$(crt features)" '"remount"' "features: libmount's option map"
  ld_files crt run --no-pivot -b "$T/t" "$(new_id)"
  assert_eq 0 "$rc" "run --no-pivot"
  assert_not_contains "$out" "libmount" "run --no-pivot (mountinfo)"
}

# Guards crt_netns_ahead (src/linux/namespaces.c) and its v1 variant: a
# new network namespace takes ~0.5 ms to make, so the init is not cloned
# with CLONE_NEWNET.  Where the cgroup is made before the clone (cgroup2),
# a thread of the runtime makes it meanwhile and the init joins it (setns);
# where the v1 cgroup is made after the clone, the init unshares it itself
# while the runtime makes that cgroup.  Each container still gets a
# namespace of its own, fresh (only lo, up), and not the host's; with a
# user namespace the init is cloned into one as before.
_netns_made_ahead() { # v1|cgroup2
  make_bundle "$T/s-$1" sleep 100
  local a b; a=$(new_id); b=$(new_id)
  crt run -d -b "$T/s-$1" "$a" </dev/null >/dev/null 2>&1 || fail "run -d $a ($1)"
  crt run -d -b "$T/s-$1" "$b" </dev/null >/dev/null 2>&1 || fail "run -d $b ($1)"
  local na nb host; host=$(readlink /proc/self/ns/net)
  na=$(readlink "/proc/$(state_field "$a" pid)/ns/net"); nb=$(readlink "/proc/$(state_field "$b" pid)/ns/net")
  [ -n "$na" ] && [ "$na" != "$host" ] && [ "$na" != "$nb" ] && [ "$nb" != "$host" ] ||
    fail "network namespaces ($1): $a $na, $b $nb, host $host"
  crt delete -f "$a"; crt delete -f "$b"
  make_bundle "$T/n-$1" sh -c 'ls /sys/class/net; cat /sys/class/net/lo/flags'
  strace -f -o "$T/trace" -e trace=clone,clone3,setns,unshare "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/n-$1" \
    "$(new_id)" </dev/null >"$T/out" 2>&1 || fail "run ($1): $(cat "$T/out")"
  assert_eq "$(printf 'lo\n0x9')" "$(cat "$T/out")" "the container's interfaces and lo's flags (IFF_UP|IFF_LOOPBACK; $1)"
  local clone init; clone=$(grep -m1 CLONE_NEWPID "$T/trace")
  init=$(strace_result "$T/trace" CLONE_NEWPID)
  [ -n "$init" ] || fail "no init clone ($1): $(cat "$T/trace")"
  assert_not_contains "$clone" "CLONE_NEWNET" "the init's clone ($1)"
  if [ "$1" = cgroup2 ]; then
    grep -Eq "^$init +setns\([0-9]+, CLONE_NEWNET\) += 0" "$T/trace" ||
      fail "the init joins no network namespace made for it: $(grep -E 'setns|unshare' "$T/trace")"
  else
    grep -Eq "^$init +unshare\(CLONE_NEWNET\) += 0" "$T/trace" ||
      fail "the init makes no network namespace of its own (v1): $(grep -E 'setns|unshare' "$T/trace")"
  fi
}
_netns_made_ahead_cg2() { _netns_made_ahead cgroup2; }
test_network_namespace_made_ahead() {
  is_crt || return 0
  [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] || _netns_made_ahead v1
  in_cg2 _netns_made_ahead_cg2
  userns_bundle "$T/u" true
  strace -f -o "$T/trace" -e trace=clone,clone3,setns "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/u" "$(new_id)" \
    </dev/null >"$T/out" 2>&1 || fail "run in a user namespace: $(cat "$T/out")"
  assert_contains "$(grep CLONE_NEWPID "$T/trace")" "CLONE_NEWNET" "a user namespace's init is cloned into its network namespace"
}

# Guards start_init (src/container/create.c): without a hook that runs
# while the container is created, state.json is first written with READY,
# as runc does (on an ext4 state root each file made costs 0.05-0.5 ms):
# paused where the init asks for the prestart hooks, the state dir holds
# the rescue file naming the init and no state.json, and `state` says the
# container is being created.  A createRuntime hook still finds it
# "creating", with the init's pid, through `crt state`.
test_state_json_written_once_without_hooks() {
  is_crt || return 0
  local tp=$REPO/build/crt-testpoints
  [ -x "$tp" ] || fail "no $tp: run make build/crt-testpoints (make check builds it)"
  make_bundle "$T/b" true
  local id; id=$(new_id)
  CRT_TEST_PAUSE=create:fifo CRT_TEST_PAUSE_FILE=$T/paused "$tp" --root "$CRT_ROOT" create -b "$T/b" "$id" \
    </dev/null >"$T/tp.out" 2>&1 &
  local cpid=$!
  wait_for test -s "$T/paused" || { kill -9 $cpid; fail "create never reached create:fifo: $(cat "$T/tp.out")"; }
  local files; files=$(ls "$CRT_ROOT/$id" | tr '\n' ' ')
  run_rc crt state "$id"
  kill -9 $cpid; wait $cpid 2>/dev/null
  crt delete -f "$id" >/dev/null 2>&1
  assert_contains "$files" "init " "the rescue file during create"
  assert_not_contains "$files" "state.json" "state.json before READY without hooks"
  assert_contains "$out" "has no state yet (being created" "state during create"
  make_bundle "$T/h" true
  bundle_edit "$T/h" "c['hooks']={'createRuntime':[{'path':'/bin/sh','args':['sh','-c','$CRT_BIN --root $CRT_ROOT state $id-h > $T/hook.state']}]}"
  crt run -b "$T/h" "$id-h" </dev/null >"$T/run.out" 2>&1 || fail "run with a createRuntime hook: $(cat "$T/run.out")"
  python3 -I -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="creating" and s["pid"]>0, s' \
    "$T/hook.state" || fail "the hook's state: $(cat "$T/hook.state")"
}

# Guards drive_init/init_mount (create.c, init.c): the init asks for the
# prestart and createRuntime hooks (PRESTART) only when there are some;
# without, the exec FIFO comes unasked and neither side waits for the
# other (--debug's stages show the runtime's wait only with a hook).
test_no_prestart_round_trip_without_hooks() {
  is_crt || return 0
  make_bundle "$T/b" true
  "$CRT_BIN" --root "$CRT_ROOT" --debug run -b "$T/b" "$(new_id)" </dev/null >/dev/null 2>"$T/plain.err" ||
    fail "run: $(tail -3 "$T/plain.err")"
  assert_not_contains "$(cat "$T/plain.err")" "waited for the init's mounts" "run without hooks"
  assert_contains "$(cat "$T/plain.err")" "init: stage waited for the runtime's prestart" "the init's stage"
  bundle_edit "$T/b" "c['hooks']={'prestart':[{'path':'/bin/sh','args':['sh','-c','echo ran > $T/hook.ran']}]}"
  "$CRT_BIN" --root "$CRT_ROOT" --debug run -b "$T/b" "$(new_id)" </dev/null >/dev/null 2>"$T/hook.err" ||
    fail "run with a prestart hook: $(tail -3 "$T/hook.err")"
  assert_contains "$(cat "$T/hook.err")" "waited for the init's mounts" "run with a prestart hook"
  assert_eq ran "$(cat "$T/hook.ran" 2>/dev/null)" "the prestart hook"
}

# Guards direct_wanted (src/container/create.c): `run` does not park its
# init.  No exec FIFO is made and crt-stub execs the process as soon as it
# is set up, as crun's run does (the FIFO, the stub's wait and start's
# round trip cost ~0.2 ms); the poststart hooks still run after that
# execve (the process's comm is already the program's) and the container
# is "running".  With a startContainer hook (crt itself runs up to the
# execve, not the stub) run parks and starts as before, and the hook runs.
test_run_starts_without_the_park() {
  is_crt || return 0
  make_bundle "$T/b" sleep 100
  cat >"$T/post.sh" <<EOF
#!/bin/sh
pid=\$(python3 -I -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
cat /proc/\$pid/comm > $T/post.comm
EOF
  chmod +x "$T/post.sh"
  bundle_edit "$T/b" "c['hooks']={'poststart':[{'path':'$T/post.sh'}]}"
  local id; id=$(new_id)
  # -b execve: the init is let go at its execve of crt-stub
  strace -f -b execve -qq -e trace=mknodat -o "$T/run.trace" "$CRT_BIN" --root "$CRT_ROOT" run -d -b "$T/b" "$id" \
    </dev/null >/dev/null 2>"$T/run.err" || fail "run -d: $(cat "$T/run.err")"
  assert_not_contains "$(cat "$T/run.trace")" "exec.fifo" "run -d made an exec FIFO"
  assert_eq sleep "$(cat "$T/post.comm" 2>/dev/null)" "the process's comm seen by the poststart hook"
  assert_eq running "$(state_field "$id" status)" "status after run -d"
  crt delete -f "$id"
  # crt re-executes itself from a sealed copy here: traced to the end
  make_bundle "$T/h" cat /dev/shm/start.ran
  bundle_edit "$T/h" "c['hooks']={'startContainer':[{'path':'/bin/sh','args':['sh','-c','echo ran > /dev/shm/start.ran']}]}"
  strace -f -qq -e trace=mknodat -o "$T/hook.trace" "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/h" "$(new_id)" \
    </dev/null >"$T/hook.out" 2>&1 || fail "run with a startContainer hook: $(cat "$T/hook.out")"
  assert_contains "$(cat "$T/hook.trace")" "exec.fifo" "run with a startContainer hook parks"
  assert_eq ran "$(cat "$T/hook.out")" "the startContainer hook, before the process"
}

# Guards crt_proc_writes_wanted (src/linux/process.c): crt's own procfs
# handle (a fresh procfs, fsopen) is made only for a container that writes
# under /proc (here a sysctl) or reopens its terminal there; without, the
# init and exec's process make none (it cost them ~0.15 ms: the superblock
# and an unmount waiting for an RCU grace period).  The sysctl still lands.
test_procfs_handle_only_when_needed() {
  is_crt || return 0
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  # -b execve: not the container's sleep (strace would wait for it)
  strace -f -b execve -qq -e trace=fsopen -o "$T/run.trace" "$CRT_BIN" --root "$CRT_ROOT" run -d -b "$T/b" "$id" \
    </dev/null >/dev/null 2>&1 || fail "run -d"
  assert_not_contains "$(cat "$T/run.trace")" '"proc"' "run -d without writes under /proc"
  strace -f -qq -e trace=fsopen -o "$T/exec.trace" "$CRT_BIN" --root "$CRT_ROOT" exec "$id" true \
    </dev/null >/dev/null 2>&1 || fail "exec"
  assert_not_contains "$(cat "$T/exec.trace")" '"proc"' "exec without writes under /proc"
  crt delete -f "$id"
  make_bundle "$T/s" cat /proc/sys/kernel/msgmax
  bundle_edit "$T/s" "c['linux']['sysctl']={'kernel.msgmax':'12345'}"
  strace -f -qq -e trace=fsopen -o "$T/sys.trace" "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/s" "$(new_id)" \
    </dev/null >"$T/sys.out" 2>&1 || fail "run with a sysctl: $(cat "$T/sys.out")"
  assert_contains "$(cat "$T/sys.trace")" 'fsopen("proc"' "run with a sysctl"
  assert_eq 12345 "$(cat "$T/sys.out")" "the sysctl in the container"
}

# opens_for_reading TRACE NAME: openat calls in an strace file that opened
# a file called NAME for reading (the atomic writes' NAME.tmp.PID excluded).
opens_for_reading() { grep -v ENOENT "$1" | grep -c "/$2\", O_RDONLY"; }

# `run` keeps what its create loaded and saved (crt_held): start and delete
# read neither the state directory's state.json nor its config.json back,
# so config.json is opened for reading once, the bundle's, by create.
test_run_reads_config_once() {
  is_crt || return 0
  make_bundle "$T/b" true
  local id; id=$(new_id)
  strace -f -qq -e trace=openat -o "$T/run.trace" "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/b" "$id" ||
    fail "run: $(cat "$T/run.trace" | tail -5)"
  assert_eq 1 "$(opens_for_reading "$T/run.trace" config.json)" "config.json opened for reading by run"
  grep -q "\"$T/b/config.json\", O_RDONLY" "$T/run.trace" || fail "run did not read the bundle's config.json"
  assert_eq 0 "$(opens_for_reading "$T/run.trace" state.json)" "state.json read back by run"
  [ ! -e "$CRT_ROOT/$id" ] || fail "run left its state directory"
}

# delete of a stopped container whose cgroup still holds a process (no pid
# namespace of its own: the init's child outlives it) asks config.json
# twice, for the pid namespace and for the poststop hooks: one parse.
test_delete_parses_config_once() {
  is_crt || return 0
  make_bundle "$T/b" sh -c 'sleep 60 & exit 0'
  bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='pid']"
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" || fail "run -d"
  local i; for i in $(seq 100); do [ "$(crt state "$id" | grep -o '"status": *"[a-z]*"' | grep -o '[a-z]*"$')" = 'stopped"' ] && break; sleep 0.05; done
  strace -f -qq -e trace=openat -o "$T/del.trace" "$CRT_BIN" --root "$CRT_ROOT" delete "$id" 2>"$T/del.err" ||
    fail "delete: $(cat "$T/del.err")"
  assert_eq 1 "$(opens_for_reading "$T/del.trace" config.json)" "config.json opened for reading by delete"
  [ ! -e "$CRT_ROOT/$id" ] || fail "delete left its state directory"
}

# Guards src/linux/mounts.c cgroup_v1 in a mount namespace joined by path:
# the init reads its own mountinfo when it makes the cgroup mount (the
# runtime's mount table is not the init's), by hand, without libmount, and
# binds every v1 hierarchy.
test_v1_cgroup_mount_in_joined_mount_ns() {
  [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || return 0
  local want; want=$(findmnt -rn -t cgroup -o TARGET | grep '^/sys/fs/cgroup/' | sort)
  [ -n "$want" ] || return 0
  mkdir -p "$T/ns" && mount --bind "$T/ns" "$T/ns" && mount --make-private "$T/ns" || fail "private $T/ns"
  trap 'umount -l "$T/ns/mnt" 2>/dev/null; umount -l "$T/ns"' EXIT
  touch "$T/ns/mnt"
  unshare --mount="$T/ns/mnt" --propagation private true || fail "unshare a mount namespace onto $T/ns/mnt"
  make_bundle "$T/b" awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup") print $5; break } }' \
    /proc/self/mountinfo
  bundle_edit "$T/b" "[n.__setitem__('path', '$T/ns/mnt') for n in c['linux']['namespaces'] if n['type']=='mount']"
  rm -rf "$T/ld"; mkdir -p "$T/ld"
  LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld/ld crt run -b "$T/b" "$(new_id)" >"$T/seen" 2>"$T/err" </dev/null ||
    fail "run in a joined mount namespace: $(cat "$T/err")"
  assert_eq "$want" "$(sort "$T/seen")" "the v1 hierarchies the container sees"
  if is_crt; then
    assert_not_contains "$(cat "$T"/ld/ld.*)" "libmount" "the init's own read"
  fi
}

# v1_order TRACE ID: from an `strace -f -y` of a run, where the v1 cgroup
# is made and joined, one line: "clone=N mkdir=N joins=N/H first_use=N
# prestart=N unshare=N" (line numbers; 0: none).  mkdir: the first mkdir of
# the container's cgroup in a v1 hierarchy (hybrid's unified one is made
# before the clone for CLONE_INTO_CGROUP); joins: the hierarchies the init
# wrote "0" to the tasks file of, out of H made; first_use: the init's
# first line after its last join that names /sys/fs/cgroup (the cgroup
# mount) or makes a device node; prestart: its PRESTART message; unshare:
# its unshare(CLONE_NEWCGROUP).
v1_order() {
  python3 -I - "$1" "$2" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
cid = sys.argv[2]
clone = mkdir = 0
made = set()
joins = {}
for i, l in enumerate(lines, 1):
    if not clone and "CLONE_NEWPID" in l:
        clone = i
    m = re.search(r'mkdir\("(/sys/fs/cgroup/[^/"]+)/%s"' % re.escape(cid), l)
    if m and "/unified" not in m.group(1):
        made.add(m.group(1))
        mkdir = mkdir or i
    m = re.match(r'(\d+) +write\(\d+<(/sys/fs/cgroup/[^/>]+)/%s/tasks>, "0", 1' % re.escape(cid), l)
    if m and "= -1" not in l:
        joins.setdefault(m.group(1), {})[m.group(2)] = i
init = max(joins, key=lambda p: len(joins[p])) if joins else None
last = max(joins[init].values()) if init else 0
first_use = prestart = unshare = 0
for i, l in enumerate(lines, 1):
    if not init or not l.startswith(init + " "):
        continue
    if i > last and not first_use and ("/sys/fs/cgroup" in l or "mknod" in l):
        first_use = i
    if not prestart and 'iov_base="\\4\\0\\0\\0"' in l and "sendmsg" in l:
        prestart = i
    if not unshare and "unshare(CLONE_NEWCGROUP" in l:
        unshare = i
print("clone=%d mkdir=%d joins=%d/%d last_join=%d first_use=%d prestart=%d unshare=%d" % (
    clone, mkdir, len(joins.get(init, {})), len(made), last, first_use, prestart, unshare))
PY
}

# Guards create's v1_late (create.c, init.c join_late, docs/cgroups.md):
# on cgroup v1 (and hybrid's v1 half) the runtime makes and configures the
# container's cgroup after the clone, while the init makes the mounts that
# need no cgroup; the init joins every v1 hierarchy itself ("0" to the
# tasks files the runtime hands it) before the cgroup mount, before any
# device node and before PRESTART, keeps none of those fds, and unshares a
# cgroup namespace right after the join.  A user namespace keeps the old
# order (made before the clone, joined first thing).
test_v1_cgroup_made_after_the_clone() {
  is_crt || return 0
  [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || return 0
  local id o tr="clone,clone3,mkdir,write,unshare,mount,move_mount,mkdirat,mknodat,sendmsg"
  for ns in none cgroup; do
    make_bundle "$T/b-$ns" sh -c 'cat /proc/self/cgroup; ls /proc/self/fd | tr "\n" " "'
    [ $ns = none ] || bundle_edit "$T/b-$ns" "c['linux']['namespaces'].append({'type':'cgroup'})"
    # a prestart hook: without one the init sends no PRESTART
    bundle_edit "$T/b-$ns" "c['hooks']={'prestart':[{'path':'/bin/true'}]}"
    id=$(new_id)
    strace -f -qq -y -o "$T/trace" -e trace=$tr "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/b-$ns" "$id" \
      </dev/null >"$T/out" 2>&1 || fail "run ($ns): $(cat "$T/out")"
    o=$(v1_order "$T/trace" "$id")
    echo "cgroup namespace $ns: $o"
    local clone mkdir joins made last_join first_use prestart unshare
    eval "$(echo "$o" | sed 's/joins=\([0-9]*\)\/\([0-9]*\)/joins=\1 made=\2/')"
    [ "$clone" -gt 0 ] && [ "$mkdir" -gt "$clone" ] || fail "($ns) the v1 cgroup is made before the clone: $o"
    [ "$made" -gt 0 ] && [ "$joins" = "$made" ] || fail "($ns) the init joined $joins of $made v1 hierarchies: $o"
    [ "$first_use" -gt "$last_join" ] && [ "$prestart" -gt "$last_join" ] ||
      fail "($ns) the cgroup mount, a device node or PRESTART before the join: $o"
    if [ $ns = cgroup ]; then
      [ "$unshare" -gt "$last_join" ] && [ "$unshare" -lt "$first_use" ] ||
        fail "the cgroup namespace not unshared between the join and the cgroup mount: $o"
      assert_eq "$made" "$(grep -v '^0::' "$T/out" | grep -c ':/$')" "v1 hierarchies at the namespace's root: $(cat "$T/out")"
    else
      assert_eq "$made" "$(grep -v '^0::' "$T/out" | grep -c "/$id\$")" "v1 hierarchies the container is in: $(cat "$T/out")"
    fi
    assert_eq "0 1 2 3 " "$(tail -1 "$T/out")" "the container's fds (none of the cgroup's)"
  done
  userns_bundle "$T/u" true
  id=$(new_id)
  strace -f -qq -y -o "$T/trace" -e trace=$tr "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/u" "$id" \
    </dev/null >"$T/out" 2>&1 || fail "run in a user namespace: $(cat "$T/out")"
  o=$(v1_order "$T/trace" "$id")
  eval "$(echo "$o" | sed 's/joins=\([0-9]*\)\/\([0-9]*\)/joins=\1 made=\2/')"
  [ "$mkdir" -gt 0 ] && [ "$mkdir" -lt "$clone" ] && [ "$joins" = "$made" ] ||
    fail "a user namespace's v1 cgroup is made before the clone and joined: $o"
}

# create moves the init off its own CPU right after the clone (seen here:
# the cloned init waited ~1 ms on the runtime's CPU while the other idled)
# and then gives it every CPU (runc's reset, issue 57 bug 8): two
# sched_setaffinity calls on the init, the last with every possible CPU,
# and a container's CPUs are all of them, under taskset too, on cgroup v1
# and v2 (t_cgroup:test_affinity_of_a_pinned_caller_is_reset checks them
# against runc).
cpus_of_run() { # BUNDLE [taskset CPUS]: the container's Cpus_allowed_list
  local b=$1; shift
  "$@" "$CRT_BIN" --root "$CRT_ROOT" run -b "$b" "$(new_id)" </dev/null 2>&1 |
    sed -n 's/^Cpus_allowed_list:[[:space:]]*//p'
}
_init_affinity_given_back() {
  local c=$T/c-$1
  make_bundle "$c" sh -c 'grep Cpus_allowed_list /proc/self/status'
  local all; all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
  assert_eq "$all" "$(cpus_of_run "$c")" "the container's CPUs ($1)"
  if [ "$1" = cgroup2 ]; then
    assert_eq "$all" "$(cpus_of_run "$c" taskset -c 1)" "the container's CPUs under taskset -c 1 ($1)"
    assert_eq "$all" "$(cpus_of_run "$c" taskset -c 0)" "the container's CPUs under taskset -c 0 ($1)"
  fi
  strace -f -qq -e trace=clone,clone3,sched_setaffinity -o "$T/aff" "$CRT_BIN" --root "$CRT_ROOT" run -b "$c" \
    "$(new_id)" </dev/null >/dev/null 2>&1 || fail "run under strace"
  local init; init=$(strace_result "$T/aff" CLONE_NEWPID)
  [ -n "$init" ] || fail "no init clone: $(cat "$T/aff")"
  local calls; calls=$(grep "sched_setaffinity($init, " "$T/aff")
  assert_eq 2 "$(grep -c . <<<"$calls")" "affinity calls on the init (moved off, reset; $1): $calls"
  # every possible CPU: strace shows the first 1024 and "..."
  assert_contains "$(tail -1 <<<"$calls")" "[0 1 2 3 " "the init's affinity reset to every CPU ($1)"
  assert_contains "$(tail -1 <<<"$calls")" " 1023 ...]" "the init's affinity reset to every CPU ($1)"
}
test_init_moved_off_runtime_cpu() {
  is_crt || return 0
  [ "$(nproc)" -ge 2 ] || return 0
  _init_affinity_given_back v1
  in_cg2 _init_affinity_given_back_cg2
}
_init_affinity_given_back_cg2() { _init_affinity_given_back cgroup2; }
