#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The guided tour: one short section per lesson of docs/syllabus.md, each
# showing the command and the kernel's answer.  The client carries this
# script (flagsfirst tour runs it with sh, its own path as $1), so that it
# runs wherever the module is loaded, as root, with no other file of the
# project.  What a lesson needs beyond the client it looks for beside it,
# or where $FLAGSFIRST_KO and $FLAGSFIRST_TESTS say (make demo sets them):
# flagsfirst-v0 (the client built against the frozen ABI-0 header),
# flagsfirst-m32 (the client as a 32-bit program), races_test (the
# CLOEXEC race) and the module's .ko (the reload with
# abi_version=0, else modinfo -n finds an installed one).  Without them,
# the part is skipped and named at the end.
#
#   flagsfirst tour [--pause] [LESSON...]   the lessons named (default all),
#                                           with --pause waiting for Enter
#                                           before each step
#   flagsfirst tour --list                  the lessons, a line each
#
# Exits 1 if a step did not show what its caption says, 2 on bad usage.

self=${1:-$(command -v flagsfirst)}
[ $# -gt 0 ] && shift
here=$(dirname "$self")
here=${here%/}
pause=
list=
only=
for arg; do
	case $arg in
	--pause) pause=1 ;;
	--list) list=1 ;;
	[1-9] | 1[012]) only="$only $arg " ;;
	*)	echo "usage: flagsfirst tour [--pause] [LESSON...] | --list (lessons 1-12)" >&2
		exit 2 ;;
	esac
done
if [ -z "$list" ] && { [ "$(id -u)" != 0 ] || [ ! -e /dev/flagsfirst ]; }; then
	echo "flagsfirst tour: run it as root, with the module loaded (insmod flagsfirst.ko)" >&2
	exit 2
fi
tmp=$(mktemp -d /tmp/flagsfirst-tour.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
flagsfirst() { "$self" "$@"; }
v0=
[ -x "$here/flagsfirst-v0" ] && v0=$here/flagsfirst-v0
flagsfirst_v0() { "$v0" "$@"; }
m32=
[ -x "$here/flagsfirst-m32" ] && m32=$here/flagsfirst-m32
flagsfirst_m32() { "$m32" "$@"; }
races=
for d in "$here" "${FLAGSFIRST_TESTS:-}"; do
	[ -n "$d" ] && [ -x "$d/races_test" ] && races=$d/races_test && break
done
ko=${FLAGSFIRST_KO:-}
[ -n "$ko" ] || { [ -e "$here/flagsfirst.ko" ] && ko=$here/flagsfirst.ko; }
[ -n "$ko" ] || ko=$(modinfo -n flagsfirst 2>/dev/null) || ko=
skipped=

skip() {	# what, why
	printf '  (skipped: %s; %s)\n' "$1" "$2"
	skipped="$skipped${skipped:+; }$1"
}

# lesson N TITLE LINES...: false, and nothing printed, for a lesson not
# asked for (or, with --list, its title alone)
lesson() {
	n=$1
	shift
	if [ -n "$list" ]; then
		printf '%s\n' "$1"
		return 1
	fi
	case ${only:- $n } in
	*" $n "*) ;;
	*) return 1 ;;
	esac
	printf '\n=== %s ===\n' "$1"
	shift
	for line in "$@"; do
		printf '  %s\n' "$line"
	done
}

# --pause: the teacher presses Enter before each step
step_pause() {
	[ -z "$pause" ] && return 0
	printf '  [Enter] '
	read -r _ || true
}

run() {
	step_pause
	printf '$'
	printf ' %s' "$@"
	printf '\n'
	"$@" 2>&1 | sed 's/^/    /'
}


# shows TEXT COMMAND...: a step whose output must show TEXT (an errno's
# name, "-> ok"), or the lesson no longer shows what its caption says.
# Each step is counted; the last line gives the tally, which make demo
# and make check require to have no wrong step.
steps=0
wrong=0
check_step() {	# want output command-as-shown
	printf '%s\n' "$2" | sed 's/^/    /'
	steps=$((steps + 1))
	case $2 in
	*"$1"*) ;;
	*)	wrong=$((wrong + 1))
		echo "=== flagsfirst: tour step shows no '$1': $3 ===" ;;
	esac
}

shows() {
	want=$1
	shift
	step_pause
	printf '$'
	printf ' %s' "$@"
	printf '\n'
	check_step "$want" "$("$@" 2>&1)" "$*"
}

