#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the module against stock Debian kernels and runs a job in a QEMU VM.
#
#   run.sh check   the test suite on every kernel in $KERNELS (default
#                  "6.1 6.12 6.12-rt newest": Debian 12's stock, its
#                  PREEMPT_RT, and sid's newest); prints the TAP, a summary
#                  per kernel and "N passed, N failed"; exits non-zero on
#                  any failure, a kernel that cannot be fetched or built
#                  included
#   run.sh debug   on the debug kernels in $DEBUG_KERNELS (default "debug rt",
#                  generic/vm/debug-kernel.sh; rt is PREEMPT_RT): KUnit, the
#                  suite, the fuzzer, the stress test, fault injection,
#                  load/unload cycles and a kmemleak scan, with figures
#   run.sh bench   the benchmark on every kernel in $KERNELS, as a table;
#                  with BENCH_AGAINST=REV, REV's module and this one in
#                  turn, $BENCH_ROUNDS (3) rounds in one VM, and the
#                  median ratios of both side by side; each round after
#                  the first moves both modules' code to a new place in
#                  its pages (BENCH_LAYOUTS=0: never)
#   run.sh demo    the guided tour on $KERNEL (default 6.1; or the first
#                  of $KERNELS); with DEMO_SHELL=1, a shell in the VM
#                  after it, on this terminal, the module loaded
#   run.sh survey  flagsfirst survey on every kernel in $KERNELS (the
#                  module loaded, for the reference rows): each row checked
#                  against what the client pins for the release, as root
#                  and as uid 65534; the tables side by side and the rows
#                  that changed between kernels; with SURVEY_DOC=FILE,
#                  FILE's tables remade from the run (lab/survey/report.sh)
#   run.sh mutate  each mutant of generic/mutate/mutants (the dispatcher's,
#                  which every generated interface runs too) and of
#                  lab/mutate/mutants (flagsfirst's own), or those named
#                  in $MUTANTS, built and run in its cells on
#                  $MUTATE_KERNEL (default 6.1): a table and "killed K/N"
#
# QEMU_ARGS are added to QEMU's command line.  make bench BENCH_ICOUNT=1
# adds "-icount shift=0": the guest's clock then counts the instructions
# executed, one a nanosecond, which tells a change in the code from the
# host's drift and TCG's own costs (docs/benchmarks.md).
#
# A run fails on a failed test, a guest that never finishes (timeout, panic),
# or a WARN/BUG/Oops/KASAN/lockdep/UBSAN/kmemleak report in the guest's log.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: run.sh check|demo}
fetch=$top/generic/vm/fetch.sh
CACHE=${FLAGSFIRST_CACHE:-$HOME/.cache/flagsfirst}
BUILD=${FLAGSFIRST_BUILD:-$top/build}
TIMEOUT=${FLAGSFIRST_TIMEOUT:-1200}
MEMORY=1024
APPEND=
case $mode in
check)	KERNELS=${KERNELS:-6.1 6.12 6.12-rt newest} ;;
debug)	KERNELS=${DEBUG_KERNELS:-debug rt}
	TIMEOUT=${FLAGSFIRST_TIMEOUT:-3600}
	MEMORY=2048	# KASAN's shadow
	FUZZ_IOCTLS=${FLAGSFIRST_FUZZ_IOCTLS:-1000000}
	CYCLES=${FLAGSFIRST_CYCLES:-100}
	# the cases of flagsfirst_kunit.ko's two suites, flagsfirst's own
	# (module/kunit.c) and the generic core's (dispatch_kunit.c): all
	# must run and pass
	KUNIT_CASES=$(cat "$top/module/kunit.c" "$top/generic/module/dispatch_kunit.c" |
		grep -c '^	KUNIT_CASE(' || true)
	# The KUnit suite is its own module, for the debug kernels only.
	MODULE_MAKE_ARGS=CONFIG_FLAGSFIRST_KUNIT_TEST=m
	debug_append="ffioctls=$FUZZ_IOCTLS ffcycles=$CYCLES" ;;
bench)	KERNELS=${KERNELS:-6.1 6.12 6.12-rt newest}
	BENCH_ROUNDS=${BENCH_ROUNDS:-3}
	# a round of two modules takes about 90 s under TCG here
	TIMEOUT=${FLAGSFIRST_TIMEOUT:-$((1200 + 120 * BENCH_ROUNDS))}
	# BENCH_ICOUNT=1: the guest's clock counts instructions (one a ns)
	[ "${BENCH_ICOUNT:-0}" = 0 ] || QEMU_ARGS="${QEMU_ARGS:-} -icount shift=0"
	APPEND="ffrounds=$BENCH_ROUNDS" ;;
demo)	KERNELS=${KERNEL:-${KERNELS:-6.1}}; KERNELS=${KERNELS%% *} ;;
survey)	KERNELS=${KERNELS:-6.1 6.12 6.12-rt newest} ;;
mutate)	KERNELS=${MUTATE_KERNEL:-6.1} ;;
*)	echo "usage: run.sh check|debug|bench|demo|survey|mutate" >&2; exit 2 ;;
esac

. "$top/generic/vm/lib.sh"
surveyed=()

# What says a mutant was noticed: a failed test, a load check that went
# wrong (generic/vm/guest-check.sh), a kernel report.
MUTANT_DEAD="^not ok [0-9]|^=== flagsfirst: check (latest abi_version=[^1]|.* failed) ===|$REPORTS"

