# Docs and ecosystem fit: the flags of `crt CMD --help`, the man pages and
# the bash completion must agree; the pages must render cleanly; the
# completion must be valid bash and complete commands, flags and IDs.

DOCS_MAN=$REPO/docs/man
DOCS_COMP=$REPO/contrib/completions/bash/crt

# Flag tokens ("-b", "--bundle") in text, one per line, sorted.
_flag_tokens() {
  grep -oE '(^|[ ,"])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed -E 's/^[ ,"]//' | sort -u
}

# The commands `crt --help` lists (less urfave's "help, h" entry).
_help_commands() {
  "$CRT_BIN" --help | awk '/^COMMANDS:/{f=1; next} /^$/{f=0} f && $1 != "help,"{print $1}' | sort
}

# Flags in the OPTIONS (or GLOBAL OPTIONS) section of `crt [CMD] --help`:
# the part of each entry before its description.  A command whose -h and
# --help both print the help accepts them, listed or not.
_help_flags() {
  local cmd=$1
  {
    "$CRT_BIN" $cmd --help | awk '/^(GLOBAL )?OPTIONS:/{f=1; next} f && /^[^ ]/{f=0} f' |
      sed -E 's/^ +//; s/  .*//'
    if [ -n "$cmd" ] && "$CRT_BIN" $cmd --help >/dev/null 2>&1 && "$CRT_BIN" $cmd -h >/dev/null 2>&1; then
      echo "--help -h"
    fi
  } | _flag_tokens
}

# Flags in the tags (.TP lines) of a man page's OPTIONS / GLOBAL OPTIONS.
_man_flags() {
  awk '/^\.SH/{f = ($0 ~ /^\.SH "?(GLOBAL )?OPTIONS"?$/); next} f && /^\.TP/{getline; print}' "$1" |
    sed -E 's/\\-/-/g; s/\\f[BIRP]//g' | _flag_tokens
}

# What the completion offers for `crt [CMD] -<TAB>`.
_comp_flags() {
  (
    source "$DOCS_COMP"
    if [ -n "$1" ]; then COMP_WORDS=(crt "$1" -); else COMP_WORDS=(crt -); fi
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _crt
    printf '%s\n' "${COMPREPLY[@]}"
  ) | _flag_tokens
}

# _complete WORD...: COMPREPLY for the line, the last word being completed.
_complete() {
  (
    source "$DOCS_COMP"
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _crt
    printf '%s\n' "${COMPREPLY[@]}"
  )
}

_same_set() { # what A-name A B-name B
  local d
  d=$(diff <(echo "$3") <(echo "$5")) ||
    fail "$1: $2 and $4 differ (< only in $2, > only in $4): $(echo "$d" | grep '^[<>]' | tr '\n' ' ')"
}

test_every_command_has_a_man_page() {
  local cmds c p
  cmds=$(_help_commands)
  [ -n "$cmds" ] || fail "crt --help lists no commands"
  [ -f "$DOCS_MAN/crt.8" ] || fail "no docs/man/crt.8"
  for c in $cmds; do
    [ -f "$DOCS_MAN/crt-$c.8" ] || fail "command $c has no man page docs/man/crt-$c.8"
  done
  # and no page for a command that does not exist
  for p in "$DOCS_MAN"/crt-*.8; do
    c=$(basename "$p" .8)
    c=${c#crt-}
    echo "$cmds" | grep -qx "$c" || fail "man page $p is for '$c', which crt --help does not list"
  done
  # crt(8) lists every command (and `help`)
  local listed
  listed=$(awk '/^\.SH/{f = ($0 ~ /^\.SH COMMANDS$/); next} f && /^\.TP/{getline; print $2}' "$DOCS_MAN/crt.8" | sort)
  _same_set "crt(8) COMMANDS" "crt --help" "$(printf '%s\nhelp\n' "$cmds" | sort)" "crt.8" "$listed"
}

test_global_flags_agree() {
  local h m c
  h=$(_help_flags "")
  m=$(_man_flags "$DOCS_MAN/crt.8")
  c=$(_comp_flags "")
  [ -n "$h" ] || fail "no global flags parsed from crt --help"
  _same_set "global flags" "crt --help" "$h" "crt.8" "$m"
  _same_set "global flags" "crt --help" "$h" "completion" "$c"
}

test_command_flags_agree() {
  is_crt || return 0 # crt's own man pages against its own flags
  local cmd h m c
  for cmd in $(_help_commands); do
    h=$(_help_flags "$cmd")
    m=$(_man_flags "$DOCS_MAN/crt-$cmd.8")
    c=$(_comp_flags "$cmd")
    assert_contains "$h" "--help" "$cmd: --help accepted"
    _same_set "crt $cmd flags" "crt $cmd --help" "$h" "crt-$cmd.8" "$m"
    _same_set "crt $cmd flags" "crt $cmd --help" "$h" "completion" "$c"
  done
}

# Every documented flag is known to crt's parser (the other direction of
# the drift: flags the parser has but --help hides are checked by hand).
test_documented_flags_are_accepted() {
  is_crt || return 0 # crt's own man pages against its own flags
  mkdir -p "$T/cwd" && cd "$T/cwd" || fail "cd"
  local cmd f
  for f in $(_man_flags "$DOCS_MAN/crt.8"); do
    run_rc "$CRT_BIN" --root "$CRT_ROOT" "$f"
    assert_not_contains "$out" "not defined" "crt $f"
  done
  for cmd in $(_help_commands); do
    for f in $(_man_flags "$DOCS_MAN/crt-$cmd.8"); do
      run_rc crt "$cmd" "$f"
      assert_not_contains "$out" "not defined" "crt $cmd $f"
    done
  done
  # a made-up flag is refused: the check above can fail
  run_rc crt delete --no-such-flag
  assert_contains "$out" "not defined" "crt delete --no-such-flag"
  rm -rf "$T/cwd"
}

test_man_pages_render_without_warnings() {
  local p w
  for p in "$DOCS_MAN"/*.8; do
    w=$(groff -man -ww -z "$p" 2>&1)
    assert_eq "" "$w" "groff warnings for $p"
    w=$(LC_ALL=C MANWIDTH=80 man -l --warnings "$p" 2>&1 >/dev/null)
    assert_eq "" "$w" "man warnings for $p"
    w=$(LC_ALL=C MANWIDTH=80 man -l "$p" 2>/dev/null)
    assert_contains "$w" "NAME" "rendered $p"
    assert_contains "$w" "SYNOPSIS" "rendered $p"
  done
}

test_completion_is_valid_bash() {
  run_rc bash -n "$DOCS_COMP"
  assert_eq 0 "$rc" "bash -n $DOCS_COMP: $out"
  run_rc bash -c "source '$DOCS_COMP' && complete -p crt"
  assert_contains "$out" "-F _crt" "complete -p crt"
}

test_completion_commands() {
  assert_eq "delete" "$(_complete crt de)" "crt de<TAB>"
  assert_eq "$(printf 'start\nstate\n')" "$(_complete crt --root /x st)" "crt --root /x st<TAB>"
  assert_eq "$(printf '%s\nhelp\n' "$(_help_commands)" | sort)" "$(_complete crt "" | sort)" "crt <TAB>"
  assert_eq "create" "$(_complete crt --debug --log-format json cr)" "global flags skipped"
}

test_completion_values() {
  assert_eq "$(printf 'text\njson\n')" "$(_complete crt --log-format "")" "--log-format <TAB>"
  assert_eq "json" "$(_complete crt --log-format = j)" "--log-format=j<TAB>"
  assert_eq "$(printf 'table\njson\n')" "$(_complete crt list -f "")" "list -f <TAB>"
  assert_eq "SIGKILL" "$(_complete crt kill someid SIGKI)" "kill ID SIGKI<TAB>"
  assert_contains "$(_complete crt kill someid K)" "KILL" "kill ID K<TAB>"
  mkdir -p "$T/bundles/b1"
  assert_eq "$T/bundles/b1" "$(_complete crt run --bundle "$T/bundles/b")" "run --bundle DIR<TAB>"
  # after the first argument, flags belong to the command run in the container
  assert_eq "" "$(_complete crt exec someid --)" "exec ID --<TAB>"
  rm -rf "$T/bundles"
}

test_completion_container_ids() {
  local id b=$T/bundle
  id=$(new_id)
  make_bundle "$b"
  crt create --bundle "$b" "$id" || fail "create $id"
  assert_eq "$id" "$(_complete "$CRT_BIN" --root "$CRT_ROOT" delete "")" "delete <TAB> with --root DIR"
  assert_eq "$id" "$(_complete "$CRT_BIN" --root = "$CRT_ROOT" kill "${id:0:6}")" "kill <TAB> with --root=DIR"
  assert_eq "$id" "$(_complete "$CRT_BIN" --root "$CRT_ROOT" exec -t "")" "exec -t <TAB>"
  # another root: not this container
  mkdir -p "$T/other"
  assert_eq "" "$(_complete "$CRT_BIN" --root "$T/other" delete "")" "delete <TAB> in another root"
  # create's argument is a new ID: nothing to offer
  assert_eq "" "$(_complete "$CRT_BIN" --root "$CRT_ROOT" create "")" "create <TAB>"
  crt delete -f "$id" || fail "delete $id"
  assert_eq "" "$(_complete "$CRT_BIN" --root "$CRT_ROOT" delete "")" "delete <TAB> after delete"
  rm -rf "$b" "$T/other"
}

# Without "=" in COMP_WORDBREAKS, --flag=value arrives as one word.
test_completion_joined_values() {
  assert_eq "--log-format=json" "$(_complete crt --log-format=j)" "--log-format=j<TAB> as one word"
  local id b=$T/bundle
  id=$(new_id)
  make_bundle "$b"
  crt create --bundle "$b" "$id" || fail "create $id"
  assert_eq "$id" "$(_complete "$CRT_BIN" "--root=$CRT_ROOT" state "")" "state <TAB> with --root=DIR as one word"
  crt delete -f "$id" || fail "delete $id"
  rm -rf "$b"
}

# docs/architecture.md is the map of the code: every source file (src/,
# include/) is named there, and every file it names exists.
test_architecture_names_every_source_file() {
  local doc=$REPO/docs/architecture.md f missing=""
  for f in $(cd "$REPO" && ls src/*/*.c src/*/*.h src/stub/*.S include/crt/*.h); do
    grep -qw -- "$(basename "$f")" "$doc" || missing="$missing $f"
  done
  [ -z "$missing" ] || fail "not named in docs/architecture.md:$missing"
  local named
  for named in $(grep -oE '\b[a-z0-9_-]+\.(c|h|S)\b' "$doc" | sort -u); do
    ls "$REPO"/src/*/"$named" "$REPO"/include/crt/"$named" "$REPO"/tests/*/"$named" 2>/dev/null | grep -q . ||
      missing="$missing $named"
  done
  [ -z "$missing" ] || fail "named in docs/architecture.md but not in the tree:$missing"
}

# Layers only call down: no two .c files call each other, directly or
# through others (docs/architecture.md, src/cgroup/cgroup_internal.h).  Read
# from the object files of the build the suite runs.
test_no_call_cycles() {
  local out
  out=$(cd "$REPO" && make --no-print-directory -s crt >/dev/null 2>&1 && python3 tests/lint/call_cycles.py 2>&1) ||
    fail "files call each other in a circle: $out"
}

# One header per concern, named after its file: every function an
# include/crt/X.h declares is defined in src/*/X.c (module headers: the
# short list in tests/lint/header_files.py).  Read from the build's objects.
test_headers_match_files() {
  local out
  out=$(cd "$REPO" && make --no-print-directory -s crt >/dev/null 2>&1 && python3 tests/lint/header_files.py 2>&1) ||
    fail "headers that do not match their files: $out"
}

# Layers only include down (tests/lint/layers.py): no file includes the
# header of a higher layer (src/linux including crt/sync.h, say); crt-stub
# includes only crt/wire.h, the constants of no layer.
test_layers_include_down() {
  local out
  out=$(cd "$REPO" && python3 tests/lint/layers.py 2>&1) || fail "includes of a higher layer: $out"
}

# No test-only symbol in a public header (tests/lint/test_only.py): what
# include/crt/*.h declares is used by code in src/ and built into ./crt;
# test hooks live in internal headers (src/linux/test_hooks.h,
# src/util/testpoint.h, src/cgroup/cgroup_internal.h).
test_no_test_only_public_symbol() {
  local out
  out=$(cd "$REPO" && python3 tests/lint/test_only.py 2>&1) || fail "test-only declarations in include/crt/: $out"
}

# The lint above can fail: a copy of the tree with one hook for the tests
# and one for the test build declared in a public header is refused.
test_test_only_lint_refuses_hooks() {
  local t
  t=$(mktemp -d)
  cp -r "$REPO/include" "$REPO/src" "$t/"
  printf 'void crt_only_for_tests(void);\n#ifdef CRT_TEST_POINTS\nvoid crt_only_when_testing(void);\n#endif\n' \
    >>"$t/include/crt/str.h"
  printf 'void crt_only_for_tests(void) {}\n#ifdef CRT_TEST_POINTS\nvoid crt_only_when_testing(void) {}\n#endif\n' \
    >>"$t/src/util/str.c"
  local out rc=0
  out=$(python3 "$REPO/tests/lint/test_only.py" "$t" 2>&1) || rc=$?
  rm -rf "$t"
  [ "$rc" = 1 ] || fail "test_only.py passed a tree with test hooks in include/crt/str.h: $out"
  grep -q "crt_only_for_tests is used by no code" <<<"$out" || fail "crt_only_for_tests not reported: $out"
  grep -q "crt_only_when_testing is defined only in the test build" <<<"$out" || fail "crt_only_when_testing not reported: $out"
}

# No call through a cast function pointer (undefined behaviour, refused by
# CFI): the spec parser's callbacks go through adapters of the exact type.
test_no_function_pointer_casts() {
  local out
  out=$(cd "$REPO" && python3 tests/lint/fn_casts.py 2>&1) || fail "$out"
}
