# User namespaces, idmapped mounts and rootless containers (issue 11).
# The rootless tests make a throw-away user (useradd, home under $T, its
# own /etc/subuid range) and remove it, its processes and its lines in
# /etc/subuid and /etc/subgid on every exit path.

test_userns_mappings_and_owners() {
  local id; id=$(new_id)
  userns_bundle "$T/b" sleep 100
  crt run -d -b "$T/b" "$id" || fail "run"
  run_rc crt exec "$id" cat /proc/self/uid_map /proc/self/gid_map
  assert_eq 0 "$rc" "$out"
  assert_eq "0 100000 65536
0 100000 65536" "$(echo "$out" | awk '{print $1, $2, $3}')" "maps seen inside"
  # the init's map as the host sees it
  assert_eq "0 100000 65536" "$(awk '{print $1, $2, $3}' "/proc/$(state_field "$id" pid)/uid_map")"
  # files of host uid 100000 are root's inside; a file made inside is 100000's outside
  assert_eq "0 0" "$(crt exec "$id" stat -c '%u %g' /bin/busybox)" "owner inside"
  crt exec -u 1000:1000 "$id" touch /tmp/made || fail "touch inside as 1000"
  crt exec "$id" touch /root-made || fail "touch inside as root"
  assert_eq "101000 101000" "$(stat -c '%u %g' "$T/b/rootfs/tmp/made")" "owner outside"
  assert_eq "100000 100000" "$(stat -c '%u %g' "$T/b/rootfs/root-made")" "owner outside"
  # device nodes are bind mounts of the host's (mknod is not allowed in a
  # user namespace), and they work
  assert_contains "$(crt exec "$id" cat /proc/self/mountinfo)" " /dev/null " "/dev/null bind-mounted"
  run_rc crt exec "$id" sh -c 'echo x >/dev/null && head -c 4 /dev/zero | wc -c'
  assert_eq "0 4" "$rc $out" "/dev/null and /dev/zero inside the user namespace"
  # exec enters the user namespace first: same namespace as the init
  crt exec -d --pid-file "$T/e.pid" "$id" sleep 50 || fail "exec -d"
  assert_eq "$(readlink "/proc/$(state_field "$id" pid)/ns/user")" "$(readlink "/proc/$(cat "$T/e.pid")/ns/user")"
  crt delete -f "$id" || fail "delete"
}

# A network namespace joined by path belongs to the host's user namespace:
# sysfs cannot be mounted from the container's; crt binds the host's /sys
# read-only instead and says so in the debug log.
test_userns_sysfs_falls_back_to_host_bind() {
  local id; id=$(new_id) ns=crt-t$$-$RANDOM
  ip netns add "$ns" || fail "ip netns add"
  userns_bundle "$T/b" sh -c 'awk "\$5 == \"/sys\" {print \$6, \$9}" /proc/self/mountinfo; ls /sys/kernel >/dev/null && echo readable'
  bundle_edit "$T/b" "[n.update(path='/var/run/netns/$ns') for n in c['linux']['namespaces'] if n['type']=='network']"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --debug --log "$T/log" run -b "$T/b" "$id"
  ip netns del "$ns"
  if ! is_crt; then assert_contains "$out" "operation not permitted" "runc 1.1.5 fails the sysfs mount"; return 0; fi
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "readable"
  local line; line=$(echo "$out" | head -1)
  assert_contains "$line" "sysfs" "/sys mount: $line"
  case "$line" in ro,*) ;; *) fail "/sys not read-only: $line" ;; esac
  assert_contains "$(cat "$T/log")" "binding the host's /sys read-only"
  # without the joined netns the container's own sysfs mounts normally
  bundle_edit "$T/b" "[n.pop('path') for n in c['linux']['namespaces'] if n['type']=='network']"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --debug --log "$T/log2" run -b "$T/b" "$id"
  assert_eq 0 "$rc" "$out"
  assert_not_contains "$(cat "$T/log2")" "binding the host's /sys"
}

