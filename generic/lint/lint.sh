#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint, for any interface made on the generic core: the kernel's own
# checkers, each as one check.  Prints "ok - ..." or "not ok - ..." with
# the findings, then "N passed, N failed"; exits non-zero on any finding.
#
# Run from the project's top directory (make lint does), where the one
# header of uapi/linux/, NAME.h, names the interface.  The Makefile sets:
#   LINT_VM                 the directory of fetch.sh and in-chroot.sh
#   KERNELS                 the kernels of the W=1 and sparse builds
#   CHECKPATCH_USER_IGNORE  the kernel-only rules checkpatch skips in
#   CHECKPATCH_TEST_IGNORE  user space and in the tests (the Makefile says why)
#   UAPI_LINT_ARGS          more for uapi-lint.py (--allow OP:RULE)
#   LINT_USER_FILES         more user-space sources for checkpatch
#   LINT_EXTRA              a file of the project's own checks, sourced last
# Only files git tracks are read, where the tree is a git checkout: a build
# leaves generated ones (NAME.mod.c) next to them.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(pwd)
[ -d uapi/linux ] || { echo "lint.sh: run me from the project's top (make lint)" >&2; exit 2; }
hdr=$(ls uapi/linux/*.h)
name=$(basename "$hdr" .h)
vm=${LINT_VM:?run me through make lint}
"$vm/fetch.sh" deps lint >&2 || exit 1
src=$("$vm/fetch.sh" source) || exit 1
KERNELS=${KERNELS:?run me through make lint}
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

# The files of the tree that match the patterns (git's pathspecs)
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -- "$@"
	else
		local p
		for p in "$@"; do
			find . -path "./$p" -type f ! -name '*.mod.c' | sed 's|^\./||'
		done | sort -u
	fi
}

checkpatch() {	# extra options, then files
	perl "$src/scripts/checkpatch.pl" --no-tree --strict --quiet --terse \
		--show-types "$@" | grep -E 'ERROR|WARNING|CHECK' || true
}

# Kernel code: checkpatch --strict with nothing ignored.
check "checkpatch --strict: module/, uapi/, Kbuild" \
	checkpatch -f $(files 'module/*' 'generic/module/*' Kbuild 'uapi/*')
# User space and tests follow the kernel's style too, minus the rules that
# only make sense inside the kernel.
check "checkpatch --strict: userspace/ (kernel-only rules ignored)" \
	checkpatch --ignore "${CHECKPATCH_USER_IGNORE:?run me through make lint}" \
	-f $(files 'userspace/*.[ch]' 'generic/userspace/*.[ch]') ${LINT_USER_FILES:-}
check "checkpatch --strict: tests/ (kernel-only and kselftest rules ignored)" \
	checkpatch --ignore "${CHECKPATCH_TEST_IGNORE:?run me through make lint}" \
	-f $(files 'tests/*.[ch]' 'generic/tests/*.[ch]')
check "kernel-doc -Wall: the uapi header and module/" \
	perl "$src/scripts/kernel-doc" -none -Wall $hdr $(files 'module/*.c' 'generic/module/*.c')

# The uapi header meets the rules for exported headers: it stands alone,
# in C90 and C++, 64- and 32-bit, included twice, and pulls in no libc.
check "uapi: SPDX GPL-2.0 WITH Linux-syscall-note" \
	bash -c "head -n 1 $hdr | grep -qxF '/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */'"
check "uapi: includes only exported linux/ headers" \
	bash -c "grep -E '^#[[:space:]]*include' $hdr | grep -vE '<linux/(types|ioctl)\\.h>'; true"
for c in "gcc -x c -std=c90 -pedantic -m64" "gcc -x c -std=c90 -pedantic -m32" \
	 "g++ -x c++ -std=c++98 -m64" "g++ -x c++ -std=c++17 -m32"; do
	check "uapi: compiles alone ($c)" bash -c \
		"printf '#include <linux/$name.h>\n#include <linux/$name.h>\nint x;\n' |
		 $c -Wall -Wextra -Werror -Iuapi -nostdinc -isystem /usr/include -fsyntax-only -"
done
check "uapi: pulls in no libc header, only kernel ones" bash -c \
	"printf '#include <linux/$name.h>\n' | gcc -x c -std=c90 -ffreestanding -M -Iuapi - |
	 tr ' ' '\n' | grep -E '\\.h\$' | grep -vE '/(linux|asm|asm-generic)/|$name\\.h'; true"
# headers_install.sh runs scripts/unifdef from the current directory.
check "uapi: scripts/headers_install.sh leaves it valid" bash -c \
	"mkdir -p $out/hi/linux $out/hi/scripts &&
	 gcc -O2 -o $out/hi/scripts/unifdef $src/scripts/unifdef.c &&
	 (cd $out/hi && $src/scripts/headers_install.sh $top/$hdr $out/hi/linux/$name.h) &&
	 printf '#include <linux/$name.h>\n' | gcc -x c -std=c90 -pedantic -Wall -Werror -I$out/hi -fsyntax-only -"

# Every ioctl payload read as an interface (uapi-lint.py): no hole, no
# padding, one layout on x86-64, i386, arm64 and armhf, no long, pointer,
# enum, bool or bitfield, a flags field, each _SIZE_VER<n> where a field
# ends.
check "uapi-lint --check: every ioctl payload of the header, on x86-64, i386, arm64 and armhf" \
	"$here/uapi-lint.py" --check -q --arch m64,m32,arm64,armhf ${UAPI_LINT_ARGS:-} $hdr

# The ABI of every release, frozen in tests/abi/vN (make freeze), may only
# grow: each of its structs keeps every member at its offset and size, and
# grows at the end if at all (pahole reads both from DWARF, 64- and 32-bit).
layout() {	# header-dir bits -> "struct member offset size" lines
	{
		echo "#include <linux/$name.h>"
		sed -n "s/^struct \\(${name}_[a-z0-9_]*\\) {\$/struct \\1 v_\\1;/p" "$1/linux/$name.h"
	} | gcc -m"$2" -g -c -x c -I"$1" -o "$out/abi.o" - &&
	pahole --hex "$out/abi.o" | awk '
		/^struct [a-z0-9_]+ \{/ { s = $2; next }
		/^\};/ { next }
		/\/\* size: / { sub(/,/, "", $3); print s, "SIZE", $3; next }
		s && /;[ \t]*\/\*/ {
			line = $0; sub(/;.*/, "", line); n = split(line, w, /[ \t*]+/)
			match($0, /\/\*[ \t]*[0-9a-fx]+[ \t]+[0-9a-fx]+/)
			split(substr($0, RSTART + 2, RLENGTH - 2), o, " ")
			print s, w[n], o[1], o[2]
		}'
}
for rel in $(cd tests/abi 2>/dev/null && ls -d v[0-9]* | sort -V); do
	for bits in 64 32; do
		check "ABI: every struct of tests/abi/$rel only grew at its end (-m$bits)" bash -c "
			$(declare -f layout); out=$out name=$name
			layout tests/abi/$rel $bits >$out/then && layout uapi $bits >$out/now || exit 1
			awk 'NR == FNR { now[\$1, \$2] = \$3 \" \" \$4; next }
			     \$2 == \"SIZE\" { if ((\$1, \"SIZE\") in now &&
						  (now[\$1, \"SIZE\"] + 0) >= (\$3 + 0)) next
				print \$1 \": smaller, or gone\"; next }
			     now[\$1, \$2] != \$3 \" \" \$4 { print \$1 \".\" \$2 \": moved, resized or gone\" }' \\
				$out/now $out/then"
	done
done

# Each kernel of the matrix: "KVER KDIR ROOT" (ROOT: the chroot that
# builds for it, or -), one line each.
kernels=$out/kernels
for series in $KERNELS; do
	"$vm/fetch.sh" kernel "$series" | awk '{ print $1, $3, $4 }' >>"$kernels" ||
		echo "$series cannot-be-fetched -" >>"$kernels"
done

# @dir is where the build tree is seen from: the host, or the chroot.
build_in() {	# root dir command...: runs a make in the tree copied to dir
	local root=$1 dir=$2
	shift 2
	rm -rf "${root#-}$dir" && mkdir -p "${root#-}$dir" &&
		cp -rL Kbuild module uapi $(ls -d generic 2>/dev/null) "${root#-}$dir/"
	if [ "$root" = - ]; then
		"$@"
	else
		"$vm/in-chroot.sh" "$root" "$@"
	fi
}

# Builds against every kernel: W=1 and sparse, zero warnings (sid's
# kernels in sid's chroot, with the compiler they were built with).
while read -r kver kdir root; do
	[ "$root" = - ] && dir=$out/m || dir=/build/lint-$$
	for how in W=1 C=2; do
		check "$how build against $kver" bash -c \
			"$(declare -f build_in); vm=$vm
			 build_in $root $dir make -s -C $kdir M=$dir $how modules >$out/build.log 2>&1
			 rc=\$?; grep -v 'Skipping BTF' $out/build.log; exit \$rc"
	done
	[ "$root" = - ] || rm -rf "$root$dir"
done <"$kernels"

check "the suite and the client build with -Wall -Wextra -Werror (-m64, -m32)" bash -c "
	make -s -C tests KSFT_DIR=$src/tools/testing/selftests >/dev/null &&
	make -s -C userspace >/dev/null"

# Man pages: lint clean, and they render.
check "mandoc -T lint: man/" mandoc -T lint -W all man/*
check "man pages render" bash -c "for p in man/*; do mandoc -T utf8 \$p >/dev/null || echo \$p; done"
# The docs' quotations of the code (<!-- quote: ... --> blocks) are
# current, and every `name()` and path they name exists.
check "the docs' quotations are current, and every \`name()\` and path they name exists (quote.pl)" \
	"$here/quote.pl" --check --names --also "$src" ${LINT_QUOTE_ALSO:-} README.md docs/*.md

# syzkaller's description, made from the header (and the project's
# tests/syz/hints.syz) by describe.sh, which fails when an op or a
# constant of the header is in no call; syz-sysgen compiles it when a syzkaller
# is at hand (the snapshot in ../shared, or SYZKALLER).
check "describe.sh: syzkaller's description uses every op and constant of the header" \
	"$vm/../syz/describe.sh" "$out/syz"
if [ -n "${SYZKALLER:-}" ] || ls "$top"/../shared/third_party/syzkaller/syzkaller-*.tar.* >/dev/null 2>&1; then
	check "syz-sysgen compiles the description" "$vm/../syz/sysgen.sh"
else
	echo "# syz-sysgen: no syzkaller snapshot in ../shared and no SYZKALLER: not compiled"
fi

# The VM runner's boot(): which dead guests it boots again, and that it
# stops a hung guest but not one the host is starving (about 30 s).
check "boot(): a guest dead untainted is booted again; a hung one stopped, a starved one not" \
	"$vm/boot-test.sh"

# the project's own checks
if [ -n "${LINT_EXTRA:-}" ]; then
	# shellcheck source=/dev/null
	. "$LINT_EXTRA"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
