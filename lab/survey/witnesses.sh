#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make survey's last step: where each flag row of the survey is decided in
# the kernel, found in Debian's linux-source of every kernel of the matrix
# (bookworm's 6.1 and 6.12, sid's newest, 7.2 today), by
# lab/survey/witness.py from lab/survey/witnesses.tsv; with SURVEY_DOC,
# its table goes between docs/survey.md's witnesses markers.  Ends with
# "N passed, N failed" (a row and a tree each).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fetch=$top/generic/vm/fetch.sh
out=${FLAGSFIRST_BUILD:-$top/build}/survey
mkdir -p "$out"
make -s -C "$top/userspace" flagsfirst
"$top/userspace/flagsfirst" survey --pinned >"$out/pinned.tsv"
trees=()
for k in 6.1 6.12 newest; do
	src=$("$fetch" source "$k")
	ver=$(basename "$src")
	trees+=("${ver#linux-source-}=$src")
done
rc=0
python3 "$top/lab/survey/witness.py" --md "$out/witnesses.md" "$out/pinned.tsv" "${trees[@]}" \
	>"$out/witnesses.log" || rc=$?
grep -v '^ok' "$out/witnesses.log" || true
passed=$(grep -c '^ok' "$out/witnesses.log" || true)
failed=$(grep -c '^not ok' "$out/witnesses.log" || true)
echo "# the survey's witnesses, in ${trees[*]%%=*}: $passed found, $failed not"
if [ -n "${SURVEY_DOC:-}" ] && [ "$rc" = 0 ]; then
	python3 - "$SURVEY_DOC" "$out/witnesses.md" <<'PY'
import sys
doc, table = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
a, b = '<!-- witnesses:begin -->', '<!-- witnesses:end -->'
i, j = text.index(a) + len(a), text.index(b)
open(doc, 'w').write(text[:i] + '\n' + table + text[j:])
PY
	echo "# $SURVEY_DOC: the witnesses' table remade"
fi
echo "$passed passed, $failed failed"
exit "$rc"