# runc's "userns join other container userns" (and its [bind-mounted
# nsfd] variant): a user namespace joined by path with no mappings in the
# config; the joiner gets the target's maps, by /proc path or through a
# bind mount of the nsfd somewhere else.
test_userns_join_other_container() {
  local t; t=$(new_id)
  userns_bundle "$T/t" sleep 100
  crt run -d -b "$T/t" "$t" </dev/null >/dev/null 2>&1 || fail "run the target"
  local tp; tp=$(state_field "$t" pid)
  : >"$T/userns"
  mount --bind "/proc/$tp/ns/user" "$T/userns" || fail "bind the target's nsfd"
  trap 'umount -l "$T/userns" 2>/dev/null' EXIT
  local path id
  for path in "/proc/$tp/ns/user" "$T/userns"; do
    id=$(new_id)
    make_bundle "$T/j" sleep 100
    chown -R 100000:100000 "$T/j/rootfs"
    bundle_edit "$T/j" "c['linux']['namespaces'].append({'type':'user','path':'$path'}); c['linux'].pop('uidMappings',None); c['linux'].pop('gidMappings',None); c['root']['readonly']=False"
    crt run -d -b "$T/j" "$id" </dev/null >"$T/out" 2>&1; rc=$? out=$(cat "$T/out")
    if runc_before_1_2; then # 1.1 wants the maps in the config even so
      assert_contains "$out" "no uid mappings found"
      break
    fi
    assert_eq 0 "$rc" "run joining $path: $out"
    assert_eq "0 100000 65536
0 100000 65536" "$(crt exec "$id" cat /proc/self/uid_map /proc/self/gid_map | awk '{print $1, $2, $3}')" "maps after joining $path"
    assert_eq "$(readlink "/proc/$tp/ns/user")" "$(readlink "/proc/$(state_field "$id" pid)/ns/user")" "the user namespace joined by $path"
    crt delete -f "$id" || fail "delete -f"
    rm -rf "$T/j"
  done
  crt delete -f "$t" || fail "delete -f the target"
}

# runc's "userns join external namespaces [wrong userns owner]": a user
# namespace kept only by a bind mount (its container gone) joined together
# with a network namespace it does not own; both are the ones joined.
test_userns_join_external_with_foreign_netns() {
  local t; t=$(new_id)
  userns_bundle "$T/t" sleep 100
  crt run -d -b "$T/t" "$t" </dev/null >/dev/null 2>&1 || fail "run the target"
  : >"$T/userns"; : >"$T/netns"
  mount --bind "/proc/$(state_field "$t" pid)/ns/user" "$T/userns" || fail "bind the userns"
  trap 'umount -l "$T/userns" "$T/netns" 2>/dev/null' EXIT
  crt delete -f "$t" || fail "delete -f the target"
  unshare -n -- mount --bind /proc/self/ns/net "$T/netns" || fail "make a netns"
  local id; id=$(new_id)
  make_bundle "$T/c" sleep 100
  chown -R 100000:100000 "$T/c/rootfs"
  bundle_edit "$T/c" "c['linux']['namespaces'].append({'type':'user','path':'$T/userns'}); c['linux'].pop('uidMappings',None); c['linux'].pop('gidMappings',None); c['root']['readonly']=False
[n.update(path='$T/netns') for n in c['linux']['namespaces'] if n['type']=='network']
c['mounts']=[({'source':'/sys','destination':m['destination'],'type':'bind','options':['rbind']} if m['type']=='sysfs' else m) for m in c['mounts']]"
  crt run -d -b "$T/c" "$id" </dev/null >"$T/out" 2>&1; rc=$? out=$(cat "$T/out")
  if runc_before_1_2; then
    assert_contains "$out" "no uid mappings found"
    return 0
  fi
  assert_eq 0 "$rc" "run: $out"
  assert_eq "user:[$(stat -L -c %i "$T/userns")]" "$(crt exec "$id" readlink /proc/self/ns/user)" "the user namespace"
  assert_eq "net:[$(stat -L -c %i "$T/netns")]" "$(crt exec "$id" readlink /proc/self/ns/net)" "the network namespace"
  crt delete -f "$id" || fail "delete -f"
}

