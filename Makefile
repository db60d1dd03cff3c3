# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Pipeline: src/bpf/*.bpf.c -> linked BPF object -> skeleton -> libgtsc.a
# (src/user/lib) -> gtsc-bpf (src/user/cli).  Everything is built in
# $(OUTPUT); only ./gtsc-bpf lands at the top.  `make V=1` shows commands.

OUTPUT ?= .output
ARCH ?= $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')
ifeq ($(wildcard vmlinux/$(ARCH)/vmlinux.h),)
$(error Architecture $(ARCH) is not supported yet: no vmlinux/$(ARCH)/vmlinux.h (see vmlinux/gen.sh))
endif

CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
OBJCOPY ?= objcopy
CFLAGS ?= -g -O2
WARN := -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
# libtraceevent parses tracefs formats and print fmts (-e GROUP:NAME), as in perf and trace-cmd.
TEP_CFLAGS := $(shell pkg-config --cflags libtraceevent 2>/dev/null || echo -I/usr/include/traceevent)
# The library's sources sit in one folder per pipeline stage (src/user/lib/README.md),
# decode/xlat/ one deeper; a file left at the top builds too.  Every folder is on
# the include path, so an #include names a header, never its stage.
LIB_SRCS := $(sort $(wildcard src/user/lib/*.c src/user/lib/*/*.c src/user/lib/*/*/*.c))
LIB_HDRS := $(wildcard src/user/lib/*.h src/user/lib/*/*.h src/user/lib/*/*/*.h)
LIB_DIRS := $(sort src/user/lib $(patsubst %/,%,$(dir $(LIB_SRCS) $(LIB_HDRS))))
INCLUDES := -Iinclude $(addprefix -I,$(LIB_DIRS)) -Isrc/bpf -I$(OUTPUT) $(TEP_CFLAGS)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Iinclude -Isrc/bpf

# SANITIZE=1: the CLI, the library and the unit tests built with ASan + UBSan
# in their own tree, for `make test SANITIZE=1` (libbpf stays Debian's).
BASE_OUTPUT := $(OUTPUT)
ifeq ($(SANITIZE),1)
override OUTPUT := $(BASE_OUTPUT)/san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS += $(SAN_FLAGS)
BIN := $(OUTPUT)/gtsc-bpf
else ifeq ($(SANITIZE),thread)
# SANITIZE=thread: ThreadSanitizer, for the unit tests of the one part of
# the library that runs a thread (the reader's prefetch worker): tsan-bins.
override OUTPUT := $(BASE_OUTPUT)/tsan
CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
BIN := $(OUTPUT)/gtsc-bpf
else
BIN := gtsc-bpf
endif

# STATIC=1: one self-contained binary (what the VM lane boots with).
ifeq ($(STATIC),1)
LDFLAGS += -static
LDLIBS := -lbpf -ltraceevent -ldl -lelf -llz4 -lz -lzstd -lpthread
else
LDLIBS := -lbpf -ltraceevent -lelf -llz4 -lz -lzstd -lpthread
endif

