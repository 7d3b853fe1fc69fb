#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The survey's tables, from the runs make survey keeps in DIR (one
# KVER.tsv per kernel, as `flagsfirst survey --tsv` prints it) and what
# the client pins (`flagsfirst survey --pinned`: name, part, since,
# pinned), in the client's order.
#
#   report.sh table DIR PINNED KVER...     every row, side by side
#   report.sh diff DIR PINNED KVER...      the rows that differ between
#                                          kernels, and the release (or the
#                                          config) each change came with
#   report.sh doc DIR PINNED FILE KVER...  FILE (docs/survey.md) with the
#                                          tables between its markers,
#                                          "<!-- survey:NAME -->" and
#                                          "<!-- /survey:NAME -->", remade
# A row missing on a kernel reads "-".
set -euo pipefail

mode=${1:?usage: report.sh table|diff|doc DIR PINNED [FILE] KVER...}
dir=$2 pinned=$3
shift 3
file=
if [ "$mode" = doc ]; then
	file=$1
	shift
fi

# One awk program does all: rows in the first kernel's order, then any
# other kernel's extra rows.
report() {	# what [md]
	local k files=()
	for k in "$@"; do
		files+=("$dir/$k.tsv")
	done
	awk -F '\t' -v what="$what" -v md="$md" -v kernels="$*" '
	function rel(s,   a) {	# "6.12.118+deb12-amd64" -> 6012
		split(s, a, /[.+-]/)
		return a[1] * 1000 + a[2]
	}
	function label(k) {
		return int(rel(k) / 1000) "." rel(k) % 1000 (k ~ /-rt-/ ? "-rt" : "")
	}
	function part(name) {
		return name in kind ? kind[name] : 1
	}
	# The releases a row'"'"'s pinned verdict changes at, in (a, b]: "R: tells
	# *" then "R2: tells X" is a value that changed somewhere in R-R2
	function came(name, a, b, was,   n, i, segs, r, v, out, open_) {
		out = open_ = ""
		if (!(name in pin))
			return "?"
		if (rel(since[name]) > a && rel(since[name]) <= b && was ~ /^absent/)
			out = since[name] " (new)"
		n = split(pin[name], segs, /; */)
		for (i = 2; i <= n; i++) {
			r = v = segs[i]
			sub(/:.*/, "", r)
			sub(/^[^:]*: */, "", v)
			if (rel(r) <= a || rel(r) > b)
				continue
			if (v ~ /\*$/) {
				if (open_ == "")
					open_ = r
				continue
			}
			if (open_ != "" && r !~ /-/)
				r = open_ "-" r
			open_ = ""
			out = out (out == "" ? "" : ", ") r
		}
		if (open_ != "")
			out = out (out == "" ? "" : ", ") open_ "-"
		return out == "" ? "?" : out
	}
	FILENAME == ARGV[1] {
		kind[$1] = $2
		since[$1] = $3
		pin[$1] = $4
		seen[$1] = 1
		order[++n] = $1
		next
	}
	FNR == 1 {
		k++
	}
	{
		if (!(($1) in seen)) {
			seen[$1] = 1
			order[++n] = $1
		}
		got[$1, k] = $2 " " $3
	}
	END {
		nk = split(kernels, ks, " ")
		for (i = 1; i <= n; i++) {
			name = order[i]
			for (j = 1; j <= nk; j++)
				if (!((name, j) in got))
					got[name, j] = "-"
		}
		if (what == "table") {
			for (p = 1; p <= 3; p++) {
				if (md != "") {
					printf "| row | since |"
					for (j = 1; j <= nk; j++)
						printf " %s |", label(ks[j])
					printf "\n| --- | --- |"
					for (j = 1; j <= nk; j++)
						printf " --- |"
					printf "\n"
				} else {
					printf "%-42s", p == 1 ? "flags" : p == 2 ? "size rules" : "discovery"
					for (j = 1; j <= nk; j++)
						printf " %-20s", label(ks[j])
					printf "\n"
				}
				for (i = 1; i <= n; i++) {
					name = order[i]
					if (part(name) != p)
						continue
					if (md != "") {
						printf "| `%s` | %s |", name, since[name]
						for (j = 1; j <= nk; j++)
							printf " %s |", got[name, j]
						printf "\n"
					} else {
						printf "%-42s", name
						for (j = 1; j <= nk; j++)
							printf " %-20s", got[name, j]
						printf "\n"
					}
				}
				if (md != "" && p < 3)
					printf "\n<!-- part %d -->\n\n", p + 1
				else if (p < 3)
					printf "\n"
			}
			exit
		}
		# diff: each row that differs, each pair of neighbouring kernels
		if (md != "")
			printf "| row | from | to | came in |\n| --- | --- | --- | --- |\n"
		else
			printf "%-42s %-9s %-9s %-24s %-24s %s\n", "row", "from", "to", "was", "is", "came in"
		changed = 0
		for (i = 1; i <= n; i++) {
			name = order[i]
			prev = 0	# the last kernel that is not -rt
			for (j = 1; j <= nk; j++) {
				# the -rt kernel is compared with its own release,
				# every other with the one before it
				if (ks[j] ~ /-rt-/) {
					for (a = 1; a <= nk; a++)
						if (ks[a] !~ /-rt-/ && rel(ks[a]) == rel(ks[j]))
							break
					if (a > nk || got[name, j] == got[name, a])
						continue
					why = "the config (PREEMPT_RT)"
				} else {
					a = prev
					prev = j
					if (!a || got[name, j] == got[name, a])
						continue
					why = came(name, rel(ks[a]), rel(ks[j]), got[name, a])
				}
				changed++
				if (md != "")
					printf "| `%s` | %s: %s | %s: %s | %s |\n", name, label(ks[a]),
					       got[name, a], label(ks[j]), got[name, j], why
				else
					printf "%-42s %-9s %-9s %-24s %-24s %s\n", name, label(ks[a]),
					       label(ks[j]), got[name, a], got[name, j], why
			}
		}
		if (md == "")
			printf "# %d changes between kernels\n", changed
	}' "$pinned" "${files[@]}"
}

