#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-check: every row of make bench against its committed baseline,
# lab/bench/baseline.tsv.  make bench on Debian's 6.12 with BENCH_ICOUNT=1,
# where the guest's clock counts instructions (one a ns), so that what
# the host is doing does not move a row; a row's figure is the median of
# $BENCH_CHECK_RUNS (3) runs, each a VM of its own: the same code can
# differ by 5% between two boots (SET + DELETE: 3,698 and 3,906, where
# the slab and the hash table start).  A row more than 3% worse than its
# baseline fails, printed with both figures.
#
#   check.sh             run the benchmark and compare (make bench-check)
#   check.sh --write     run it and write the baseline (make bench-baseline)
#   check.sh --compare LOG  compare a run's output already made
#
# A row is make bench's measurement and its first figure: instructions a
# call (lower is better), bytes an entry (lower), GETs a second (higher).
# The baseline names its kernel: on another build of 6.12 (a Debian
# update) every figure moves with the kernel's own code, so each row that
# has one is compared as its ratio to the floor (an ioctl rejected with
# ENOTTY) instead, and the run says so.  Prints "ok"/"not ok" per row,
# then "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
baseline=$top/lab/bench/baseline.tsv
LIMIT=${BENCH_CHECK_LIMIT:-3}	# percent
mode=check
case ${1:-} in
--write)	mode=write ;;
--compare)	mode=compare; log=${2:?usage: check.sh --compare LOG} ;;
"")		;;
*)		echo "usage: check.sh [--write | --compare LOG]" >&2; exit 2 ;;
esac

if [ "$mode" != compare ]; then
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	for run in $(seq "${BENCH_CHECK_RUNS:-3}"); do
		echo "# bench-check: run $run of ${BENCH_CHECK_RUNS:-3}"
		KERNELS=6.12 BENCH_ICOUNT=1 BENCH_ROUNDS=1 "$top/lab/vm/run.sh" bench | tee -a "$log"
		[ "${PIPESTATUS[0]}" = 0 ] || { echo "0 passed, 1 failed"; exit 1; }
	done
fi

# "NAME<TAB>FIGURE<TAB>RATIO<TAB>BETTER" for each row of the runs' tables,
# the median of its runs: the name is make bench's first 44 columns, the
# figure the first number after them, the ratio to the floor the "N.NNx"
# after it if there is one.
rows() {	# log
	each "$1" | sort -t "$(printf '\t')" -k1,1 -s | awk -F '\t' '
	# the middle of a[1..n], by value ("-" sorts as itself)
	function median(a, n,	i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return a[int((n + 1) / 2)]
	}
	function flush() {
		if (name == "")
			return
		print name "\t" median(fig, n) "\t" median(rat, n) "\t" better
	}
	$1 == "#kernel" { if (!k) print; k = 1; next }
	$1 != name { flush(); name = $1; n = 0 }
	{ n++; fig[n] = $2; rat[n] = $3; better = $4 }
	END { flush() }' | sort_like "$1"
}

# The rows in the order make bench prints them.
sort_like() {	# log
	awk -F '\t' 'NR == FNR { if (!($1 in at)) at[$1] = NR; next }
		{ print at[$1] "\t" $0 }' <(each "$1") - | sort -n -k1,1 | cut -f 2-
}

# Every row of every run, as rows() prints them.
each() {	# log
	awk '
	/^# kernel / { sub(/,.*/, "", $3); print "#kernel\t" $3; next }
	length($0) > 45 && substr($0, 1, 1) !~ /[#=>]/ {
		name = substr($0, 1, 44); sub(/ +$/, "", name)
		rest = substr($0, 46)
		if (name == "" || name ~ /^measurement/ || rest !~ /^ *[0-9]/)
			next
		split(rest, w, " ")
		figure = w[1]; sub(/,$/, "", figure)
		ratio = w[2] ~ /^[0-9.]+x$/ ? w[2] : "-"
		sub(/x$/, "", ratio)
		better = rest ~ /GETs\/s|two threads/ ? "higher" : "lower"
		print name "\t" figure "\t" ratio "\t" better
	}' "$1"
}

if [ "$mode" = write ]; then
	{
		echo "# make bench-check's baseline (lab/bench/check.sh --write): one round"
		echo "# on Debian's 6.12 with BENCH_ICOUNT=1 (instructions a call), made $(date -u +%F)"
		echo "# at $(git -C "$top" rev-parse --short HEAD).  Columns: row, figure, ratio"
		echo "# to the floor (- if none), which is better."
		rows "$log"
	} >"$baseline"
	echo "wrote $baseline ($(grep -vc '^#' "$baseline") rows)"
	exit 0
fi

[ -s "$baseline" ] || { echo "not ok - no baseline: $baseline"; echo "0 passed, 1 failed"; exit 1; }
rows "$log" >"$log.rows"
trap 'rm -f "$log.rows"' EXIT
kb=$(awk -F '\t' '$1 == "#kernel" { print $2 }' "$baseline")
kn=$(awk -F '\t' '$1 == "#kernel" { print $2 }' "$log.rows")
by=figure
if [ "$kb" != "$kn" ]; then
	by=ratio
	echo "# the baseline is of $kb, this run of $kn: rows compared by their ratio to the floor"
fi
awk -F '\t' -v limit="$LIMIT" -v by="$by" '
NR == FNR {
	if ($1 !~ /^#/)
		base[$1] = $0
	next
}
$1 == "#kernel" { next }
{
	seen[$1] = 1
	if (!($1 in base)) {
		printf "not ok - %s: %s, and no baseline for it (make bench-baseline)\n", $1, $2
		bad++
		next
	}
	split(base[$1], b, "\t")
	was = by == "ratio" ? b[3] : b[2]
	now = by == "ratio" ? $3 : $2
	if (was == "-" || now == "-" || was + 0 == 0) {
		if (by == "ratio") {
			printf "ok - %s # SKIP no ratio to the floor to compare on another kernel\n", $1
			skip++
			next
		}
		printf "not ok - %s: no figure to compare (baseline %s, now %s)\n", $1, was, now
		bad++
		next
	}
	worse = $4 == "higher" ? (was - now) / was * 100 : (now - was) / was * 100
	if (worse > limit) {
		printf "not ok - %s: %s %s, baseline %s: %.1f%% worse (limit %d%%)\n", \
		       $1, by, now, was, worse, limit
		bad++
	} else {
		printf "ok - %s: %s %s, baseline %s (%+.1f%%)\n", $1, by, now, was, -worse
		good++
	}
}
END {
	for (r in base)
		if (!(r in seen)) {
			printf "not ok - %s: in the baseline, not in this run\n", r
			bad++
		}
	printf "%d passed, %d failed%s\n", good, bad, skip ? ", " skip " skipped" : ""
	exit bad > 0
}' "$baseline" "$log.rows"
