#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# flagsfirst's part of the generic guest-check.sh (generic/vm/), sourced by
# it: what each cell's programs leave out, and the tour after the matrix.
# make mutate passes cells=abi1.current.64,... (the cells that can see a
# mutant) and ffheavy=1 if the long tests must run too.
. /guest-heavy.sh

# The CLOEXEC race and the long hostile-caller tests do not depend on the
# ABI: they run in one cell, abi1.current.64 (make mutate runs them only
# where it asks to), and the timed tests there too unless a timed VM runs
# them (make check's fftimedvm=1).
hook_args() {	# cell
	if [ "${ffheavy:-0}" = 1 ]; then
		return
	elif [ "$1" != abi1.current.64 ] || [ -n "${cells:-}" ]; then
		echo "$HEAVY"
	elif [ "${fftimedvm:-0}" = 1 ]; then
		echo "$TIMED"
	fi
}

# The guided tour, twice, in the check run too: as make demo runs it (the
# client on PATH with flagsfirst-v0 beside it, the .ko and races_test
# where $FLAGSFIRST_KO and $FLAGSFIRST_TESTS say), and as the README's
# quick start B does on a test VM: the module loaded and the static
# client alone, copied in (the lessons that need more are skipped, and
# named).  Each step must still show what its caption says; only the
# markers are kept, labelled.
hook_after() {
	if insmod /flagsfirst.ko; then
		FLAGSFIRST_KO=/flagsfirst.ko FLAGSFIRST_TESTS=/tests \
			flagsfirst tour >/tmp/tour.out 2>&1
		sed -n 's/^=== flagsfirst: tour/=== flagsfirst: tour (demo)/p' /tmp/tour.out
		# the whole run, for the recorded tour (docs/tour.txt)
		echo "=== flagsfirst: tour output begin ==="
		grep -v '^=== flagsfirst: ' /tmp/tour.out
		echo "=== flagsfirst: tour output end ==="
		mkdir -p /tmp/vm-b
		cp /bin/flagsfirst /tmp/vm-b/
		# a bare VM's: no account but root (the tour drops to 65534
		# itself, with no su)
		cp /etc/passwd /tmp/passwd.full
		grep '^root:' /tmp/passwd.full >/etc/passwd
		/tmp/vm-b/flagsfirst tour >/tmp/tour.out 2>&1
		cp /tmp/passwd.full /etc/passwd
		sed -n 's/^=== flagsfirst: tour/=== flagsfirst: tour (client alone)/p' /tmp/tour.out
		# As a teacher drives it: a lesson list, lessons by number,
		# --pause (Enter before each step), and an exit status that
		# says whether a step was wrong (a device that answers every
		# ioctl with ENOTTY makes lesson 2's steps wrong).
		drive() {	# name command...: "tour drive NAME ok|failed"
			what=$1
			shift
			if "$@"; then
				mark "tour drive $what ok"
			else
				mark "tour drive $what failed"
			fi
		}
		drive list sh -c '[ "$(flagsfirst tour --list | grep -c "^[0-9]*\. ")" = 12 ]'
		drive lessons sh -c 'flagsfirst tour 4 7 >/tmp/t47 2>&1 &&
			grep -q "^=== 4\. " /tmp/t47 && grep -q "^=== 7\. " /tmp/t47 &&
			! grep -q "^=== [1235689]\. \|^=== 1[012]\. " /tmp/t47 &&
			grep -q "tour: [0-9]* steps, 0 wrong" /tmp/t47'
		drive pause sh -c 'yes "" | head -n 100 | flagsfirst tour 3 --pause >/tmp/t3 2>&1 &&
			[ "$(grep -o "\[Enter\]" /tmp/t3 | wc -l)" = 2 ]'
		drive wrong-exits-1 sh -c 'FLAGSFIRST_DEV=/dev/null flagsfirst tour 2 >/tmp/t2 2>&1
			[ $? = 1 ] && grep -q "tour: [0-9]* steps, [1-9][0-9]* wrong" /tmp/t2'
		drive bad-usage-exits-2 sh -c 'flagsfirst tour 13 2>/dev/null; [ $? = 2 ]'
		rmmod flagsfirst || mark "check rmmod after the tour failed"
	else
		mark "check insmod for the tour failed"
	fi
}