# As uid 65534, which the client becomes itself (--as-uid): no account
# database, no su, is needed, so the tour runs in a bare VM too.
nobody_shows() {
	want=$1
	shift
	shift	# "flagsfirst"
	step_pause
	printf '$ flagsfirst --as-uid 65534 %s\n' "$*"
	check_step "$want" "$("$self" --as-uid 65534 "$@" 2>&1)" "(as uid 65534) flagsfirst $*"
}

if lesson 1 "1. Flags from day one" \
	"rename() had no flags, so renameat2() had to come; dup2/dup3, pipe/pipe2," \
	"epoll_create/epoll_create1 and eventfd/eventfd2 tell the same story." \
	"Every flagsfirst op has a flags field, even GET, which has no flag yet" \
	"(process_vm_readv did the same in 3.2)."; then
	run flagsfirst set colour blue
	shows EEXIST flagsfirst set colour red --noreplace
	shows ENOENT flagsfirst set shade green --replace
	run flagsfirst set colour red --replace
	run flagsfirst get colour
fi

if lesson 2 "2. Unknown bits are rejected, never ignored" \
	"open(2) silently drops flags it does not know, so callers cannot tell" \
	"whether a new flag works.  Here, any bit the kernel does not know is EINVAL."; then
	shows EINVAL flagsfirst raw set --size 32 --flags 0x100 --name colour --value x
	shows EINVAL flagsfirst raw get --size 48 --flags 0x1 --name colour
	run flagsfirst get colour
fi

if lesson 3 "3. Conflicting flags are an error" \
	"Like renameat2(RENAME_NOREPLACE | RENAME_EXCHANGE): EINVAL, nothing done."; then
	shows EINVAL flagsfirst set colour green --noreplace --replace
	shows EINVAL flagsfirst rename colour shade --noreplace --exchange
fi

# The sizes come from the running module (CHECK_FIELDS, through probe),
# so that the lesson holds after the next ABI grows a struct.
[ -n "$list" ] || ksize=$(flagsfirst probe | awk '$1 == "set" { print $2 }')
if lesson 4 "4. Structs are versioned by their size" \
	"The size travels in the ioctl number, as in DRM; the kernel copies it" \
	"like copy_struct_from_user() (openat2, clone3): a smaller struct is" \
	"zero-extended, a bigger one accepted only if its tail is zero.  This" \
	"module's SET struct is $ksize bytes (CHECK_FIELDS says so); the first" \
	"release's was 32 (FLAGSFIRST_SET_SIZE_VER0), and less is EINVAL."; then
	shows EINVAL flagsfirst raw set --size 31 --flags 0 --name sized --value v
	shows "-> ok" flagsfirst raw set --size 32 --flags 0 --name sized --value v
	shows "-> ok" flagsfirst raw set --size $((ksize + 8)) --flags 0 --tail-byte 0 --name sized --value v
	shows E2BIG flagsfirst raw set --size $((ksize + 8)) --flags 0 --tail-byte 1 --name sized --value v
	shows E2BIG flagsfirst raw set --size 4097 --flags 0 --name sized --value v
fi

if lesson 5 "5. Ask the kernel what it supports: CHECK_FIELDS" \
	"With flags = CHECK_FIELDS an op does nothing but report its valid flags," \
	"its fields (all ones) and its struct size; user space needs no guessing." \
	"CHECK_FIELDS is a 2024 proposal for openat2 and clone3 that Linux has not" \
	"merged; the kernel's own ways to ask are in lesson 11."; then
	run flagsfirst probe
	run flagsfirst raw rename --size 64 --flags 0x8000000000000000
fi

if lesson 6 "6. Explicit intent: DELETE_ALL" \
	"AT_EMPTY_PATH: an empty path means \"this fd\" only with the flag, so an" \
	"empty string by accident is not a disaster.  An empty name is ENOENT;" \
	"deleting everything takes the flag and the empty name together."; then
	shows ENOENT flagsfirst raw delete --size 16 --flags 0 --name ""
	shows EINVAL flagsfirst raw delete --size 16 --flags 1 --name colour
	run flagsfirst set a 1
	run flagsfirst set b 2
	run flagsfirst delete --all
fi

