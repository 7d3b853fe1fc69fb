#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check's timed run, in a VM whose clock counts instructions (QEMU's
# -icount; vmjob=check fftimed=1): the tests that assert on time alone, at
# the latest ABI, as root and as uid 65534.
. /guest-lib.sh
. /guest-heavy.sh

if insmod /flagsfirst.ko; then
	export FLAGSFIRST_ABI=1
	for t in "waits_test" "memcg_test $TIMED_MEMCG"; do
		run timed.${t%%_test*}.root /tests/$t
		run timed.${t%%_test*}.uid65534 su -s /bin/sh -c "FLAGSFIRST_ABI=1 /tests/$t" nobody
	done
	rmmod flagsfirst || mark "check rmmod after the timed run failed"
else
	mark "check insmod for the timed run failed"
fi
