# SPDX-License-Identifier: GPL-2.0-only
#
#   make            module (against the running kernel, or KDIR=...) + client
#   make check      the test suite in QEMU on 6.1, 6.12, 6.12-rt and sid's
#                   newest kernel (KERNELS="..." narrows it)
#   make check-debug  KUnit, fuzzer, stress, fault injection, load/unload
#                   cycles and kmemleak on KASAN+lockdep+UBSAN kernels, one
#                   of them PREEMPT_RT
#   make bench      flagsfirst against the VFS, in QEMU on every kernel;
#                   BENCH_AGAINST=REV also loads REV's module in turn, in
#                   the same VM, each round with both modules' code moved
#                   alike, and prints both modules' median ratios;
#                   BENCH_ICOUNT=1 counts instructions instead of time
#   make bench-check  every row of make bench (6.12, instructions, one
#                   round) against lab/bench/baseline.tsv: none may be
#                   more than 3% worse (make bench-baseline remakes it)
#   make lint       checkpatch, sparse, W=1, uapi header rules, cppcheck,
#                   man pages, dkms and make install, each a check
#   make install    module (modules_install), header, client, man pages;
#                   DESTDIR and PREFIX (default /usr/local) as usual
#   make demo       boot 6.1 (or KERNEL=...) in QEMU and take the guided tour;
#                   DEMO_SHELL=1 leaves a shell in the VM after it (the
#                   module loaded, flagsfirst on PATH; exit powers off)
#   make pictures   the class's pictures in docs/pictures/ (graphviz): the
#                   surveyed calls by release, the size rule, the rules
#   make census     every ioctl payload of Linux's own uapi (6.1, 6.12, 7.2)
#                   read as an interface by generic/lint/uapi-lint.py:
#                   holes, 32/64-bit differences, flags (docs/census.md)
#   make survey     flagsfirst survey, the atlas (flags, size rules and
#                   discovery of the kernel's own calls) on every kernel of
#                   the matrix, each row checked against what is pinned for
#                   its release; remakes docs/survey.md's tables
#   make mutate     break each rule of the module on purpose (lab/mutate/
#                   mutants) and require the suite to notice every time
#   make check-template  scripts/new-interface into a temporary directory:
#                   the generated project's checks and its own make check
#   make upstream   the interface as a patch series for Linux, with a cover
#                   letter, in build/upstream/series (KSRC=tree to target)
#   make check-upstream  the series applied to pristine 6.12 and sid's newest
#                   trees: checkpatch, in-tree W=1 C=1 build, UAPI header
#                   test, the selftests in QEMU on that kernel
#   make syz        syzkaller against the module for SYZ_MINUTES (10) on a
#                   KCOV+KASAN+lockdep+kmemleak kernel; SYZKALLER=path is
#                   a source tree or tarball (default: ../shared's snapshot)
#
#   make help       this text
#
# check and demo install what they need (apt) and cache kernels under
# ~/.cache/flagsfirst; KERNELS="6.1" narrows check to one kernel.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
# The kernel release KDIR builds for, as the module's vermagic has it (on
# Debian's headers, include/config/kernel.release holds the upstream one)
KREL = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# modules_install keeps the module's directory under this one
INSTALL_MOD_DIR ?= extra
MAN_1 := man/flagsfirst.1
MAN_4 := man/flagsfirst.4
MAN_2CONST := $(wildcard man/*.2const)

all: module userspace

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

# the suites, and make bench's program
tests:
	$(MAKE) -C tests
	$(MAKE) -C lab/bench

check:
	lab/vm/run.sh check

check-debug:
	lab/vm/run.sh debug

bench:
	lab/vm/run.sh bench

demo:
	lab/vm/run.sh demo

# The class's pictures (docs/pictures/), from the survey's pins and the
# header, with Debian's graphviz
pictures:
	lab/pictures/pictures.sh

# The uapi census: generic/lint/uapi-lint.py over include/uapi of each
# kernel (CENSUS_KERNELS, default 6.1 6.12 7.2); CENSUS_DOC=docs/census.md
# remakes its tables
census:
	lab/census/census.sh

check-template:
	lab/check-template

# Every row of make bench (6.12, BENCH_ICOUNT=1, one round) against
# lab/bench/baseline.tsv: a row more than 3% worse fails; bench-baseline
# remakes the baseline from a run
bench-check:
	lab/bench/check.sh

bench-baseline:
	lab/bench/check.sh --write

# The interface as a patch series for Linux (generic/upstream/series.sh),
# against KSRC (default: the newest tree the project can fetch, sid's
# linux-source, 7.2 today), into UPSTREAM_OUT;
# check-upstream proves it on 6.12 and sid's newest (SERIES= narrows it)
UPSTREAM_OUT ?= build/upstream/series
upstream:
	$(MAKE) -s -C tests gen/now/ops.h gen/releases.h
	generic/upstream/series.sh "$(or $(KSRC),$(shell generic/vm/fetch.sh source newest))" $(UPSTREAM_OUT)

check-upstream:
	$(MAKE) -s -C tests gen/now/ops.h gen/releases.h
	generic/upstream/check.sh $(SERIES)

# flagsfirst survey on every kernel of the matrix (SURVEY_DOC= to keep
# docs/survey.md as it is)
survey:
	SURVEY_DOC=$${SURVEY_DOC-docs/survey.md} lab/vm/run.sh survey
	SURVEY_DOC=$${SURVEY_DOC-docs/survey.md} lab/survey/witnesses.sh

# Every mutant of lab/mutate/mutants must be killed (MUTANTS="a b" for
# some; MUTATE_SAMPLE=1 for the sample .ci/run takes)
mutate:
	MUTANTS="$(if $(MUTATE_SAMPLE),$(shell grep -v "^#" lab/mutate/sample),$(MUTANTS))" lab/vm/run.sh mutate

mutate-sample:
	$(MAKE) mutate MUTATE_SAMPLE=1

syz:
	generic/syz/run.sh

# checkpatch --strict runs on module/ and uapi/ with nothing ignored.  On
# userspace/ and tests/ it ignores the rules that are kernel-only: the
# kernel's own types (u64, not uint64_t), BIT(), strscpy() and __aligned(),
# the printk rules on messages (function names in them, strings split to
# fit), names that C and libc give in CamelCase (PRIu64, _Static_assert),
# argument reuse in sizeof/offsetof macros, ENOSYS (userspace/survey.c
# reads it as the kernel's answer for a call it lacks); in tests/ also kselftest's
# macro idioms (FIXTURE_VARIANT(op) used as a type, multi-statement TEST
# macros).
CHECKPATCH_USER_IGNORE := PREFER_KERNEL_TYPES,BIT_MACRO,STRCPY,EMBEDDED_FUNCTION_NAME,PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE,SPLIT_STRING,MACRO_ARG_REUSE,ENOSYS
CHECKPATCH_TEST_IGNORE := $(CHECKPATCH_USER_IGNORE),COMPLEX_MACRO,SPACING

# The generic checks (generic/lint/lint.sh), then flagsfirst's own
# (lab/lint/lint-extra.sh).  The legacy rename keeps no flags field on
# purpose (lesson 8).
lint:
	CHECKPATCH_USER_IGNORE=$(CHECKPATCH_USER_IGNORE) \
	CHECKPATCH_TEST_IGNORE=$(CHECKPATCH_TEST_IGNORE) \
	LINT_VM=generic/vm KERNELS="$${KERNELS:-6.1 6.12 6.12-rt newest}" \
	UAPI_LINT_ARGS="--allow FLAGSFIRST_IOC_RENAME_LEGACY:no-flags" \
	LINT_USER_FILES="$$(git ls-files 'lab/bench/*.c')" LINT_QUOTE_ALSO="--also skeleton" \
	LINT_EXTRA=lab/lint/lint-extra.sh generic/lint/lint.sh

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile

install: module userspace
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) DEPMOD=/bin/true modules_install
	install -D -m 0644 uapi/linux/flagsfirst.h $(DESTDIR)$(PREFIX)/include/linux/flagsfirst.h
	install -D -m 0755 userspace/flagsfirst $(DESTDIR)$(PREFIX)/bin/flagsfirst
	install -D -m 0644 $(MAN_1) -t $(DESTDIR)$(MANDIR)/man1
	install -D -m 0644 $(MAN_4) -t $(DESTDIR)$(MANDIR)/man4
	install -D -m 0644 $(MAN_2CONST) -t $(DESTDIR)$(MANDIR)/man2const
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KREL); fi

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KREL)/$(INSTALL_MOD_DIR)/module/flagsfirst.ko*
	rm -f $(DESTDIR)$(PREFIX)/include/linux/flagsfirst.h
	rm -f $(DESTDIR)$(PREFIX)/bin/flagsfirst
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man4/,$(notdir $(MAN_4)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man2const/,$(notdir $(MAN_2CONST)))
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KREL); fi

clean:
	$(MAKE) -C userspace clean
	$(MAKE) -C tests clean
	$(MAKE) -C lab/bench clean
	rm -rf build
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c \
		module/.*.cmd module/modules.order .*.cmd Module.symvers \
		modules.order generic/module/*.o generic/module/.*.cmd \
		.module-common.o .checkpatch-camelcase.*

.PHONY: all module userspace tests check check-debug check-template upstream check-upstream bench bench-check bench-baseline help demo pictures census survey mutate mutate-sample syz lint install uninstall clean
