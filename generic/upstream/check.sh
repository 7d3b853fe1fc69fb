#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make check-upstream: make upstream's series, proved on pristine Debian
# kernel trees by the kernel's own referees, from the project's top
# directory:
#
#   check.sh [SERIES...]     (default: 6.12 newest)
#
# For each: the tree (Debian's linux-source of that version; for newest,
# sid's) as a git repository of its own under the cache (tree.sh), reset
# to pristine; the series made against it; then
#   - git am applies every patch (no fuzz: am has none)
#   - after every patch, as the build bots check a series: the tree
#     builds what it has so far -- the UAPI header test of the header
#     (a sample's, which is not exported: compiled on its own as a
#     program includes it), the driver or sample in-tree with W=1 C=1 and
#     no warning and linked as a module (modpost: no undefined symbol),
#     the selftests with -Werror
#   - checkpatch.pl --strict on each: no error, no warning, and no CHECK
#     the cover letter does not explain
#   - scripts/parse-maintainers.pl: MAINTAINERS parses to what it did
#     before, plus the one new entry, which sits where the script would
#     sort it, its fields in the script's order
#   - kernel-doc -none -Wall on every new source file and the header
#   - no line of the series names a file the tree does not have, or one of
#     the project's make targets: its comments point at the tree
#   - the documentation built with Sphinx (make htmldocs
#     SPHINXDIRS=userspace-api), before and after the series: no new
#     warning, and the new page in the built index
#   - get_maintainer.pl on the series: who it would be sent to (printed),
#     the new entry's maintainer among them
#   - Debian's configuration of that kernel, the new symbols =m
#   - the selftests installed as kselftest installs them, and run by its
#     own runner (run_kselftest.sh) in QEMU on Debian's stock kernel of
#     that version: with the in-tree-built module loaded, as root and as
#     uid 65534, every program passes (those of series.conf's TEST_TIMED,
#     whose tests bound a wait, in a second VM under -icount); without
#     the module, every program skips (KSFT_SKIP)
#   - the KUnit suites, if the project has them, through kunit.py with
#     their .kunitconfig, on UML (UPSTREAM_KUNIT=0 leaves it out)
# Prints "ok - ..." or "not ok - ..." per check, then "N passed, N failed".
set -uo pipefail

top=$(pwd)
# checkpatch's spdxcheck.py, docutils and Sphinx are Debian's python3
# packages: the system's python3, not one a user's PATH may put first
export PATH=/usr/bin:$PATH
# the kernel's make on its own, whatever make ran this (no -w from above)
unset MAKEFLAGS MFLAGS MAKELEVEL
here=$(cd "$(dirname "$0")" && pwd)
. ./upstream/series.conf
. "$here/tree.sh"
# UPPER, KSYM, and where the series puts things: DRV, HDR, DOC, ST
upstream_paths || exit 1
fetch=$(ls "$top"/tests/vm/fetch.sh "$top"/generic/vm/fetch.sh 2>/dev/null | head -n 1)
vmdir=$(dirname "$fetch")
cache_var=${UPPER}_CACHE
CACHE=${!cache_var:-$HOME/.cache/$NAME}
BUILD=$top/build/upstream
TIMEOUT=${UPSTREAM_TIMEOUT:-1500}
MEMORY=1024
APPEND=
mode=check
mkdir -p "$BUILD"
. "$vmdir/lib.sh"
"$fetch" deps upstream >&2 || exit 1

# The series is the user's: authored and signed off by git's identity.
# A machine without a real one (CI's) checks it under the check's own,
# which make upstream alone would refuse as a placeholder.
if ! real_identity; then
	echo "# git's identity here is not one to send with: the series is signed off by \"$NAME check-upstream <check-upstream@example.invalid>\""
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$NAME check-upstream"
	export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=check-upstream@example.invalid
	export UPSTREAM_CHECK_IDENTITY=1
fi

check() {	# NAME COMMAND...: passes when COMMAND exits 0 and prints nothing
	local name=$1 log=$BUILD/check.log
	shift
	if "$@" >"$log" 2>&1 && [ ! -s "$log" ]; then
		record ok
		echo "ok - $name"
	else
		record fail "$name"
		sed 's/^/#   /' "$log" | head -n 40
	fi
}

