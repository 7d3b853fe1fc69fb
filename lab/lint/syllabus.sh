#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One syllabus (docs/syllabus.md), used alike by the tour, the README and
# design.md: prints what disagrees, nothing when all agree.
#  - its lessons, "## N. Title", are the tour's "if lesson N \"N. Title\"", in
#    order, and the syllabus rows of the README and design.md name the
#    same numbers and titles
#  - every test it says proves a lesson exists in tests/ or generic/tests/
set -euo pipefail
cd "$(dirname "$0")/../.."

sed -n 's/^## \([0-9]*\. .*\)$/\1/p' docs/syllabus.md >/tmp/syllabus.$$
sed -n 's/^if lesson [0-9]* "\([0-9]*\. [^"]*\)".*/\1/p' userspace/tour.sh >/tmp/tour.$$
diff -u --label docs/syllabus.md --label userspace/tour.sh /tmp/syllabus.$$ /tmp/tour.$$ || true
for f in README.md docs/design.md; do
	sed -n 's/^| \([0-9]*\) | \([^|]*[^ |]\) |.*/\1. \2/p' $f >/tmp/rows.$$
	diff -u --label docs/syllabus.md --label $f /tmp/syllabus.$$ /tmp/rows.$$ || true
done
rm -f /tmp/syllabus.$$ /tmp/tour.$$ /tmp/rows.$$
[ "$(grep -c '^## [0-9]' docs/syllabus.md)" -ge 10 ] || echo "docs/syllabus.md: fewer than 10 lessons"

# "Proved by:" paragraphs: `name`, `op.*.name` or `fixture.name`
for t in $(awk '/^Proved by:/ { p = 1 } /^$/ { p = 0 } p' docs/syllabus.md |
	   grep -o '`[a-z][a-z0-9_.*]*`' | tr -d '`' | sed 's/^op\.\*\.//; s/^[a-z]*\.//'); do
	grep -rqw -- "$t" tests/*.c generic/tests/*.h ||
		echo "docs/syllabus.md: no test $t"
done
