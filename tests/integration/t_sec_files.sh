# Files crt reads that someone else may have made (issue 54): a FIFO, a
# device or a huge file there must not hang or spin crt.
#
# A hostile image (item 2): the files crt reads from the rootfs
# (docs/security.md lists them; today only /etc/passwd, for HOME when the
# process's environment has none) must not hang or spin crt.  Each case
# must finish within seconds; before the fix /dev/zero and a FIFO hung the
# init and every exec forever, a 4 GiB file took many seconds, and an
# overlong line was read in 1023-byte pieces, the second of which passed
# for an entry of its own.  runc 1.3.6 leaves HOME at "/" when it cannot
# read the file (its bufio.Scanner stops at a 64 KiB line): so does crt.

# hostile_passwd KIND ROOTFS: makes ROOTFS/etc/passwd hostile
hostile_passwd() {
  local f=$2/etc/passwd
  rm -f "$f"
  case $1 in
    zero) ln -s /dev/zero "$f" ;;
    fifo) mkfifo "$f" ;;
    huge) truncate -s 4G "$f" ;; # sparse: zeros, no newline
    # a uid 1000 entry with a long gecos field; its 1024th byte starts what
    # looks like a root entry with HOME /evil, and the line goes on past
    # 64 KiB; root's real entry comes after it
    line) python3 - "$f" <<'PY' ;;
import sys
head = "u:x:1000:1000:"
line = head + "g" * (1023 - len(head)) + "evil:x:0:0::/evil:/bin/sh" + "g" * 70000
open(sys.argv[1], "w").write(line + "\nroot:x:0:0:root:/root:/bin/sh\n")
PY
  esac
}

# passwd_bundle: a bundle printing HOME, without HOME in process.env
passwd_bundle() {
  make_bundle "$T/b" sh -c 'echo HOME=$HOME'
  bundle_edit "$T/b" "c['process']['env']=[e for e in c['process']['env'] if not e.startswith('HOME=')]"
}

# passwd_run KIND: run with a hostile /etc/passwd: fast, HOME=/
passwd_run() {
  passwd_bundle
  hostile_passwd "$1" "$T/b/rootfs"
  local id; id=$(new_id)
  run_rc timeout -s KILL 10 "$CRT_BIN" --root "$CRT_ROOT" run --bundle "$T/b" "$id"
  [ "$rc" != 137 ] || fail "run with /etc/passwd ($1) did not finish in 10 s"
  assert_eq 0 "$rc" "run's exit code: $out"
  assert_eq "HOME=/" "$out" "the container's HOME"
}

# passwd_exec KIND: exec into a running container whose /etc/passwd has
# become hostile: fast, HOME=/
passwd_exec() {
  passwd_bundle
  bundle_edit "$T/b" "c['process']['args']=['sleep','1000']"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  hostile_passwd "$1" "$T/b/rootfs"
  run_rc timeout -s KILL 10 "$CRT_BIN" --root "$CRT_ROOT" exec "$id" sh -c 'echo HOME=$HOME'
  [ "$rc" != 137 ] || fail "exec with /etc/passwd ($1) did not finish in 10 s"
  assert_eq 0 "$rc" "exec's exit code: $out"
  assert_eq "HOME=/" "$out" "the exec'd process's HOME"
  crt delete -f "$id" >/dev/null 2>&1
}

test_passwd_dev_zero_run() { passwd_run zero; }
test_passwd_dev_zero_exec() { passwd_exec zero; }
# runc 1.3.6 blocks on the FIFO for ever (crt's own behaviour)
test_passwd_fifo_run() { is_crt || return 0; passwd_run fifo; }
test_passwd_fifo_exec() { is_crt || return 0; passwd_exec fifo; }
test_passwd_huge_run() { passwd_run huge; }
test_passwd_huge_exec() { passwd_exec huge; }
test_passwd_long_line_run() { passwd_run line; }
test_passwd_long_line_exec() { passwd_exec line; }