# The kernels in release order, the -rt one after its own release
kernels=$(printf '%s\n' "$@" | awk '{ split($0, a, /[.+-]/); print a[1] * 1000 + a[2], /-rt-/ ? 1 : 0, $0 }' |
	  sort -n -k1,1 -k2,2 | cut -d' ' -f3)
# The -rt kernel compared with its release, the others in a row
ordered=()
for k in $kernels; do
	ordered+=("$k")
done

case $mode in
table)	what=table md= report "${ordered[@]}" ;;
diff)	what=diff md= report "${ordered[@]}" ;;
doc)	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	what=table md=1 report "${ordered[@]}" >"$tmp/table"
	what=diff md=1 report "${ordered[@]}" >"$tmp/diff"
	# Part N of the table, to its own marker
	awk -v n=1 '/^<!-- part / { n++; next } { print > (dir "/part" n) }' dir="$tmp" "$tmp/table"
	awk -v tmp="$tmp" '
	/^<!-- survey:[a-z]+ -->$/ {
		print
		name = $2
		sub(/^survey:/, "", name)
		f = name == "flags" ? "part1" : name == "sizes" ? "part2" : name
		f = tmp "/" (f == "discovery" ? "part3" : f)
		while ((getline line < f) > 0)
			print line
		skip = 1
		next
	}
	/^<!-- \/survey:[a-z]+ -->$/ {
		skip = 0
	}
	!skip' "$file" >"$tmp/doc"
	cat "$tmp/doc" >"$file" ;;
*)	echo "usage: report.sh table|diff|doc DIR PINNED [FILE] KVER..." >&2
	exit 2 ;;
esac
