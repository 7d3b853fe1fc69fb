#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make check-upstream: make upstream's series, proved on pristine Debian
# kernel trees, from the project's top directory:
#
#   check.sh [SERIES...]     (default: 6.12 newest)
#
# For each: the tree (Debian's linux-source of that version; for newest,
# sid's) as a git repository of its own under the cache, reset to
# pristine; the series made against it; then
#   - git am applies every patch (no fuzz: am has none)
#   - checkpatch.pl --strict on each: no error, no warning, and no CHECK
#     the cover letter does not explain
#   - kernel-doc -none -Wall on the header; the .rst read by docutils
#   - Debian's configuration of that kernel, the new symbols =m: the driver
#     builds in-tree with W=1 C=1 and no warning; headers_install and the
#     UAPI header test (CONFIG_UAPI_HEADER_TEST) of the new header pass
#   - the selftests, built with make -C tools/testing/selftests
#     TARGETS=drivers/NAME, run in QEMU on Debian's stock kernel of that
#     version with the in-tree-built module loaded, as root and as uid
#     65534: their KTAP says 0 failed
# Prints "ok - ..." or "not ok - ..." per check, then "N passed, N failed".
set -uo pipefail

top=$(pwd)
# checkpatch's spdxcheck.py and docutils are Debian's python3 packages:
# the system's python3, not one a user's PATH may put first
export PATH=/usr/bin:$PATH
# the kernel's make on its own, whatever make ran this (no -w from above)
unset MAKEFLAGS MFLAGS MAKELEVEL
here=$(cd "$(dirname "$0")" && pwd)
. ./upstream/series.conf
UPPER=$(echo "$NAME" | tr a-z A-Z)
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

# A pristine tree of @src as a git repository under the cache (made once),
# reset to its first commit; prints its path.
pristine() {	# series src
	local repo=$CACHE/upstream/$1/linux
	if [ ! -e "$repo/.git/pristine" ]; then
		step "making a git repository of $2 (once)"
		rm -rf "$repo"
		mkdir -p "$repo"
		cp -a "$2/." "$repo/"
		rm -f "$repo/.version"
		# -f: Debian's .gitignore ignores the whole top level
		git -C "$repo" init -q &&
		git -C "$repo" add -A -f &&
		git -C "$repo" -c user.name=pristine -c user.email=pristine@localhost \
			commit -q -m "$(basename "$2"), as Debian ships it" >&2 &&
		touch "$repo/.git/pristine" || return 1
	fi
	git -C "$repo" am --abort >/dev/null 2>&1 || true
	git -C "$repo" reset -q --hard "$(git -C "$repo" rev-list --max-parents=0 HEAD)"
	git -C "$repo" clean -qfdx
	echo "$repo"
}

selftest_vm() {	# kver vmlinuz ko bindir log
	local root=$BUILD/$1/initramfs p
	guest_root "$root"
	cp "$vmdir/guest-lib.sh" "$3" "$root/"
	mkdir -p "$root/tests"
	for p in $TEST_PROGS; do
		cp "$4/$p" "$root/tests/"
	done
	cat >"$root/init" <<EOF
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
chmod 1777 /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
cd /tmp
export VM_TAG=$NAME
. /guest-lib.sh
echo "=== $NAME: kernel \$(uname -r) ==="
if insmod /$(basename "$3"); then
	for p in $TEST_PROGS; do
		run \$p.root /tests/\$p
		run \$p.uid65534 su -s /bin/sh -c /tests/\$p nobody
	done
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
	boot "$2" "$BUILD/$1/initramfs.cpio.gz" selftests "$5" || true
}

