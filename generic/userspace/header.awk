# SPDX-License-Identifier: GPL-2.0-only
# header.awk: reads a uapi header, <linux/NAME.h>, into arrays, for the
# scripts that make something from it (ops.sh, the client's tables;
# describe.sh, syzkaller's description).  Run with -v n=NAME -v N=NAME in
# capitals, before the script's own program:
#	awk -v n=... -v N=... -f header.awk -f script.awk header.h
# It leaves, for the END rule of the script:
#   nf[S], ftype[S, i], fname[S, i]	struct S's i-th __u8..__u64 (or __s)
#					field: its width ("u32") and name
#   ops[1..nops]			each NAME_IOC_OP defined with _IO*(),
#					as OP
#   dir[OP], st[OP]			"in", "out" or "inout" (_IOW, _IOR,
#					_IOWR); the struct its number names
#					(NAME_op), "" if none
#   defs[1..ndefs]			each NAME_* defined as a hex constant
#   vers[1..nvers]			each NAME_*_SIZE_VERn defined otherwise
$0 ~ "^struct " n "_[a-z0-9_]+ \\{$" { s = $2; next }
s && /^\};/ { s = ""; next }
s && /^\t__[us](8|16|32|64) [a-z0-9_]+;/ {
	t = $1; sub(/^__[us]/, "", t)
	m = $2; sub(/;.*/, "", m)
	nf[s]++; ftype[s, nf[s]] = t; fname[s, nf[s]] = m
	next
}
$0 ~ "^#define " N "_IOC_[A-Z0-9_]+[ \t]" {
	op = $2; sub("^" N "_IOC_", "", op)
	line = $0
	while (line ~ /\\$/ && (getline more) > 0)
		line = line more
	if (!match(line, "_IO(WR|W|R)\\("))
		next
	ops[++nops] = op
	d = substr(line, RSTART, RLENGTH)
	dir[op] = d == "_IOWR(" ? "inout" : d == "_IOW(" ? "in" : "out"
	if (match(line, "struct " n "_[a-z0-9_]+"))
		st[op] = substr(line, RSTART + 7, RLENGTH - 7)
	next
}
$0 ~ "^#define " N "_[A-Z0-9_]+[ \t]+0x[0-9a-fA-F]+" { defs[++ndefs] = $2; next }
$0 ~ "^#define " N "_[A-Z0-9_]+_SIZE_VER[0-9]+[ \t]" { vers[++nvers] = $2; next }
