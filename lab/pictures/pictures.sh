#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make pictures: the class's pictures, from the project's own data, drawn
# with Debian's graphviz (installed if missing) into docs/pictures/:
#
#   timeline.png   the surveyed calls by the release that brought them,
#                  coloured by the verdict pinned for the newest kernel
#                  (flagsfirst survey --pinned: rejects, ignores, noflags,
#                  tells, or another)
#   size-rule.png  what a struct of each size gets, with SET's sizes read
#                  from uapi/linux/flagsfirst.h
#   handout.png    the header's nine rules, in the order the module
#                  applies them, each with its errnos
#
# Each .dot is kept beside its .png, so a change shows in review as text.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/docs/pictures
hdr=$top/uapi/linux/flagsfirst.h
(. "$top/generic/vm/fetch.sh" && install_missing graphviz)
make -s -C "$top/userspace" flagsfirst >&2
mkdir -p "$out"

# The timeline: a column per release (oldest left), a box per call.
"$top/userspace/flagsfirst" survey --pinned | awk -F '\t' '
function verdict(pin,   n, c) {
	n = split(pin, c, /; */)
	pin = c[n]
	sub(/^[^:]*: /, "", pin)	# "6.2-6.12: rejects EINVAL" -> "rejects EINVAL"
	split(pin, c, " ")
	return c[1]
}
function colour(v) {
	if (v == "rejects")
		return "#7fc97f"
	if (v == "ignores")
		return "#f4a6c6"
	if (v == "noflags")
		return "#bdbdbd"
	if (v == "tells")
		return "#80b1d3"
	return "#ffffff"
}
function key(r,   p, k, i) {		# a sortable release: 2.6.27 -> 002006027
	n = split(r, p, ".")
	k = ""
	for (i = 1; i <= 3; i++)
		k = k sprintf("%03d", i <= n ? p[i] : 0)
	return k
}
$2 == 1 && $3 ~ /^[0-9.]+$/ {
	v = verdict($4)
	rel[$3] = 1
	calls[$3] = calls[$3] sprintf("\t\"%s\" [label=\"%s\", fillcolor=\"%s\"];\n",
		$1, $1, colour(v))
	order[$3] = order[$3] " " $1
}
END {
	print "digraph timeline {"
	print "\trankdir=TB; nodesep=0.08; ranksep=0.08;"
	print "\tlabel=\"The surveyed calls by the release that brought them, oldest first.\\nGreen rejects an unknown flag bit, pink ignores it, grey has no flags,\\nwhite is another verdict (denied, absent, off) on the newest kernel\"; labelloc=t; fontsize=18;"
	print "\tnode [shape=box, style=filled, fontsize=10, height=0.2, margin=\"0.05,0.01\"];"
	print "\tedge [style=invis];"
	nr = 0
	for (r in rel)
		keys[++nr] = key(r) " " r
	# insertion sort by key
	for (i = 2; i <= nr; i++)
		for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) {
			t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t
		}
	for (i = 1; i <= nr; i++) {
		split(keys[i], kr, " ")
		r = kr[2]
		printf "\t\"r%s\" [label=\"%s\", shape=plaintext, style=\"\", fontsize=12];\n", r, r
		printf "%s", calls[r]
		n = split(order[r], cs, " ")
		printf "\t{ rank=same; \"r%s\"", r
		for (j = 1; j <= n; j++)
			printf " -> \"%s\"", cs[j]
		print "; }"
		if (i > 1)
			printf "\t\"r%s\" -> \"r%s\";\n", prev, r
		prev = r
	}
	print "}"
}' >"$out/timeline.dot"
dot -Tpng -Gdpi=80 "$out/timeline.dot" -o "$out/timeline.png"

