// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the generic core (dispatch.c) on an interface's own table
 * of operations, ffst_kunit_iface: each op's ABI rows, its size bounds, its
 * unknown flag bits, CHECK_FIELDS and its template, its reserved bytes;
 * then tables of one op that ffst_iface_check() must refuse at load.  An
 * interface gets them by linking this file into its KUnit module
 * (dispatch_kunit.h says how).
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "dispatch_kunit.h"

/*
 * The op of the interface's table numbered *@nr or the first after it that
 * is not a hole, its number left in *@nr; NULL past the table's end.
 */
static const struct ffst_op *ffst_next_op(unsigned int *nr)
{
	for (; *nr < ffst_kunit_iface->nr_ops; (*nr)++)
		if (ffst_kunit_iface->ops[*nr].handler)
			return &ffst_kunit_iface->ops[*nr];
	return NULL;
}

static void ffst_test_abi_table_only_grows(struct kunit *test)
{
	u64 check_fields = ffst_kunit_iface->check_fields;
	const struct ffst_op *op;
	unsigned int nr, abi;

	for (nr = 0; (op = ffst_next_op(&nr)); nr++) {
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];

			KUNIT_EXPECT_GE_MSG(test, v->ksize, op->size_ver0,
					    "op %u abi %u", nr, abi);
			KUNIT_EXPECT_EQ_MSG(test, 0UL, v->ksize % sizeof(u64),
					    "op %u abi %u", nr, abi);
			KUNIT_EXPECT_LE_MSG(test, v->ksize, op->fields_size,
					    "op %u abi %u", nr, abi);
			KUNIT_EXPECT_LE_MSG(test, v->ksize, sizeof(union ffst_args),
					    "op %u abi %u", nr, abi);
			KUNIT_EXPECT_EQ_MSG(test, 0ULL, v->flags & check_fields,
					    "op %u abi %u", nr, abi);
			if (!abi)
				continue;
			/* A later ABI never shrinks a struct nor drops a flag. */
			KUNIT_EXPECT_GE_MSG(test, v->ksize, op->abi[abi - 1].ksize,
					    "op %u abi %u", nr, abi);
			KUNIT_EXPECT_EQ_MSG(test, op->abi[abi - 1].flags,
					    v->flags & op->abi[abi - 1].flags,
					    "op %u abi %u", nr, abi);
		}
	}
}

static void ffst_test_usize_bounds(struct kunit *test)
{
	const struct ffst_op *op;
	unsigned int nr;

	for (nr = 0; (op = ffst_next_op(&nr)); nr++) {
		KUNIT_EXPECT_EQ(test, -EINVAL, ffst_usize_check(op, 0));
		KUNIT_EXPECT_EQ(test, -EINVAL,
				ffst_usize_check(op, op->size_ver0 - 1));
		KUNIT_EXPECT_EQ(test, 0, ffst_usize_check(op, op->size_ver0));
		KUNIT_EXPECT_EQ(test, 0, ffst_usize_check(op, PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, -E2BIG, ffst_usize_check(op, PAGE_SIZE + 1));
	}
}

/*
 * Each bit an ABI row lacks makes a struct invalid that is valid without
 * it.  The struct: all zero, which most ops take with no flag; an op whose
 * own rules refuse that (a field that must not be 0) is its project's to
 * test, and is counted here, not judged.
 */
static void ffst_test_unknown_flag_bits_are_invalid(struct kunit *test)
{
	unsigned int nr, abi, bit, judged = 0;
	const struct ffst_op *op;
	union ffst_args args;

	for (nr = 0; (op = ffst_next_op(&nr)); nr++) {
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];

			memset(&args, 0, sizeof(args));
			if (!ffst_args_valid(op, v, &args, v->ksize)) {
				kunit_info(test, "op %u: a zeroed struct is refused: not judged here",
					   nr);
				continue;
			}
			judged++;
			for (bit = 0; bit < 64; bit++) {
				if (v->flags & BIT_ULL(bit))
					continue;
				args.flags = BIT_ULL(bit);
				KUNIT_EXPECT_FALSE_MSG(test,
						       ffst_args_valid(op, v, &args,
								       v->ksize),
						       "op %u abi %u bit %u",
						       nr, abi, bit);
			}
		}
	}
	KUNIT_EXPECT_GT(test, judged, 0U);
}