if lesson 7 "7. Validity before permission" \
	"An unprivileged caller probing a flag learns whether it exists (EINVAL)," \
	"not whether it may use it (EPERM)."; then
	run flagsfirst set locked "root's" --immutable
	nobody_shows EINVAL flagsfirst raw set --size 32 --flags 0x10 --name locked --value x
	nobody_shows EPERM flagsfirst set locked mine
	nobody_shows EPERM flagsfirst set mine v --immutable
	shows EPERM flagsfirst set locked changed
fi

if lesson 8 "8. The flags-less legacy op" \
	"RENAME_LEGACY is rename(2) as it was: no flags, a fixed size.  It cannot" \
	"be told not to replace, so \"rename unless the target exists\" needs a" \
	"check and then a rename: another writer can slip in between, and its" \
	"entry is silently destroyed.  Before renameat2(RENAME_NOREPLACE), the" \
	"race-free way for a file was link() (EEXIST if taken), then unlink();" \
	"RENAME(NOREPLACE) does it in one step."; then
	run flagsfirst set draft "my work"
	run flagsfirst get report
	printf '  (another writer creates report now)\n'
	run flagsfirst set report "their work"
	run flagsfirst rename-legacy draft report
	run flagsfirst get report
	printf '  (the same race, with the flag)\n'
	run flagsfirst set draft "my work"
	run flagsfirst set report "their work"
	shows EEXIST flagsfirst rename draft report --noreplace
	run flagsfirst get report
fi

if lesson 9 "9. An fd-creating op takes its own CLOEXEC from day one" \
	"epoll_create1, eventfd2, inotify_init1, signalfd4, pipe2, dup3 (2.6.27) and" \
	"accept4 (2.6.28) exist because their first versions could not set" \
	"close-on-exec atomically.  WATCH returns an fd of change records and has" \
	"FLAGSFIRST_WATCH_CLOEXEC and _NONBLOCK from its first release."; then
	printf '$ flagsfirst watch --count 4 > events &\n'
	flagsfirst watch --count 4 >"$tmp/events" 2>&1 &
	watcher=$!
	sleep 1
	run flagsfirst set w1 one
	run flagsfirst rename w1 w2
	run flagsfirst set w3 three
	run flagsfirst delete w2
	wait $watcher
	printf '$ cat events\n'
	sed 's/^/    /' "$tmp/events"
	printf '  Why the flag matters, measured: two threads create watch fds while the\n'
	printf '  main thread forks 200 children that exec and count inherited watch fds.\n'
	if [ -n "$races" ]; then
		printf '$ races_test -f race\n'
		"$races" -f race 2>/dev/null | sed -n 's/^# race: /    /p'
	else
		skip "lesson 9's race" "no races_test beside the client (tests/races_test)"
	fi
fi

if lesson 10 "10. Growing an interface without a SET2: ABI 1" \
	"ABI 1 appended expect_seq to struct flagsfirst_set (SIZE_VER1 40) and the" \
	"flag that gates it, IF_SEQ: a compare-and-set.  flagsfirst-v0 is the same" \
	"client built against the frozen ABI-0 header: a program of the first release."; then
	run flagsfirst set counter 1
	run flagsfirst get counter
	seq=$(flagsfirst get counter | sed -n 's/.*seq \([0-9]*\).*/\1/p')
	run flagsfirst set counter 2 --if-seq "$seq"
	shows ESTALE flagsfirst set counter 3 --if-seq "$seq"
	if [ -n "$v0" ]; then
		printf '  The old binary on the new module: its 32-byte struct is zero-extended.\n'
		run flagsfirst_v0 set counter 4
		run flagsfirst_v0 probe
	else
		skip "lesson 10's old binary" "no flagsfirst-v0 beside the client (userspace/flagsfirst-v0)"
	fi
	if [ -n "$ko" ] && rmmod flagsfirst 2>/dev/null; then
		printf '  The same module loaded as the ABI-0 release behaved (abi_version=0):\n'
		printf '$ rmmod flagsfirst\n'
		run insmod "$ko" abi_version=0
		run flagsfirst probe
		shows "not supported by the running kernel" flagsfirst set counter 5 --if-seq 1
		shows EINVAL flagsfirst raw set --size 32 --flags 0x8 --name counter --value 5
		shows "-> ok" flagsfirst raw set --size 40 --flags 0 --name counter --value 6
		shows E2BIG flagsfirst raw set --size 40 --flags 0 --expect-seq 7 --name counter --value 6
		[ -z "$v0" ] || run flagsfirst_v0 set counter 7
		run flagsfirst get counter
		# back as it was loaded
		rmmod flagsfirst && insmod "$ko"
	else
		skip "lesson 10's reload as ABI 0" "no flagsfirst.ko beside the client, in \$FLAGSFIRST_KO or installed, or the module would not unload"
	fi
