# crt: a runc-compatible OCI runtime.  `make` builds ./crt.
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
PKGS := libseccomp libcap yajl mount
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libmount is not linked: src/util/libmount_lazy.c dlopens it on first use
# (it brings libblkid, libselinux and libpcre2, ~0.3 ms of ld.so per start).
# libseccomp, libcap and yajl are linked statically (Debian's -dev packages
# ship the archives), as runc's release binaries link libseccomp: three
# shared objects fewer for ld.so on every start of crt, 0.1 ms (perf stat
# -r 300 crt --version: 0.90 -> 0.80 ms).  LINK_SHARED=1 links them shared.
ifeq ($(LINK_SHARED),1)
PKG_LIBS := $(shell pkg-config --libs $(filter-out mount,$(PKGS)) 2>/dev/null)
else
PKG_LIBS := -Wl,-Bstatic -lseccomp -lcap -lyajl_s -Wl,-Bdynamic
endif
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 \
	-fno-strict-aliasing -D_FORTIFY_SOURCE=2 -fstack-protector-strong -pthread
CPPFLAGS += -Iinclude $(PKG_CFLAGS) -DCRT_VERSION='"$(VERSION)"' -DCRT_COMMIT='"$(COMMIT)"'
LDLIBS += $(PKG_LIBS)

