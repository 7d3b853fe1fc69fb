#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint's check of lib.sh's boot(), with a stand-in for QEMU first in
# PATH (this script, called as qemu-system-x86_64): which guests it boots
# again, and which it stops.
#   - a kernel that dies before init, or reports untainted (before the
#     module was loaded), dead or finished, is booted three times; one that
#     dies or reports tainted by an out-of-tree module, or finishes without
#     a report, once;
#   - a guest that sleeps, or spins, past TIMEOUT is stopped at TIMEOUT;
#   - a guest that spins on a CPU where other work starves it is not
#     stopped at TIMEOUT (the host did not let it run), only by the wall
#     clock's limit.
# Silent when all is as above; else says what was not, and exits 1.
# About 40 seconds, on a busy host too: the spinning guest is given a
# higher priority (as root: nice, and its session's autogroup), the
# starved one a CPU of its own with four busy loops.
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
	finished-untainted) echo "=== t: kernel 6.12 ==="; report "Not tainted"
		echo "=== t: done ===" ;;
	finished-tainted) echo "=== t: kernel 6.12 ==="
		report "Tainted: G           O"; echo "=== t: done ===" ;;
	sleep)	echo "=== t: kernel 6.12 ==="; exec sleep 1000 ;;
	spin)	echo "=== t: kernel 6.12 ==="
		# With autogroups the scheduler weighs sessions, so nice alone
		# does nothing against other users' builds: a session of its
		# own, its group's weight raised (as root)
		exec setsid bash -c 'echo -10 >/proc/self/autogroup 2>/dev/null
			exec nice -n -10 bash -c "while :; do :; done"' 2>/dev/null ;;
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
top=$work/top CACHE=$work BUILD=$work MEMORY=64 APPEND='' mode=check TIMEOUT=6
# shellcheck source=lib.sh
. "$here/lib.sh"

bad=0
# expect BOOTS SECONDS_AT_LEAST SECONDS_AT_MOST STOPPED FAKE: boot() booted
# the guest BOOTS times, in that many seconds; STOPPED: whether the
# watcher stopped it
expect() {
	local t0=$SECONDS n took stopped=no
	: >"$FAKE_BOOTS"
	# in the background, under set -e, as the runners call it
	FAKE=$5 boot /vmlinuz /initrd test "$work/log.$5" 2>"$work/err.$5" &
	wait $! || true
	n=$(wc -l <"$FAKE_BOOTS")
	took=$((SECONDS - t0))
	! grep -q "its limit $TIMEOUT s: stopped" "$work/log.$5" || stopped=yes
	if [ "$n" != "$1" ] || [ "$took" -lt "$2" ] || [ "$took" -gt "$3" ] ||
	   [ "$stopped" != "$4" ]; then
		echo "a guest that is '$5': booted $n times in $took s, stopped by the watcher: $stopped;" \
		     "expected $1 in $2-$3 s, $4; boot() said:"
		sed 's/^/  /' "$work/err.$5"
		bad=1
	fi
}
export FAKE
expect 3 0 10 no early
expect 3 0 10 no untainted
expect 1 0 5 no tainted
expect 1 0 5 no finished
expect 3 0 10 no finished-untainted
expect 1 0 5 no finished-tainted
expect 1 6 23 yes sleep
expect 1 6 23 yes spin
# Four busy loops at nice 0 on CPU 0 leave the nice-19 guest there well
# under 1% of it: in 20 s of wall clock it runs far less than its 6 s.
for _ in 1 2 3 4; do
	taskset -c 0 bash -c 'while :; do :; done' &
	hogs+=($!)
done
# (It ends at the wall clock's 20 s; QEMU's pipe and the watcher take a
# few seconds more to wind down on a loaded host.)
VM_WALL_LIMIT=20 expect 1 20 30 no starved
exit $bad