# runtime-spec 1.2 idmapped bind mounts, in a container with its own user
# namespace: the runtime makes the idmapped tree (it must be privileged over
# the source's superblock), the init attaches it.
test_idmapped_bind_mount() {
  if runc_before_1_2; then echo "runc 1.1.5 has no idmapped mounts"; return 0; fi
  local id; id=$(new_id)
  mkdir -p "$T/data"
  touch "$T/data/rootfile" "$T/data/userfile"
  chown 1000:1000 "$T/data/userfile"
  userns_bundle "$T/b" sh -c 'stat -c "%n %u %g" /data/rootfile /data/userfile /plain/rootfile; touch /data/new'
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/data','source':'$T/data','type':'bind','options':['rbind','rw'],'uidMappings':$MAP65536,'gidMappings':$MAP65536}); c['mounts'].append({'destination':'/plain','source':'$T/data','type':'bind','options':['rbind','ro']})"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "/data/rootfile 0 0"
  assert_contains "$out" "/data/userfile 1000 1000"
  assert_contains "$out" "/plain/rootfile 65534 65534" "a plain bind shows the overflow id"
  assert_eq "0 0" "$(stat -c '%u %g' "$T/data/new")" "a file made through the idmapped mount"
  # the "idmap" option with the container's mappings, relative source
  rm -f "$T/data/new"
  bundle_edit "$T/b" "c['mounts'][-2]={'destination':'/data','source':'../data','type':'bind','options':['rbind','idmap']}"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "/data/userfile 1000 1000"
  # idmap on something that is not a bind mount
  bundle_edit "$T/b" "c['mounts'][-2]={'destination':'/data','source':'tmpfs','type':'tmpfs','options':['idmap']}"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" "idmap is only supported on bind mounts"
  # a missing source names the mount
  bundle_edit "$T/b" "c['mounts'][-2]={'destination':'/data','source':'$T/nosuch','type':'bind','options':['rbind','idmap']}"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 1 "$rc"
  assert_contains "$out" "source \"$T/nosuch\""
  [ ! -d "$CRT_ROOT/$id" ] || fail "state dir left after a failed create"
}

# ---- rootless ----

. "$REPO/tests/lib/rootless-user.sh"   # ru_create, ru_remove, ru_as
RL_USER=
rl_cleanup() {
  [ -n "$RL_USER" ] || return 0
  if [ -d /sys/fs/cgroup/rl-deleg ]; then
    echo $$ >/sys/fs/cgroup/cgroup.procs
    rmdir /sys/fs/cgroup/rl-deleg/* /sys/fs/cgroup/rl-deleg 2>/dev/null
  fi
  ru_remove
  RL_USER=
}

# rl_setup [SUBIDS]: a user with home $T/home (and, unless SUBIDS=none,
# 300000-365535 as its subordinate ids); sets RL_USER, RL_UID, RL_GID and
# RL_CRT, a copy of the runtime the user can reach wherever the checkout
# lives (a clone under a 0700 directory such as mktemp -d's is not).
rl_setup() {
  trap rl_cleanup EXIT
  chmod 0755 "$CRT_TEST_WORK" "$T"
  ru_create "$T/home" "${1:-}" || fail "useradd"
  RL_USER=$RU_USER RL_UID=$RU_UID RL_GID=$RU_GID
  RL_CRT=$T/rl-bin/${CRT_BIN##*/}
  install -D -m 0755 "$CRT_BIN" "$RL_CRT" || fail "copy $CRT_BIN for the user"
  mkdir -p "$T/home/run"
  chmod 0700 "$T/home/run"
  chown -R "$RL_USER:" "$T/home"
  RU_ENV=(HOME="$T/home" XDG_RUNTIME_DIR="$T/home/run")
}

# as_user CMD...: runs CMD as the test user, with a minimal environment.
as_user() { ru_as "$@"; }

# rl_bundle DIR ARGS...: made by the user with `crt spec --rootless`.
rl_bundle() {
  local b=$1; shift
  local args; args=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@")
  cp -a "$(rootfs_template)" "$b.rootfs" && chown -R "$RL_USER:" "$b.rootfs"
  as_user sh -c "mkdir -p '$b' && mv '$b.rootfs' '$b/rootfs' && cd '$b' && '$RL_CRT' spec --rootless" || fail "spec --rootless"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['process']['terminal']=False; c['process']['args']=$args; json.dump(c, open(p,'w'))" \
    || fail "edit config"
}

