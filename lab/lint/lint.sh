#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint: the kernel's own checkers and the packaging, each as one check.
# Prints "ok - ..." or "not ok - ..." with the findings, then
# "N passed, N failed"; exits non-zero on any finding.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
fetch=generic/vm/fetch.sh
"$fetch" deps lint >&2 || exit 1
src=$("$fetch" source) || exit 1
KERNELS=${KERNELS:-6.1 6.12 6.12-rt newest}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

passed=0
failed=0
# check NAME COMMAND...: passes when COMMAND exits 0 and prints nothing.
check() {
	local name=$1 log=$out/log
	shift
	if "$@" >"$log" 2>&1 && [ ! -s "$log" ]; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name"
		sed 's/^/#   /' "$log" | head -n 40
		failed=$((failed + 1))
	fi
}

checkpatch() {	# extra options, then files
	perl "$src/scripts/checkpatch.pl" --no-tree --strict --quiet --terse \
		--show-types "$@" | grep -E 'ERROR|WARNING|CHECK' || true
}

# Kernel code: checkpatch --strict with nothing ignored.
# Tracked files only: a build in the tree leaves generated ones next to them.
check "checkpatch --strict: module/, generic/module/, uapi/, Kbuild" \
	checkpatch -f $(git ls-files 'module/*' 'generic/module/*' Kbuild uapi)

# User space and tests follow the kernel's style too, minus the rules that
# only make sense inside the kernel: the Makefile lists them, and why.
USER_IGNORE=${CHECKPATCH_USER_IGNORE:?run me through make lint}
TEST_IGNORE=${CHECKPATCH_TEST_IGNORE:?run me through make lint}
check "checkpatch --strict: userspace/, lab/bench/ (kernel-only rules ignored)" \
	checkpatch --ignore "$USER_IGNORE" -f $(git ls-files 'userspace/*.[ch]' 'generic/userspace/*.[ch]' 'lab/bench/*.c')
check "checkpatch --strict: tests/ (kernel-only and kselftest rules ignored)" \
	checkpatch --ignore "$TEST_IGNORE" -f $(git ls-files 'tests/*.[ch]' 'generic/tests/*.[ch]')

# The uapi header meets the rules for exported headers.
hdr=uapi/linux/flagsfirst.h
check "uapi: SPDX GPL-2.0 WITH Linux-syscall-note" \
	bash -c "head -n 1 $hdr | grep -qxF '/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */'"
check "uapi: includes only exported linux/ headers" \
	bash -c "grep -E '^#[[:space:]]*include' $hdr | grep -vE '<linux/(types|ioctl)\\.h>'; true"
for c in "gcc -x c -std=c90 -pedantic -m64" "gcc -x c -std=c90 -pedantic -m32" \
	 "g++ -x c++ -std=c++98 -m64" "g++ -x c++ -std=c++17 -m32"; do
	check "uapi: compiles alone ($c)" bash -c \
		"printf '#include <linux/flagsfirst.h>\n#include <linux/flagsfirst.h>\nint x;\n' |
		 $c -Wall -Wextra -Werror -Iuapi -nostdinc -isystem /usr/include -fsyntax-only -"
done
check "uapi: pulls in no libc header, only kernel ones" bash -c \
	"printf '#include <linux/flagsfirst.h>\n' | gcc -x c -std=c90 -ffreestanding -M -Iuapi - |
	 tr ' ' '\n' | grep -E '\\.h\$' | grep -vE '/(linux|asm|asm-generic)/|flagsfirst\\.h'; true"
# headers_install.sh runs scripts/unifdef from the current directory.
check "uapi: scripts/headers_install.sh leaves it valid" bash -c \
	"mkdir -p $out/hi/linux $out/hi/scripts &&
	 gcc -O2 -o $out/hi/scripts/unifdef $src/scripts/unifdef.c &&
	 (cd $out/hi && $src/scripts/headers_install.sh $top/$hdr $out/hi/linux/flagsfirst.h) &&
	 printf '#include <linux/flagsfirst.h>\n' | gcc -x c -std=c90 -pedantic -Wall -Werror -I$out/hi -fsyntax-only -"