# The files defining shared maps first: libbpf 1.1's linker cannot relocate a
# use of an extern map linked before the map's definition.
BPF_DEFS := src/bpf/channel.bpf.c src/bpf/stacks.bpf.c
BPF_SRCS := $(BPF_DEFS) $(filter-out $(BPF_DEFS),$(sort $(wildcard src/bpf/*.bpf.c)))
BPF_OBJS := $(patsubst src/bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
LIB_OBJS := $(patsubst src/user/lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS))
CLI_SRCS := $(sort $(wildcard src/user/cli/*.c))
CLI_OBJS := $(patsubst src/user/cli/%.c,$(OUTPUT)/cli/%.o,$(CLI_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))
LIVE_SRCS := $(sort $(wildcard tests/live/*.c))
LIVE_BINS := $(patsubst tests/live/%.c,$(OUTPUT)/tests/live/%,$(LIVE_SRCS))
SKEL := $(OUTPUT)/gtsc.skel.h
LIBGTSC := $(OUTPUT)/libgtsc.a
LIBGTSC_INT := $(OUTPUT)/libgtsc-internal.a

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s%s\n' "$(1)" "$(patsubst $(abspath $(OUTPUT))/%,%,$(2))" \
		"$(if $(3), $(3))";
	MAKEFLAGS += --no-print-directory
endif

.PHONY: all
all: $(BIN)

$(BIN): $(CLI_OBJS) $(LIBGTSC)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/cli $(OUTPUT)/tests/unit $(OUTPUT)/tests/live:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: src/bpf/%.bpf.c $(wildcard src/bpf/*.h) include/gtsc/records.h | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# One object, one skeleton: every event source shares the channel maps.
$(OUTPUT)/gtsc.bpf.o: $(BPF_OBJS)
	$(call msg,LINK-BPF,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(SKEL): $(OUTPUT)/gtsc.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name gtsc_bpf > $@

# x86-64 syscall numbers are ABI (never renumbered): names from the libc headers.
$(OUTPUT)/syscall_names.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)echo '#include <asm/unistd.h>' | $(CC) -E -dM -x c - | \
		awk '$$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ { printf "\t[%s] = \"%s\",\n", $$3, substr($$2, 6) }' \
		| sort -t'[' -k2 -n > $@

# i386 numbers, what 32-bit tasks call with on a 64-bit kernel (ABI too).
$(OUTPUT)/syscall_names_32.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)echo '#include <asm/unistd_32.h>' | $(CC) -E -dM -x c - | \
		awk '$$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ { printf "\t[%s] = \"%s\",\n", $$3, substr($$2, 6) }' \
		| sort -t'[' -k2 -n > $@

# Objects mirror the sources' folders under $(OUTPUT)/lib.
$(filter %/metadata.o,$(LIB_OBJS)): $(OUTPUT)/syscall_names.h
$(filter %/syscall_compat.o,$(LIB_OBJS)): $(OUTPUT)/syscall_names_32.h

$(OUTPUT)/lib/%.o: src/user/lib/%.c $(LIB_HDRS) $(wildcard include/gtsc/*.h) $(SKEL)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden $(INCLUDES) -c $< -o $@

# The CLI sees the public headers only: it is a libgtsc user like any other
# (test_library.sh checks that it links to exported symbols only).
$(OUTPUT)/cli/%.o: src/user/cli/%.c $(wildcard src/user/cli/*.h) $(wildcard include/gtsc/*.h) | $(OUTPUT)/cli
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -Iinclude -Isrc/user/cli -c $< -o $@

# libgtsc.a holds one object: the library linked by `ld -r`, then every
# symbol of hidden visibility (all but GTSC_API's) made local, so a static
# embedder sees the API alone, as libgtsc.so's users do, and its own symbols
# cannot collide with the library's internals (test_library.sh checks both
# export lists against libgtsc.map).  The unit tests and the fuzzer call
# internals: they link libgtsc-internal.a, the objects as they are.
$(OUTPUT)/libgtsc.o: $(LIB_OBJS)
	$(call msg,LD-R,$@)
	$(Q)$(LD) -r -o $@ $^ && $(OBJCOPY) --localize-hidden $@

$(LIBGTSC): $(OUTPUT)/libgtsc.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBGTSC_INT): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# libgtsc.so: the same objects (built -fPIC), only gtsc/gtsc.h's GTSC_API
# functions exported, versioned by the map.  Dynamic libbpf whatever STATIC says.
LIB_VERSION := 0.1.0
LIBGTSC_SO := $(OUTPUT)/libgtsc.so.$(LIB_VERSION)
$(LIBGTSC_SO): $(LIB_OBJS) src/user/lib/libgtsc.map
	$(call msg,LIB,$@)
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,libgtsc.so.0 \
		-Wl,--version-script=src/user/lib/libgtsc.map -Wl,--no-undefined \
		$(LIB_OBJS) -lbpf -ltraceevent -lelf -llz4 -lz -lzstd -lpthread -o $@
	$(Q)ln -sf $(notdir $@) $(OUTPUT)/libgtsc.so.0 && ln -sf libgtsc.so.0 $(OUTPUT)/libgtsc.so

.PHONY: lib install examples
lib: $(LIBGTSC) $(LIBGTSC_SO)

# make install [PREFIX=/usr/local] [DESTDIR=]: the CLI, both libraries, the
# public headers, the BPF side for tools (gtsc.bpf.h, what it includes and
# channel.bpf.o) and gtsc.pc.
PREFIX ?= /usr/local
INSTALL_INC := $(DESTDIR)$(PREFIX)/include/gtsc
INSTALL_LIB := $(DESTDIR)$(PREFIX)/lib
INSTALL_MAN := $(DESTDIR)$(PREFIX)/share/man/man1
INSTALL_COMPL := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
install: gtsc-bpf lib $(OUTPUT)/bpf/channel.bpf.o man
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(INSTALL_INC) $(INSTALL_LIB)/pkgconfig $(INSTALL_LIB)/gtsc \
		$(INSTALL_MAN) $(INSTALL_COMPL)
	$(Q)install -m 644 $(OUTPUT)/man/*.1 $(INSTALL_MAN)/
	$(Q)install -m 644 doc/gtsc-bpf.bash $(INSTALL_COMPL)/gtsc-bpf
	$(Q)install -m 755 gtsc-bpf $(DESTDIR)$(PREFIX)/bin/gtsc-bpf
	$(Q)install -m 644 $(wildcard include/gtsc/*.h) \
		src/bpf/gtsc.bpf.h src/bpf/gtsc_shared.h vmlinux/$(ARCH)/vmlinux.h $(INSTALL_INC)/
	$(Q)install -m 644 $(LIBGTSC) $(INSTALL_LIB)/libgtsc.a
	$(Q)install -m 755 $(LIBGTSC_SO) $(INSTALL_LIB)/
	$(Q)ln -sf $(notdir $(LIBGTSC_SO)) $(INSTALL_LIB)/libgtsc.so.0
	$(Q)ln -sf libgtsc.so.0 $(INSTALL_LIB)/libgtsc.so
	$(Q)install -m 644 $(OUTPUT)/bpf/channel.bpf.o $(INSTALL_LIB)/gtsc/channel.bpf.o
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
		src/user/lib/gtsc.pc.in > $(INSTALL_LIB)/pkgconfig/gtsc.pc

# One man page per command, from each command's --help (scripts/gen-man.sh).
.PHONY: man uninstall
man: gtsc-bpf doc/gtsc-bpf.h2m scripts/gen-man.sh
	$(call msg,MAN,$(OUTPUT)/man)
	$(Q)rm -rf $(OUTPUT)/man && scripts/gen-man.sh ./gtsc-bpf $(OUTPUT)/man

# What install put there, and nothing else (the same PREFIX and DESTDIR).
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(PREFIX)/bin/gtsc-bpf $(INSTALL_LIB)/libgtsc.a \
		$(INSTALL_LIB)/libgtsc.so $(INSTALL_LIB)/libgtsc.so.0 $(INSTALL_LIB)/$(notdir $(LIBGTSC_SO)) \
		$(INSTALL_LIB)/pkgconfig/gtsc.pc $(INSTALL_MAN)/gtsc-bpf.1 $(INSTALL_MAN)/gtsc-bpf-*.1 \
		$(INSTALL_COMPL)/gtsc-bpf
	$(Q)rm -rf $(INSTALL_INC) $(INSTALL_LIB)/gtsc

# The examples, built as an embedder builds them: from an installed tree
# ($(OUTPUT)/stage) through pkg-config only.
STAGE := $(abspath $(OUTPUT))/stage
EXAMPLE_PC = PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig pkg-config --define-prefix
examples:
	$(Q)$(MAKE) install DESTDIR=$(STAGE) PREFIX=/usr
	$(call msg,EXAMPLE,$(OUTPUT)/examples/embed_minimal read_trace)
	$(Q)mkdir -p $(OUTPUT)/examples
	$(Q)for e in embed_minimal read_trace; do \
		$(CC) $(CFLAGS) -Wall examples/$$e.c $$($(EXAMPLE_PC) --cflags --libs --static gtsc) \
			-static -o $(OUTPUT)/examples/$$e || exit 1; \
	done
	$(Q)$(MAKE) -C examples/fork_probe PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig \
		OUTPUT=$(abspath $(OUTPUT))/examples/fork_probe

# Unit tests: no root, no kernel; each prints PASS/FAIL lines (tests/unit/harness.h).
# A test of CLI code names the CLI objects it links below.
$(OUTPUT)/tests/unit/%: tests/unit/%.c tests/unit/harness.h $(LIBGTSC_INT) | $(OUTPUT)/tests/unit
	$(call msg,TEST-CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(INCLUDES) -Isrc/user/cli -Itests/unit $< \
		$(filter $(OUTPUT)/cli/%.o $(OUTPUT)/tests/fuzz/%.o,$^) $(LIBGTSC_INT) $(LDLIBS) -o $@

$(OUTPUT)/tests/unit/test_syscall_stats: $(OUTPUT)/cli/syscall_stats.o
$(OUTPUT)/tests/unit/test_report_header: $(OUTPUT)/cli/report_header.o
$(OUTPUT)/tests/unit/test_kmem_chain: src/bpf/kmem_chain.h

# The fuzz target's consumers, as a library user reaches them (tests/fuzz/fuzz.h).
FUZZ_CLI_OBJS := $(addprefix $(OUTPUT)/cli/,convert_perfetto.o progress.o)
$(OUTPUT)/tests/fuzz/fuzz_target.o: tests/fuzz/fuzz_target.c tests/fuzz/fuzz.h $(SKEL)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(INCLUDES) -Isrc/user/cli -c $< -o $@

$(OUTPUT)/tests/unit/test_fuzz_regress: $(OUTPUT)/tests/fuzz/fuzz_target.o $(FUZZ_CLI_OBJS)

$(OUTPUT)/tests/fuzz/fuzz_reader: tests/fuzz/fuzz_reader.c $(OUTPUT)/tests/fuzz/fuzz_target.o \
		$(FUZZ_CLI_OBJS) $(LIBGTSC_INT)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -Itests/fuzz $^ $(LDLIBS) -o $@

# make fuzz [FUZZ_SECONDS=60]: AFL++ (afl-clang-fast, ASan + UBSan, persistent
# mode) over the reader and its consumers from tests/fuzz/corpus, one core,
# niced; fails on a crash or a hang (tests/fuzz/run.sh).
FUZZ_SECONDS ?= 60
FUZZ_OUT := $(OUTPUT)/fuzz
# GTSC_FUZZ: fuzzing-only sizes (kmem_map.c); never in a release build
FUZZ_CFLAGS := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-DGTSC_FUZZ
.PHONY: fuzz fuzz-bin
fuzz-bin:
	$(Q)$(MAKE) OUTPUT=$(FUZZ_OUT) CC=afl-clang-fast CFLAGS="$(FUZZ_CFLAGS)" \
		$(FUZZ_OUT)/tests/fuzz/fuzz_reader

fuzz: fuzz-bin
	$(Q)tests/fuzz/run.sh $(FUZZ_OUT)/tests/fuzz/fuzz_reader $(FUZZ_SECONDS) $(FUZZ_OUT)/findings

# Live-test workloads: static so the VM lane can run them too.
$(OUTPUT)/tests/live/%: tests/live/%.c | $(OUTPUT)/tests/live
	$(call msg,WORKLOAD,$@)
	$(Q)$(CC) -O1 -g -static $(WARN) -Iinclude $< -o $@

# A 32-bit task (ia32 syscalls): needs gcc-multilib (scripts/deps.sh).
$(OUTPUT)/tests/live/compat32: tests/live/compat32.c | $(OUTPUT)/tests/live
	$(call msg,WORKLOAD,$@)
	$(Q)$(CC) -m32 -O1 -g -static $(WARN) $< -o $@

# TEST_LANES: what `make test` runs (tests/run.sh's lanes; .ci/run adds asan, tsan).
TEST_LANES ?= all
.PHONY: unit-bins live-bins tsan-bins deps test test-unit test-live test-vm compat-table bench clean vmlinux demo
unit-bins: $(UNIT_BINS)
live-bins: $(LIVE_BINS)
# the unit tests that run the reader's worker (tests/run.sh's tsan lane)
tsan-bins: $(OUTPUT)/tests/unit/test_reader_threads

deps:
	$(Q)scripts/deps.sh

test: $(BIN) unit-bins live-bins
	$(Q)OUTPUT=$(BASE_OUTPUT) tests/run.sh $(if $(filter 1,$(SANITIZE)),asan,$(TEST_LANES))

test-unit: unit-bins
	$(Q)tests/run.sh unit

# The live tests inside Debian's 6.1 and 6.12 kernels under qemu, with the
# same static binary (tests/vm/README.md); part of `make test` too.
test-vm: live-bins
	$(Q)tests/run.sh vm

# README's compatibility table from the VM lane's logs of every kernel.
compat-table:
	$(Q)OUTPUT=$(OUTPUT) tests/vm/compat-table.sh --readme

test-live: $(BIN) live-bins
	$(Q)tests/run.sh live

# The README's first command: record something real and show it.
demo:
	$(Q)scripts/deps.sh build
	$(Q)$(MAKE) gtsc-bpf
	$(Q)./gtsc-bpf record -o demo.gtsc -- tar czf /tmp/gtsc-demo.tgz /usr/share/doc/bash
	$(Q)./gtsc-bpf report -i demo.gtsc | head -20
	$(Q)./gtsc-bpf report -i demo.gtsc --syscalls -T | head -25
	$(Q)./gtsc-bpf report -i demo.gtsc --kmem -n 5 | head -40

bench: gtsc-bpf
	$(Q)bench/run.sh

vmlinux:
	$(Q)vmlinux/gen.sh $(ARCH)

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) gtsc-bpf

.DELETE_ON_ERROR:
.SECONDARY:
