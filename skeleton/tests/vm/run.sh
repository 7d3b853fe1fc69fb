#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the module against stock Debian kernels and runs the suite in a
# QEMU VM, as root and as uid 65534:
#
#   run.sh check   on every kernel in $KERNELS (default "6.1 6.12"; also
#                  6.12-rt, and newest for sid's); prints the TAP, and
#                  "N passed, N failed"; exits non-zero on any failure
#   run.sh mutate  each mutant of tests/mutants (or those named in
#                  $MUTANTS) built and run, the current 64-bit suite as
#                  root at every ABI, on $MUTATE_KERNEL (default 6.1), all
#                  in one VM; every mutant must be killed
#
# A run fails on a failed test, a guest that never finishes (timeout, panic),
# or a WARN/BUG/Oops/KASAN/lockdep/UBSAN/kmemleak report in the guest's log.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: run.sh check|mutate}
fetch=$top/tests/vm/fetch.sh
CACHE=${SKEL_CACHE:-$HOME/.cache/skel}
BUILD=${SKEL_BUILD:-$top/build}
TIMEOUT=${SKEL_TIMEOUT:-1200}
MEMORY=1024
APPEND=
case $mode in
check)	KERNELS=${KERNELS:-6.1 6.12} ;;
mutate)	KERNELS=${MUTATE_KERNEL:-6.1} ;;
*)	echo "usage: run.sh check|mutate" >&2; exit 2 ;;
esac

. "$top/tests/vm/lib.sh"

step "setting up (packages, linux-source for the kselftest harness)"
"$fetch" deps
ksft=$("$fetch" source)/tools/testing/selftests
make -s -C "$top/tests" KSFT_DIR="$ksft"
make -s -C "$top/userspace"
# the frozen releases (tests/abi/vN), each a program of its own
RELEASES=$(make -s --no-print-directory -C "$top/tests" releases)

build_initramfs() {	# kver ko|mutants-dir -> path of the cpio
	local root=$BUILD/$1/initramfs r
	guest_root "$root"
	if [ -d "$2" ]; then
		cp -r "$2" "$root/mutants"
	else
		cp "$2" "$root/"
	fi
	cp "$top/tests/vm/init" "$top/tests/vm/guest-lib.sh" \
	   "$top/tests/vm/guest-check.sh" "$top/tests/vm/guest-hooks.sh" \
	   "$top/tests/vm/guest-client.sh" "$top/tests/vm/guest-mutate.sh" "$root/"
	# the suite, one program (topic "skel"), in /tests as guest-check.sh
	# wants it: TOPIC_test[-vN][-m32]
	mkdir -p "$root/tests"
	echo skel >"$root/tests/topics"
	cp "$top/tests/skel_test" "$top/tests/skel_test-m32" "$root/tests/"
	for r in $RELEASES; do
		cp "$top/tests/skel_test-$r" "$top/tests/skel_test-$r-m32" "$root/tests/"
	done
	cp "$top/userspace/skel" "$root/bin/"
	pack_initramfs "$root" "$BUILD/$1/initramfs.cpio.gz"
	echo "$BUILD/$1/initramfs.cpio.gz"
}

check_kernel() {	# kver log
	local log label latest cell who labels=client
	log=$(clean_log "$2")
	# every cell of the matrix, from the module's latest ABI down to 0
	latest=$(latest_abi "$log")
	[ -n "$latest" ] || { record fail "$1: the module's latest ABI never showed"; latest=0; }
	for cell in $(matrix_cells "$latest" $RELEASES); do
		for who in root uid65534; do
			labels="$labels $cell.skel.$who"
		done
	done
	echo "# $1: the runs, every cell of the matrix and the client: $labels"
	for label in $labels; do
		if grep -q "^=== skel: exit $label " "$log"; then
			count_run "$1" "$log" "$label"
			# a run of nothing but SKIPs proves nothing
			[ "$label" = client ] || [ "$p" -gt 0 ] ||
				record fail "$1: no test passed as $label"
		else
			record fail "$1: the suite never ran as $label"
		fi
	done
	check_loading "$1" "$log" "$latest"
	check_guest "$1" "$log"
}

# One mutant's part of the console (guest-mutate.sh's markers), judged:
# every run passed, no check failed, no report in its kernel log.
# Prints "failed=N" last.
judge_mutant() {	# kver seg name
	local label marker
	failed=0
	for label in $(sed -n "s/^=== skel: run \($3\..*\) ===\$/\1/p" "$2"); do
		count_run "$1" "$2" "$label"
	done
	grep -q "^=== skel: run $3\." "$2" || record fail "$1: $3: no run"
	while read -r marker; do
		record fail "$1: ${marker#=== skel: }"
	done < <(grep -E '^=== skel: check .* failed ===$' "$2" || true)
	if grep -qE "$REPORTS" "$2"; then
		record fail "$1: $3: the kernel log has a report"
		grep -E -m 3 "$REPORTS" "$2" | sed 's/^/#   /' || true
	fi
	echo "failed=$failed"
}