check "uapi: kernel-doc -Wall" \
	perl "$src/scripts/kernel-doc" -none -Wall $hdr module/*.c generic/module/*.c
# Every ioctl payload as an interface (docs/census.md): holes, padding,
# 32/64-bit differences, ABI-dependent types, flags, SIZE_VERs.  The
# flags-less legacy op keeps no flags field on purpose (lesson 8).
check "uapi-lint's oracles: each seeded defect found, and real structs as pahole shows them" \
	lab/lint/uapi-lint-oracles.sh
check "uapi-lint --check: every ioctl payload of the header, on x86-64, i386, arm64 and armhf" \
	generic/lint/uapi-lint.py --check -q --arch m64,m32,arm64,armhf \
	--allow FLAGSFIRST_IOC_RENAME_LEGACY:no-flags $hdr

# Each kernel of the matrix: "KVER KDIR ROOT" (ROOT: the chroot that
# builds for it, or -), one line each.
kernels=$out/kernels
for series in $KERNELS; do
	"$fetch" kernel "$series" | awk '{ print $1, $3, $4 }' >>"$kernels" ||
		echo "$series cannot-be-fetched -" >>"$kernels"
done

# @where is where the build tree is seen from: the host, or the chroot.
build_in() {	# root dir command...: runs a make in the tree copied to dir
	local root=$1 dir=$2
	shift 2
	rm -rf "${root#-}$dir" && mkdir -p "${root#-}$dir" &&
		cp -r Kbuild module uapi generic "${root#-}$dir/"
	if [ "$root" = - ]; then
		"$@"
	else
		generic/vm/in-chroot.sh "$root" "$@"
	fi
}

# Builds against every kernel: W=1 and sparse, zero warnings (sid's
# kernels in sid's chroot, with the compiler they were built with).
while read -r kver kdir root; do
	[ "$root" = - ] && dir=$out/m || dir=/build/lint
	check "W=1 build against $kver" bash -c \
		"$(declare -f build_in); build_in $root $dir make -s -C $kdir M=$dir W=1 modules \
		 >$out/build.log 2>&1; rc=\$?; grep -v 'Skipping BTF' $out/build.log; exit \$rc"
	check "sparse (C=2) against $kver" bash -c \
		"$(declare -f build_in); build_in $root $dir make -s -C $kdir M=$dir C=2 modules \
		 >$out/build.log 2>&1; rc=\$?; grep -v 'Skipping BTF' $out/build.log; exit \$rc"
done <"$kernels"

# The generic core's build-time rules: each broken table or struct fails
# with its own message (against the first kernel built on the host).
kdir=$(awk '$3 == "-" { print $2; exit }' "$kernels")
check "broken op tables and structs fail the build, each with its rule" \
	lab/lint/broken-tables.sh "$kdir"
# skeleton/, what scripts/new-interface copies and renames, is a real tree:
# it builds, warning-free, and checkpatch finds nothing in it.
check "skeleton: checkpatch --strict on module/ and uapi/" \
	checkpatch -f $(git ls-files 'skeleton/module/*.[ch]' 'skeleton/uapi/*')
check "skeleton: the module builds with W=1 C=1 (first kernel)" bash -c "
	rm -rf $out/skel && cp -rL skeleton $out/skel &&
	make -s -C $kdir M=$out/skel W=1 C=1 modules 2>&1 | grep -v 'Skipping BTF' | grep . && exit 1; test -e $out/skel/module/skel.ko"
check "skeleton: its suite and client build with -Werror" bash -c "
	make -s -C $out/skel/tests KSFT_DIR=$src/tools/testing/selftests >/dev/null &&
	make -s -C $out/skel/userspace >/dev/null"
# The generic files include nothing of flagsfirst's own and name none of
# its symbols: a generated interface receives them renamed, and they are
# called, never calling.  And nothing #includes a .c file.
# Every generic file -- C, shell, Perl, make -- names no interface: the
# interface's name comes from its header (uapi/linux/NAME.h), so a
# generated project's copy is the same file with only the core's prefix
# renamed.
check "generic/ names no interface (flagsfirst, skel) in any file" bash -c \
	"! git grep -n -i -e flagsfirst -e skel -- generic/"
check "generic/'s C includes nothing of flagsfirst's, and no file #includes a .c" bash -c \
	"! grep -nE '#include \"(ioctl|flagsfirst|table|entry|quota|watch|helpers)|<linux/flagsfirst.h>|ffst_ops|FLAGSFIRST_|FFST_IOC_TYPE' \
		\$(git ls-files 'generic/*.[ch]') &&
	 ! git grep -nE '#[[:space:]]*include[[:space:]]*[<\"].*\\.c[>\"]' -- '*.[ch]'"

# User space: the compilers' warnings are errors already; then cppcheck.
check "userspace, tests and bench build with -Wall -Wextra -Werror (-m64, -m32)" bash -c \
	"make -s -C userspace >/dev/null && make -s -C tests KSFT_DIR=$src/tools/testing/selftests >/dev/null &&
	 make -s -C lab/bench >/dev/null"
check "cppcheck: userspace/, tests/" \
	cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability,performance \
		--inline-suppr --suppress=missingIncludeSystem -Iuapi \
		-D__x86_64__ -D__linux__ userspace/flagsfirst.c userspace/survey*.c tests/flagsfirst_torture.c tests/torture_*.c \
		lab/bench/flagsfirst_bench.c

# Man pages: lint clean, render, and name every flag and errno of the header.
# syzkaller's description (lab/syz) still covers every op, flag and
# field of the header, and its .const file is what the header gives now.
check "lab/syz/dev_flagsfirst.txt describes the whole uapi header" lab/syz/check-description.sh
# ... and syzkaller's own compiler takes it, when a syzkaller is at hand
if [ -n "${SYZKALLER:-}" ] || ls "$top"/../shared/third_party/syzkaller/syzkaller-*.tar.* >/dev/null 2>&1; then
	check "syz-sysgen compiles lab/syz/dev_flagsfirst.txt" env SYZ_DESCRIPTION=lab/syz generic/syz/sysgen.sh
else
	echo "# syz-sysgen: no syzkaller snapshot in ../shared and no SYZKALLER: not compiled"
fi

check "the docs' quotations are current, and every \`name()\` and path they name exists (generic/lint/quote.pl)" \
	generic/lint/quote.pl --check --names --also "$src" --also skeleton README.md docs/*.md
check "one syllabus: docs/syllabus.md, the tour, the README and design.md agree, and its tests exist" \
	lab/lint/syllabus.sh
check "every relative link of the README and docs/ resolves" lab/lint/links.sh
check "the README is a front door: 150 lines at most" \
	bash -c '[ "$(wc -l <README.md)" -le 150 ] || echo "README.md: $(wc -l <README.md) lines"'
check "mandoc -T lint: man/" mandoc -T lint -W all man/*
check "man pages render" bash -c "for p in man/*; do mandoc -T utf8 \$p >/dev/null || echo \$p; done"
check "man pages name every flag and errno of the uapi header" \
	bash -c "lab/lint/man-coverage.sh >$out/man.log || cat $out/man.log"

# Packaging: dkms builds against the extracted Debian headers; make install
# and uninstall into a DESTDIR leave exactly the expected tree.
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
dkms remove -m flagsfirst -v "$version" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/flagsfirst-$version"
check "dkms add" bash -c "dkms add $top >/dev/null"
while read -r kver kdir root; do
	if [ "$root" = - ]; then
		check "dkms build against $kver" bash -c \
			"dkms build -m flagsfirst -v $version -k $kver --kernelsourcedir $kdir >$out/dkms.log 2>&1 ||
			 { tail -n 20 $out/dkms.log; tail -n 20 /var/lib/dkms/flagsfirst/$version/build/make.log; }"
		continue
	fi
	# The chroot's own dkms, on a copy of the tree under its /usr/src.
	check "dkms add, build against $kver (in sid's chroot)" bash -c "
		rm -rf $root/usr/src/flagsfirst-$version $root/var/lib/dkms/flagsfirst &&
		git ls-files | tar -c -T - | tar -x -C \$(mkdir -p $root/usr/src/flagsfirst-$version && echo $root/usr/src/flagsfirst-$version) &&
		generic/vm/in-chroot.sh $root dkms add -m flagsfirst -v $version >$out/dkms.log 2>&1 &&
		generic/vm/in-chroot.sh $root dkms build -m flagsfirst -v $version -k $kver \
			--kernelsourcedir $kdir >>$out/dkms.log 2>&1 ||
		{ tail -n 20 $out/dkms.log; tail -n 20 $root/var/lib/dkms/flagsfirst/$version/build/make.log; }
		rm -rf $root/usr/src/flagsfirst-$version $root/var/lib/dkms/flagsfirst"
done <"$kernels"
dkms remove -m flagsfirst -v "$version" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/flagsfirst-$version"

read -r kver kdir _ <"$kernels"
dest=$out/destdir
check "make install DESTDIR=... PREFIX=/usr" bash -c \
	"make -s install KDIR=$kdir DESTDIR=$dest PREFIX=/usr >$out/install.log 2>&1 || cat $out/install.log"
check "make install put every file in place" bash -c "
	for f in usr/include/linux/flagsfirst.h usr/bin/flagsfirst \
		 usr/share/man/man1/flagsfirst.1 usr/share/man/man4/flagsfirst.4 \
		 usr/share/man/man2const/FLAGSFIRST_IOC_SET.2const \
		 usr/share/man/man2const/FLAGSFIRST_IOC_WATCH.2const; do
		[ -f $dest/\$f ] || echo missing \$f
	done
	find $dest/lib/modules -name flagsfirst.ko | grep -q . || echo missing flagsfirst.ko"
# Every module parameter of main.c has its MODULE_PARM_DESC(), and each
# that takes a range (module_param_cb()) says it and its type.
params=$(grep -cE '^module_param_(named|cb)\(' module/main.c)
ranged=$(grep -c '^module_param_cb(' module/main.c)
check "modinfo shows version, description, license, author, $params parameters, $ranged ranges" bash -c "
	ko=\$(find $dest/lib/modules -name flagsfirst.ko | head -n 1)
	for k in version description license author parm; do
		/sbin/modinfo \$ko | grep -q \"^\$k:\" || echo modinfo lacks \$k
	done
	[ \$(/sbin/modinfo -F parm \$ko | grep -c ':') = $params ] || echo not $params described parameters
	[ \$(/sbin/modinfo -F parm \$ko | grep -c '(0 to 2147483647).*(uint)') = $ranged ] ||
		echo not $ranged parameters with their range and type"
check "make uninstall leaves no file behind" bash -c \
	"make -s uninstall KDIR=$kdir DESTDIR=$dest PREFIX=/usr >/dev/null 2>&1; find $dest -type f"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
