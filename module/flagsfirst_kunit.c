// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst: KUnit tests of the dispatcher's pure logic (flag validation,
 * size negotiation, the CHECK_FIELDS answer, name checks), as a module of
 * their own, flagsfirst_kunit.ko, built only with
 * CONFIG_FLAGSFIRST_KUNIT_TEST=m on a kernel with KUnit (make check-debug).
 * The suite runs when it is loaded, and never taints a kernel that only
 * loads flagsfirst.ko.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "ioctl.h"

/* The op with number @nr, or NULL for a hole in the table. */
static const struct ffst_op *ffst_test_op(unsigned int nr)
{
	return ffst_ops[nr].handler ? &ffst_ops[nr] : NULL;
}

static void ffst_test_abi_table_only_grows(struct kunit *test)
{
	const struct ffst_op *op;
	unsigned int nr, abi;

	for (nr = 0; nr < FFST_NR_OPS; nr++) {
		op = ffst_test_op(nr);
		if (!op)
			continue;
		KUNIT_EXPECT_EQ(test, 0ULL, *(const u64 *)op->fields);
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];

			KUNIT_EXPECT_GE(test, v->ksize, op->size_ver0);
			KUNIT_EXPECT_EQ(test, 0UL, v->ksize % sizeof(__u64));
			KUNIT_EXPECT_LE(test, v->ksize, sizeof(union ffst_args));
			KUNIT_EXPECT_EQ(test, 0ULL,
					v->flags & FLAGSFIRST_CHECK_FIELDS);
			if (!abi)
				continue;
			/* A later ABI never shrinks a struct nor drops a flag. */
			KUNIT_EXPECT_GE(test, v->ksize, op->abi[abi - 1].ksize);
			KUNIT_EXPECT_EQ(test, op->abi[abi - 1].flags,
					v->flags & op->abi[abi - 1].flags);
		}
	}
}

static void ffst_test_usize_bounds(struct kunit *test)
{
	const struct ffst_op *op;
	unsigned int nr;

	for (nr = 0; nr < FFST_NR_OPS; nr++) {
		op = ffst_test_op(nr);
		if (!op)
			continue;
		KUNIT_EXPECT_EQ(test, -EINVAL, ffst_usize_check(op, 0));
		KUNIT_EXPECT_EQ(test, -EINVAL,
				ffst_usize_check(op, op->size_ver0 - 1));
		KUNIT_EXPECT_EQ(test, 0, ffst_usize_check(op, op->size_ver0));
		KUNIT_EXPECT_EQ(test, 0, ffst_usize_check(op, PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, -E2BIG, ffst_usize_check(op, PAGE_SIZE + 1));
	}
}

/* With no flag at all, every op's struct is valid. */
static void ffst_test_unknown_flag_bits_are_invalid(struct kunit *test)
{
	const struct ffst_op *op;
	union ffst_args args;
	unsigned int nr, abi, bit;

	for (nr = 0; nr < FFST_NR_OPS; nr++) {
		op = ffst_test_op(nr);
		if (!op)
			continue;
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];

			for (bit = 0; bit < 64; bit++) {
				memset(&args, 0, sizeof(args));
				/* WATCH's only field must not be 0 */
				args.words[1] = FLAGSFIRST_EVENT_SET;
				args.flags = BIT_ULL(bit);
				if (v->flags & BIT_ULL(bit))
					continue;
				KUNIT_EXPECT_FALSE_MSG(test,
						       ffst_args_valid(op, v, &args,
								       v->ksize),
						       "op %u abi %u bit %u",
						       nr, abi, bit);
			}
		}
	}
}

static void ffst_test_check_fields_mixed_is_invalid(struct kunit *test)
{
	const struct ffst_op *op;
	union ffst_args args = {};
	unsigned int nr;

	for (nr = 0; nr < FFST_NR_OPS; nr++) {
		op = ffst_test_op(nr);
		if (!op)
			continue;
		const struct ffst_op_abi *v = &op->abi[op->nr_abi - 1];

		args.flags = FLAGSFIRST_CHECK_FIELDS;
		KUNIT_EXPECT_FALSE(test, ffst_args_valid(op, v, &args, v->ksize));
		args.flags |= v->flags;
		KUNIT_EXPECT_FALSE(test, ffst_args_valid(op, v, &args, v->ksize));
	}
}