# Every mutant built, then run in one VM; a mutant that takes the VM down
# is killed, and the VM boots again for those not yet run.
mutate_kernel() {	# kver vmlinuz kdir root
	local list all name src ko kos=$BUILD/$1/mutants/ko pending next log seg
	local what needs latest= k=0 n=0
	list=$("$top/tests/mutants.pl" list "$top/tests/mutants") || {
		record fail "tests/mutants cannot be read"
		return
	}
	all=$(echo "$list" | cut -f 1)
	if [ -n "${MUTANTS:-}" ]; then
		for name in $MUTANTS; do
			echo "$all" | grep -qx -- "$name" ||
				record fail "MUTANTS names $name, which tests/mutants lacks"
		done
		all=$MUTANTS
	fi
	rm -rf "$BUILD/$1/mutants"
	mkdir -p "$kos"
	pending=
	for name in baseline $all; do
		src=$BUILD/$1/mutants/$name
		mkdir -p "$src"
		copy_module_source "$top" "$src"
		if [ "$name" != baseline ] &&
		   ! "$top/tests/mutants.pl" apply "$top/tests/mutants" "$name" "$src" 2>"$src.err"; then
			record fail "mutant $name does not apply: $(cat "$src.err")"
			continue
		fi
		step "building mutant $name"
		if ! ko=$(build_module "$1/mutants/$name" "$3" "$4" "$src" 2>"$src.err"); then
			record fail "mutant $name does not build: $(grep -m 1 error "$src.err")"
			continue
		fi
		cp "$ko" "$kos/$name.ko"
		pending="$pending $name"
	done
	case " $pending " in
	*" baseline "*) ;;
	*)	record fail "$1: the module as it is does not build"; return ;;
	esac
	while [ -n "$pending" ]; do
		echo "$pending" | tr ' ' '\n' | grep . >"$kos/order"
		initrd=$(build_initramfs "$1" "$kos")
		log=$BUILD/$1/mutate.console.log
		boot "$2" "$initrd" mutate "$log" || true
		log=$(clean_log "$log")
		next=
		for name in $pending; do
			seg=$BUILD/$1/mutants/$name.log
			sed -n "/^=== skel: mutant $name begin ===\$/,/^=== skel: mutant $name end ===\$/p" \
				"$log" >"$seg"
			if [ ! -s "$seg" ]; then
				next="$next $name"	# the VM went down before it
				continue
			fi
			if grep -q "^=== skel: mutant $name end ===" "$seg"; then
				(judge_mutant "$1" "$seg" "$name") >"$seg.judge" || true
			else
				echo "not ok - the VM went down" >"$seg.judge"
				tail -n 20 "$seg" | sed 's/^/#   /' >>"$seg.judge"
				echo "failed=1" >>"$seg.judge"
			fi
			if [ "$name" = baseline ]; then
				latest=$(sed -n 's/^=== skel: check baseline\.latest abi_version=\([0-9]*\) ===$/\1/p' "$seg")
				if [ "$(tail -n 1 "$seg.judge")" = failed=0 ] && [ -n "$latest" ]; then
					record ok
					echo "# the module as it is passes (its latest ABI: $latest)"
				else
					record fail "$1: the module as it is fails, so a kill says nothing:"
					grep '^not ok' "$seg.judge" | head -n 20 | sed 's/^/#   /'
					return
				fi
				continue
			fi
			what=$(echo "$list" | awk -F '\t' -v n="$name" '$1 == n { print $4 }')
			needs=$(echo "$list" | awk -F '\t' -v n="$name" '$1 == n { print $5 }')
			# Equivalent to the module as it is, where the project
			# has not what the mutant needs (tests/mutants, "needs:")
			if [ "$(tail -n 1 "$seg.judge")" = failed=0 ] &&
			   [ "$needs" = abi1 ] && [ "$latest" = 0 ]; then
				skipped=$((skipped + 1))
				echo "ok - mutant $name # SKIP changes nothing in a module of one ABI ($what)"
				continue
			fi
			if [ "$(tail -n 1 "$seg.judge")" = failed=0 ] && [ "$needs" = grown-input ]; then
				skipped=$((skipped + 1))
				echo "ok - mutant $name # SKIP changes nothing unless a struct grew by an input field ($what): if one did, test that field"
				continue
			fi
			n=$((n + 1))
			if [ "$(tail -n 1 "$seg.judge")" = failed=0 ]; then
				record fail "mutant $name survived: $what"
			else
				k=$((k + 1))
				record ok
				echo "ok - mutant $name killed by: $(grep -m 2 -E '^not ok' "$seg.judge" |
					sed -E 's/^not ok [-0-9]* ?//' | paste -sd ' ')"
			fi
		done
		if [ "$next" = "$pending" ]; then
			record fail "$1: the VM ran none of$next"
			tail -n 30 "$log" | sed 's/^/#   /'
			break
		fi
		pending=$next
	done
	echo "# $1: killed $k/$n mutants"
}

for series in $KERNELS; do
	if ! out=$("$fetch" kernel "$series"); then
		record fail "$series: fetching the kernel and its headers failed (fetch: above)"
		continue
	fi
	read -r kver vmlinuz kdir root <<<"$out"
	if [ "$mode" = mutate ]; then
		mutate_kernel "$kver" "$vmlinuz" "$kdir" "$root"
		continue
	fi
	step "building the module against $kver"
	if ! ko=$(build_module "$kver" "$kdir" "$root"); then
		record fail "$kver: building the module failed (make: above)"
		continue
	fi
	initrd=$(build_initramfs "$kver" "$ko")
	boot "$vmlinuz" "$initrd" "$mode" "$BUILD/$kver/console.log" || true
	echo "# kernel $kver"
	check_kernel "$kver" "$BUILD/$kver/console.log"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