# make bench BENCH_AGAINST=REV: REV's module, from git, built beside this one
against=
if [ "$mode" = bench ] && [ -n "${BENCH_AGAINST:-}" ]; then
	against=$(git -C "$top" rev-parse --short --verify "$BENCH_AGAINST^{commit}") ||
		{ echo "run.sh: BENCH_AGAINST=$BENCH_AGAINST is not a commit of this repository" >&2; exit 2; }
	rm -rf "$BUILD/against"
	mkdir -p "$BUILD/against"
	# what the module is built from (generic/ since it was kept apart)
	git -C "$top" archive "$against" $(git -C "$top" ls-tree --name-only "$against" \
		Kbuild module uapi generic) | tar -x -C "$BUILD/against"
fi

# Under TCG a build's speed depends on where its code falls within pages:
# QEMU finds the next block of translated code through a cache that gives
# each guest page 64 slots, picked by address bits, and a block whose slot
# another block on the same path also takes is looked up the slow way on
# every call.  Two builds of the same code can differ by 5% this way, and
# the same build moved by a few hundred bytes too (docs/benchmarks.md,
# "Seventh look").  So in an A/B run, round R loads both modules built with
# the same padding before their code, a different one each round, and the
# medians compare the code over as many layouts as there are rounds.
layouts=0
[ -z "$against" ] || [ "${BENCH_LAYOUTS:-1}" = 0 ] || [ "$BENCH_ROUNDS" -lt 2 ] ||
	layouts=1
# 1488 is 93 * 16: steps of the functions' alignment that visit all 256
# such offsets in a page before one comes back.
layout_pad() {	# round -> bytes of padding (round 1: none, the real build)
	echo $(( ($1 - 1) * 1488 % 4096 ))
}

# A copy of the module's source with @pad bytes of int3 linked before its
# code: the object comes first in the module's object list.
padded_tree() {	# from name pad -> dir
	local dir=$BUILD/layouts/$2-$3
	rm -rf "$dir"
	mkdir -p "$dir"
	copy_module_source "$1" "$dir"
	printf '\t.section .text, "ax"\n\t.fill %d, 1, 0xcc\n' "$3" >"$dir/module/bench_pad.S"
	cat >>"$dir/module/Kbuild" <<-EOF
	# make bench: $3 bytes before the module's code (lab/vm/run.sh)
	flagsfirst-y := bench_pad.o \$(flagsfirst-y)
	OBJECT_FILES_NON_STANDARD_bench_pad.o := y
	EOF
	echo "$dir"
}
extra_files=()	# "path=name in the guest's root", for build_initramfs

step "setting up (packages, linux-source for the kselftest harness)"
# the suites' topics, a program each (tests/Makefile)
TOPICS=$(make -s --no-print-directory -C "$top/tests" topics)
"$fetch" deps
ksft=$("$fetch" source)/tools/testing/selftests
make -s -j"$(nproc)" -C "$top" userspace tests KSFT_DIR="$ksft"
make -s -C "$top/userspace" flagsfirst-m32
qemu_args=${QEMU_ARGS:-}

build_initramfs() {	# kver ko [against-ko] -> path of the cpio
	local root=$BUILD/$1/initramfs a
	guest_root "$root"
	cp "$top/lab/vm/init" "$top/generic/vm/guest-lib.sh" "$top/lab/vm/guest-heavy.sh" \
	   "$top/generic/vm/guest-check.sh" "$top/lab/vm/guest-hooks.sh" \
	   "$top/lab/vm/guest-timed.sh" \
	   "$top/lab/vm/guest-debug.sh" "$top/tests/flagsfirst_torture" \
	   "$top/lab/vm/guest-bench.sh" "$top/lab/bench/flagsfirst_bench" \
	   ${2:+"$2"} "$root/"
	[ -z "$2" ] || [ ! -e "${2%/*}/flagsfirst_kunit.ko" ] || cp "${2%/*}/flagsfirst_kunit.ko" "$root/"
	[ -z "${3:-}" ] || cp "$3" "$root/flagsfirst-against.ko"
	for a in ${extra_files[@]+"${extra_files[@]}"}; do
		cp "${a%%=*}" "$root/${a#*=}"
	done
	cp "$top/userspace/flagsfirst" "$top/userspace/flagsfirst-v0" \
	   "$top/userspace/flagsfirst-m32" "$root/bin/"
	# The suites: a program per topic, each in the matrix's four builds
	mkdir -p "$root/tests"
	echo "$TOPICS" >"$root/tests/topics"
	for a in $TOPICS; do
		cp "$top/tests/${a}_test" "$top/tests/${a}_test-m32" \
		   "$top/tests/${a}_test-v0" "$top/tests/${a}_test-v0-m32" "$root/tests/"
	done
	pack_initramfs "$root" "$BUILD/$1/initramfs.cpio.gz"
	echo "$BUILD/$1/initramfs.cpio.gz"
}

# Every topic's program ran in @cell as root and as uid 65534, and each
# identity passed some test there (a program may skip all of its own).
check_cell() {	# kver log cell
	local who topic label
	for who in root uid65534; do
		for topic in $TOPICS; do
			label=$3.$topic.$who
			grep -q "^=== flagsfirst: exit $label " "$2" ||
				record fail "$1: the suite never ran as $label"
		done
		[ "${cpass[$3.$who]:-0}" -gt 0 ] ||
			record fail "$1: no test passed in $3 as $who"
	done
}

