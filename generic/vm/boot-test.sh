#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint's check of lib.sh's boot(), with a stand-in for QEMU first in
# PATH (this script, called as qemu-system-x86_64): which guests it boots
# again, and which it stops.
#   - a kernel that dies before init, or dies untainted before the module
#     was loaded, is booted three times; one that dies tainted by an
#     out-of-tree module, or finishes, once;
#   - a guest that sleeps, or spins, past TIMEOUT is stopped;
#   - a guest that spins on a CPU where other work starves it is not
#     stopped at TIMEOUT: the host did not let it run.
# Silent when all is as above; else says what was not, and exits 1.
# About 45 seconds.
set -euo pipefail

# The stand-in: writes -pidfile's file, prints a console as $FAKE says.
if [ "$(basename "$0")" = qemu-system-x86_64 ]; then
	while [ $# -gt 0 ]; do
		[ "$1" = -pidfile ] && { echo $$ >"$2"; shift; }
		shift
	done
	echo $$ >>"$FAKE_BOOTS"
	report() {	# taint
		printf '[    5.1] BUG: kernel NULL pointer dereference\n'
		printf '[    5.1] CPU: 1 UID: 0 PID: 77 Comm: sh %s 6.12.118 #1\n' "$1"
	}
	case $FAKE in
	early)	report "Not tainted" ;;
	untainted) echo "=== t: kernel 6.12 ==="; report "Not tainted" ;;
	tainted) echo "=== t: kernel 6.12 ==="; report "Tainted: G           O" ;;
	finished) printf '=== t: kernel 6.12 ===\n=== t: done ===\n' ;;
	sleep)	echo "=== t: kernel 6.12 ==="; exec sleep 1000 ;;
	spin)	echo "=== t: kernel 6.12 ==="; exec bash -c 'while :; do :; done' ;;
	starved) echo "=== t: kernel 6.12 ==="
		exec taskset -c 0 nice -n 19 bash -c 'while :; do :; done' ;;
	esac
	exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
hogs=()
trap '[ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/top/uapi/linux"
ln -s "$here/boot-test.sh" "$work/bin/qemu-system-x86_64"
touch "$work/top/uapi/linux/t.h"
export PATH=$work/bin:$PATH FAKE_BOOTS=$work/boots T_ACCEL=tcg VM_WATCH_STEP=1
# what lib.sh and boot() read
# shellcheck disable=SC2034
top=$work/top CACHE=$work BUILD=$work MEMORY=64 APPEND='' mode=check TIMEOUT=4
# shellcheck source=lib.sh
. "$here/lib.sh"

bad=0
# expect BOOTS SECONDS_AT_LEAST SECONDS_AT_MOST FAKE
expect() {
	local t0=$SECONDS n took
	: >"$FAKE_BOOTS"
	FAKE=$4 boot /vmlinuz /initrd test "$work/log.$4" 2>"$work/err.$4" || true
	n=$(wc -l <"$FAKE_BOOTS")
	took=$((SECONDS - t0))
	if [ "$n" != "$1" ] || [ "$took" -lt "$2" ] || [ "$took" -gt "$3" ]; then
		echo "a guest that is '$4': booted $n times in $took s, expected $1 in $2-$3 s; boot() said:"
		sed 's/^/  /' "$work/err.$4"
		bad=1
	fi
}
export FAKE
expect 3 0 5 early
expect 3 0 5 untainted
expect 1 0 3 tainted
expect 1 0 3 finished
expect 1 4 9 sleep
expect 1 4 9 spin
grep -q "its limit 4 s: stopped" "$work/log.spin" ||
	{ echo "the stopped VM's log does not say why"; bad=1; }
# Four busy loops at nice 0 on CPU 0 leave the nice-19 guest there about
# 1% of it: in 20 s of wall clock it runs well under its 4 s.
for _ in 1 2 3 4; do
	taskset -c 0 bash -c 'while :; do :; done' &
	hogs+=($!)
done
VM_WALL_LIMIT=20 expect 1 20 24 starved
exit $bad
