#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint: the kernel's own checkers on skel, each as one check, on the
# kernels of $KERNELS (default "6.1 6.12").  Prints "ok - ..." or
# "not ok - ..." with the findings, then "N passed, N failed"; exits
# non-zero on any finding.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
fetch=tests/vm/fetch.sh
"$fetch" deps lint >&2 || exit 1
src=$("$fetch" source) || exit 1
KERNELS=${KERNELS:-6.1 6.12}
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

hdr=uapi/linux/skel.h
# the module's own sources: not what a build of it leaves (skel.mod.c)
sources=$(ls module/*.[ch] | grep -v '\.mod\.c$' | tr '\n' ' ')
csources=$(ls module/*.c | grep -v '\.mod\.c$' | tr '\n' ' ')
check "checkpatch --strict: module/, uapi/" bash -c "
	perl $src/scripts/checkpatch.pl --no-tree --strict --quiet --terse \\
		-f $sources $hdr | grep -E 'ERROR|WARNING|CHECK'; true"
check "kernel-doc -Wall: the uapi header and module/" bash -c "
	perl $src/scripts/kernel-doc -none -Wall $hdr $csources 2>&1"

# Every ioctl payload read as an interface (tests/uapi-lint.py): no hole,
# no padding, one layout on x86-64, i386, arm64 and armhf, no long,
# pointer, enum, bool or bitfield, a flags field, each _SIZE_VER<n> where
# a field ends.
check "tests/uapi-lint.py --check: every ioctl payload of the header, on x86-64, i386, arm64 and armhf" \
	python3 tests/uapi-lint.py --check -q --arch m64,m32,arm64,armhf $hdr

# The uapi header stands alone, in C90 and C++, 64- and 32-bit, twice.
check "uapi: SPDX GPL-2.0 WITH Linux-syscall-note" bash -c "
	head -n 1 $hdr | grep -qxF '/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */'"
for c in "gcc -x c -std=c90 -pedantic -m64" "gcc -x c -std=c90 -pedantic -m32" \
	 "g++ -x c++ -std=c++98 -m64" "g++ -x c++ -std=c++17 -m32"; do
	check "uapi: compiles alone ($c)" bash -c "
		printf '#include <linux/skel.h>\n#include <linux/skel.h>\nint x;\n' |
		$c -Wall -Wextra -Werror -Iuapi -fsyntax-only -"
done

# The ABI of every release, frozen in tests/abi/vN (make freeze), may only
# grow: each of its structs keeps every member at its offset and size, and
# grows at the end if at all (pahole reads both from DWARF, 64- and 32-bit).
layout() {	# header-dir bits -> "struct member offset size" lines
	{
		echo '#include <linux/skel.h>'
		sed -n 's/^struct \(skel_[a-z0-9_]*\) {$/struct \1 v_\1;/p' "$1/linux/skel.h"
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
for rel in $(make -s --no-print-directory -C tests releases); do
for bits in 64 32; do
	check "ABI: every struct of tests/abi/$rel only grew at its end (-m$bits)" bash -c "
		$(declare -f layout); out=$out
		layout tests/abi/$rel $bits >$out/v0 && layout uapi $bits >$out/now || exit 1
		awk 'NR == FNR { now[\$1, \$2] = \$3 \" \" \$4; next }
		     \$2 == \"SIZE\" { if ((\$1, \"SIZE\") in now &&
					  (now[\$1, \"SIZE\"] + 0) >= (\$3 + 0)) next
			print \$1 \": smaller, or gone\"; next }
		     now[\$1, \$2] != \$3 \" \" \$4 { print \$1 \".\" \$2 \": moved, resized or gone\" }' \\
			$out/now $out/v0"
done
done

# Each kernel: W=1 and sparse, zero warnings (sid's in its chroot).
for series in $KERNELS; do
	if ! read -r kver _ kdir root < <("$fetch" kernel "$series"); then
		check "$series: fetching its kernel" false
		continue
	fi
	# the tree as the build sees it (in the chroot: /build/lint)
	if [ "$root" = - ]; then
		dir=$out/lint m=$out/lint run=
	else
		dir=$root/build/lint m=/build/lint run="tests/vm/in-chroot.sh $root"
	fi
	for how in W=1 C=2; do
		check "$how build against $kver" bash -c "
			rm -rf $dir && mkdir -p $dir && cp -rL Kbuild module uapi $dir/ &&
			$run make -s -C $kdir M=$m $how modules 2>&1 | grep -v 'Skipping BTF'; true"
	done
done

check "mandoc -T lint: man/" bash -c "mandoc -T lint -W warning man/* 2>&1"
# docs/extending.md quotes its recipes (docs/recipes/*.patch, which make
# check-template applies to a new project) and the code: none has drifted
check "the docs' quotations are current (tests/quote.pl)" \
	tests/quote.pl --check README.md docs/*.md
check "docs/extending.md: each recipe's places are the hunks of its patch" bash -c '
	for p in docs/recipes/*.patch; do
		n=$(grep -c "^@@" $p) f=$(grep -c "^diff --git" $p)
		grep -qF "\`$p\`: $n places in $f files." docs/extending.md ||
			echo "$p: $n places in $f files, which docs/extending.md does not say"
	done'
check "the suite and the client build with -Wall -Wextra -Werror (-m64, -m32)" bash -c "
	make -s -C tests KSFT_DIR=$src/tools/testing/selftests >/dev/null &&
	make -s -C userspace >/dev/null"

# syzkaller's description, generated from the header (tests/syz): it is
# written without error, and syz-sysgen compiles it when SYZKALLER names a
# syzkaller (tests/syz/sysgen.sh).
check "tests/syz/describe.sh writes a description of every op" bash -c "
	tests/syz/describe.sh $out/syz || exit 1
	bad=0
	for op in \$(sed -n 's/^#define \\(SKEL_IOC_[A-Z0-9_]*\\)[ \t].*/\\1/p' $hdr); do
		grep -q \"^ioctl\\\$\$op(\" $out/syz/dev_$(basename $hdr .h).txt ||
			{ echo \"no \$op\"; bad=1; }
	done
	exit \$bad"
if [ -n "${SYZKALLER:-}" ]; then
	check "syz-sysgen compiles the description" tests/syz/sysgen.sh
else
	echo "# syz-sysgen: no SYZKALLER given, the description is not compiled"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