check_kernel() {	# kver log
	local log label cell bin bits abi who p f s line
	local -A cp cf cpass
	log=$(clean_log "$2")
	for label in $(sed -n 's/^=== flagsfirst: run \(.*\) ===$/\1/p' "$log"); do
		count_run "$1" "$log" "$label"
		# abi1.current.64.TOPIC.WHO
		cell=${label%.*.*}
		cp[$cell]=$(( ${cp[$cell]:-0} + p ))
		cf[$cell]=$(( ${cf[$cell]:-0} + f ))
		cpass[$cell.${label##*.}]=$(( ${cpass[$cell.${label##*.}]:-0} + p ))
	done
	# Every cell of the matrix ran.
	for cell in $(matrix_cells 1 v0); do
		check_cell "$1" "$log" "$cell"
		record ok
	done

	summary+=("$1: passed/failed per cell, root and uid 65534 together")
	summary+=("$(printf '%-16s %-18s %-18s' binary abi_version=1 abi_version=0)")
	for bin in current v0; do
		for bits in 64 32; do
			line=$(printf '%-16s' "$bin $bits-bit")
			for abi in 1 0; do
				cell=abi$abi.$bin.$bits
				line+=$(printf ' %-18s' "${cp[$cell]:-?} / ${cf[$cell]:-?}")
			done
			summary+=("$line")
		done
	done

	check_loading "$1" "$log" 1
	check_tour "$1" "$log"
	check_recorded_tour "$1" "$log"
	check_guest "$1" "$log"
}

# The timed run (guest-timed.sh, fftimed=1): both identities ran both
# programs, and the guest finished with no kernel report.
check_timed() {	# kver log
	local log label who topic p f s
	log=$(clean_log "$2")
	echo "# kernel $1, the timed run (-icount)"
	for label in $(sed -n 's/^=== flagsfirst: run \(timed\..*\) ===$/\1/p' "$log"); do
		count_run "$1" "$log" "$label"
	done
	for who in root uid65534; do
		for topic in waits memcg; do
			grep -q "^=== flagsfirst: exit timed.$topic.$who 0 " "$log" ||
				record fail "$1: the timed run of $topic as $who never ran or failed"
		done
	done
	check_guest "$1" "$log"
}

# The debug kernels' VMs, started side by side
debug_pids=()
debug_kvers=()
# The timed VM started last (if any), once it has ended: judged.
timed_pid=
timed_kver=
wait_timed() {
	[ -n "$timed_pid" ] || return 0
	wait "$timed_pid" || true
	timed_pid=
	check_timed "$timed_kver" "$BUILD/$timed_kver/console-timed.log"
}

# The tour as make demo ran it, from the guest's log; with @1 "-n", what
# varies between runs and kernels left out: the CLOEXEC race's counts
# (lesson 9) and the survey's rows (lesson 11), the lines under those
# commands.
tour_text() {	# [-n] log
	local norm=0
	[ "$1" = -n ] && { norm=1; shift; }
	tr -d '\r' <"$1" |
		sed -n '/^=== flagsfirst: tour output begin ===$/,/^=== flagsfirst: tour output end ===$/p' |
		sed '1d;$d' |
		awk -v norm=$norm '
		norm && skip && /^    / { next }
		{ skip = 0 }
		norm && /^\$ (races_test -f race|flagsfirst survey \|)/ { skip = 1 }
		{ print }'
}

# The recorded tour of the docs (track (a) of docs/teaching.md) is what
# the tour prints on the kernel make demo boots (6.1), but for the parts
# tour_text -n leaves out: a change to the tour, the client or the module
# that shows in it must come with docs/tour.txt remade
# (TOUR_RECORD=1 make check KERNELS=6.1 writes it).
check_recorded_tour() {	# kver log
	case $1 in 6.1.*) ;; *) return 0 ;; esac
	if [ "${TOUR_RECORD:-0}" = 1 ]; then
		tour_text "$2" >"$top/docs/tour.txt"
		echo "# docs/tour.txt: recorded from $1"
	fi
	local want got
	want=$(mktemp)
	got=$(mktemp)
	{ echo '=== flagsfirst: tour output begin ==='; cat "$top/docs/tour.txt" 2>/dev/null
	  echo '=== flagsfirst: tour output end ==='; } >"$want.log"
	tour_text -n "$want.log" >"$want"
	tour_text -n "$2" >"$got"
	if [ -s "$got" ] && diff -u --label docs/tour.txt --label "the tour on $1" "$want" "$got" >"$want.diff"; then
		record ok
	else
		record fail "$1: the recorded tour (docs/tour.txt) is not what the tour prints now (TOUR_RECORD=1 make check KERNELS=6.1 remakes it):"
		head -n 40 "$want.diff" | sed 's/^/#   /'
	fi
	rm -f "$want" "$want.log" "$want.diff" "$got"
}

