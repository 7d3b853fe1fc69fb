# SPDX-License-Identifier: GPL-2.0-only
# skel's own part of make lint, sourced by tests/lint.sh (the generic
# checks) last: the recipes of docs/extending.md and syzkaller's
# description.
# shellcheck shell=bash

# docs/extending.md quotes its recipes (docs/recipes/*.patch, which make
# check-template applies to a new project) and says how many places each
# takes: the hunks of its patch.
check "docs/extending.md: each recipe's places are the hunks of its patch" bash -c '
	for p in docs/recipes/*.patch; do
		n=$(grep -c "^@@" $p) f=$(grep -c "^diff --git" $p)
		grep -qF "\`$p\`: $n places in $f files." docs/extending.md ||
			echo "$p: $n places in $f files, which docs/extending.md does not say"
	done'

# syzkaller's description, generated from the header (tests/syz): it is
# written without error, and syz-sysgen compiles it when SYZKALLER names a
# syzkaller (tests/syz/sysgen.sh).
check "tests/syz/describe.sh writes a description of every op" bash -c "
	tests/syz/describe.sh $out/syz || exit 1
	bad=0
	for op in \$(sed -n 's/^#define \\(SKEL_IOC_[A-Z0-9_]*\\)[ \t].*/\\1/p' $hdr); do
		grep -q \"^ioctl\\\$\$op(\" $out/syz/dev_$name.txt ||
			{ echo \"no \$op\"; bad=1; }
	done
	exit \$bad"
if [ -n "${SYZKALLER:-}" ]; then
	check "syz-sysgen compiles the description" tests/syz/sysgen.sh
else
	echo "# syz-sysgen: no SYZKALLER given, the description is not compiled"
fi
