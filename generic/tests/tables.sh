#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What an interface's suite knows of each op, made from its uapi header and
# from the module's op table, so that a new op, flag or field needs no
# table by hand (tests/Makefile runs this).  The interface is NAME, its
# header uapi/linux/NAME.h (the one header there), its prefix NAME's upper
# case, PREFIX:
#
#   tables.sh ops HEADER_DIR   each op of HEADER_DIR/linux/NAME.h as the
#                              start of its FIXTURE_VARIANT_ADD(op, ...):
#                              PREFIX_TEST_OP_<op>, its number, sizes, flags,
#                              fields and __reserved fields (C expressions
#                              of that header, which the suite includes);
#                              whether it changes state, and the flags
#                              that make it, from its FFST_OP() entry; and
#                              a build-time check of each _SIZE_VER<n> the
#                              header defines against offsetofend() of the
#                              field it must end at
#   tables.sh sizes HEADER_DIR the build-time checks of ops alone (the
#                              client's build compiles them too)
#   tables.sh tests HEADER_DIR the tests of each op of that header,
#                              tests/ops/<op>.h, each followed by those of
#                              its grown fields, tests/ops/<op>_ver<n>.h,
#                              for each _SIZE_VER<n> the header has (where
#                              such a file is)
#   tables.sh releases         what the module has of each op at each
#                              abi_version, as numbers, from the rows of
#                              its FFST_OP() entries: the test binary of
#                              every release reads it, whichever header it
#                              was built with.  Fails, naming the op, if
#                              the module's latest ABI does not take what
#                              a frozen release (tests/abi/vN) has.
#
# The module's op table is module/ioctl.c's FFST_OP() entries; their ABI
# rows are read with the current header (uapi/), as the module is built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
table=$top/module/ioctl.c
name=$(cd "$top/uapi/linux" && ls -- *.h)
name=${name%.h}
case $name in
*[!a-z0-9_]* | "") echo "tables.sh: uapi/linux/ must hold one header, NAME.h" >&2; exit 2 ;;
esac
upper=$(echo "$name" | tr a-z A-Z)

# The header's structs, fields, sizes and ops, one line each: "field
# STRUCT NAME BITS", "size OP N VALUE", "op OP STRUCT NUMBER".
scan() {	# header
	awk -v p="$name" -v P="$upper" '
	$0 ~ "^struct " p "_[a-z0-9_]+ \\{$" { s = $2; next }
	s && /^\};/ { s = ""; next }
	s && /^\t__[us](8|16|32|64) [a-z0-9_]+;/ {
		m = $2; sub(/;.*/, "", m)
		t = $1; sub(/^__[us]/, "", t)
		print "field", s, m, t
		next
	}
	$0 ~ "^#define " P "_[A-Z0-9_]+_SIZE_VER[0-9]+[ \t]+[0-9]+" {
		n = substr($2, length(P) + 2)
		v = n; sub(/^.*_SIZE_VER/, "", v)
		sub(/_SIZE_VER[0-9]+$/, "", n)
		print "size", n, v, $3
		next
	}
	$0 ~ "^#define " P "_IOC_[A-Z0-9_]+[ \t]+_IOWR\\(" {
		n = substr($2, length(P) + 6)
		s = $0; sub(/^.*struct /, "", s); sub(/\).*$/, "", s)
		nr = $0; sub(/^[^,]*, */, "", nr); sub(/,.*$/, "", nr)
		print "op", n, s, nr
		s = ""
	}' "$1"
}