# The selftests as kselftest installs them, run by its runner in a VM:
# first without the module (every program must skip), then with it, as
# root and as uid 65534.  The programs of TEST_TIMED (series.conf), whose
# tests bound a wait, run in a second VM booted with -icount, where the
# guest's clock counts instructions: a busy host cannot make a call look
# long there (a GET that "waited" 68 ms was a vCPU the host did not run).
# The others run where the two vCPUs truly run at once, which their races
# need (under -icount the vCPUs take turns).  BusyBox's timeout is not
# GNU's, so the runner runs the programs without one: the VM's own
# timeout bounds the run.
selftest_vm() {	# kver vmlinuz ko ksft-dir log timed(0|1)
	local root=$BUILD/$1/initramfs t sel=
	for t in $TEST_PROGS; do
		case " ${TEST_TIMED:-} " in
		*" $t "*) [ "$6" = 0 ] || sel="$sel -t $ST:$t" ;;
		*) [ "$6" = 1 ] || sel="$sel -t $ST:$t" ;;
		esac
	done
	guest_root "$root"
	cp "$vmdir/guest-lib.sh" "$3" "$root/"
	rm -rf "$root/ksft"
	cp -a "$4" "$root/ksft"
	cat >"$root/init" <<EOF
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# what udev would add, and kselftest's runner writes to
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /tmp
chmod 1777 /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
chmod -R a+rwX /ksft
cd /tmp
export VM_TAG=$NAME
. /guest-lib.sh
echo "=== $NAME: kernel \$(uname -r) ==="
[ "$6" = 1 ] || run ksft.absent /ksft/run_kselftest.sh
if insmod /$(basename "$3"); then
	run ksft.root /ksft/run_kselftest.sh $sel
	# the runner opens /dev/stdout, which uid 65534 may open as a pipe
	# of its own, not as root's console
	run ksft.uid65534 su -s /bin/sh -c "set -o pipefail; /ksft/run_kselftest.sh $sel 2>&1 | cat" nobody
	rmmod $NAME || mark "check rmmod failed"
else
	mark "check insmod failed"
fi
echo "=== $NAME: dmesg ==="
dmesg
echo "=== $NAME: done ==="
reboot -f
EOF
	chmod +x "$root/init"
	pack_initramfs "$root" "$BUILD/$1/initramfs.cpio.gz"
	if [ "$6" = 1 ]; then
		QEMU_ARGS="${QEMU_ARGS:-} $TIMED_QEMU_ARGS" VM_CPU=$TIMED_VM_CPU \
			boot "$2" "$BUILD/$1/initramfs.cpio.gz" selftests "$5" || true
	else
		boot "$2" "$BUILD/$1/initramfs.cpio.gz" selftests "$5" || true
	fi
}

# MAINTAINERS before and after the series, as scripts/parse-maintainers.pl
# reads them: every entry but the new one unchanged, the new one where the
# script sorts it (titles in upper case, "THE REST" last) and its fields
# in the script's preferred order.
maintainers_check() {	# repo base title
	local t
	t=$(mktemp -d)
	git -C "$1" show "$2:MAINTAINERS" >"$t/before"
	cp "$1/MAINTAINERS" "$t/after"
	(cd "$t" && perl "$1/scripts/parse-maintainers.pl" --input=before --output=before.sorted --order &&
	 perl "$1/scripts/parse-maintainers.pl" --input=after --output=after.sorted --order) || return 1
	perl -e '
		my ($title, $dir) = @ARGV;
		sub entries { my ($f) = @_; open(my $in, "<", $f) or die "$f: $!\n";
			local $/ = ""; my %e; my @order;
			while (my $p = <$in>) { $p =~ s/\n+$//; my ($t) = split /\n/, $p;
				next if $p !~ /\n[A-Z]:\t/; $e{$t} = $p; push @order, $t; }
			return (\%e, \@order); }
		sub key { my $k = uc shift; $k =~ s/THE REST/ZZZZZZ/g; $k }
		my ($b) = entries("$dir/before.sorted");
		my ($a) = entries("$dir/after.sorted");
		my ($raw, $rawo) = entries("$dir/after");
		for my $t (sort keys %$b) {
			print "an entry changed or went: $t\n" if !exists $a->{$t} || $a->{$t} ne $b->{$t};
		}
		for my $t (sort keys %$a) {
			print "an entry appeared: $t\n" if !exists $b->{$t} && $t ne $title;
		}
		if (!exists $a->{$title} || !exists $raw->{$title}) {
			print "no entry $title\n"; exit;
		}
		print "the entry is not as parse-maintainers.pl --order writes it:\n$raw->{$title}\n"
			if $raw->{$title} ne $a->{$title};
		# after the entry the script sorts it after
		my ($i) = grep { $rawo->[$_] eq $title } 0 .. $#$rawo;
		my ($ao) = (entries("$dir/after.sorted"))[1];
		my ($j) = grep { $ao->[$_] eq $title } 0 .. $#$ao;
		my $want = $j > 0 ? $ao->[$j - 1] : "(none)";
		my $got = $i > 0 ? $rawo->[$i - 1] : "(none)";
		print "the entry is not in its sorted place: after $got, where parse-maintainers.pl puts it after $want\n"
			if $got ne $want;
	' "$3" "$t"
	rm -rf "$t"
}