test_rootless_lifecycle() {
  rl_setup
  local C="$RL_CRT" b=$T/home/b
  rl_bundle "$b" sleep 100
  assert_eq "0 $RL_UID 1" "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["linux"]["uidMappings"][0]; print(m["containerID"], m["hostID"], m["size"])' "$b/config.json")" "spec --rootless maps the user"
  as_user "$C" create -b "$b" rl1 || fail "create"
  local name=crt; is_crt || name=runc # each runtime's own directory
  [ -f "$T/home/run/$name/rl1/state.json" ] || fail "state not under \$XDG_RUNTIME_DIR/$name"
  assert_eq created "$(as_user "$C" state rl1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')"
  assert_contains "$(as_user "$C" list)" "rl1"
  as_user "$C" start rl1 || fail "start"
  local pid; pid=$(as_user "$C" state rl1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
  assert_eq "$RL_UID" "$(stat -c %u "/proc/$pid")" "init runs as the user on the host"
  run_rc as_user "$C" exec rl1 id -u
  assert_eq 0 "$rc" "$out"
  assert_eq 0 "$out" "root inside"
  as_user "$C" exec -d rl1 sleep 60 || fail "exec -d"
  run_rc as_user "$C" ps --format json rl1
  if ! is_crt; then
    # runc lists a cgroup's pids, and a rootless container on v1 has none
    assert_contains "$out" "unable to get all container pids" "runc 1.1.5's ps without a cgroup"
  else
    assert_eq 0 "$rc" "$out"
    [ "$(echo "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 2 ] || fail "ps: $out"
  fi
  run_rc as_user "$C" exec rl1 nosuch
  assert_eq 255 "$rc"
  assert_contains "$out" "executable file not found"
  as_user "$C" kill rl1 KILL || fail "kill"
  wait_eval '[ "$(as_user "$C" state rl1 | python3 -c "import json,sys; print(json.load(sys.stdin)[\"status\"])")" = stopped ]' \
    || fail "not stopped after kill"
  as_user "$C" delete rl1 || fail "delete"
  [ ! -e "$T/home/run/$name/rl1" ] || fail "state dir left"
  # run, exit status
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['process']['args']=['sh','-c','exit 3']; json.dump(c, open(p,'w'))"
  run_rc as_user "$C" run -b "$b" rl2
  assert_eq 3 "$rc" "run exit status: $out"
  run_rc as_user "$C" list -q
  assert_eq "" "$out"
}

# Several ranges: newuidmap/newgidmap check them against /etc/subuid and
# /etc/subgid; setgroups stays allowed. Without a range: one id, a warning.
test_rootless_subid_ranges() {
  rl_setup
  local C="$RL_CRT" b=$T/home/b
  rl_bundle "$b" sh -c 'cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups; id'
  local maps="[{'containerID':0,'hostID':$RL_UID,'size':1},{'containerID':1,'hostID':300000,'size':65536}]"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['uidMappings']=c['linux']['gidMappings']=$maps; c['process']['user']={'uid':1,'gid':1,'additionalGids':[5]}; json.dump(c, open(p,'w'))"
  run_rc as_user "$C" run -b "$b" r1
  if ! is_crt; then
    assert_contains "$out" "cannot set any additional groups in a rootless container" "runc 1.1.5 refuses additionalGids when rootless"
    return 0
  fi
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "1     300000      65536"
  assert_contains "$out" "allow"
  assert_contains "$out" "uid=1(daemon) gid=1(daemon) groups=5(tty)"
  # a range the user does not own
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['uidMappings'][1]['hostID']=500000; json.dump(c, open(p,'w'))"
  run_rc as_user "$C" run -b "$b" r2
  assert_eq 1 "$rc"
  assert_contains "$out" "newuidmap"
  # its status and its own words (its stderr), then the hint
  is_crt && assert_contains "$out" "newuidmap: exited with status 1: newuidmap: "
  is_crt && assert_contains "$out" "(are the ranges in /etc/subuid?)"
  [ ! -e "$T/home/run/crt/r2" ] || fail "state dir left after a failed create"
  # no subordinate ids at all: only the user's own id, with a warning
  sed -i "/^$RL_USER:/d" /etc/subuid /etc/subgid
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['process']['user']={'uid':0,'gid':0}; json.dump(c, open(p,'w'))"
  run_rc as_user "$C" run -b "$b" r3
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "no uid range for this user in /etc/subuid"
  assert_contains "$out" "deny"
  assert_not_contains "$out" "300000"
  assert_eq "0 $RL_UID 1" "$(echo "$out" | grep -v warning | head -1 | awk '{print $1, $2, $3}')" "uid_map: $out"
}

# A delegated cgroup v2 subtree (owned by the user, the user's shell in it)
# is used; pause/resume and ps go through it and delete removes it.
_rootless_delegated() {
  rl_setup
  mkdir -p /sys/fs/cgroup/rl-deleg/shell
  chown -R "$RL_USER:" /sys/fs/cgroup/rl-deleg
  echo $$ >/sys/fs/cgroup/rl-deleg/shell/cgroup.procs || fail "enter the delegated cgroup"
  local C="$RL_CRT" b=$T/home/b
  rl_bundle "$b" sleep 100
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['cgroupsPath']='/rl-deleg/c1'; json.dump(c, open(p,'w'))"
  as_user "$C" run -d -b "$b" d1 || fail "run"
  local pid; pid=$(as_user "$C" state d1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
  assert_eq "/rl-deleg/c1" "$(sed -n 's/^0:://p' "/proc/$pid/cgroup")" "init's cgroup"
  as_user "$C" pause d1 || fail "pause"
  assert_eq 1 "$(cat /sys/fs/cgroup/rl-deleg/c1/cgroup.freeze)"
  as_user "$C" resume d1 || fail "resume"
  as_user "$C" delete -f d1 || fail "delete"
  [ ! -d /sys/fs/cgroup/rl-deleg/c1 ] || fail "cgroup left"
  # not delegated: no cgroup, still runs (crt's rule, docs/userns.md;
  # runc 1.1.5 fails: mkdir /sys/fs/cgroup/not-ours: permission denied)
  is_crt || return 0
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['cgroupsPath']='/not-ours'; json.dump(c, open(p,'w'))"
  as_user "$C" run -d -b "$b" d2 || fail "run without a writable cgroup"
  run_rc as_user "$C" ps --format json d2
  assert_eq 0 "$rc" "$out"
  as_user "$C" delete -f d2 || fail "delete d2"
  [ ! -d /sys/fs/cgroup/not-ours ] || fail "made a cgroup it may not own"
}
test_rootless_delegated_cgroup_v2() { in_cg2 _rootless_delegated; }

# euid 0 in a user namespace the caller made (what rootless podman, buildah
# and rootlesskit give the runtime), without podman: `unshare -U -r` as an
# unprivileged user, a config as podman sends (no user namespace, no
# linux.devices, no cgroupsPath), no --root.  The runtime must keep its
# state under $XDG_RUNTIME_DIR, bind /dev nodes instead of mknod, and go on
# without a cgroup.  With USER=root the caller says it is root: /run.
test_rootless_euid0_in_userns() {
  rl_setup
  local C="$RL_CRT" b=$T/home/b name=${RL_CRT##*/} ids
  rl_bundle "$b" sh -c 'echo x >/dev/null; stat -c "%F %t:%T" /dev/null; cat /proc/self/uid_map; sleep 100'
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); l=c['linux']; l['namespaces']=[n for n in l['namespaces'] if n['type']!='user']+[{'type':'network'}]; del l['uidMappings'], l['gidMappings']; json.dump(c, open(p,'w'))" \
    || fail "edit config"
  # one user namespace for the whole lifecycle, as podman's pause process
  # keeps one; env -i: USER unset
  run_rc as_user unshare -U -r sh -c "
    C='$C'; set -e
    \"\$C\" create -b '$b' e1 2>&1
    ls '$T/home/run/$name/e1/state.json'
    \"\$C\" start e1
    \"\$C\" state e1 | grep -o '\"status\": *\"running\"'
    \"\$C\" list -q
    \"\$C\" exec e1 sh -c 'id -u; ls /sys/fs'
    \"\$C\" kill e1 KILL
    for i in 1 2 3 4 5 6 7 8 9 10; do \"\$C\" state e1 | grep -q stopped && break; sleep 0.2; done
    \"\$C\" delete e1
    \"\$C\" list -q | grep -c . || true"
  assert_eq 0 "$rc" "lifecycle in the caller's user namespace: $out"
  assert_contains "$out" "$T/home/run/$name/e1/state.json"
  assert_contains "$out" '"running"'
  assert_contains "$out" "e1"
  assert_contains "$out" "cgroup" "exec sees /sys"
  [ ! -e "$T/home/run/$name/e1" ] || fail "state dir left after delete"
  # the container's output: /dev/null a bound host node, root of the caller's map
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['process']['args']=['sh','-c','echo x >/dev/null; stat -c \"%F %t:%T\" /dev/null; cat /proc/self/uid_map; exit 5']; json.dump(c, open(p,'w'))"
  run_rc as_user unshare -U -r "$C" run -b "$b" e2
  assert_eq 5 "$rc" "run: $out"
  assert_contains "$out" "character special file 1:3"
  assert_eq "0 $RL_UID 1" "$(echo "$out" | awk '$1 == 0 {print $1, $2, $3}' | tail -1)" "uid_map inside: $out"
  # USER=root: the caller claims to be root, the state root is /run's
  run_rc as_user env USER=root unshare -U -r "$C" create -b "$b" e3
  assert_ne 0 "$rc"
  assert_contains "$out" "/run/$name" "USER=root: the state root is /run/$name"
  [ ! -e "$T/home/run/$name/e3" ] || fail "USER=root: state under XDG_RUNTIME_DIR"
}

# Rootless refusals name the cause and what to set: an mqueue mount without
# an IPC namespace of the container's own, a hard rlimit above the caller's,
# an oomScoreAdj below it.  runc refuses them too (with the kernel's word
# only).
test_rootless_refusals_say_what_to_do() {
  rl_setup
  local C="$RL_CRT" b=$T/home/b hard
  rl_bundle "$b" true
  hard=$(as_user sh -c 'ulimit -Hn')
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); l=c['linux']; l['namespaces']=[n for n in l['namespaces'] if n['type'] not in ('user','ipc')]; del l['uidMappings'], l['gidMappings']; json.dump(c, open(p,'w'))" \
    || fail "edit config"
  run_rc as_user unshare -U -r "$C" run -b "$b" m1
  assert_ne 0 "$rc" "mqueue without an IPC namespace"
  assert_contains "$out" "mqueue"
  is_crt && assert_contains "$out" "IPC namespace of the container's own"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['namespaces'].append({'type':'ipc'}); c['process']['rlimits']=[{'type':'RLIMIT_NOFILE','soft':1024,'hard':$hard+1}]; json.dump(c, open(p,'w'))"
  run_rc as_user unshare -U -r "$C" run -b "$b" m2
  assert_ne 0 "$rc" "hard RLIMIT_NOFILE above the caller's"
  is_crt && assert_contains "$out" "setrlimit RLIMIT_NOFILE (soft 1024, hard $((hard + 1))): operation not permitted; rootless: a hard limit cannot be raised"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['process']['rlimits']=[{'type':'RLIMIT_NOFILE','soft':1024,'hard':$hard}]; c['process']['oomScoreAdj']=-1000; json.dump(c, open(p,'w'))"
  run_rc as_user unshare -U -r "$C" run -b "$b" m3
  assert_ne 0 "$rc" "oomScoreAdj below the caller's"
  is_crt && assert_contains "$out" "set oomScoreAdj -1000: write /proc/self/oom_score_adj: permission denied; rootless: process.oomScoreAdj cannot be lower"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); del c['process']['oomScoreAdj']; json.dump(c, open(p,'w'))"
  run_rc as_user unshare -U -r "$C" run -b "$b" m4
  assert_eq 0 "$rc" "with an IPC namespace and the caller's hard limit: $out"
}