struct ffst_set_case {
	const char *what;
	u64 flags, expect_seq;
	size_t usize;
	bool valid;
};

static const struct ffst_set_case ffst_set_cases[] = {
	{ "no flag", 0, 0, FLAGSFIRST_SET_SIZE_VER0, true },
	{ "NOREPLACE|REPLACE", FLAGSFIRST_SET_NOREPLACE | FLAGSFIRST_SET_REPLACE,
	  0, FLAGSFIRST_SET_SIZE_VER1, false },
	{ "IF_SEQ", FLAGSFIRST_SET_IF_SEQ, 5, FLAGSFIRST_SET_SIZE_VER1, true },
	{ "IF_SEQ|REPLACE", FLAGSFIRST_SET_IF_SEQ | FLAGSFIRST_SET_REPLACE, 5,
	  FLAGSFIRST_SET_SIZE_VER1, true },
	{ "IF_SEQ|NOREPLACE", FLAGSFIRST_SET_IF_SEQ | FLAGSFIRST_SET_NOREPLACE, 5,
	  FLAGSFIRST_SET_SIZE_VER1, false },
	{ "IF_SEQ in a VER0 struct", FLAGSFIRST_SET_IF_SEQ, 0,
	  FLAGSFIRST_SET_SIZE_VER0, false },
	{ "expect_seq without IF_SEQ", 0, 5, FLAGSFIRST_SET_SIZE_VER1, false },
	{ "IF_SEQ with expect_seq 0", FLAGSFIRST_SET_IF_SEQ, 0,
	  FLAGSFIRST_SET_SIZE_VER1, true },
};

static void ffst_test_set_flag_and_field_rules(struct kunit *test)
{
	struct flagsfirst_set set = {};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ffst_set_cases); i++) {
		const struct ffst_set_case *c = &ffst_set_cases[i];

		set.flags = c->flags;
		set.expect_seq = c->expect_seq;
		KUNIT_EXPECT_EQ_MSG(test, c->valid,
				    ffst_set_args_valid(&set, c->usize), "%s",
				    c->what);
	}
}

static void ffst_test_rename_and_watch_rules(struct kunit *test)
{
	struct flagsfirst_rename rename = {};
	struct flagsfirst_watch watch = {};

	rename.flags = FLAGSFIRST_RENAME_NOREPLACE | FLAGSFIRST_RENAME_EXCHANGE;
	KUNIT_EXPECT_FALSE(test, ffst_rename_args_valid(&rename, 24));
	rename.flags = FLAGSFIRST_RENAME_EXCHANGE;
	KUNIT_EXPECT_TRUE(test, ffst_rename_args_valid(&rename, 24));

	KUNIT_EXPECT_FALSE(test, ffst_watch_args_valid(&watch, 16));
	watch.mask = FLAGSFIRST_EVENT_ALL;
	KUNIT_EXPECT_TRUE(test, ffst_watch_args_valid(&watch, 16));
	watch.mask = FLAGSFIRST_EVENT_OVERFLOW;
	KUNIT_EXPECT_FALSE(test, ffst_watch_args_valid(&watch, 16));
	watch.mask = BIT_ULL(40) | FLAGSFIRST_EVENT_SET;
	KUNIT_EXPECT_FALSE(test, ffst_watch_args_valid(&watch, 16));
}

static void ffst_test_reserved_fields_must_be_zero(struct kunit *test)
{
	const struct ffst_op *set = &ffst_ops[_IOC_NR(FLAGSFIRST_IOC_SET)];
	const struct ffst_op *get = &ffst_ops[_IOC_NR(FLAGSFIRST_IOC_GET)];
	struct flagsfirst_set s = {};
	struct flagsfirst_get g = {};

	KUNIT_EXPECT_TRUE(test, ffst_reserved_clear(set, sizeof(s), &s));
	s.__reserved = 1;
	KUNIT_EXPECT_FALSE(test, ffst_reserved_clear(set, sizeof(s), &s));
	g.__reserved = 0x80000000;
	KUNIT_EXPECT_FALSE(test, ffst_reserved_clear(get, sizeof(g), &g));
	/* Out fields are not reserved: GET ignores what comes in them. */
	g.__reserved = 0;
	g.seq = ~0ULL;
	g.attrs = ~0U;
	KUNIT_EXPECT_TRUE(test, ffst_reserved_clear(get, sizeof(g), &g));
}