# The bounds do not cost a well-formed file its answer: root's entry after
# 100 000 other lines (4 MiB) and a comment-sized line still give its HOME.
test_passwd_large_but_sane() {
  passwd_bundle
  python3 - "$T/b/rootfs/etc/passwd" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100000): f.write("user%d:x:%d:%d:%s:/home/u%d:/bin/sh\n" % (i, 1000 + i, 1000 + i, "g" * 8, i))
    f.write("root:x:0:0:" + "r" * 60000 + ":/root:/bin/sh")  # no final newline
PY
  local id; id=$(new_id)
  run_rc timeout -s KILL 10 "$CRT_BIN" --root "$CRT_ROOT" run --bundle "$T/b" "$id"
  assert_eq 0 "$rc" "run's exit code: $out"
  assert_eq "HOME=/root" "$out" "root's HOME"
}

# state.json replaced by a FIFO (issue 54, "Also"): `state` fails at once
# as for a corrupt state file, `list` skips the container, `delete -f`
# removes it.  runc 1.3.6 blocks on the FIFO for ever in all three (its
# answer to a corrupt state.json is the same: an error, skipped by list).
test_state_json_fifo() {
  is_crt || return 0
  make_bundle "$T/b" sleep 1000
  local id other; id=$(new_id); other=$(new_id)
  crt create --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create $id"
  crt create --bundle "$T/b" "$other" </dev/null >/dev/null 2>&1 || fail "create $other"
  local init; init=$(state_field "$id" pid)
  rm "$CRT_ROOT/$id/state.json" && mkfifo "$CRT_ROOT/$id/state.json"
  run_rc timeout -s KILL 5 "$CRT_BIN" --root "$CRT_ROOT" state "$id"
  [ "$rc" != 137 ] || fail "state blocked on a FIFO state.json"
  assert_eq 1 "$rc" "state's exit code: $out"
  assert_contains "$out" "corrupt state file: not a regular file (use delete --force)"
  local opt
  for opt in "" -q "--format json"; do
    run_rc timeout -s KILL 5 "$CRT_BIN" --root "$CRT_ROOT" list $opt
    [ "$rc" != 137 ] || fail "list $opt blocked on a FIFO state.json"
    assert_eq 0 "$rc" "list $opt's exit code: $out"
    assert_contains "$out" "$other" "list $opt"
    assert_not_contains "$out" "$id" "list $opt"
  done
  run_rc timeout -s KILL 5 "$CRT_BIN" --root "$CRT_ROOT" delete -f "$id"
  assert_eq 0 "$rc" "delete -f's exit code: $out"
  [ ! -e "$CRT_ROOT/$id" ] || fail "delete -f left the state directory"
  wait_eval "[ ! -e /proc/$init ]" || fail "delete -f left the init $init"
  crt delete -f "$other" >/dev/null 2>&1
}

# The rescue file `init` (read when state.json names a dead pid) replaced
# by a FIFO: `state` still answers at once.
test_rescue_file_fifo() {
  is_crt || return 0
  make_bundle "$T/b" sleep 1000
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  [ -f "$CRT_ROOT/$id/init" ] || fail "no rescue file to replace"
  rm "$CRT_ROOT/$id/init" && mkfifo "$CRT_ROOT/$id/init"
  run_rc timeout -s KILL 5 "$CRT_BIN" --root "$CRT_ROOT" state "$id"
  [ "$rc" != 137 ] || fail "state blocked on a FIFO rescue file"
  run_rc timeout -s KILL 5 "$CRT_BIN" --root "$CRT_ROOT" list
  [ "$rc" != 137 ] || fail "list blocked on a FIFO rescue file"
  run_rc timeout -s KILL 5 "$CRT_BIN" --root "$CRT_ROOT" delete -f "$id"
  [ "$rc" != 137 ] || fail "delete -f blocked on a FIFO rescue file"
}