# The tour's own tally (userspace/tour.sh, run by flagsfirst tour), for
# each of its two runs: every step showed what its caption says, there
# were steps at all, and the client alone skipped the lessons that need
# more than the client, by name.
check_tour() {	# kver log
	local n how
	for how in demo "client alone"; do
		n=$(sed -n "s/^=== flagsfirst: tour ($how): \([0-9]*\) steps, 0 wrong ===\$/\1/p" "$2")
		if [ -n "$n" ] && [ "$n" -ge 20 ]; then
			record ok
		else
			record fail "$1: the tour ($how): $(grep "^=== flagsfirst: tour ($how)" "$2" | tail -n 1)"
			{ grep "^=== flagsfirst: tour ($how) step" "$2" || true; } | sed 's/^/#   /'
		fi
	done
	# As a teacher drives it (guest-hooks.sh's "tour drive" checks)
	for how in list lessons pause wrong-exits-1 bad-usage-exits-2; do
		if grep -q "^=== flagsfirst: tour drive $how ok ===\$" "$2"; then
			record ok
		else
			record fail "$1: flagsfirst tour, driven ($how): $(grep "^=== flagsfirst: tour drive $how " "$2" || echo "not run")"
		fi
	done
	if grep -q "^=== flagsfirst: tour (demo) skipped" "$2"; then
		record fail "$1: the tour as make demo runs it skipped: $(grep "^=== flagsfirst: tour (demo) skipped" "$2")"
	elif grep -q "^=== flagsfirst: tour (client alone) skipped: lesson 9's race; lesson 10's old binary; lesson 10's reload as ABI 0; lesson 12's 32-bit client ===\$" "$2"; then
		record ok
	else
		record fail "$1: the tour with the client alone did not name what it skipped"
	fi
}

# One mutant (or "baseline", the module as it is) built from a copy of the
# tree and run in @cells; the judgement goes to $BUILD/mutants/NAME.judge,
# whose last line is "failed=N".  Leaves the verdict in $verdict:
# killed, survived, or an error (the mutant does not apply or build).
run_mutant() {	# kver vmlinuz kdir root name cells heavy
	local src=$BUILD/mutants/$5 log=$BUILD/mutants/$5.console.log ko initrd
	rm -rf "$src"
	mkdir -p "$src"
	copy_module_source "$top" "$src"
	# the generic file's paths start at generic/, as in a generated project
	if [ "$5" != baseline ] &&
	   ! { "$top/generic/mutate/mutants.pl" apply "$top/lab/mutate/mutants" "$5" "$src" ||
	       "$top/generic/mutate/mutants.pl" apply "$top/generic/mutate/mutants" "$5" "$src/generic"; } \
		2>"$src.err"; then
		verdict="does not apply: $(cat "$src.err")"
		return
	fi
	if ! ko=$(build_module "$1/mutant" "$3" "$4" "$src" 2>"$src.err"); then
		verdict="does not build: $(grep -m 1 'error' "$src.err")"
		return
	fi
	initrd=$(build_initramfs "$1/mutant" "$ko")
	APPEND="cells=$6 ffheavy=$7"
	step "mutant $5: booting, cells $6$([ "$7" = 1 ] && echo ', with the long tests')"
	: >"$log"
	boot "$2" "$initrd" check "$log" >/dev/null 2>&1 &
	bpid=$!
	# A mutant is dead at its first sign: stop the VM there.  (One that
	# oopses with a lock held would otherwise sit out a 30 s timeout per
	# test; the first failing test is the one named as its killer.)
	while kill -0 "$bpid" 2>/dev/null; do
		if [ "$5" != baseline ] && grep -aqE "$MUTANT_DEAD" "$log"; then
			pkill -f -- "-initrd $initrd" || true
			break
		fi
		sleep 1
	done
	wait "$bpid" || true
	(
		failed=0
		log=$(clean_log "$log")
		declare -A cpass
		for label in $(sed -n 's/^=== flagsfirst: run \(.*\) ===$/\1/p' "$log"); do
			count_run "$1" "$log" "$label"
			cpass[${label%.*.*}.${label##*.}]=$(( ${cpass[${label%.*.*}.${label##*.}]:-0} + p ))
		done
		for cell in ${6//,/ }; do
			check_cell "$1" "$log" "$cell"
		done
		check_loading "$1" "$log" 1 "$(echo "$6" | grep -o 'abi[01]' | sort -u | tr -d abi | tr '\n' ' ')"
		check_guest "$1" "$log"
		echo "failed=$failed"
	) >"$BUILD/mutants/$5.judge" || true
	# A judgement that stopped half way kills nothing.
	case $(tail -n 1 "$BUILD/mutants/$5.judge") in
	failed=0)	verdict=survived ;;
	failed=*)	verdict=killed ;;
	*)	verdict="not judged: the runner's checks stopped ($BUILD/mutants/$5.judge)" ;;
	esac
}

# What killed a mutant, in a few words: the failing tests' names, else the
# runner's own findings.
killers_of() {	# name
	local j=$BUILD/mutants/$1.judge t
	t=$(grep -E '^not ok [0-9]+ ' "$j" | sed -E 's/^not ok [0-9]+ //; s/ #.*//' | sort -u)
	# else the runner's findings, less those that only say the run was cut
	# short when the mutant was first noticed
	[ -n "$t" ] || t=$(grep '^not ok - ' "$j" |
		grep -vE ': [0-9]+ failed$|results for a plan|never finished|never ran|no test passed|no TAP plan' |
		sed -E 's/^not ok - [^:]*: //' | sort -u)
	[ -n "$t" ] || t=$(grep '^not ok - ' "$j" | sed -E 's/^not ok - [^:]*: //' | sort -u)
	if [ "$(echo "$t" | wc -l)" -gt 2 ]; then
		echo "$(echo "$t" | head -n 2 | paste -sd ' ') (+$(( $(echo "$t" | wc -l) - 2 )) more)"
	else
		echo "$t" | paste -sd ' '
	fi
}

