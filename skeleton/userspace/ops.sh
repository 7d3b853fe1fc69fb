#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# userspace/ops.sh < uapi/linux/skel.h > ops.h: the client's table of ops,
# from the header, so that a new op needs no entry by hand: for each
# SKEL_IOC_NAME, its number and struct, the flags SKEL_NAME_* (the _FLAGS
# mask and _SIZE_VER* aside) and the struct's fields (flags and
# __reserved ones aside).  probe and raw work from it; an op's own
# command is the client's to add (userspace/skel.c's cmds[]).
exec awk '
/^struct skel_[a-z0-9_]+ \{$/ { s = $2; next }
s && /^\};/ { s = ""; next }
s && /^\t__[us](8|16|32|64) [a-z0-9_]+;/ {
	m = $2; sub(/;.*/, "", m)
	if (m != "flags" && m !~ /^__reserved/)
		fields[s] = fields[s] "\tFIELD(" s ", " m "),\n"
	next
}
/^#define SKEL_IOC_[A-Z0-9_]+[ \t]/ {
	n = $2; sub(/^SKEL_IOC_/, "", n)
	ops[++nops] = n
	next
}
/^#define SKEL_[A-Z0-9_]+[ \t]+0x[0-9a-fA-F]+/ {
	f = $2
	defs[++ndefs] = f
	next
}
END {
	for (i = 1; i <= nops; i++) {
		u = ops[i]; l = tolower(u)
		printf "static const struct flag_name %s_flags[] = {\n", l
		for (j = 1; j <= ndefs; j++) {
			f = defs[j]
			if (index(f, "SKEL_" u "_") != 1)
				continue
			name = substr(f, length("SKEL_" u "_") + 1)
			if (name == "FLAGS" || name ~ /^SIZE_VER[0-9]+$/)
				continue
			printf "\t{ %s, \"%s\" },\n", f, name
		}
		printf "\t{ SKEL_CHECK_FIELDS, \"CHECK_FIELDS\" },\n\t{ 0, NULL },\n};\n\n"
		printf "static const struct field %s_fields[] = {\n%s\t{ NULL, 0, 0 },\n};\n\n", \
		       l, fields["skel_" l]
	}
	printf "/* Every op of the header: probe and raw work from these. */\n"
	printf "#define SKEL_OPS \\\n"
	for (i = 1; i <= nops; i++) {
		u = ops[i]; l = tolower(u)
		printf "\t{ \"%s\", _IOC_NR(SKEL_IOC_%s), sizeof(struct skel_%s), \\\n", l, u, l
		printf "\t  %s_flags, %s_fields, NULL, NULL, NULL },%s\n", l, l, i < nops ? " \\" : ""
	}
}'
