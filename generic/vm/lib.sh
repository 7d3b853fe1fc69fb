# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the project's VM runner (run.sh): what every job in a QEMU
# VM needs, whatever the interface under test does: building the module
# against a kernel, booting a kernel with an initramfs, counting the
# kselftest TAP of each run between the guest's markers (guest-lib.sh),
# and failing on a guest that never finished or a kernel log with a
# report.  The caller sets top,
# CACHE, BUILD, TIMEOUT, MEMORY, APPEND and mode first.  The interface is
# the one header of $top/uapi/linux/, NAME.h: the module is NAME.ko, and
# the guest's markers carry NAME as their tag (VM_TAG, which the guest's
# init exports too).

# What the guest's kernel log must never show: WARN, BUG, Oops, KASAN,
# UBSAN, kmemleak, lockdep and might_sleep reports, panics.
REPORTS='WARNING:|BUG:|Oops|KASAN:|UBSAN:|unreferenced object|suspected memory leak|possible (circular|recursive) locking|locking correctness validator|sleeping function called|Kernel panic|general protection|Call Trace'

step() { printf '>>> %s\n' "$*" >&2; }

# This file's own directory: in-chroot.sh is beside it.
vm_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm_name=$(cd "$top/uapi/linux" && ls -- *.h)
vm_name=${vm_name%.h}
VM_TAG=${VM_TAG:-$vm_name}

# The guest's root in @root, emptied first: busybox and its applets in
# /bin, the mount points, and root and uid 65534 in /etc/passwd and
# /etc/group (su needs to know 65534; busybox's setpriv cannot change
# uids).  The caller copies its files in, then pack_initramfs().
guest_root() {	# root
	local a
	rm -rf "$1"
	mkdir -p "$1"/{bin,dev,etc,proc,sys,tmp}
	printf 'root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/tmp:/bin/sh\n' >"$1/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$1/etc/group"
	cp /bin/busybox "$1/bin/"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$1/bin/$a"
	done
}