mutate_all() {	# kver vmlinuz kdir root
	local list name cells heavy what union heavy_any n=0 k=0
	# The generic file's cells are the ABIs' ("latest", "abi0"): here,
	# the 64-bit run of the current suite at that ABI.
	if ! list=$({ "$top/generic/mutate/mutants.pl" list "$top/generic/mutate/mutants" |
		      sed -E 's/\tlatest\t/\tabi1.current.64\t/; s/\tabi0\t/\tabi0.current.64\t/'
		      "$top/generic/mutate/mutants.pl" list "$top/lab/mutate/mutants"; }); then
		record fail "generic/mutate/mutants or lab/mutate/mutants cannot be read"
		return
	fi
	if [ -n "${MUTANTS:-}" ]; then
		list=$(echo "$list" | awk -F '\t' -v want=" $MUTANTS " 'index(want, " " $1 " ")')
		for name in $MUTANTS; do
			echo "$list" | cut -f 1 | grep -qx -- "$name" ||
				record fail "MUTANTS names $name, which neither mutants file has"
		done
	fi
	mkdir -p "$BUILD/mutants"
	# The module as it is must pass in every cell the mutants use, or a
	# kill says nothing.
	union=$(echo "$list" | cut -f 2 | tr ',' '\n' | sort -u | paste -sd ,)
	heavy_any=$(echo "$list" | cut -f 3 | sort -u | tail -n 1)
	run_mutant "$@" baseline "$union" "$heavy_any"
	if [ "$verdict" = survived ]; then
		record ok
		echo "# the module as it is passes in $union"
	else
		record fail "the module as it is does not pass in $union ($verdict): $(killers_of baseline)"
		{ grep '^not ok' "$BUILD/mutants/baseline.judge" || true; } |
			head -n 20 | sed 's/^/#   /' || true
		return
	fi
	printf '%-44s %-8s %s\n' mutant verdict "what it breaks / killed by" >"$BUILD/mutants/table"
	while IFS=$'\t' read -r name cells heavy what _; do
		n=$((n + 1))
		run_mutant "$@" "$name" "$cells" "$heavy"
		if [ "$verdict" = killed ]; then
			k=$((k + 1))
			record ok
			printf '%-44s %-8s %s\n%-53s by: %s\n' "$name" killed "$what" "" \
				"$(killers_of "$name")" | tee -a "$BUILD/mutants/table"
		else
			printf '%-44s %-8s %s\n' "$name" "${verdict%%:*}" "$what" |
				tee -a "$BUILD/mutants/table"
			record fail "mutant $name: $verdict"
		fi
	done <<<"$list"
	echo "killed $k/$n"
	summary+=("$1: make mutate killed $k/$n mutants ($(date -u +%F))")
}

# make bench BENCH_AGAINST=REV: each row's ratio to the floor, the median
# of the rounds for REV's module and for this one, and the change; then
# the middle half of the changes round by round (each round runs both
# modules, a few seconds apart), which shows how far one run's change can
# move without either module changing.
bench_medians() {	# log rev
	awk -v rev="$2" -v rounds="$BENCH_ROUNDS" '
	# The @p quantile of the numbers in @list (0.5: the median).
	function quantile(list, p,    v, n, i, j, t, x) {
		n = split(list, v, " ")
		if (n == 0)
			return ""
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		x = 1 + (n - 1) * p
		i = int(x)
		return i < n ? v[i] + (x - i) * (v[i + 1] - v[i]) : v[n]
	}
	/^=== flagsfirst: bench module / { m = $5; round = $7; next }
	/^=== flagsfirst/ { m = ""; next }
	m != "" && length($0) > 44 {
		name = substr($0, 1, 44)
		sub(/ +$/, "", name)
		split(substr($0, 45), f, " ")
		if (name == "" || f[2] !~ /^[0-9.]+x$/)
			next
		if (!(name in seen)) {
			seen[name] = 1
			order[++rows] = name
		}
		x = substr(f[2], 1, length(f[2]) - 1)
		r[name, m] = r[name, m] " " x
		by[name, m, round] = x
		if (round > last)
			last = round
	}
	END {
		printf "# %s against %s, one VM, %s rounds: median ratio to the floor;\n", "this tree", rev, rounds
		printf "# round by round: the middle half of the rounds'\'' own changes\n"
		printf "%-44s %9s %9s %8s  %s\n", "measurement", rev, "now", "change", "round by round"
		for (i = 1; i <= rows; i++) {
			a = quantile(r[order[i], "against"], 0.5)
			c = quantile(r[order[i], "current"], 0.5)
			if (a == "" || c == "" || a <= 0)
				continue
			d = ""
			for (k = 1; k <= last; k++)
				if ((order[i], "against", k) in by && (order[i], "current", k) in by &&
				    by[order[i], "against", k] > 0)
					d = d " " (by[order[i], "current", k] / by[order[i], "against", k] - 1) * 100
			printf "%-44s %8.2fx %8.2fx %+7.1f%%  %+.1f%% to %+.1f%%\n", order[i], a, c,
			       (c / a - 1) * 100, quantile(d, 0.25), quantile(d, 0.75)
		}
	}' "$1"
}