# The size rule, with SET's sizes from the header.
ver0=$(sed -n 's/^#define FLAGSFIRST_SET_SIZE_VER0[ \t]*\([0-9]*\).*/\1/p' "$hdr")
ver1=$(sed -n 's/^#define FLAGSFIRST_SET_SIZE_VER1[ \t]*\([0-9]*\).*/\1/p' "$hdr")
[ -n "$ver0" ] && [ -n "$ver1" ] || { echo "pictures: no FLAGSFIRST_SET_SIZE_VER0/1 in $hdr" >&2; exit 1; }
cat >"$out/size-rule.dot" <<DOT
digraph size_rule {
	rankdir=LR; nodesep=0.3;
	label="The size rule, SET as the example: the caller's struct size travels in the ioctl number;\\nthe kernel's struct is $ver1 bytes (FLAGSFIRST_SET_SIZE_VER1), the first release's $ver0 (VER0); a page is 4096"; labelloc=t; fontsize=16;
	node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontsize=13];
	caller [label="the caller's struct,\\nusize bytes", shape=box, fillcolor="#e0e0e0"];
	small [label="usize < $ver0"];
	older [label="$ver0 <= usize < $ver1\\n(an older program)"];
	same [label="usize = $ver1"];
	bigger [label="$ver1 < usize <= 4096\\n(a newer program)"];
	huge [label="usize > 4096"];
	check [label="flags = CHECK_FIELDS\\n(any usize from $ver0)"];
	einval [label="EINVAL", fillcolor="#f4a6c6"];
	zext [label="zero-extended:\\nthe new fields read 0", fillcolor="#7fc97f"];
	copied [label="copied as it is", fillcolor="#7fc97f"];
	tail0 [label="tail all zero:\\naccepted", fillcolor="#7fc97f"];
	tail1 [label="a non-zero byte\\nin the tail: E2BIG", fillcolor="#f4a6c6"];
	e2big [label="E2BIG", fillcolor="#f4a6c6"];
	told [label="written back: the flags it takes,\\nall ones in every field it knows,\\nzeros past its $ver1 bytes", fillcolor="#80b1d3"];
	caller -> { small older same bigger huge check };
	small -> einval; older -> zext; same -> copied;
	bigger -> tail0; bigger -> tail1; huge -> e2big; check -> told;
}
DOT
dot -Tpng -Gdpi=80 "$out/size-rule.dot" -o "$out/size-rule.png"

# The handout: the header's rules 1-9, as it words them.
awk '
/^ \*  1\. / { on = 1 }
/^ \*$/ && on { exit }
on {
	line = $0
	sub(/^ \* ?/, "", line)
	if (line ~ /^ [1-9]\. /) {
		n++
		sub(/^ [1-9]\. /, "", line)
		text[n] = line
	} else {
		sub(/^ +/, "", line)
		text[n] = text[n] " " line
	}
}
END {
	print "digraph handout {"
	print "\tnode [shape=plaintext, fontsize=13];"
	print "\trules [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"6\">"
	print "\t<tr><td colspan=\"2\" bgcolor=\"#e0e0e0\"><b>flagsfirst: every op checks these in this order; the first that fails is the errno</b></td></tr>"
	for (i = 1; i <= n; i++) {
		t = text[i]
		gsub(/&/, "\\&amp;", t); gsub(/</, "\\&lt;", t); gsub(/>/, "\\&gt;", t)
		# wrap at about 90 columns
		w = ""; col = 0
		m = split(t, words, " ")
		for (j = 1; j <= m; j++) {
			if (col + length(words[j]) > 90) { w = w "<br align=\"left\"/>"; col = 0 }
			w = w words[j] " "; col += length(words[j]) + 1
		}
		printf "\t<tr><td valign=\"top\"><b>%d</b></td><td align=\"left\" balign=\"left\">%s<br align=\"left\"/></td></tr>\n", i, w
	}
	print "\t</table>>];"
	print "}"
}' "$hdr" >"$out/handout.dot"
dot -Tpng -Gdpi=90 "$out/handout.dot" -o "$out/handout.png"
ls -l "$out"/*.png | awk '{ print "# " $NF ": " $5 " bytes" }'