one() {	# series
	local series=$1 src repo out=$BUILD/$1/series kver vmlinuz kdir root
	local obj=$BUILD/$1/obj p prog who log failed_before=$failed
	if ! read -r kver vmlinuz kdir root < <("$fetch" kernel "$series"); then
		record fail "$series: fetching its kernel failed"
		return
	fi
	if ! src=$("$fetch" source "$series"); then
		record fail "$series: fetching its linux-source failed"
		return
	fi
	if ! repo=$(pristine "$series" "$src"); then
		record fail "$series: a git repository of $src"
		return
	fi
	echo "# $series: $(basename "$src") ($kver)"
	check "$series: make upstream writes the series" \
		bash -c "'$here/series.sh' '$repo' '$out' >/dev/null"
	ls "$out"/0001-* >/dev/null 2>&1 || return
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
	check "$series: kernel-doc -none -Wall on include/uapi/linux/$NAME.h" bash -c "
		cd '$repo' && perl scripts/kernel-doc -none -Wall include/uapi/linux/$NAME.h 2>&1"
	check "$series: docutils reads Documentation/userspace-api/$NAME.rst (kernel-doc directives aside)" bash -c "
		sed 's/^\\.\\. kernel-doc::/.. kernel-doc/; s/^   :identifiers:/   identifiers/' '$repo/Documentation/userspace-api/$NAME.rst' |
		python3 -c 'import sys, docutils.core; docutils.core.publish_string(sys.stdin.read(), writer_name=\"null\", settings_overrides={\"halt_level\": 2, \"report_level\": 2})' 2>&1"

	# Debian's configuration, the new symbols as modules (sid's headers
	# sit in its chroot)
	[ "$root" = - ] || kdir=$root$kdir
	mkdir -p "$obj"
	cp "$kdir/.config" "$obj/.config"
	"$repo/scripts/config" --file "$obj/.config" -m "$UPPER" \
		-e HEADERS_INSTALL -e UAPI_HEADER_TEST \
		-d MODULE_SIG_ALL --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS ""
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
	check "$series: Debian's config with CONFIG_$UPPER=m, modules_prepare" bash -c "
		$mk olddefconfig >/dev/null && grep -q '^CONFIG_$UPPER=m' $obj/.config &&
		$mk modules_prepare 2>&1 | grep -v '^  *[A-Z]' ; cp '$kdir/Module.symvers' $obj/ && cp '$kdir/Module.symvers' $obj/vmlinux.symvers"
	# In-tree, as the kernel's own build compiles it; then linked as a
	# module against Debian's Module.symvers, to load on Debian's kernel
	# (a single in-tree .ko needs the whole vmlinux built first).
	# sparse as the tree wants it: bookworm's is too old for 7.x, whose
	# Makefile then skips it (make lint runs sid's, in its chroot)
	local c=C=1
	if [ "$root" = - ] && [ -e "$repo/scripts/checker-valid.sh" ] &&
	   [ "$(cd "$repo" && sh scripts/checker-valid.sh sparse 2>/dev/null)" != 1 ]; then
		c=
		echo "# $series: sparse $(sparse --version 2>/dev/null) is too old for this tree: W=1 without C=1"
	fi
	check "$series: the driver builds in-tree with W=1 $c, no warning" bash -c "
		$mk W=1 $c drivers/misc/$NAME/ 2>&1 | grep -v -e 'genksyms/parse.y' -e 'Skipping BTF'; true"
	check "$series: the driver links as a module against Debian's Module.symvers" bash -c "
		$mk M=$krepo/drivers/misc/$NAME CONFIG_${UPPER}_KUNIT_TEST= modules 2>&1 |
		grep -v 'Skipping BTF'; true"
	check "$series: headers_install and the UAPI header test of linux/$NAME.h" bash -c "
		$mk headers >/dev/null 2>&1 && test -e $obj/usr/include/linux/$NAME.h &&
		{ $mk usr/ 2>&1 | grep -i -e error -e warning -e '$NAME'; true; } &&
		{ test -e $obj/usr/include/linux/$NAME.hdrtest || echo 'the UAPI header test did not run'; }"
	check "$series: make -C tools/testing/selftests TARGETS=drivers/$NAME builds its programs" bash -c "
		make -s -C '$repo/tools/testing/selftests' TARGETS=drivers/$NAME \
			KHDR_INCLUDES='-isystem $obj/usr/include' LDFLAGS=-static \
			OUTPUT=$BUILD/$series/selftests >/dev/null 2>&1 ||
		make -C '$repo/tools/testing/selftests' TARGETS=drivers/$NAME \
			KHDR_INCLUDES='-isystem $obj/usr/include' LDFLAGS=-static \
			OUTPUT=$BUILD/$series/selftests 2>&1 | tail -n 20"
	local ko=$repo/drivers/misc/$NAME/$NAME.ko bins=$BUILD/$series/selftests/drivers/$NAME
	for d in "$BUILD/$series/selftests" "$repo/tools/testing/selftests/drivers/$NAME"; do
		[ -e "$bins/${TEST_PROGS%% *}" ] || bins=$d
	done
	if [ "$root" != - ]; then
		umount "$root$krepo" "$root$kobj" 2>/dev/null || true
	fi
	if [ "$failed" != "$failed_before" ] || [ ! -e "$ko" ]; then
		record fail "$series: the selftests in a VM: not run (a step above failed)"
		return
	fi
	log=$BUILD/$series/console.log
	selftest_vm "$kver" "$vmlinuz" "$ko" "$bins" "$log"
	log=$(clean_log "$log")
	for prog in $TEST_PROGS; do
		for who in root uid65534; do
			count_run "$kver" "$log" "$prog.$who" >"$BUILD/$series/$prog.$who.tap"
			if [ "$f" = 0 ]; then
				echo "ok - $series: $prog as $who in a VM ($p passed, $s skipped)"
			else
				echo "not ok - $series: $prog as $who in a VM: $f failed"
				grep '^not ok' "$BUILD/$series/$prog.$who.tap" | head -n 5 | sed 's/^/#   /'
			fi
		done
	done
	check_guest "$kver" "$log"
}

for series in ${*:-6.12 newest}; do
	one "$series"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
