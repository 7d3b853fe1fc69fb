# SPDX-License-Identifier: GPL-2.0-only
#
#   make            module (against the running kernel, or KDIR=...) + client
#   make check      the test suite in QEMU on Debian's 6.1 and 6.12 kernels
#   make demo       boot 6.1 in QEMU and take the guided tour
#
# check and demo install what they need (apt) and cache kernels under
# ~/.cache/flagsfirst; KERNELS="6.1" narrows check to one kernel.

KDIR ?= /lib/modules/$(shell uname -r)/build

all: module userspace

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

tests:
	$(MAKE) -C tests

check:
	tests/vm/run.sh check

demo:
	tests/vm/run.sh demo

clean:
	$(MAKE) -C userspace clean
	$(MAKE) -C tests clean
	rm -rf build
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c \
		module/.*.cmd module/modules.order .*.cmd Module.symvers \
		modules.order

.PHONY: all module userspace tests check demo clean
