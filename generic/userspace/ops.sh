#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ops.sh NAME < uapi/linux/NAME.h > ops.h: the client's tables of ops, from
# the header, so that a new op, flag or field needs no entry by hand.  For
# each op NAME_IOC_OP whose struct (the one its _IOWR() names) starts with
# a flags field: OP_flags[], the flags NAME_OP_* (the _FLAGS mask and the
# _SIZE_VER* sizes aside) and CHECK_FIELDS, and OP_fields[], the struct's
# __u8..__u64 fields (flags and __reserved ones aside); then NAME_OPS(X),
# X(op, OP) for each such op, and NAME_NR_OPS_LISTED, how many; NAME_OP(op,
# OP), an entry of struct op
# (client.h) with no command of its own.  An op with no flags field (a
# legacy one) is left out: probe and raw speak the discipline's ioctls.
name=${1:?usage: ops.sh NAME <header >ops.h}
upper=$(echo "$name" | tr 'a-z' 'A-Z')
here=$(dirname "$0")
# The header's structs, ops and constants: header.awk, beside this file.
exec awk -v n="$name" -v N="$upper" -f "$here/header.awk" -f /dev/fd/3 3<<'EOF'
END {
	printf "/* Made by ops.sh from <linux/%s.h>. */\n\n", n
	list = ""
	for (i = 1; i <= nops; i++) {
		u = ops[i]; l = tolower(u)
		if (fname[st[u], 1] != "flags" || st[u] != n "_" l)
			continue
		printf "static const struct flag_name %s_flags[] = {\n", l
		for (j = 1; j <= ndefs; j++) {
			f = defs[j]
			if (index(f, N "_" u "_") != 1)
				continue
			fl = substr(f, length(N "_" u "_") + 1)
			if (fl == "FLAGS" || fl ~ /^SIZE_VER[0-9]+$/)
				continue
			printf "\t{ %s, \"%s\" },\n", f, fl
		}
		printf "\t{ %s_CHECK_FIELDS, \"CHECK_FIELDS\" },\n\t{ 0, NULL },\n};\n\n", N
		printf "static const struct field %s_fields[] = {\n", l
		for (j = 2; j <= nf[st[u]]; j++)
			if (fname[st[u], j] !~ /^__reserved/)
				printf "\tFIELD(%s, %s),\n", st[u], fname[st[u], j]
		printf "\t{ NULL, 0, 0 },\n};\n\n"
		list = list " \\\n\tX(" l ", " u ")"
		count++
	}
	printf "/* Every op of the header that has a flags field: X(op, OP) each. */\n"
	printf "#define %s_OPS(X)%s\n", N, list
	printf "#define %s_NR_OPS_LISTED %d\n\n", N, count
	printf "/* An op with no command of its own: probe and raw know it. */\n"
	printf "#define %s_OP(op, OP) \\\n", N
	printf "\t{ #op, _IOC_NR(%s_IOC_##OP), sizeof(struct %s_##op), \\\n", N, n
	printf "\t  op##_flags, op##_fields, NULL, NULL, NULL },\n"
}
EOF