# A limit only a cgroup enforces, rootless with no cgroup it may make: an
# error naming the limit and what to do, never a container without it
# (runc: "container could not join or create cgroup").  Without a limit
# the container runs without a cgroup.  Both the user's own euid and euid 0
# in its user namespace.
_rootless_limit_needs_cgroup() {
  rl_setup
  local C="$RL_CRT" b=$T/home/b
  rl_bundle "$b" true
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['resources']={'pids':{'limit':50}}; json.dump(c, open(p,'w'))"
  run_rc as_user "$C" run -b "$b" l1
  assert_ne 0 "$rc" "pids.limit without a cgroup: $out"
  assert_contains "$out" "pids"
  is_crt && assert_contains "$out" "linux.resources.pids.limit"
  [ ! -e "$T/home/run/${C##*/}/l1" ] || fail "state dir left after a failed create"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); l=c['linux']; l['namespaces']=[n for n in l['namespaces'] if n['type']!='user']; del l['uidMappings'], l['gidMappings']; json.dump(c, open(p,'w'))"
  run_rc as_user unshare -U -r "$C" run -b "$b" l2
  assert_ne 0 "$rc" "pids.limit without a cgroup, euid 0 in a user namespace: $out"
  is_crt && assert_contains "$out" "linux.resources.pids.limit"
  as_user python3 -c "import json; p='$b/config.json'; c=json.load(open(p)); c['linux']['resources']={}; json.dump(c, open(p,'w'))"
  run_rc as_user unshare -U -r "$C" run -b "$b" l3
  assert_eq 0 "$rc" "no limit, no cgroup: $out"
}
test_rootless_limit_needs_cgroup() { _rootless_limit_needs_cgroup; }
test_rootless_limit_needs_cgroup_v2() { in_cg2 _rootless_limit_needs_cgroup; }