# @root as the gzipped newc cpio @cpio, the initramfs boot() takes.
pack_initramfs() {	# root cpio
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# Builds the module against @kdir, inside the chroot @root unless it is
# "-" (sid's kernels: their compiler and kbuild tools are sid's), from the
# tree @from (default: this one; a caller may build another copy).
# What the module is built from: Kbuild, module/, uapi/ and, where the
# project keeps it apart in generic/, the generic core.
copy_module_source() {	# from to
	cp -r "$1/Kbuild" "$1/module" "$1/uapi" "$2/"
	if [ -d "$1/generic/module" ]; then
		mkdir -p "$2/generic"
		cp -r "$1/generic/module" "$2/generic/"
	fi
}

build_module() {	# kver kdir root -> path of the .ko
	local src=$BUILD/$1/src kunit= in from=${4:-$top}
	rm -rf "$src"
	mkdir -p "$src"
	copy_module_source "$from" "$src"
	# The caller's extra make arguments (a KUnit module, say)
	kunit=${MODULE_MAKE_ARGS:-}
	if [ "$3" = - ]; then
		make -s -C "$2" M="$src" $kunit modules >&2 || return 1
	else
		# a directory of this build's own: two projects (or two
		# checkouts) that share the cache may build for one kernel at
		# once, and a shared /build/KVER was emptied under the other
		# ("can't create module/account.o", seen)
		mkdir -p "$3/build"
		in=$(mktemp -d "$3/build/$1.XXXXXX")
		in=${in#"$3"}
		cp -r "$src/." "$3$in/"
		if ! "$vm_lib_dir/in-chroot.sh" "$3" make -s -C "$2" M="$in" modules >&2; then
			rm -rf "${3:?}$in"
			return 1
		fi
		cp "$3$in"/module/*.ko "$src/module/"
		rm -rf "${3:?}$in"
	fi
	echo "$src/module/$vm_name.ko"
}

# KVM hangs on some hosts: use it only once a short boot has proved it
# (NAME_ACCEL=tcg, in the interface's upper case, skips the probe).
pick_accel() {	# vmlinuz initrd
	local stamp=$CACHE/kvm-probe accel_var
	accel_var=$(echo "${vm_name}_ACCEL" | tr a-z A-Z)
	if [ -n "${!accel_var:-}" ]; then
		echo "${!accel_var}"
		return
	fi
	if [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	if [ ! -e "$stamp" ]; then
		step "probing KVM (20 s at most)"
		timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 512 \
			-display none -serial stdio -monitor none -no-reboot \
			-kernel "$1" -initrd "$2" \
			-append "console=ttyS0 panic=-1 quiet vmjob=probe" \
			</dev/null >"$stamp.log" 2>&1 || true
		if grep -q "=== $VM_TAG: done ===" "$stamp.log"; then
			echo kvm >"$stamp"
		else
			echo tcg >"$stamp"
		fi
	fi
	cat "$stamp"
}

accel_of() {
	cat "$CACHE/kvm-probe" 2>/dev/null || echo tcg
}

# A VM whose clock counts instructions executed, one a nanosecond: a busy
# host slows it but cannot make a call in it look longer (the tests that
# bound a wait run there).  QEMU 7.2's TCG under -icount double-faults
# now and then on the instruction after a cmpxchg16b (SLUB's per-cpu fast
# path), the saved EFLAGS the low half of a kernel address: 2 of 7
# boots of a VM running waits_test; 0 of 10 with the CPU's CX16 hidden,
# when the kernel's SLUB takes its path without it.  Set both for a boot:
#	QEMU_ARGS="... $TIMED_QEMU_ARGS" VM_CPU=$TIMED_VM_CPU boot ...
# Such a VM runs in one host thread (its vCPUs take turns), so it may run
# beside another VM: what it measures does not change.  Debian 12's 6.1
# never brings up a second vCPU under -icount (seen hung at "Booting SMP
# configuration" with -cpu max, qemu64, tsc=reliable, sleep=off or no
# x2APIC): VM_SMP=1 boots it with one.
TIMED_QEMU_ARGS="-icount shift=0"
TIMED_VM_CPU=max,-cx16
timed_vm_smp() {	# kver
	case $1 in 6.1.*) echo 1 ;; *) echo 2 ;; esac
}

# A kernel that dies before the guest's init has run is booted again, up to
# three times: nothing of the module has run yet, and under TCG sid's
# kernel sometimes takes an "Oops: int3" while it patches its own text
# early in boot (seen once in about ten boots on this host, under load).
# So is one that never finished and whose first report says "Not
# tainted": the kernel itself says no out-of-tree module was ever loaded
# (the O taint never goes away), as when Debian's 6.12 panicked in fork()
# under TCG while kselftest's runner ran without the module (CI, once).
# And so is a guest that finished but whose kernel reported untainted, as
# when the debug 6.12 reported a KASAN wild-memory-access in an interrupt
# handler 0.096 s into boot (CI, once): that run proves nothing of the
# module, so it is run again, and a report that comes back every time
# fails.  A report from a kernel that ever had the module counts.
#
# TIMEOUT bounds the time the host gave the VM, not the wall clock: on a
# host busy with other work a guest that is only waiting for a CPU is not
# stopped (vm_watch), one that hangs still is; the wall clock stops it
# at VM_WALL_LIMIT (four times TIMEOUT).
boot() {	# vmlinuz initrd job log
	local accel cpu=${VM_CPU:-max} try watcher
	accel=$(pick_accel "$1" "$2")
	[ "$accel" = kvm ] && cpu=host
	for try in 1 2 3; do
		step "booting ($accel), job $3$([ "$try" = 1 ] || echo ", try $try")"
		rm -f "$4.pid"
		vm_watch "$4.pid" "$TIMEOUT" &
		watcher=$!
		timeout "${VM_WALL_LIMIT:-$((4 * TIMEOUT))}" qemu-system-x86_64 \
			-accel "$accel" -cpu "$cpu" \
			-smp "${VM_SMP:-2}" -m "$MEMORY" -display none \
			-serial stdio -monitor none -no-reboot -pidfile "$4.pid" \
			-kernel "$1" -initrd "$2" ${QEMU_ARGS:-} \
			-append "console=ttyS0 panic=-1 quiet loglevel=4 vmjob=$3 $APPEND" \
			</dev/null 2>&1 | tee "$4" | show || true
		# || true: callers run boot() under set -e, some in the background,
		# and a stopped QEMU's status is not what boot() is judged by
		kill "$watcher" 2>/dev/null || true
		wait "$watcher" 2>/dev/null || true
		if [ -e "$4.pid.stopped" ]; then
			cat "$4.pid.stopped" >>"$4"
			rm -f "$4.pid.stopped"
		fi
		if grep -aq "^=== $VM_TAG: kernel " "$4"; then
			vm_reported_untainted "$4" || return 0
			step "the kernel reported untainted, before the module was ever loaded: booting it again; its first report:"
			grep -a -m 1 -B 2 -A 12 -E "$REPORTS" "$4" | tr -d '\r' | sed 's/^/#   /' >&2 || true
		else
			step "the kernel died before the guest's init ran: booting it again"
		fi
		cp "$4" "$4.died-$try"
	done
	return 1
}

# Stops the QEMU whose pid @pidfile holds once the host has let it run for
# @limit seconds: the wall clock since it started, less the longest time
# one of its threads spent waiting for a CPU (run_delay,
# /proc/PID/task/TID/schedstat), looked at every VM_WATCH_STEP (5)
# seconds.  A guest that runs, spins or sits halted is charged in full;
# one starved by other work is not.  (A wait under way is counted from the
# last look at which its thread had run, not from when it began: the
# charge may run ahead by less than a step, never behind.)  Writes why it
# stopped the VM to @pidfile.stopped, which boot() appends to the log.
# Always returns 0 (callers run under set -e).
vm_watch() {	# pidfile limit
	local pidfile=$1 limit_ms=$(($2 * 1000)) pid='' used start
	# shellcheck disable=SC2034 # vm_delays' through their names
	local -A first=() ran=() since=()
	for _ in $(seq 300); do
		[ -s "$pidfile" ] && break
		sleep 0.1
	done
	pid=$(cat "$pidfile" 2>/dev/null) || return 0
	start=$(vm_now_ms)
	vm_delays "$pid" first ran since
	while kill -0 "$pid" 2>/dev/null; do
		sleep "${VM_WATCH_STEP:-5}"
		vm_delays "$pid" first ran since
		used=$(($(vm_now_ms) - start - vm_held))
		if [ "$used" -ge "$limit_ms" ]; then
			echo "=== the VM had $((used / 1000)) s of the host's time, its limit $((limit_ms / 1000)) s: stopped ===" \
				>"$pidfile.stopped"
			kill "$pid" 2>/dev/null || true
			sleep 5
			kill -9 "$pid" 2>/dev/null || true
			return 0
		fi
	done
	return 0
}

vm_now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# Sets vm_held to the longest time, in ms, one thread of @pid has waited
# for a CPU since it was first seen here: what its run_delay grew by, and
# if it is runnable and has not run since a look before this one, the
# wait under way since that look (run_delay counts a wait only once it
# ends).  Keeps what it needs in the caller's associative arrays @first
# (each thread's run_delay when first seen), @ran (its time on a CPU at
# the last look) and @since (when that last changed, in ms).
vm_delays() {	# pid first ran since
	local -n seen=$2 on=$3 at=$4
	local f tid exec d st now wait max=0
	now=$(vm_now_ms)
	for f in /proc/"$1"/task/*/schedstat; do
		tid=${f%/schedstat}
		tid=${tid##*/}
		read -r exec d _ <"$f" 2>/dev/null || continue
		read -r st <"/proc/$1/task/$tid/stat" 2>/dev/null || continue
		st=${st##*) }	# the thread's name may hold spaces and ")"
		[ -n "${seen[$tid]:-}" ] || seen[$tid]=$d
		if [ "${on[$tid]:-}" != "$exec" ]; then
			on[$tid]=$exec
			at[$tid]=$now
		fi
		wait=$(((d - seen[$tid]) / 1000000))
		[ "${st%% *}" != R ] || wait=$((wait + now - at[$tid]))
		[ "$wait" -le "$max" ] || max=$wait
	done
	vm_held=$max
}

# True if the first "CPU: N ... Comm:" line of a report says "Not tainted",
# whether or not the guest finished.
vm_reported_untainted() {	# log
	local cpu
	cpu=$(grep -a -m 1 -E '^(\[ *[0-9.]+\] )?CPU: [0-9]+ .*Comm:' "$1") || return 1
	[[ $cpu == *"Not tainted"* ]]
}

# The demo shows the guest's console up to the kernel log dump.
show() {
	if [ "$mode" = demo ]; then
		tr -d '\r' | sed -u "/^=== $VM_TAG: dmesg ===/,\$d"
	else
		cat >/dev/null
	fi
}

passed=0
failed=0
skipped=0
summary=()

record() {	# ok|fail name
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "not ok - $2"
	fi
}

# The console with CRs stripped.  Greps read files, never pipes: under
# pipefail, grep -q quitting early would fail the pipeline by SIGPIPE.
clean_log() {	# log -> path of the clean copy
	tr -d '\r' <"$1" >"$1.txt"
	# A VM stopped mid-line (make mutate's, at a mutant's first sign) leaves
	# a last line with no newline, which sed then passes on: a judgement's
	# closing "failed=N" would be read as part of it.
	[ -z "$(tail -c 1 "$1.txt")" ] || echo >>"$1.txt"
	echo "$1.txt"
}

# Prints one suite run (a label of the guest's job), adds its counts to the
# totals and leaves them in the caller's p, f and s.
count_run() {	# kver log label
	local run=$2.$3 rc plan bad
	sed -n "/^=== $VM_TAG: run $3 ===/,/^=== $VM_TAG: exit $3 /p" "$2" >"$run"
	grep -v "^=== $VM_TAG:" "$run" || true
	p=$(grep -cE '^ok [0-9]+' "$run" || true)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$run" || true)
	f=$(grep -cE '^not ok [0-9]+' "$run" || true)
	rc=$(sed -n "s/^=== $VM_TAG: exit $3 \([0-9]*\) ===$/\1/p" "$2")
	[ "$rc" = 0 ] || f=$((f + 1))	# a crash or a harness error
	# Every test of the plan reported: a run that never started or was cut
	# off is a failure.  (Runs labelled fuzz, stress or faults print no
	# TAP: their exit status judges them.)  That a cell passed any test at all is the caller's to
	# check, over its programs: one program may skip every test (as a user
	# without the capability it needs) or have them all filtered out.
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$run" | head -n 1)
	case $3 in
	fuzz|stress|faults) ;;
	*)	if [ -z "$plan" ]; then
			echo "not ok - $1: $3: no TAP plan (the suite never started)"
			f=$((f + 1))
		elif [ "$(grep -cE '^(not )?ok [0-9]+' "$run")" != "$plan" ]; then
			echo "not ok - $1: $3: $(grep -cE '^(not )?ok [0-9]+' "$run") results for a plan of $plan"
			f=$((f + 1))
		fi ;;
	esac
	# kselftest reports a test that failed an EXPECT and then skipped as
	# "ok ... # SKIP": count it as the failure it is.
	bad=$(awk '/^(not )?ok [0-9]+/ { if (/# SKIP/ && seen) { print; n++ } seen = 0; next }
		   /:Expected / { seen = 1 }' "$run")
	if [ -n "$bad" ]; then
		echo "not ok - $1: $3: failed, then skipped:"
		echo "$bad" | sed 's/^/#   /'
		f=$((f + $(echo "$bad" | wc -l)))
	fi
	p=$((p - s))
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	[ "$f" = 0 ] || echo "not ok - $1: $3: $f failed"
}

# The guest finished, and its kernel log has no report; leaves the number
# of report lines in $reports.
check_guest() {	# kver log
	if grep -q "^=== $VM_TAG: done ===" "$2"; then
		record ok
	else
		record fail "$1: the guest never finished (timeout or panic); its last lines:"
		tail -n 30 "$2" | sed 's/^/#   /'
	fi
	reports=$(grep -cE "$REPORTS" "$2" || true)
	if [ "$reports" = 0 ]; then
		record ok
	else
		record fail "$1: the kernel log has $reports report lines:"
		# || true: head may close the pipe early (pipefail, set -e)
		grep -E -B 2 -A 20 "$REPORTS" "$2" | head -n 80 | sed 's/^/#   /' || true
	fi
}

# The cells of the ABI matrix that guest-check.sh runs, latest ABI first:
# abiA.BIN.BITS for A from @latest down to 0, BIN current and each release.
matrix_cells() {	# latest releases...
	local abi bin bits latest=$1
	shift
	for abi in $(seq "$latest" -1 0); do
		for bin in current "$@"; do
			for bits in 64 32; do
				echo "abi$abi.$bin.$bits"
			done
		done
	done
}

# The ABI the module says it is when loaded with no parameter
# (guest-check.sh's "check latest abi_version=N"), or nothing.
latest_abi() {	# log
	sed -n "s/^=== $VM_TAG: check latest abi_version=\([0-9]*\) ===\$/\1/p" "$1" | head -n 1
}

# What guest-check.sh says of loading and unloading the module: loaded
# with no parameter it is ABI @latest, one past it is refused by the
# module's own check, every ABI down to 0 loaded and unloaded, and no
# "check ... failed" marker; with @abis, only those ABIs were loaded (the
# cells make mutate asked for).
check_loading() {	# kver log latest [abis]
	local line abi next=$(($3 + 1))
	if grep -q "^=== $VM_TAG: check latest abi_version=$3 ===\$" "$2"; then
		record ok
	else
		record fail "$1: loaded with no parameter, the module is not ABI $3:"
		{ grep "^=== $VM_TAG: check latest\\|^=== $VM_TAG: check insmod failed" "$2" || true; } |
			sed 's/^/#   /'
	fi
	if grep -q "^=== $VM_TAG: check abi_version=$next rejected ===" "$2"; then
		record ok
	else
		record fail "$1: insmod abi_version=$next was not rejected by the module:"
		{ grep -A 3 "^=== $VM_TAG: check abi_version=$next" "$2" || true; } |
			sed 's/^/#   /'
	fi
	while read -r line; do
		record fail "$1: ${line#=== "$VM_TAG": }"
	done < <(grep -E "^=== $VM_TAG: check .* failed ===\$" "$2" || true)
	for abi in ${4:-$(seq "$3" -1 0)}; do
		if grep -q "^=== $VM_TAG: check rmmod abi_version=$abi ok ===" "$2"; then
			record ok
		else
			record fail "$1: rmmod after the abi_version=$abi runs"
		fi
	done
}