# flagsfirst survey on one kernel, with the module for the reference rows:
# the table, the TSV, and every row checked against what the client pins
# for the release, as root and as uid 65534.  A row that differs from it
# is a finding (a kernel changed behaviour, or the pin is wrong): it fails.
survey_kernel() {	# kver vmlinuz ko
	local initrd log who line
	mkdir -p "$BUILD/survey"
	initrd=$(build_initramfs "$1" "$3")
	boot "$2" "$initrd" survey "$BUILD/$1/console.log" || true
	log=$(clean_log "$BUILD/$1/console.log")
	sed -n '/^=== flagsfirst: survey begin/,/^=== flagsfirst: survey end/p' "$log" |
		grep -v '^=== flagsfirst' >"$BUILD/survey/$1.out"
	grep -v '^#' "$BUILD/survey/$1.out" >"$BUILD/survey/$1.tsv" || true
	if grep -q '^=== flagsfirst: survey end 0 ===' "$log" && [ -s "$BUILD/survey/$1.tsv" ]; then
		record ok
	else
		record fail "$1: flagsfirst survey"
	fi
	if grep -q '^=== flagsfirst: insmod failed ===' "$log"; then
		record fail "$1: insmod failed: the reference rows were not measured"
	fi
	for who in root uid65534; do
		sed -n "/^=== flagsfirst: survey ktap $who ===/,/^=== flagsfirst: survey ktap $who end/p" \
			"$log" | grep -v '^=== flagsfirst' >"$BUILD/survey/$1.$who.ktap"
		while read -r line; do
			record fail "$1: as $who: ${line#not ok }"
		done < <(grep '^not ok' "$BUILD/survey/$1.$who.ktap")
		if grep -q "^=== flagsfirst: survey ktap $who end 0 ===" "$log"; then
			record ok
		elif ! grep -q '^not ok' "$BUILD/survey/$1.$who.ktap"; then
			record fail "$1: flagsfirst survey --ktap as $who did not finish"
		fi
	done
	check_guest "$1" "$log"
	surveyed+=("$1")
}

# The surveys side by side, the rows that changed between kernels, and
# docs/survey.md's tables remade from this run ($SURVEY_DOC, if set).
survey_table() {
	local pinned=$BUILD/survey/pinned.tsv last
	[ "${#surveyed[@]}" -gt 0 ] || return 0
	"$top/userspace/flagsfirst" survey --pinned >"$pinned"
	# What the atlas promises: 80 calls probed with a flag, 10 structs
	# with every input rule, the discovery table, on the newest kernel
	last=$BUILD/survey/${surveyed[-1]}.tsv
	require "${surveyed[-1]}" "calls probed with an unknown flag" \
		"$(awk -F '\t' 'NR == FNR { if ($2 == 1) one[$1] = 1; next }
			$1 in one && $2 != "noflags" && $1 !~ /-uid65534$/' "$pinned" "$last" | wc -l)" 80
	require "${surveyed[-1]}" "structs with every size rule measured" \
		"$(awk -F '\t' '$1 ~ /:/ && $1 !~ /-uid65534$/ && $2 != "absent" {
			split($1, a, ":"); n[a[1]]++ } END { for (c in n) if (n[c] >= 4) k++; print k + 0 }' "$last")" 10
	require "${surveyed[-1]}" "ways of discovery that tell" \
		"$(awk -F '\t' 'NR == FNR { if ($2 == 3) d[$1] = 1; next } $1 in d && $2 == "tells"' \
			"$pinned" "$last" | wc -l)" 8
	"$top/lab/survey/report.sh" table "$BUILD/survey" "$pinned" "${surveyed[@]}"
	echo
	"$top/lab/survey/report.sh" diff "$BUILD/survey" "$pinned" "${surveyed[@]}"
	if [ -n "${SURVEY_DOC:-}" ]; then
		"$top/lab/survey/report.sh" doc "$BUILD/survey" "$pinned" "$SURVEY_DOC" \
			"${surveyed[@]}"
		echo "# $SURVEY_DOC: the tables remade from this run"
	fi
}

# A figure the README quotes must be there and reach @min, not just print.
require() {	# kver what value min
	if [ -n "$3" ] && [ "$3" -ge "$4" ] 2>/dev/null; then
		record ok
	else
		record fail "$1: $2: ${3:-none} (at least $4 expected)"
	fi
}

# The debug job: every part leaves markers and "# <part>:" figure lines.
# The suite's runs in a debug kernel: 64-bit as root in both, and each
# other run in one of them, so that the two VMs, side by side, take about
# as long (both have KASAN and lockdep; the torture tests, KUnit and the
# load/unload cycles run in both): uid 65534 under PREEMPT_RT, 32-bit in
# the other.  As the guest's ffsuites: the runs besides root's 64-bit one.
debug_runs() {	# kver|series
	case $1 in
	rt|*-rt) echo suite.root suite.uid65534 ;;
	*)	echo suite.root suite32.root ;;
	esac
}
debug_suites() {	# kver|series
	debug_runs "$1" | sed 's/suite\.root//; s/suite\.uid65534/uid65534/;
		s/suite32\.root/m32/' | xargs | tr ' ' ,
}

