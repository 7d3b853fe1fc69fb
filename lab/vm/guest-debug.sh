#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The job of make check-debug inside a debug-kernel VM: the whole suite,
# KUnit (flagsfirst_kunit.ko, at load), the fuzzer, the stress test, fault
# injection, load and unload cycles, then a kmemleak scan.  Markers let the
# host count each part.
FUZZ_IOCTLS=${ffioctls:-1000000}
CYCLES=${ffcycles:-100}

. /guest-lib.sh
. /guest-heavy.sh

# What the kernel allocated before us is not ours to report.
echo clear >/sys/kernel/debug/kmemleak

insmod /flagsfirst.ko || mark "check insmod failed"
# the ABI the module is loaded with, for the suite to expect
export FLAGSFIRST_ABI=1
# ffsuites: which of the suite's runs besides root's 64-bit one (the host
# gives each debug kernel its share: uid65534, m32).  The tests that assert
# on time ($TIMED) are make check's timed run's: the two debug kernels'
# VMs run side by side, on the host's clock.
for topic in $(cat /tests/topics); do
	run suite.$topic.root /tests/${topic}_test $SCALE $TIMED
	case ",${ffsuites:-uid65534,m32}," in
	*,uid65534,*)
		run suite.$topic.uid65534 su -s /bin/sh -c "FLAGSFIRST_ABI=1 /tests/${topic}_test $SCALE $TIMED" nobody ;;
	esac
	case ",${ffsuites:-uid65534,m32}," in
	*,m32,*) run suite32.$topic.root /tests/${topic}_test-m32 $HEAVY ;;
	esac
done
# KUnit: its own module, whose suite runs as it loads (results in dmesg).
# After the suite, which checks that flagsfirst.ko alone taints nothing.
if insmod /flagsfirst_kunit.ko; then
	rmmod flagsfirst_kunit || mark "check rmmod flagsfirst_kunit failed"
else
	mark "check insmod flagsfirst_kunit failed"
fi
rmmod flagsfirst || mark "check rmmod after the suite failed"

# The torture tests want a table nobody else has touched; fault injection
# first, before the fuzzer leaves immutable entries behind.
insmod /flagsfirst.ko || mark "check insmod for torture failed"
run faults /flagsfirst_torture faults
run stress /flagsfirst_torture stress -t 20
run fuzz /flagsfirst_torture fuzz -n "$FUZZ_IOCTLS"
rmmod flagsfirst || mark "check rmmod after torture failed"

# Load and unload, with entries and watchers in between; rmmod must fail
# while a /dev/flagsfirst or a watch fd is open, and work once it is closed.
failures=0
fail() {
	echo "lifecycle cycle $i: $*"
	failures=$((failures + 1))
}
i=0
while [ $i -lt "$CYCLES" ]; do
	insmod /flagsfirst.ko || fail "insmod"
	flagsfirst set "cycle$i" value >/dev/null || fail "set"
	flagsfirst watch --count 1 >/dev/null &
	watcher=$!
	tries=0
	until ls -l /proc/$watcher/fd 2>/dev/null | grep -q flagsfirst-watch; do
		tries=$((tries + 1))
		[ $tries -gt 200 ] && { fail "no watch fd"; break; }
		sleep 0.05
	done
	rmmod flagsfirst 2>/dev/null && fail "rmmod worked with a watch fd open"
	flagsfirst set "wake$i" value >/dev/null || fail "set to wake the watcher"
	wait $watcher || fail "watcher"
	exec 3</dev/flagsfirst
	rmmod flagsfirst 2>/dev/null && fail "rmmod worked with /dev/flagsfirst open"
	exec 3<&-
	flagsfirst delete --all >/dev/null || fail "delete --all"
	rmmod flagsfirst || fail "rmmod with nothing open"
	i=$((i + 1))
done
mark "lifecycle cycles=$i failures=$failures"

# Twice: kmemleak reports an object only once it has been seen unreferenced.
# Without kmemleak there is no end marker, and the host counts no figure.
if echo scan >/sys/kernel/debug/kmemleak; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	mark "kmemleak begin"
	cat /sys/kernel/debug/kmemleak && mark "kmemleak end"
else
	mark "check kmemleak failed"
fi
