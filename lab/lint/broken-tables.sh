#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds deliberately broken op tables and structs against the generic core
# (generic/module/dispatch.h) and requires each build to fail with the message of
# the rule it breaks.  What the compiler cannot see, a broken table that
# builds, ffst_iface_check() refuses at load: the generic core's KUnit
# suite (generic/module/dispatch_kunit.c) tests that.  Prints what went
# otherwise; silent when every case failed as it should.
#
#   broken-tables.sh KDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${1:?usage: broken-tables.sh KDIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# build NAME: the C on standard input, after the core's header, as a
# module of its own; its log in $work/NAME/log.
build() {
	local dir=$work/$1
	mkdir -p "$dir"
	cp "$top/generic/module/dispatch.h" "$dir/"
	echo "obj-m := broken.o" >"$dir/Kbuild"
	{
		echo '#include <linux/module.h>'
		echo '#include "dispatch.h"'
		cat
		echo 'MODULE_LICENSE("GPL");'
	} >"$dir/broken.c"
	make -s -C "$kdir" M="$dir" modules >"$dir/log" 2>&1
}

# case_ NAME MESSAGE: it must not build, and the compiler must say MESSAGE.
case_() {
	if build "$1"; then
		echo "$1: built, but should have failed with \"$2\""
	elif ! grep -qF -- "$2" "$work/$1/log"; then
		echo "$1: failed without \"$2\":"
		grep -m 3 'error' "$work/$1/log" | sed 's/^/  /'
	fi
}

case_ tail-padding 'struct t: tail padding, or a field not listed, after a' <<'EOF'
struct t { __u64 flags; __u32 a; };
FFST_ASSERT_LAYOUT(struct t, flags, a);
EOF
case_ hole 'struct t: a hole, or a field not listed, before b (at offsetofend(a)?)' <<'EOF'
struct t { __u64 flags; __u32 a; __u64 b; };
FFST_ASSERT_LAYOUT(struct t, flags, a, b);
EOF
case_ unlisted-field 'struct t: tail padding, or a field not listed, after a' <<'EOF'
struct t { __u64 flags; __u64 a; __u64 b; };
FFST_ASSERT_LAYOUT(struct t, flags, a);
EOF
case_ word-sized-field 'struct t: field a is not __u8..__u64, __s8..__s64' <<'EOF'
struct t { __u64 flags; long a; };	/* 8 bytes here, 4 on 32-bit */
FFST_ASSERT_LAYOUT(struct t, flags, a);
EOF
case_ flags-not-first 'struct t: flags, a __u64, must come first' <<'EOF'
struct t { __u64 a; __u64 flags; };
FFST_ASSERT_LAYOUT(struct t, a, flags);
EOF
case_ not-a-multiple-of-8 'struct t: not a multiple of 8 bytes' <<'EOF'
struct t { __u64 flags; __u32 a; } __packed;
FFST_ASSERT_LAYOUT(struct t, flags, a);
EOF
case_ bigger-than-the-buffer 'struct t: bigger than the dispatcher buffer' <<'EOF'
struct t { __u64 flags, a, b, c, d, e, f, g, h; };	/* 72 bytes */
FFST_ASSERT_LAYOUT(struct t, flags, a, b, c, d, e, f, g, h);
EOF
case_ entry-without-its-handler 'macro "FFST_OP" requires 8 arguments, but only 7 given' <<'EOF'
struct t { __u64 flags; __u64 a; };
static const struct t t_fields = { .a = ~0ULL };
const struct ffst_op t_ops[1] = {
	FFST_OP(_IOWR('T', 0, struct t), 16,
		FFST_ABI({ sizeof(struct t), 0 }), t_fields, false, 0, NULL),
};
EOF
case_ handler-of-another-struct 'from incompatible pointer type' <<'EOF'
struct t { __u64 flags; __u64 a; };
struct u { __u64 flags; __u64 b; };
static long t_handler(struct file *file, struct u *args, void __user *uarg,
		      size_t usize)
{
	return 0;
}
FFST_HANDLER(t_handler, struct t)
long (*t_entry)(struct file *, void *, void __user *, size_t) = t_handler_op;
EOF
# And a whole entry builds: the cases fail for their rule alone.
build good <<'EOF' || { echo "a good table does not build:"; grep -m 3 error "$work/good/log"; }
struct t { __u64 flags; __u32 a; __u32 b; };
FFST_ASSERT_LAYOUT(struct t, flags, a, b);
static const struct t t_fields = { .a = ~0U, .b = ~0U };
static long t_handler(struct file *file, struct t *args, void __user *uarg,
		      size_t usize)
{
	return args->a;
}
FFST_HANDLER(t_handler, struct t)

const struct ffst_op t_ops[1] = {
	FFST_OP(_IOWR('T', 0, struct t), 16,
		FFST_ABI({ sizeof(struct t), 0 }), t_fields, false, 0, NULL,
		t_handler_op),
};
EXPORT_SYMBOL_GPL(t_ops);
EOF