# src/stub/ is crt-stub, a freestanding program linked into crt as bytes.
SRCS := $(sort $(filter-out src/stub/%,$(wildcard src/*/*.c)))
STUB := build/stub/blob.o
STUB_CFLAGS := -Os -std=gnu11 -Wall -Wextra -Werror -ffreestanding -fno-builtin -fno-stack-protector \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-tree-loop-distribute-patterns -fno-pie
STUB_LDFLAGS := -nostdlib -static -no-pie -s -Wl,--build-id=none -Wl,-z,noexecstack -Wl,-z,norelro
MAIN := src/cli/main.c
LIB_SRCS := $(filter-out $(MAIN),$(SRCS))
OBJS := $(SRCS:%.c=build/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=build/%.o)
ASAN_OBJS := $(LIB_SRCS:%.c=build-asan/%.o)
TP_OBJS := $(SRCS:%.c=build-tp/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/%)
UNIT_ASAN := $(UNIT_SRCS:tests/unit/%.c=build-asan/tests/%)
ASAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all clean install check check-v2 check-systemd unit unit-asan integration deps demo conformance bench fuzz clang-syntax check-runc
all: crt

crt: $(OBJS) $(STUB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/stub/crt-stub: src/stub/crt-stub.c include/crt/wire.h
	@mkdir -p $(dir $@)
	$(CC) $(STUB_CFLAGS) $(STUB_LDFLAGS) -o $@ $<

$(STUB): src/stub/blob.S build/stub/crt-stub
	$(CC) -DSTUB_BIN='"build/stub/crt-stub"' -c -o $@ $<

build/%.o: %.c $(wildcard include/crt/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build-asan/%.o: %.c $(wildcard include/crt/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(ASAN) -c -o $@ $<

# The crash-consistency tests' build: crt with named pause points.
build-tp/%.o: %.c $(wildcard include/crt/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DCRT_TEST_POINTS $(CFLAGS) -c -o $@ $<

build/crt-testpoints: $(TP_OBJS) $(STUB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# crt itself under ASan/UBSan/LSan, for the CLI leak test.
build-asan/crt: build-asan/src/cli/main.o $(ASAN_OBJS) $(STUB)
	$(CC) $(CFLAGS) $(ASAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/libcrt.a: $(LIB_OBJS) $(STUB)
	rm -f $@ && ar rcs $@ $^

build-asan/libcrt.a: $(ASAN_OBJS) $(STUB)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

build/tests/%: tests/unit/%.c build/libcrt.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-field-initializers -o $@ $< build/libcrt.a $(LDLIBS) -lcmocka

build-asan/tests/%: tests/unit/%.c build-asan/libcrt.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(ASAN) -Wno-missing-field-initializers -o $@ $< build-asan/libcrt.a $(LDLIBS) -lcmocka

unit: $(UNIT_BINS)
	@bash tests/run-unit.sh $(UNIT_BINS)

unit-asan: $(UNIT_ASAN)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 bash tests/run-unit.sh $(UNIT_ASAN)

integration: crt build/crt-testpoints build-asan/crt
	@bash tests/integration/run.sh

# The cgroup v2 guest (tests/guest/v2): Debian's kernel under qemu with
# every controller on cgroup2, the same checks for crt, runc and crun.
check-v2: crt
	@bash tests/guest/v2/run.sh

# The systemd guest (tests/guest/systemd): Debian with systemd as PID 1,
# --systemd-cgroup, podman and Docker, for crt and runc.
check-systemd: crt
	@bash tests/guest/systemd/run.sh

# The differential tests with a reference runc in crt's place: current runc
# (1.3.6 from Debian sid through tests/lib/peers.sh) by default,
# PEER=/usr/sbin/runc for Debian's 1.1.5; PEER_ONLY=REGEX picks other tests
# (default the t_compat files; e.g. t_checkpoint, t_clients).
PEER ?= runc
PEER_ONLY ?= ^t_compat
check-runc: crt
	@bin=$$(if [ "$(PEER)" = runc ]; then bash tests/lib/peers.sh runc; else echo "$(PEER)"; fi) && \
	  echo "peer: $$bin ($$("$$bin" --version | head -1))" && \
	  CRT_BIN=$$bin ONLY='$(PEER_ONLY)' bash tests/integration/run.sh

# The whole suite: unit tests (plain and ASan/UBSan), real containers, and
# the cgroup v2 and systemd guests.
check: crt build/crt-testpoints build-asan/crt $(UNIT_BINS) $(UNIT_ASAN) clang-syntax
	@bash tests/check.sh

# clang as a second compiler over every source, warnings as errors: it also
# refuses a goto that jumps past a cleanup variable's initialisation, which
# gcc compiles into a cleanup run on garbage.
# A call through a function pointer of another type is undefined behaviour
# (and what CFI refuses): clang >= 16 checks every cast strictly; older ones
# get the weaker check, and tests/lint/fn_casts.py (t_docs) covers the rest.
CLANG_FNCAST := $(shell clang -Werror -Wcast-function-type-strict -x c -fsyntax-only /dev/null 2>/dev/null && \
	echo -Wcast-function-type-strict || echo -Wcast-function-type)
clang-syntax:
	@for f in $(SRCS); do clang $(CPPFLAGS) -std=gnu11 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-parameter \
	  -Wno-missing-field-initializers $(CLANG_FNCAST) $$f || exit 1; done
	@python3 tests/lint/fn_casts.py >/dev/null || python3 tests/lint/fn_casts.py
	@clang -std=gnu11 -fsyntax-only -Wall -Wextra -Werror -ffreestanding src/stub/crt-stub.c
	@echo "clang-syntax: $(words $(SRCS)) files and crt-stub clean"

deps:
	@bash contrib/install-deps.sh

demo: crt
	@bash contrib/demo.sh

conformance: crt
	@bash tests/conformance/run-validation.sh

bench: crt
	@bash bench/bench.sh

# Coverage-guided fuzzing: config/process, state, mount-option and signal
# parsers (FUZZ_SECONDS each, FUZZ_ONLY=name for one).
fuzz:
	@bash tests/fuzz/run.sh

install: crt
	install -D -m 0755 crt $(DESTDIR)$(PREFIX)/sbin/crt
	@for m in docs/man/*.8; do [ -f "$$m" ] && install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/$$(basename $$m); done; true
	@[ -f contrib/completions/bash/crt ] && install -D -m 0644 contrib/completions/bash/crt $(DESTDIR)$(PREFIX)/share/bash-completion/completions/crt; true

clean:
	rm -rf build build-asan build-tp crt
