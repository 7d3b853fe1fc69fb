#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the module against stock Debian kernels and runs the suite in a
# QEMU VM, as root and as uid 65534:
#
#   run.sh check   on every kernel in $KERNELS (default "6.1 6.12"; also
#                  6.12-rt, and newest for sid's); prints the TAP, and
#                  "N passed, N failed"; exits non-zero on any failure
#
# A run fails on a failed test, a guest that never finishes (timeout, panic),
# or a WARN/BUG/Oops/KASAN/lockdep/UBSAN/kmemleak report in the guest's log.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: run.sh check}
fetch=$top/tests/vm/fetch.sh
CACHE=${SKEL_CACHE:-$HOME/.cache/skel}
BUILD=${SKEL_BUILD:-$top/build}
TIMEOUT=${SKEL_TIMEOUT:-1200}
MEMORY=1024
APPEND=
case $mode in
check)	KERNELS=${KERNELS:-6.1 6.12} ;;
*)	echo "usage: run.sh check" >&2; exit 2 ;;
esac

. "$top/tests/vm/lib.sh"

step "setting up (packages, linux-source for the kselftest harness)"
"$fetch" deps
ksft=$("$fetch" source)/tools/testing/selftests
make -s -C "$top/tests" KSFT_DIR="$ksft"
make -s -C "$top/userspace"

build_initramfs() {	# kver ko -> path of the cpio
	local root=$BUILD/$1/initramfs a
	rm -rf "$root"
	mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp}
	printf 'root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/tmp:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	cp /bin/busybox "$root/bin/"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
	cp "$top/tests/vm/init" "$top/tests/vm/guest-lib.sh" \
	   "$top/tests/vm/guest-check.sh" "$top/tests/vm/guest-client.sh" \
	   "$top/tests/skel_test" "$top/tests/skel_test-m32" \
	   "$top/tests/skel_test-v0" "$top/tests/skel_test-v0-m32" "$2" "$root/"
	cp "$top/userspace/skel" "$root/bin/"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) \
		>"$BUILD/$1/initramfs.cpio.gz"
	echo "$BUILD/$1/initramfs.cpio.gz"
}

check_kernel() {	# kver log
	local log label marker latest abi bin bits who labels=client
	log=$(clean_log "$2")
	# every cell of the matrix, from the module's latest ABI down to 0
	latest=$(sed -n 's/^=== skel: check latest abi_version=\([0-9]*\) ===$/\1/p' "$log")
	[ -n "$latest" ] || { record fail "$1: the module's latest ABI never showed"; latest=0; }
	for abi in $(seq "$latest" -1 0); do
		for bin in current v0; do
			for bits in 64 32; do
				for who in root uid65534; do
					labels="$labels abi$abi.$bin.$bits.$who"
				done
			done
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
	while read -r marker; do
		record fail "$1: ${marker#=== skel: }"
	done < <(grep -E '^=== skel: check .* failed ===$' "$log" || true)
	check_guest "$1" "$log"
}

for series in $KERNELS; do
	if ! out=$("$fetch" kernel "$series"); then
		record fail "$series: fetching the kernel and its headers failed (fetch: above)"
		continue
	fi
	read -r kver vmlinuz kdir root <<<"$out"
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
