#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM: the suites (a program per topic, listed in
# /tests/topics) in every cell of the ABI matrix, {current, v0 binary} x
# {abi_version=1, 0} x {64, 32-bit}, each as root and as uid 65534 with no
# capabilities.  Markers let the host count each run.
# make mutate passes ffcells=abi1.current.64,... (the cells that can see a
# mutant) and ffheavy=1 if the long tests must run too.
. /guest-lib.sh
. /guest-heavy.sh

# make check's timed run, in a VM whose clock counts instructions: the
# tests that assert on time alone, at the latest ABI, as root and as
# uid 65534.
if [ "${fftimed:-0}" = 1 ]; then
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
	exit 0
fi

# Loaded with no parameter, the module is the latest ABI.
dmesg -c >/dev/null
if insmod /flagsfirst.ko; then
	mark "check default abi_version=$(cat /sys/module/flagsfirst/parameters/abi_version)"
	rmmod flagsfirst
else
	mark "check insmod with no parameter failed"
fi

# Rejected by the module's own check, with its own message: a module that
# fails to load for any other reason (a wrong vermagic, a bad relocation)
# fails this check instead of passing it.
dmesg -c >/dev/null
if insmod /flagsfirst.ko abi_version=2 2>/tmp/insmod.err; then
	mark "check abi_version=2 loaded"
	rmmod flagsfirst
elif dmesg | grep -q 'flagsfirst: abi_version=2: this module knows 0 to 1' &&
     grep -q 'Invalid argument' /tmp/insmod.err; then
	mark "check abi_version=2 rejected"
else
	mark "check abi_version=2 failed otherwise"
	cat /tmp/insmod.err
	dmesg | tail -n 5
fi

for abi in 1 0; do
	case ${ffcells:-abi$abi} in
	*abi$abi*) ;;
	*) continue ;;
	esac
	if ! insmod /flagsfirst.ko abi_version=$abi; then
		mark "check insmod abi_version=$abi failed"
		continue
	fi
	for bin in current v0; do
		for bits in 64 32; do
			suffix=
			[ $bin = v0 ] && suffix=$suffix-v0
			[ $bits = 32 ] && suffix=$suffix-m32
			# The CLOEXEC race and the long hostile-caller tests
			# do not depend on the ABI: run them in one cell.
			# (make mutate runs them only where it asks to.)
			cell=abi$abi.$bin.$bits
			case ${ffcells:-$cell} in
			*$cell*) ;;
			*) continue ;;
			esac
			skip=$HEAVY
			# (the timed tests too, unless a timed VM runs them)
			if [ "$cell" = abi1.current.64 ] && [ -z "${ffcells:-}" ]; then
				skip=
				[ "${fftimedvm:-0}" = 0 ] || skip=$TIMED
			fi
			[ "${ffheavy:-0}" = 1 ] && skip=
			# The run is told its cell's ABI: it must not learn it
			# from the module under test.
			export FLAGSFIRST_ABI=$abi
			for topic in $(cat /tests/topics); do
				exe=/tests/${topic}_test$suffix
				run $cell.$topic.root $exe $skip
				run $cell.$topic.uid65534 su -s /bin/sh -c "FLAGSFIRST_ABI=$abi $exe $skip" nobody
			done
		done
	done
	if rmmod flagsfirst; then
		mark "check rmmod abi_version=$abi ok"
	else
		mark "check rmmod abi_version=$abi failed"
	fi
done

# The guided tour, twice, in the check run too: as make demo runs it (the
# client on PATH with flagsfirst-v0 beside it, the .ko and races_test
# where $FLAGSFIRST_KO and $FLAGSFIRST_TESTS say), and as the README's
# quick start B does on a test VM: the module loaded and the static
# client alone, copied in (the lessons that need more are skipped, and
# named).  Each step must still show what its caption says; only the
# markers are kept, labelled.
if [ -z "${ffcells:-}" ]; then
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
			name=$1
			shift
			if "$@"; then
				mark "tour drive $name ok"
			else
				mark "tour drive $name failed"
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
fi