static void ffst_test_check_fields_answer(struct kunit *test)
{
	const struct flagsfirst_set *set_fields;
	const u64 *fields;
	const struct ffst_op *op;
	unsigned int nr, abi;
	size_t i;

	for (nr = 0; nr < FFST_NR_OPS; nr++) {
		op = ffst_test_op(nr);
		if (!op)
			continue;
		fields = op->fields;
		/* The dispatcher writes the flags word: the template has 0. */
		KUNIT_EXPECT_EQ(test, 0ULL, fields[0]);
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];
			const u8 *b = (const u8 *)fields;

			KUNIT_EXPECT_FALSE(test, v->flags & FLAGSFIRST_CHECK_FIELDS);
			/* Every byte is all ones (a field) or 0 (reserved). */
			for (i = sizeof(fields[0]); i < v->ksize; i++)
				KUNIT_EXPECT_TRUE_MSG(test, !b[i] || b[i] == 0xff,
						      "op %u byte %zu", nr, i);
			/* Its last 8 bytes are not all zero: the size shows. */
			KUNIT_EXPECT_TRUE(test, memchr_inv(b + v->ksize - 8, 0, 8));
		}
	}
	set_fields = ffst_ops[_IOC_NR(FLAGSFIRST_IOC_SET)].fields;
	KUNIT_EXPECT_EQ(test, ~0ULL, set_fields->expect_seq);
	KUNIT_EXPECT_EQ(test, 0U, set_fields->__reserved);
}

static void ffst_test_name_lengths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, -ENOENT, ffst_name_len_check(0, false));
	KUNIT_EXPECT_EQ(test, 0, ffst_name_len_check(0, true));
	KUNIT_EXPECT_EQ(test, 1, ffst_name_len_check(1, false));
	KUNIT_EXPECT_EQ(test, FLAGSFIRST_NAME_MAX,
			ffst_name_len_check(FLAGSFIRST_NAME_MAX, false));
	KUNIT_EXPECT_EQ(test, -ENAMETOOLONG,
			ffst_name_len_check(FLAGSFIRST_NAME_MAX + 1, false));
	KUNIT_EXPECT_EQ(test, -EFAULT, ffst_name_len_check(-EFAULT, true));
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

static struct kunit_case ffst_ioctl_test_cases[] = {
	KUNIT_CASE(ffst_test_abi_table_only_grows),
	KUNIT_CASE(ffst_test_usize_bounds),
	KUNIT_CASE(ffst_test_unknown_flag_bits_are_invalid),
	KUNIT_CASE(ffst_test_check_fields_mixed_is_invalid),
	KUNIT_CASE(ffst_test_set_flag_and_field_rules),
	KUNIT_CASE(ffst_test_rename_and_watch_rules),
	KUNIT_CASE(ffst_test_reserved_fields_must_be_zero),
	KUNIT_CASE(ffst_test_check_fields_answer),
	KUNIT_CASE(ffst_test_name_lengths),
	KUNIT_CASE(ffst_test_broken_tables_refuse_to_load),
	{}
};

static struct kunit_suite ffst_ioctl_test_suite = {
	.name = "flagsfirst_ioctl",
	.test_cases = ffst_ioctl_test_cases,
};

kunit_test_suite(ffst_ioctl_test_suite);

MODULE_DESCRIPTION("KUnit tests of flagsfirst's ioctl dispatcher");
MODULE_AUTHOR("The flagsfirst developers");
MODULE_LICENSE("GPL");
/* MODULE_IMPORT_NS() takes a string from 6.13 on, a name before */
MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING");