/* CHECK_FIELDS is asked alone: with any other bit, the call is invalid. */
static void ffst_test_check_fields_mixed_is_invalid(struct kunit *test)
{
	u64 check_fields = ffst_kunit_iface->check_fields;
	union ffst_args args = {};
	const struct ffst_op *op;
	unsigned int nr;

	for (nr = 0; (op = ffst_next_op(&nr)); nr++) {
		const struct ffst_op_abi *v = &op->abi[op->nr_abi - 1];

		args.flags = check_fields;
		KUNIT_EXPECT_FALSE(test, ffst_args_valid(op, v, &args, v->ksize));
		args.flags |= v->flags;
		KUNIT_EXPECT_FALSE(test, ffst_args_valid(op, v, &args, v->ksize));
	}
}

/*
 * The CHECK_FIELDS answer: 0 in the flags word (the dispatcher writes the
 * flags), then every byte all ones (a field) or 0 (reserved), its last 8
 * bytes not all zero (the size shows); and a reserved byte set in a call
 * makes it invalid, while the template itself is clear.
 */
static void ffst_test_check_fields_template(struct kunit *test)
{
	const struct ffst_op *op;
	union ffst_args words;
	u8 *args = (u8 *)&words;
	unsigned int nr, abi;
	size_t i;

	for (nr = 0; (op = ffst_next_op(&nr)); nr++) {
		const u8 *b = op->fields;

		KUNIT_EXPECT_EQ(test, 0ULL, *(const u64 *)op->fields);
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];

			for (i = sizeof(u64); i < v->ksize; i++)
				KUNIT_EXPECT_TRUE_MSG(test, !b[i] || b[i] == 0xff,
						      "op %u byte %zu", nr, i);
			KUNIT_EXPECT_TRUE_MSG(test, memchr_inv(b + v->ksize - 8, 0, 8),
					      "op %u abi %u", nr, abi);
			memcpy(args, op->fields, v->ksize);
			KUNIT_EXPECT_TRUE(test, ffst_reserved_clear(op, v->ksize, args));
			for (i = sizeof(u64); i < v->ksize; i++) {
				if (b[i])
					continue;
				args[i] = 0x80;
				KUNIT_EXPECT_FALSE_MSG(test,
						       ffst_reserved_clear(op, v->ksize, args),
						       "op %u reserved byte %zu", nr, i);
				args[i] = 0;
			}
		}
	}
}

static long ffst_test_handler(struct file *file, void *args,
			      void __user *uarg, size_t usize)
{
	return 0;
}

static const u64 ffst_test_fields[FFST_ARGS_SIZE / sizeof(u64) + 1] = {
	0, ~0ULL,
};

/* A table of one op that ffst_iface_check() must accept or refuse. */
struct ffst_table_case {
	const char *name;
	int err;
	size_t size_ver0;
	struct ffst_op_abi abi[2];
	bool no_abi, no_fields, no_handler;
	unsigned int abi_version;
	u64 mutating_flags;
	size_t fields_size;	/* 0: the template's */
};