# Guards parse_namespace (src/spec/parse_linux.c): "path": "" is no path,
# as runc reads it (run.bats "runc run [joining existing container
# namespaces]"): a container joins every namespace of another one, user
# and time included, but gets a mount namespace of its own.
test_join_all_namespaces_but_empty_mount_path() {
  [ -e /proc/self/ns/time ] || { echo "SKIP: no time namespaces"; return 0; }
  local target attached; target=$(new_id); attached=$(new_id)
  userns_bundle "$T/b" sleep infinity
  bundle_edit "$T/b" "c['linux']['namespaces'].append({'type':'time'}); c['linux']['timeOffsets']={'monotonic':{'secs':7881,'nanosecs':2718281},'boottime':{'secs':1337,'nanosecs':3141519}}"
  crt run -d -b "$T/b" "$target" || fail "run the target"
  local pid; pid=$(state_field "$target" pid)
  bundle_edit "$T/b" "
proc = {'network': 'net', 'mount': 'mnt'}
for n in c['linux']['namespaces']:
    n['path'] = '' if n['type'] == 'mount' else '/proc/$pid/ns/' + proc.get(n['type'], n['type'])
for k in ('uidMappings', 'gidMappings', 'timeOffsets'):
    del c['linux'][k]"
  crt run -d -b "$T/b" "$attached" </dev/null >/dev/null 2>"$T/err" ||
    fail "run joining the target's namespaces with an empty mount path: $(cat "$T/err")"
  assert_eq 2 "$(crt exec "$attached" ps aux | grep -c 'sleep infinity')" "sleeps seen in the joined pid namespace"
  assert_eq "0 100000 65536" "$(crt exec "$attached" cat /proc/self/uid_map | awk '{print $1, $2, $3}')" "joined uid_map"
  run_rc crt exec "$attached" cat /proc/self/timens_offsets
  assert_contains "$out" "7881" "joined time namespace's offsets"
  assert_ne "$(readlink "/proc/$pid/ns/mnt")" "$(readlink "/proc/$(state_field "$attached" pid)/ns/mnt")" "mount namespace (a new one)"
  crt delete -f "$attached"; crt delete -f "$target"
}