check_debug() {	# kver log
	local log label run p f s kp kf ioctls ops sites cycles leaks reports marker topic
	local -A rp rf rs
	log=$(clean_log "$2")
	for label in $(sed -n 's/^=== flagsfirst: run \(.*\) ===$/\1/p' "$log"); do
		count_run "$1" "$log" "$label"
		case $label in
		fuzz|stress|faults)
			[ "$f" = 0 ] && record ok
			summary+=("$1 $label: $([ "$f" = 0 ] && echo ok || echo FAILED)") ;;
		*)	# suite.TOPIC.root: one line per run of the suites
			run=${label%%.*}.${label##*.}
			rp[$run]=$(( ${rp[$run]:-0} + p ))
			rf[$run]=$(( ${rf[$run]:-0} + f ))
			rs[$run]=$(( ${rs[$run]:-0} + s )) ;;
		esac
	done
	for run in $(debug_runs "$1"); do
		summary+=("$1 $run: ${rp[$run]:-0} passed, ${rf[$run]:-0} failed, ${rs[$run]:-0} skipped")
		[ "${rp[$run]:-0}" -gt 0 ] || record fail "$1: no test passed in $run"
		for topic in $TOPICS; do
			label=${run%.*}.$topic.${run#*.}
			grep -q "^=== flagsfirst: exit $label " "$log" ||
				record fail "$1: $label never ran"
		done
	done
	for label in faults stress fuzz; do
		grep -q "^=== flagsfirst: exit $label " "$log" ||
			record fail "$1: $label never ran"
	done
	# "=== flagsfirst: check insmod failed ===" and the like
	while read -r marker; do
		record fail "$1: ${marker#=== flagsfirst: }"
	done < <(grep -E '^=== flagsfirst: check .* failed ===$' "$log" || true)

	# KUnit's KTAP, from the kernel log, a line per suite: "#
	# flagsfirst_ioctl: pass:9 fail:0 ..." and "# flagsfirst_kunit_dispatch:
	# pass:7 fail:0 ..."
	read -r kp kf < <(sed -n 's/.*# flagsfirst_\(ioctl\|kunit_dispatch\): pass:\([0-9]*\) fail:\([0-9]*\).*/\2 \3/p' "$log" |
		head -n 2 | awk 'NF { p += $1; f += $2; n++ } END { if (n == 2) print p, f }') || true
	if [ -n "${kp:-}" ]; then
		passed=$((passed + kp))
		failed=$((failed + kf))
		summary+=("$1 KUnit flagsfirst_ioctl and flagsfirst_kunit_dispatch: $kp passed, $kf failed")
		[ "$kf" = 0 ] || echo "not ok - $1: KUnit: $kf failed"
	fi
	require "$1" "KUnit cases passed" "${kp:-}" "$KUNIT_CASES"

	cycles=$(sed -n 's/^=== flagsfirst: lifecycle cycles=\([0-9]*\) failures=0 ===$/\1/p' "$log")
	[ -n "$cycles" ] ||
		echo "# $1: load/unload cycles: $(grep -E '^lifecycle|lifecycle cycles' "$log" | head -n 5)"
	require "$1" "load/unload cycles without a failure" "$cycles" "$CYCLES"
	leaks=$(sed -n '/^=== flagsfirst: kmemleak begin/,/^=== flagsfirst: kmemleak end/p' "$log" |
		grep -c 'unreferenced object' || true)
	# No scan (kmemleak off, or its file missing) is no figure at all.
	grep -q '^=== flagsfirst: kmemleak end ===' "$log" || leaks=unknown
	if [ "$leaks" = 0 ]; then
		record ok
	else
		record fail "$1: kmemleak: $leaks unreferenced objects"
		sed -n '/^=== flagsfirst: kmemleak begin/,/^=== flagsfirst: kmemleak end/p' "$log" |
			head -n 60 | sed 's/^/#   /'
	fi
	check_guest "$1" "$log"

	ioctls=$(sed -n 's/^# fuzz: \([0-9]*\) ioctls.*/\1/p' "$log")
	ops=$(sed -n 's/^# stress: \([0-9]*\) ops.*/\1/p' "$log")
	sites=$(sed -n 's/^# faults: \([0-9]*\) fault sites.*/\1/p' "$log")
	require "$1" "ioctls fuzzed" "$ioctls" "$FUZZ_IOCTLS"
	require "$1" "stress operations" "$ops" 1000
	require "$1" "fault sites injected" "$sites" 10
	summary+=("$1 figures: ${ioctls:-0} ioctls fuzzed, ${ops:-0} stress ops, ${sites:-0} fault sites injected, ${cycles:-0} load/unload cycles, ${leaks} kmemleak objects, $reports kernel reports")
}

for series in $KERNELS; do
	case $series in
	debug|rt)
		step "building or reusing the $series debug kernel"
		read -r kver vmlinuz kdir < <("$top/generic/vm/debug-kernel.sh" "$series")
		# Both debug kernels have the same release: name them apart.
		kver=$kver-$series
		root=- ;;
	*)	if ! out=$("$fetch" kernel "$series"); then
			record fail "$series: fetching the kernel and its headers failed (fetch: above)"
			continue
		fi
		read -r kver vmlinuz kdir root <<<"$out"
		[ "$series" = newest ] && step "newest is $kver" ;;
	esac
	[ -n "${kver:-}" ] || { record fail "$series: no kernel (see the messages above)"; continue; }
	if [ "$mode" = mutate ]; then
		mutate_all "$kver" "$vmlinuz" "$kdir" "$root"
		continue
	fi
	step "building the module against $kver"
	if ! ko=$(build_module "$kver" "$kdir" "$root"); then
		record fail "$kver: building the module failed (make: above)"
		continue
	fi
	if [ "$mode" = survey ]; then
		survey_kernel "$kver" "$vmlinuz" "$ko"
		continue
	fi
	ako=
	if [ -n "$against" ]; then
		step "building $against's module against $kver"
		if ! ako=$(build_module "$kver/against" "$kdir" "$root" "$BUILD/against"); then
			record fail "$kver: building $against's module failed (make: above)"
			continue
		fi
	fi
	extra_files=()
	if [ "$layouts" = 1 ]; then
		step "building both modules in $((BENCH_ROUNDS - 1)) more layouts"
		: >"$BUILD/$kver/bench-layouts"
		for r in $(seq 2 "$BENCH_ROUNDS"); do
			pad=$(layout_pad "$r")
			echo "$r $pad" >>"$BUILD/$kver/bench-layouts"
			if ! lko=$(build_module "$kver/layout-$pad" "$kdir" "$root" \
					"$(padded_tree "$top" current "$pad")") ||
			   ! lako=$(build_module "$kver/against-layout-$pad" "$kdir" "$root" \
					"$(padded_tree "$BUILD/against" against "$pad")"); then
				record fail "$kver: building the modules with $pad bytes before their code failed"
				continue 2
			fi
			extra_files+=("$lko=flagsfirst-r$r.ko" "$lako=flagsfirst-against-r$r.ko")
		done
		extra_files+=("$BUILD/$kver/bench-layouts=bench-layouts")
	fi
	initrd=$(build_initramfs "$kver" "$ko" "$ako")
	# make demo DEMO_SHELL=1: the console is the terminal's, and after the
	# tour a shell, with no timeout (the user powers off with exit)
	if [ "$mode" = demo ] && [ "${DEMO_SHELL:-0}" = 1 ]; then
		accel=$(pick_accel "$vmlinuz" "$initrd")
		cpu=max
		[ "$accel" = kvm ] && cpu=host
		exec qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp 2 \
			-m "$MEMORY" -display none -serial mon:stdio -no-reboot \
			-kernel "$vmlinuz" -initrd "$initrd" \
			-append "console=ttyS0 panic=-1 quiet loglevel=4 vmjob=demo ffshell=1"
	fi
	# The tests that assert on time run in a VM whose clock counts
	# instructions executed (one a ns): a busy host slows it, but cannot
	# make a call in it look longer (guest-heavy.sh's TIMED).  So it runs
	# beside the ordinary VM, and beside the next kernel's build, one at a
	# time; it is judged once it ended (wait_timed).
	if [ "$mode" = check ]; then
		wait_timed
		pick_accel "$vmlinuz" "$initrd" >/dev/null
		QEMU_ARGS="$qemu_args $TIMED_QEMU_ARGS" VM_CPU=$TIMED_VM_CPU \
			VM_SMP=$(timed_vm_smp "$kver") APPEND=fftimed=1 \
			boot "$vmlinuz" "$initrd" check \
			"$BUILD/$kver/console-timed.log" &
		timed_pid=$!
		timed_kver=$kver
		APPEND=fftimedvm=1
	fi
	# The debug kernels' VMs each keep about one core busy: they run side
	# by side, and are judged once all have ended.
	if [ "$mode" = debug ]; then
		APPEND="$debug_append ffsuites=$(debug_suites "$series")"
		pick_accel "$vmlinuz" "$initrd" >/dev/null
		boot "$vmlinuz" "$initrd" "$mode" "$BUILD/$kver/console.log" &
		debug_pids+=($!)
		debug_kvers+=("$kver")
		continue
	fi
	boot "$vmlinuz" "$initrd" "$mode" "$BUILD/$kver/console.log" || true
	[ "$mode" != check ] || APPEND=
	if [ "$mode" = demo ]; then
		log=$(clean_log "$BUILD/$kver/console.log")
		if grep -qE "$REPORTS" "$log"; then
			echo "demo: the kernel log has a report:" >&2
			grep -E -B 2 -A 20 "$REPORTS" "$log" | head -n 60 >&2
			exit 1
		fi
		grep -q '^=== flagsfirst: done ===' "$log" ||
			{ echo "demo: the guest never finished" >&2; exit 1; }
		if ! grep -q '^=== flagsfirst: tour: [0-9]* steps, 0 wrong ===$' "$log"; then
			echo "demo: a tour step no longer shows what its caption says:" >&2
			grep '^=== flagsfirst: tour' "$log" >&2
			exit 1
		fi
		exit 0
	fi
	if [ "$mode" = bench ]; then
		log=$(clean_log "$BUILD/$kver/console.log")
		echo "# kernel $kver, $(nproc) host cores, QEMU $(accel_of) with 2 vCPUs"
		[ "${BENCH_ICOUNT:-0}" = 0 ] ||
			echo "# BENCH_ICOUNT: a \"ns\" is one instruction executed; the vCPUs take turns"
		[ "$layouts" = 0 ] ||
			echo "# layouts: rounds 2-$BENCH_ROUNDS pad both modules' code alike: $(cut -d' ' -f2 "$BUILD/$kver/bench-layouts" | paste -sd' ') bytes"
		sed -n '/^=== flagsfirst: bench begin/,/^=== flagsfirst: bench end/p' "$log" |
			grep -v '^=== flagsfirst: bench [be]'
		[ -z "$against" ] || bench_medians "$log" "$against"
		if grep -q '^=== flagsfirst: bench end 0 ===' "$log"; then
			record ok
		else
			record fail "$kver: bench"
		fi
		# A benchmark that left a kernel report measured a broken module.
		check_guest "$kver" "$log"
		continue
	fi
	echo "# kernel $kver"
	check_kernel "$kver" "$BUILD/$kver/console.log"
done
wait_timed
for i in "${!debug_pids[@]}"; do
	wait "${debug_pids[$i]}" || true
	echo "# kernel ${debug_kvers[$i]}"
	check_debug "${debug_kvers[$i]}" "$BUILD/${debug_kvers[$i]}/console.log"
done

[ "$mode" = survey ] && survey_table

echo "# summary"
for line in "${summary[@]}"; do
	echo "#   $line"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