fi

if lesson 11 "11. The kernel's own calls, asked live: flagsfirst survey" \
	"The same lessons in Linux's system calls.  Flags: open ignores a bit no" \
	"kernel defines, openat2 (5.6) rejects it; mmap ignores it with MAP_SHARED" \
	"and rejects it with MAP_SHARED_VALIDATE, the 4.15 fix; syncfs has no" \
	"flags at all.  Sizes: openat2 refuses a bigger struct with a non-zero" \
	"tail, as flagsfirst does; sched_getattr left a bigger buffer's tail as" \
	"it was before 6.13 and zeroes it since (copy_struct_to_user()).  Discovery:" \
	"sched_getattr tells its struct's size.  (docs/survey.md has every row" \
	"on every kernel of the matrix, and what changed between them.)"; then
	# sched_getattr's bigger buffer: as this kernel's release has it
	tail=leaves
	release=$(uname -r)
	major=${release%%.*}
	minor=${release#*.}
	minor=${minor%%[!0-9]*}
	[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 13 ]; } && tail=zeroes
	rows="open	ignores
openat2	rejects
mmap-MAP_SHARED	ignores
mmap-MAP_SHARED_VALIDATE	rejects
syncfs	noflags
openat2:nonzero-tail	rejects
sched_getattr:out-tail-zeroed	$tail
sched_getattr-size	tells"
	printf '$ flagsfirst survey | (the rows above)\n'
	flagsfirst survey | awk 'NR == 1 || $1 ~ /^(open|openat2|mmap-MAP_SHARED|mmap-MAP_SHARED_VALIDATE|syncfs|openat2:nonzero-tail|sched_getattr:out-tail-zeroed|sched_getattr-size)$/' |
		sed 's/^/    /'
	tsv=$(flagsfirst survey --tsv)
	while IFS= read -r row; do
		steps=$((steps + 1))
		case "
$tsv" in
		*"
$row	"*) ;;
		*)	wrong=$((wrong + 1))
			echo "=== flagsfirst: tour step shows no '$row': flagsfirst survey ===" ;;
		esac
	done <<ROWS
$rows
ROWS
fi

if lesson 12 "12. Every ioctl read as an interface: the uapi census" \
	"An ioctl's number carries its payload's size, so a struct whose layout" \
	"differs between 32- and 64-bit programs gets two numbers, and the driver" \
	"needs compat code for the second.  make census reads every ioctl of" \
	"Linux's include/uapi with uapi-lint (docs/census.md): a fifth of the" \
	"struct payloads differ between -m32 and -m64, a quarter have a flags" \
	"field.  NVME_IOCTL_SUBMIT_IO's struct puts a __u64 after a __u32, which" \
	"i386 aligns to 4: 48 bytes for a 64-bit program, 44 for a 32-bit one, so" \
	"the kernel carries NVME_IOCTL_SUBMIT_IO32.  flagsfirst's structs have one" \
	"layout everywhere: the same numbers, and a 32-bit client that just works."; then
	shows "NVME_IOCTL_SUBMIT_IO         0x40304e42" flagsfirst ioctls
	if [ -n "$m32" ]; then
		shows "NVME_IOCTL_SUBMIT_IO         0x402c4e42" flagsfirst_m32 ioctls
		run flagsfirst_m32 set i386 "a 32-bit program's value"
		shows '"a 32-bit program'"'"'s value"' flagsfirst get i386
		flagsfirst delete i386 >/dev/null 2>&1
	else
		skip "lesson 12's 32-bit client" "no flagsfirst-m32 beside the client (userspace/flagsfirst-m32)"
	fi
fi

[ -n "$list" ] && exit 0
printf '\n=== The end ===\n  Every op: a flags field, strict bits, a sized struct, discovery.\n'
[ -z "$skipped" ] || echo "=== flagsfirst: tour skipped: $skipped ==="
echo "=== flagsfirst: tour: $steps steps, $wrong wrong ==="
[ "$wrong" = 0 ]