# The FFST_OP() entries of the module's op table, as lines of C for
# optable(): OP(ioctl, changes state, mutating flags, ABI rows...).
entries() {
	awk '
	{ text = text " " $0 }
	END {
		gsub(/[ \t]+/, " ", text)
		# named ABI tables: "static const struct ffst_op_abi NAME[] = { ... };"
		rest = text
		while (match(rest, /struct ffst_op_abi [a-z0-9_]+\[\] = \{/)) {
			name = substr(rest, RSTART, RLENGTH)
			sub(/^struct ffst_op_abi /, "", name); sub(/\[.*/, "", name)
			rest = substr(rest, RSTART + RLENGTH)
			end = index(rest, "};")
			rows[name] = substr(rest, 1, end - 1)
		}
		rest = text
		entry = "FFST_OP("
		while ((i = index(rest, entry)) > 0) {
			rest = substr(rest, i + length(entry))
			depth = 1; n = 1; arg[1] = ""
			for (j = 1; depth > 0 && j <= length(rest); j++) {
				c = substr(rest, j, 1)
				if (c == "(" || c == "{")
					depth++
				else if (c == ")" || c == "}")
					depth--
				if (depth == 0)
					break
				if (c == "," && depth == 1)
					arg[++n] = ""
				else
					arg[n] = arg[n] c
			}
			if (n != 8)
				continue	# the macro itself, or not an entry
			abi = arg[3]; gsub(/^ +| +$/, "", abi)
			if (abi ~ /^FFST_ABI\(/) {
				sub(/^FFST_ABI\(/, "", abi); sub(/\)$/, "", abi)
			} else if (abi in rows) {
				abi = rows[abi]
			} else {
				print "tables.sh: the ABI table " abi " of " arg[1] " is not in module/ioctl.c" > "/dev/stderr"
				exit 1
			}
			printf "\tOP(%s, %s, %s, %s);\n", arg[1], arg[5], arg[6], abi
		}
	}' "$table"
}

# "NR MUTATES MUTATING_FLAGS NROWS SIZE FLAGS [SIZE FLAGS]..." for each op
# of the module's table, by a program built against the current header.
optable() {	# tmp
	{
		printf '#include <linux/%s.h>\n' "$name"
		cat <<'CEOF'
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
struct row { unsigned long long size, flags; };
#define OP(ioc, mut, mflags, ...) do { \
	static const struct row r[] = { __VA_ARGS__ }; \
	size_t i, n = sizeof(r) / sizeof(r[0]); \
	printf("%u %d %#llx %zu", (unsigned int)_IOC_NR(ioc), (mut) ? 1 : 0, \
	       (unsigned long long)(mflags), n); \
	for (i = 0; i < n; i++) \
		printf(" %llu %#llx", r[i].size, r[i].flags); \
	printf("\n"); \
} while (0)
int main(void)
{
CEOF
		entries
		echo '	return 0;'
		echo '}'
	} >"$1/optable.c"
	gcc -Wall -Werror -I"$top/uapi" -o "$1/optable" "$1/optable.c"
	"$1/optable"
}

ops() {	# header-dir [sizes]
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	optable "$tmp" >"$tmp/table"
	scan "$1/linux/$name.h" | awk -v hdr="$1/linux/$name.h" -v only_sizes="${2:-}" \
		-v P="$upper" '
	NR == FNR {	# the module table: NR MUTATES MUTATING_FLAGS ...
		mut[$1 + 0] = $2; mflags[$1 + 0] = $3
		next
	}
	# the ioctl number as the header writes it (0x01, or 1)
	function number(s,	v, i, d) {
		if (s !~ /^0[xX]/)
			return s + 0
		v = 0
		for (i = 3; i <= length(s); i++) {
			d = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
			v = v * 16 + d
		}
		return v
	}
	# fields in order, each at the end of the one before: the module
	# builds only with no hole (FFST_ASSERT_LAYOUT())
	$1 == "field" {
		if (!($2 in off))
			off[$2] = 0
		size = $4 / 8
		# where the compiler puts it (natural alignment, as on x86-64)
		if (off[$2] % size) {
			printf "%s: struct %s: a hole of %d bytes at offset %d, before field %s (the module does not build: FFST_ASSERT_LAYOUT())\n", \
			       hdr, $2, size - off[$2] % size, off[$2], $3 > "/dev/stderr"
			bad = 1
			off[$2] += size - off[$2] % size
		}
		if ($3 != "flags") {
			kind = $3 ~ /^__reserved/ ? "res" : "fld"
			list[$2, kind] = list[$2, kind] (list[$2, kind] ? ", " : "") \
					 "{ " off[$2] ", " size " }"
		}
		off[$2] += size
		ends[$2] = ends[$2] (ends[$2] ? ", " : "") off[$2] " (" $3 ")"
		at[$2, off[$2]] = $3
		next
	}
	$1 == "size" { sizes[$2] = sizes[$2] " " $3 ":" $4; next }
	$1 == "op" {
		ops[++n] = $2; st[$2] = $3; nr = number($4)
		if (!(nr in mut)) {
			printf "%s: %s_IOC_%s (number %d) has no FFST_OP() entry in module/ioctl.c\n", \
			       hdr, P, $2, nr > "/dev/stderr"
			bad = 1
		}
		opmut[$2] = mut[nr]; opmflags[$2] = mflags[nr]
	}
	END {
		print "/* SPDX-License-Identifier: GPL-2.0-only */"
		print "/* Generated by tests/tables.sh from the uapi header and module/ioctl.c: do not edit. */"
		print ""
		print "#include <assert.h>"
		print ""
		print "#define TEST_OFFSETOFEND(type, ...) \\"
		print "\t(offsetof(type, __VA_ARGS__) + sizeof(((type *)0)->__VA_ARGS__))"
		for (i = 1; i <= n; i++) {
			u = ops[i]; l = tolower(u); s = st[u]
			# every _SIZE_VER<n>: the end of a field, in order, the
			# last one the struct size
			k = split(sizes[u], sv, " ")
			last = 0; sbad = 0
			for (j = 1; j <= k; j++) {
				split(sv[j], p, ":")
				name = P "_" u "_SIZE_VER" p[1]
				if (!((s, p[2]) in at)) {
					printf "%s: %s is %d, where no field of struct %s ends (they end at %s)\n", \
					       hdr, name, p[2], s, ends[s] > "/dev/stderr"
					bad = sbad = 1
					continue
				}
				if (p[2] + 0 <= last) {
					printf "%s: %s is %d, not past the size before it (%d)\n", \
					       hdr, name, p[2], last > "/dev/stderr"
					bad = 1
				}
				last = p[2] + 0
				printf "static_assert(TEST_OFFSETOFEND(struct %s, %s) ==\n", s, at[s, p[2]]
				printf "\t      %s, \"%s: not where %s ends\");\n", name, name, at[s, p[2]]
			}
			if (k && !sbad && last != off[s]) {
				printf "%s: the last _SIZE_VER of struct %s is %d, but its fields end at %d (after %s): a size for the last field is missing\n", \
				       hdr, s, last, off[s], at[s, off[s]] > "/dev/stderr"
				bad = 1
			}
			if (!k) {
				printf "%s: struct %s has no %s_%s_SIZE_VER0\n", hdr, s, P, u > "/dev/stderr"
				bad = 1
			}
			if (only_sizes)
				continue
			print ""
			printf "#define %s_TEST_OP_%s \\\n", P, l
			printf "\t.nr = _IOC_NR(%s_IOC_%s), \\\n", P, u
			printf "\t.ver0 = %s_%s_SIZE_VER0, \\\n", P, u
			printf "\t.size = sizeof(struct %s), \\\n", s
			printf "\t.flags = %s_%s_FLAGS, \\\n", P, u
			printf "\t.mutates = %s, \\\n", opmut[u] ? "true" : "false"
			printf "\t.mutating_flags = %sULL, \\\n", opmflags[u]
			if (list[s, "res"] != "") {
				printf "\t.fields = { %s }, \\\n", list[s, "fld"]
				printf "\t.reserved = { %s }\n", list[s, "res"]
			} else {
				printf "\t.fields = { %s }\n", list[s, "fld"]
			}
		}
		exit bad
	}' "$tmp/table" -
}

# "NR SIZE FLAGS" for each op of the header in @1, by a program built
# against it.
release_of() {	# header-dir tmp
	{
		echo '#include <stdio.h>'
		echo '#include <sys/ioctl.h>'
		echo "#include <linux/$name.h>"
		echo 'int main(void)'
		echo '{'
		scan "$1/linux/$name.h" | awk -v p="$name" -v P="$upper" '$1 == "op" {
			printf "\tprintf(\"%%u %%zu %%#llx\\n\", (unsigned int)_IOC_NR(%s_IOC_%s),\n", P, $2
			printf "\t       sizeof(struct %s_%s), (unsigned long long)%s_%s_FLAGS);\n", p, tolower($2), P, $2
		}'
		echo '	return 0;'
		echo '}'
	} >"$2/release.c"
	gcc -Wall -Werror -I"$1" -o "$2/release" "$2/release.c"
	"$2/release"
}

releases() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	optable "$tmp" >"$tmp/table"
	# What every frozen release published, the module's latest ABI must
	# still take: a size at least as big, and every flag.
	bad=0
	for v in "$here"/abi/v*; do
		[ -d "$v" ] || continue
		release_of "$v" "$tmp" >"$tmp/frozen"
		while read -r nr size flags; do
			row=$(awk -v nr="$nr" '$1 == nr { print $(3 + 2 * $4), $(4 + 2 * $4) }' "$tmp/table")
			if [ -z "$row" ]; then
				echo "tests/abi/${v##*/}: op $nr is not in module/ioctl.c's op table" >&2
				bad=1
				continue
			fi
			set -- $row
			if [ "$1" -lt "$size" ] || [ $((flags & ~$2)) != 0 ]; then
				echo "tests/abi/${v##*/}: op $nr had $size bytes and flags $flags; the module's latest ABI row takes $1 and $2" >&2
				bad=1
			fi
		done <"$tmp/frozen"
	done
	[ "$bad" = 0 ] || exit 1
	echo "/* SPDX-License-Identifier: GPL-2.0-only */"
	echo "/* Generated by tests/tables.sh from module/ioctl.c's op table: do not edit. */"
	echo "static const struct release releases[][256] = {"
	awk '
	{ n[$1] = $4; for (i = 0; i < $4; i++) row[$1, i] = $(5 + 2 * i) ", " $(6 + 2 * i)
	  if ($4 > abis) abis = $4; nr[++ops] = $1 }
	END {
		# an op keeps its last row in the ABIs past it
		for (a = 0; a < abis; a++) {
			printf "\t{\t/* abi_version=%d */\n", a
			for (i = 1; i <= ops; i++) {
				o = nr[i]
				r = a < n[o] ? a : n[o] - 1
				printf "\t\t[0x%02x] = { %s },\n", o, row[o, r]
			}
			print "\t},"
		}
	}' "$tmp/table"
	echo "};"
}

# The #includes of each op's tests, for a program built against @1.
tests() {	# header-dir
	scan "$1/linux/$name.h" | awk '
	$1 == "size" && $3 > 0 { vers[$2] = vers[$2] " " $3 }
	$1 == "op" { ops[++n] = $2 }
	END {
		print "/* SPDX-License-Identifier: GPL-2.0-only */"
		print "/* Generated by tests/tables.sh from the uapi header: do not edit. */"
		for (i = 1; i <= n; i++) {
			l = tolower(ops[i])
			printf "#include \"ops/%s.h\"\n", l
			k = split(vers[ops[i]], v, " ")
			for (j = 1; j <= k; j++) {
				f = "ops/" l "_ver" v[j] ".h"
				printf "#if __has_include(\"%s\")\n#include \"%s\"\n#endif\n", f, f
			}
		}
	}'
}

case ${1:-} in
ops)		ops "${2:?usage: tables.sh ops HEADER_DIR}" ;;
sizes)		ops "${2:?usage: tables.sh sizes HEADER_DIR}" sizes ;;
tests)		tests "${2:?usage: tables.sh tests HEADER_DIR}" ;;
releases)	releases ;;
*)		echo "usage: tables.sh ops|sizes|tests HEADER_DIR | releases" >&2; exit 2 ;;
esac