# The warnings of a whole Sphinx build of Documentation/userspace-api
# (not an incremental one, which reads again only the pages that
# changed), paths made relative to the tree, sorted.
htmldocs() {	# repo out
	rm -rf "$2"
	make -s -C "$1" O="$2" SPHINXDIRS=userspace-api htmldocs >"$2.log" 2>&1
	grep -E 'WARNING|ERROR|CRITICAL' "$2.log" | sed "s|$1/||g" | sort -u
}

one() {	# series
	local series=$1 src repo out=$BUILD/$1/series kver vmlinuz kdir root
	local obj=$BUILD/$1/obj p prog who log failed_before=$failed base k n subject
	if ! read -r kver vmlinuz kdir root < <("$fetch" kernel "$series"); then
		record fail "$series: fetching its kernel failed"
		return
	fi
	if ! src=$("$fetch" source "$series"); then
		record fail "$series: fetching its linux-source failed"
		return
	fi
	if ! repo=$(pristine_tree "$src"); then
		record fail "$series: a git repository of $src"
		return
	fi
	base=$(git -C "$repo" rev-parse HEAD)
	echo "# $series: $(basename "$src") ($kver), base-commit $base"
	mkdir -p "$BUILD/$series"
	check "$series: make upstream writes the series" \
		bash -c "'$here/series.sh' '$repo' '$out' >/dev/null"
	ls "$out"/0001-* >/dev/null 2>&1 || return
	check "$series: the series' base-commit is the tree's" \
		bash -c "grep -q '^base-commit: $base\$' '$out/0000-cover-letter.patch' || echo 'base-commit: not $base'"
	check "$series: git am applies every patch" \
		bash -c "git -C '$repo' -c user.name=check -c user.email=check@localhost am -q '$out'/000[1-9]-*.patch"
	for p in "$out"/000[1-9]-*.patch; do
		check "$series: checkpatch --strict: $(basename "$p")" bash -c "
			cd '$repo' && perl scripts/checkpatch.pl --strict --terse --show-types '$p' |
			grep -E ': (ERROR|WARNING|CHECK):' |
			grep -v \"CHECK:SPACING: spaces preferred around that '\\*'\"; true"
	done
	check "$series: the cover letter explains every remaining CHECK" bash -c "
		n=\$(cd '$repo' && for p in '$out'/000[1-9]-*.patch; do perl scripts/checkpatch.pl --strict --terse --show-types \$p; done |
		     grep -c ': CHECK:'); [ \$n = 0 ] || tr '\n' ' ' <'$out/0000-cover-letter.patch' | grep -q \"\$n CHECKs remain\" ||
		echo \"\$n CHECKs, not in the cover letter\""
	check "$series: parse-maintainers.pl: MAINTAINERS as before but for the new entry, sorted" \
		maintainers_check "$repo" "$base" "$UPPER ${MAINT_WHAT:-INTERFACE}"
	local new
	new=$(git -C "$repo" diff --name-only --diff-filter=A "$base" HEAD -- '*.c' '*.h' | xargs)
	# A comment of the series points at the tree it lands in, never at
	# the project it came from (docs/, generic/, make check ...)
	check "$series: every file path the series' lines name is in the tree" \
		python3 - "$repo" "$base" <<'PY'
import os, re, subprocess, sys
repo, base = sys.argv[1:]
diff = subprocess.run(['git', '-C', repo, 'diff', base, 'HEAD'], capture_output=True,
                      text=True).stdout
path_re = re.compile(r'(?<![\w<"./-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-]+\.(?:c|h|md|rst|sh|py|txt))\b')
f = None
for line in diff.splitlines():
    if line.startswith('+++ b/'):
        f = line[6:]
        continue
    if not line.startswith('+') or line.startswith('+++') or 'http' in line:
        continue
    for p in path_re.findall(line[1:]):
        d = os.path.dirname(f)
        if not any(os.path.exists(os.path.join(repo, c)) for c in
                   (p, os.path.join(d, p), os.path.join('include', p),
                    os.path.join('include/uapi', p))):
            print('%s: %s' % (f, p))
PY
	check "$series: a project's make target is not named in the series" bash -c "
		git -C '$repo' diff '$base' HEAD | grep -nE '^\+.*\bmake (check|lint|mutate|bench|survey|demo|census|upstream|check-[a-z]+)\b'; true"
	check "$series: kernel-doc -none -Wall on the series' new C files" bash -c "
		cd '$repo' && perl scripts/kernel-doc -none -Wall $new 2>&1"
	check "$series: docutils reads $DOC (kernel-doc directives aside)" bash -c "
		sed 's/^\\.\\. kernel-doc::/.. kernel-doc/; s/^   :identifiers:/   identifiers/' '$repo/$DOC' |
		python3 -c 'import sys, docutils.core; docutils.core.publish_string(sys.stdin.read(), writer_name=\"null\", settings_overrides={\"halt_level\": 2, \"report_level\": 2})' 2>&1"
	echo "# $series: get_maintainer.pl would send the series to:"
	(cd "$repo" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		"$out"/000[1-9]-*.patch 2>&1) >"$BUILD/$series/get_maintainer.txt"
	sed 's/^/#   /' "$BUILD/$series/get_maintainer.txt"
	check "$series: get_maintainer.pl names the new entry's maintainer" bash -c "
		grep -qF \"\$(sed -n 's/^Signed-off-by: //p' '$out/0001-'*.patch | head -n 1)\" '$BUILD/$series/get_maintainer.txt' ||
		echo 'get_maintainer.pl does not name the series author'"

	# Debian's configuration, the new symbols as modules (sid's headers
	# sit in its chroot)
	[ "$root" = - ] || kdir=$root$kdir
	mkdir -p "$obj"
	# Not CONFIG_KUNIT, which Debian's kernels lack: it changes struct
	# module, and the module would not load on Debian's kernel.  (The KUnit
	# tests run out of tree, in make check-debug's kernel.)
	# The kernel's build runs where the kernel was built: on the host for
	# bookworm's, in sid's chroot (its compiler, its sparse) for sid's,
	# with the tree and the objects bound into it at /upstream.
	local mk krepo=$repo kobj=$obj
	if [ "$root" = - ]; then
		mk="make -s -C $repo O=$obj KERNELRELEASE=$kver"
	else
		krepo=/upstream/linux kobj=/upstream/obj
		mkdir -p "$root$krepo" "$root$kobj"
		mountpoint -q "$root$krepo" || mount --bind "$repo" "$root$krepo"
		mountpoint -q "$root$kobj" || mount --bind "$obj" "$root$kobj"
		# the chroot is named after its compiler (fetch.sh: gcc-16)
		mk="cd / && $vmdir/in-chroot.sh $root make -s -C $krepo O=$kobj KERNELRELEASE=$kver"
		mk="$mk CC=$(basename "$root") HOSTCC=$(basename "$root")"
	fi
	# sparse as the tree wants it: bookworm's is too old for 7.x, whose
	# Makefile then skips it (make lint runs sid's, in its chroot)
	local c=C=1
	if [ "$root" = - ] && [ -e "$repo/scripts/checker-valid.sh" ] &&
	   [ "$(cd "$repo" && sh scripts/checker-valid.sh sparse 2>/dev/null)" != 1 ]; then
		c=
		echo "# $series: sparse $(sparse --version 2>/dev/null) is too old for this tree: W=1 without C=1"
	fi
	# Debian's answers to the tree's Kconfig as it is now
	configure() {
		cp "$kdir/.config" "$obj/.config" &&
		"$repo/scripts/config" --file "$obj/.config" -m "$KSYM" \
			$([ "$DRV" != samples/$NAME ] || printf -- '-e SAMPLES') \
			-e HEADERS_INSTALL -e UAPI_HEADER_TEST \
			-d MODULE_SIG_ALL --set-str SYSTEM_TRUSTED_KEYS "" \
			--set-str SYSTEM_REVOCATION_KEYS "" &&
		bash -c "$mk olddefconfig" >/dev/null
	}
	configure
	check "$series: Debian's config, modules_prepare" bash -c "
		$mk modules_prepare 2>&1 | grep -v '^  *[A-Z]' ; cp '$kdir/Module.symvers' $obj/ && cp '$kdir/Module.symvers' $obj/vmlinux.symvers"

	# After every patch, what the tree has of the series so far builds:
	# the header (the UAPI header test), the driver (in-tree with W=1
	# and sparse; then linked as a module against Debian's Module.symvers,
	# where modpost finds a symbol that no patch so far defines), the
	# selftests (-Werror).
	local commits what last
	commits=$(git -C "$repo" rev-list --reverse "$base..HEAD")
	last=$(git -C "$repo" rev-parse HEAD)
	n=$(echo "$commits" | wc -l)
	k=0
	for p in $commits; do
		k=$((k + 1))
		subject=$(git -C "$repo" log -1 --format=%s "$p")
		git -C "$repo" checkout -q "$p"
		configure
		what=
		[ ! -e "$repo/$HDR" ] || what="$what header"
		[ ! -e "$repo/$DRV/Makefile" ] || what="$what ${DRV%%/*}"
		[ ! -d "$repo/tools/testing/selftests/$ST" ] || what="$what selftests"
		check "$series: after patch $k/$n ($subject) the tree builds:${what:- nothing of the series}" bash -c "
			if [ -e '$repo/include/uapi/linux/$NAME.h' ]; then
				$mk headers >/dev/null 2>&1 && test -e $obj/usr/include/linux/$NAME.h ||
					echo 'headers_install: no linux/$NAME.h'
				$mk usr/ 2>&1 | grep -i -e error -e warning -e '$NAME'
				test -e $obj/usr/include/linux/$NAME.hdrtest || echo 'the UAPI header test did not run'
			fi
			if [ -e '$repo/$HDR' ] && [ '$HDR' != include/uapi/linux/$NAME.h ]; then
				$mk headers >/dev/null 2>&1
				echo 'int main(void) { return 0; }' |
					gcc -Wall -Werror -isystem $obj/usr/include -include '$repo/$HDR' -x c -o /dev/null - 2>&1
			fi
			if [ -e '$repo/$DRV/Makefile' ]; then
				$mk W=1 $c $DRV/ 2>&1 | grep -v -e 'genksyms/parse.y' -e 'Skipping BTF'
				$mk M=$krepo/$DRV CONFIG_${KSYM}_KUNIT_TEST= modules 2>&1 | grep -v 'Skipping BTF'
				test -e '$repo/$DRV/$NAME.ko' || echo 'no $NAME.ko: is CONFIG_$KSYM set?'
			fi
			if [ -d '$repo/tools/testing/selftests/$ST' ]; then
				make -s -C '$repo/tools/testing/selftests' TARGETS=$ST \
					KHDR_INCLUDES='-isystem $obj/usr/include' USERCFLAGS=-Werror LDFLAGS=-static \
					OUTPUT=$BUILD/$series/selftests-$k >/dev/null 2>$BUILD/$series/selftests-$k.err ||
					tail -n 20 $BUILD/$series/selftests-$k.err
			fi
			true"
	done
	git -C "$repo" checkout -q "$last"

	# The documentation, with Sphinx, as make htmldocs builds it: no
	# warning the tree before the series did not have, and the page in
	# the index's toctree
	local before after html=$BUILD/$series/docs-after/Documentation/output
	if [ "${UPSTREAM_SPHINX:-1}" = 1 ]; then
		git -C "$repo" checkout -q "$base"
		before=$(htmldocs "$repo" "$BUILD/$series/docs-before")
		git -C "$repo" checkout -q "$last"
		after=$(htmldocs "$repo" "$BUILD/$series/docs-after")
		check "$series: make htmldocs SPHINXDIRS=userspace-api: no new warning, the page in the index" bash -c "
			comm -13 <(printf '%s\n' \"\$1\") <(printf '%s\n' \"\$2\")
			f=\$(find '$html' -name $NAME.html | head -n 1)
			[ -n \"\$f\" ] || { echo 'no $NAME.html built:'; tail -n 5 '$BUILD/$series/docs-after.log'; }
			grep -rqs 'href=\"$NAME.html\"' '$html/index.html' '$html/userspace-api/index.html' \
				'$html/userspace-api/ioctl/index.html' '$html/ioctl/index.html' ||
				echo 'the index does not link to $NAME.html'" _ "$before" "$after"
	else
		echo "# $series: the Sphinx build skipped (UPSTREAM_SPHINX=0)"
	fi

	local ko=$repo/$DRV/$NAME.ko ksft=$BUILD/$series/kselftest
	check "$series: make -C tools/testing/selftests TARGETS=$ST install" bash -c "
		rm -rf '$ksft'
		make -s -C '$repo/tools/testing/selftests' TARGETS=$ST \
			KHDR_INCLUDES='-isystem $obj/usr/include' LDFLAGS=-static \
			OUTPUT=$BUILD/$series/selftests INSTALL_PATH='$ksft' install >/dev/null 2>&1 ||
			echo 'kselftest install failed'
		test -x '$ksft/run_kselftest.sh' || echo 'no run_kselftest.sh'"
	if [ "$root" != - ]; then
		umount "$root$krepo" "$root$kobj" 2>/dev/null || true
	fi

	# The KUnit suite the way KUnit tests run in a tree: kunit.py builds a
	# UML kernel from the .kunitconfig beside the driver (or sample), boots
	# it and reads the results -- every case must pass, none be skipped.
	# (About 10 minutes on 2 cores; UPSTREAM_KUNIT=0 leaves it out and says
	# so.)
	if [ -n "${KUNIT_SRC:-}" ] && [ "${UPSTREAM_KUNIT:-1}" = 1 ]; then
		check "$series: tools/testing/kunit/kunit.py run --kunitconfig=$DRV (UML): every case passes" bash -c "
			cd '$repo' && python3 tools/testing/kunit/kunit.py run --kunitconfig=$DRV \
				--build_dir='$BUILD/$series/kunit' --jobs=$(nproc) >'$BUILD/$series/kunit.log' 2>&1 ||
				{ tail -n 30 '$BUILD/$series/kunit.log'; exit 1; }
			grep -E '^\[[0-9:]+\] Testing complete\. Ran [0-9]+ tests: passed: [0-9]+\$' '$BUILD/$series/kunit.log' >/dev/null ||
				grep -E 'Testing complete|failed|skipped|crashed' '$BUILD/$series/kunit.log' | tail -n 5"
		grep -E 'Testing complete' "$BUILD/$series/kunit.log" 2>/dev/null | sed 's/^/# kunit.py: /'
	elif [ -n "${KUNIT_SRC:-}" ]; then
		echo "# $series: kunit.py skipped (UPSTREAM_KUNIT=0)"
	fi
	if [ "$failed" != "$failed_before" ] || [ ! -e "$ko" ]; then
		record fail "$series: the selftests in a VM: not run (a step above failed)"
		return
	fi
	local progs timed=0 vm want t
	progs=$(echo $TEST_PROGS | wc -w)
	for t in ${TEST_TIMED:-}; do
		case " $TEST_PROGS " in *" $t "*) timed=$((timed + 1)) ;; esac
	done
	for vm in 0 1; do
		[ "$vm" = 0 ] || [ "$timed" -gt 0 ] || continue
		log=$BUILD/$series/console$([ "$vm" = 0 ] || echo -timed).log
		selftest_vm "$kver" "$vmlinuz" "$ko" "$ksft" "$log" "$vm"
		log=$(clean_log "$log")
		for who in absent root uid65534; do
			[ "$vm" = 0 ] || [ "$who" != absent ] || continue
			want=$((progs - timed))
			[ "$vm" = 0 ] || want=$timed
			count_run "$kver" "$log" "ksft.$who" >"$BUILD/$series/ksft$vm.$who.tap"
			if [ "$who" = absent ]; then
				if [ "$s" = "$progs" ] && [ "$f" = 0 ] && [ "$p" = 0 ]; then
					record ok
					echo "ok - $series: without the module, kselftest's runner skips every program ($progs)"
				else
					record fail "$series: without the module, kselftest's runner: $p passed, $s skipped, $f failed of $progs programs (every one must skip)"
					grep -E '^(not )?ok' "$BUILD/$series/ksft$vm.$who.tap" | head -n 5 | sed 's/^/#   /'
				fi
			elif [ "$f" = 0 ] && [ $((p + s)) = "$want" ]; then
				echo "ok - $series: kselftest's runner as $who$([ "$vm" = 0 ] || echo ', under -icount'): $p programs passed, $s skipped"
			else
				[ "$f" != 0 ] || record fail "$series: kselftest's runner as $who: $((p + s)) results of $want programs"
				echo "not ok - $series: kselftest's runner as $who$([ "$vm" = 0 ] || echo ', under -icount'): $f failed"
				grep '^not ok' "$BUILD/$series/ksft$vm.$who.tap" | head -n 5 | sed 's/^/#   /'
			fi
		done
		check_guest "$kver" "$log"
	done
}

lock_trees
for series in ${*:-6.12 newest}; do
	one "$series"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