# A user namespace joined by path (a Kubernetes pod with hostUsers: false:
# containerd 2 pins the pod's user namespace and every container joins it)
# and a bind mount whose source only the host's root reaches (containerd's
# /dev/shm under its 0700 state dir): the runtime, not the init, opens the
# source, as with a new user namespace (runc's procMountPlease, for any
# user namespace).  crt used to open it in the init, as the namespace's
# root: EACCES.
test_userns_joined_bind_source_only_root_reaches() {
  local t id; t=$(new_id); id=$(new_id)
  userns_bundle "$T/t" sleep 100
  crt run -d -b "$T/t" "$t" </dev/null >/dev/null 2>&1 || fail "run the target"
  local tp; tp=$(state_field "$t" pid)
  mkdir -p "$T/private/src" && chmod 700 "$T/private" && echo only-root >"$T/private/src/f"
  make_bundle "$T/j" cat /mnt/f
  chown -R 100000:100000 "$T/j/rootfs"
  bundle_edit "$T/j" "c['linux']['namespaces'].append({'type':'user','path':'/proc/$tp/ns/user'}); c['linux'].pop('uidMappings',None); c['linux'].pop('gidMappings',None)
c['mounts'].append({'destination':'/mnt','type':'bind','source':'$T/private/src','options':['rbind','ro']})"
  run_rc crt run -b "$T/j" "$id" </dev/null
  if runc_before_1_2; then assert_contains "$out" "no uid mappings found"; crt delete -f "$t"; return 0; fi
  assert_eq "0 only-root" "$rc $out" "a container joining a user namespace reads a bind source only the host's root reaches"
  crt delete -f "$t" || fail "delete -f the target"
}

