#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make mutate inside the VM: for each module in /mutants/order (baseline,
# the module as it is, first), the current 64-bit suite as root at every
# ABI (guest-check.sh, its cells narrowed), between two markers, and the
# kernel log it left, for the host to judge each mutant on its own.
. /guest-lib.sh

while read -r name; do
	mark "mutant $name begin"
	dmesg -C
	ko=/mutants/$name.ko tag=$name. cells='abi*.current.64' identities=root \
		/guest-check.sh
	# a mutant that leaves the module loaded must not test the next one
	rmmod skel 2>/dev/null && mark "check $name.rmmod left it loaded failed"
	dmesg
	mark "mutant $name end"
done </mutants/order
