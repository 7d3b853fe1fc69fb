#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The job of make bench inside the VM: one run of the benchmark.  With
# BENCH_AGAINST (the host put /flagsfirst-against.ko here), the module of
# that revision and this one are loaded in turn, round after round, so
# that both meet the same moments of the host: the only fair way to
# compare two builds under TCG, whose speed drifts between VM runs.
. /guest-lib.sh

if [ ! -e /flagsfirst-against.ko ]; then
	insmod /flagsfirst.ko || mark "insmod failed"
	mark "bench begin"
	/flagsfirst_bench
	mark "bench end $?"
	exit
fi

mark "bench begin"
status=0
for round in $(seq "${ffrounds:-3}"); do
	# Each module goes first in every other round, so that neither
	# always takes the place the other has just left (docs/benchmarks.md).
	order="against current"
	[ $((round % 2)) = 0 ] && order="current against"
	for m in $order; do
		ko=/flagsfirst.ko
		[ $m = against ] && ko=/flagsfirst-against.ko
		# make bench's layouts: this round's builds, padded alike
		[ -e "${ko%.ko}-r$round.ko" ] && ko=${ko%.ko}-r$round.ko
		pad=$(sed -n "s/^$round //p" /bench-layouts 2>/dev/null)
		if ! insmod $ko; then
			mark "insmod $m failed"
			status=1
			continue
		fi
		mark "bench module $m round $round at $(cat /sys/module/flagsfirst/sections/.text 2>/dev/null) padded ${pad:-0}"
		/flagsfirst_bench || status=1
		rmmod flagsfirst || { mark "rmmod $m failed"; status=1; }
	done
done
mark "bench end $status"