static const struct ffst_table_case ffst_table_cases[] = {
	{ "a good table", 0, 16, { { 16, 1 }, { 24, 3 } } },
	{ "a hole", 0, 0, { }, true, true, true },
	{ "no handler", -EINVAL, 16, { { 16, 1 }, { 16, 1 } }, .no_handler = true },
	{ "no fields template", -EINVAL, 16, { { 16, 1 }, { 16, 1 } }, .no_fields = true },
	{ "no ABI table", -EINVAL, 16, { }, .no_abi = true },
	{ "no first size", -EINVAL, 0, { { 16, 1 }, { 16, 1 } } },
	{ "a struct smaller than its first size", -EINVAL, 24, { { 16, 1 }, { 24, 1 } } },
	{ "a struct that shrinks in a later ABI", -EINVAL, 16, { { 24, 1 }, { 16, 1 } } },
	{ "a struct larger than the buffer", -EINVAL, 16,
	  { { 16, 1 }, { FFST_ARGS_SIZE + 8, 1 } } },
	{ "a struct not a multiple of 8 bytes", -EINVAL, 16, { { 16, 1 }, { 20, 1 } } },
	{ "CHECK_FIELDS among its flags", -EINVAL, 16, { { 16, 1 }, { 16, BIT_ULL(63) } } },
	{ "an ABI in force that the table lacks", -EINVAL, 16, { { 16, 1 }, { 16, 1 } },
	  .abi_version = 2 },
	{ "a mutating flag it takes", 0, 16, { { 16, 1 }, { 16, 3 } },
	  .mutating_flags = 2 },
	{ "a mutating flag it does not take", -EINVAL, 16, { { 16, 1 }, { 16, 1 } },
	  .mutating_flags = 2 },
	{ "no ABI given: the latest", 0, 16, { { 16, 1 }, { 24, 3 } },
	  .abi_version = FFST_ABI_UNSET },
	{ "a size bigger than its struct", -EINVAL, 16, { { 16, 1 }, { 24, 1 } },
	  .fields_size = 16 },
};

static void ffst_test_broken_tables_refuse_to_load(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ffst_table_cases); i++) {
		const struct ffst_table_case *c = &ffst_table_cases[i];
		unsigned int abi_version = c->abi_version;
		struct ffst_op op = {
			.size_ver0 = c->size_ver0,
			.abi = c->no_abi ? NULL : c->abi,
			.nr_abi = c->no_abi ? 0 : ARRAY_SIZE(c->abi),
			.fields = c->no_fields ? NULL : ffst_test_fields,
			.fields_size = c->fields_size ?: sizeof(ffst_test_fields),
			.handler = c->no_handler ? NULL : ffst_test_handler,
			.mutating_flags = c->mutating_flags,
		};
		struct ffst_iface iface = {
			.ioc_type = 'T',
			.ops = &op,
			.nr_ops = 1,
			.abi_version = &abi_version,
			.check_fields = BIT_ULL(63),
		};

		KUNIT_EXPECT_EQ_MSG(test, c->err, ffst_iface_check(&iface), "%s",
				    c->name);
		if (c->abi_version == FFST_ABI_UNSET)
			KUNIT_EXPECT_EQ_MSG(test, 1U, abi_version, "%s", c->name);
	}
}

/* The interface's own table passes the checks it passed at load. */
static void ffst_test_the_interface_table_loads(struct kunit *test)
{
	unsigned int abi_version = *ffst_kunit_iface->abi_version;
	struct ffst_iface iface = *ffst_kunit_iface;

	iface.abi_version = &abi_version;
	KUNIT_EXPECT_EQ(test, 0, ffst_iface_check(&iface));
}

static struct kunit_case ffst_dispatch_test_cases[] = {
	KUNIT_CASE(ffst_test_abi_table_only_grows),
	KUNIT_CASE(ffst_test_usize_bounds),
	KUNIT_CASE(ffst_test_unknown_flag_bits_are_invalid),
	KUNIT_CASE(ffst_test_check_fields_mixed_is_invalid),
	KUNIT_CASE(ffst_test_check_fields_template),
	KUNIT_CASE(ffst_test_broken_tables_refuse_to_load),
	KUNIT_CASE(ffst_test_the_interface_table_loads),
	{}
};

struct kunit_suite ffst_dispatch_test_suite = {
	.name = KBUILD_MODNAME "_dispatch",
	.test_cases = ffst_dispatch_test_cases,
};