# process.oomScoreAdj with a user namespace, new or joined by path (a
# Kubernetes pod with hostUsers: false: containerd sets it on the pod's
# sandbox): becoming root in the namespace leaves the init not dumpable, its
# /proc files the host root's, so it cannot write its own oom_score_adj
# there; the runtime (new) or the joiner (joined) writes it first, as
# runc's nsexec does.  crt used to fail create with EACCES.
test_userns_oom_score_adj() {
  local t; t=$(new_id)
  userns_bundle "$T/t" sleep 100
  crt run -d -b "$T/t" "$t" </dev/null >/dev/null 2>&1 || fail "run the target"
  local tp; tp=$(state_field "$t" pid)
  userns_bundle "$T/n" cat /proc/self/oom_score_adj
  bundle_edit "$T/n" "c['process']['oomScoreAdj']=7"
  run_rc crt run -b "$T/n" "$(new_id)" </dev/null
  assert_eq "0 7" "$rc $out" "oomScoreAdj 7 in a new user namespace"
  make_bundle "$T/j" cat /proc/self/oom_score_adj
  chown -R 100000:100000 "$T/j/rootfs"
  bundle_edit "$T/j" "c['linux']['namespaces'].append({'type':'user','path':'/proc/$tp/ns/user'}); c['linux'].pop('uidMappings',None); c['linux'].pop('gidMappings',None); c['process']['oomScoreAdj']=9"
  run_rc crt run -b "$T/j" "$(new_id)" </dev/null
  if runc_before_1_2; then assert_contains "$out" "no uid mappings found"; else assert_eq "0 9" "$rc $out" "oomScoreAdj 9 in a user namespace joined by path"; fi
  crt delete -f "$t" || fail "delete -f the target"
}

# Guards idmap_userns_of (src/linux/mounts.c) and joins_userns
# (src/container/init.c): runc's idmap.bats "idmap mount (idmap flag,
# implied mapping, userns join) [userns]": a container that joins another
# one's user namespace by path, with no mappings of its own, idmaps an
# "idmap" bind with that namespace's mappings (the runtime makes the tree:
# the init in the joined namespace has no rights over the source); a
# submount, not idmapped ("idmap", not "ridmap"), shows the overflow ids.
test_idmap_implied_mapping_userns_join() {
  if runc_before_1_2; then echo "runc 1.1.5 has no idmapped mounts"; return 0; fi
  mkdir -p "$T/src1" "$T/tree/multi1" && touch "$T/src1/foo.txt" "$T/tree/foo.txt"
  chown 100:211 "$T/tree/foo.txt" "$T/src1/foo.txt"
  mount --bind "$T/src1" "$T/tree/multi1" || fail "bind the submount"
  trap 'umount -l "$T/tree/multi1"' EXIT
  userns_bundle "$T/t" sleep 300
  local target id pid; target=$(new_id); id=$(new_id)
  crt run -d --pid-file "$T/tpid" -b "$T/t" "$target" </dev/null >/dev/null 2>"$T/err" || fail "run the target: $(cat "$T/err")"
  pid=$(cat "$T/tpid")
  userns_bundle "$T/b" sh -c 'stat -c =%n:%u=%g= /tmp/mount-tree/foo.txt /tmp/mount-tree/multi1/foo.txt'
  bundle_edit "$T/b" "[n.__setitem__('path', '/proc/$pid/ns/user') for n in c['linux']['namespaces'] if n['type']=='user']
del c['linux']['uidMappings']; del c['linux']['gidMappings']
c['mounts'].append({'source':'$T/tree/','destination':'/tmp/mount-tree','options':['rbind','idmap']})"
  run_rc crt run -b "$T/b" "$id"
  crt delete -f "$target"
  assert_eq 0 "$rc" "run in the joined user namespace: $out"
  assert_contains "$out" "=/tmp/mount-tree/foo.txt:100=211="
  assert_contains "$out" "=/tmp/mount-tree/multi1/foo.txt:$(cat /proc/sys/kernel/overflowuid)=$(cat /proc/sys/kernel/overflowgid)="
}
