// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst: KUnit tests, as a module of their own, flagsfirst_kunit.ko,
 * built only with CONFIG_FLAGSFIRST_KUNIT_TEST=m on a kernel with KUnit
 * (make check-debug): the generic core's suite (dispatch_kunit.c) on
 * flagsfirst's table of operations, and flagsfirst's own rules (SET's
 * flags and fields, RENAME's and WATCH's, reserved and out fields, the
 * CHECK_FIELDS answer of SET, name lengths).  The suites run when the
 * module is loaded, and never taint a kernel that only loads flagsfirst.ko.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "dispatch_kunit.h"
#include "ioctl.h"

/* The generic core's suite runs on flagsfirst's table. */
const struct ffst_iface *const ffst_kunit_iface = &ffst_iface;

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
	const struct ffst_op *set = &ffst_iface.ops[_IOC_NR(FLAGSFIRST_IOC_SET)];
	const struct ffst_op *get = &ffst_iface.ops[_IOC_NR(FLAGSFIRST_IOC_GET)];
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

/* SET's CHECK_FIELDS answer: its ABI-1 field known, its reserved one not. */
static void ffst_test_check_fields_answer(struct kunit *test)
{
	const struct flagsfirst_set *set_fields =
		ffst_iface.ops[_IOC_NR(FLAGSFIRST_IOC_SET)].fields;

	KUNIT_EXPECT_EQ(test, 0ULL, set_fields->flags);
	KUNIT_EXPECT_EQ(test, ~0ULL, set_fields->expect_seq);
	KUNIT_EXPECT_EQ(test, 0U, set_fields->__reserved);
}

/*
 * WATCH refuses a zeroed struct (its mask must not be 0), so the generic
 * suite leaves its unknown flag bits to this one: with a mask, each bit
 * WATCH does not take makes the call invalid.
 */
static void ffst_test_watch_unknown_flag_bits_are_invalid(struct kunit *test)
{
	const struct ffst_op *op = &ffst_iface.ops[_IOC_NR(FLAGSFIRST_IOC_WATCH)];
	const struct ffst_op_abi *v = &op->abi[op->nr_abi - 1];
	struct flagsfirst_watch watch = { .mask = FLAGSFIRST_EVENT_SET };
	unsigned int bit;

	KUNIT_ASSERT_TRUE(test, ffst_args_valid(op, v, &watch, v->ksize));
	for (bit = 0; bit < 64; bit++) {
		if (v->flags & BIT_ULL(bit))
			continue;
		watch.flags = BIT_ULL(bit);
		KUNIT_EXPECT_FALSE_MSG(test, ffst_args_valid(op, v, &watch, v->ksize),
				       "bit %u", bit);
	}
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

static struct kunit_case ffst_ioctl_test_cases[] = {
	KUNIT_CASE(ffst_test_set_flag_and_field_rules),
	KUNIT_CASE(ffst_test_rename_and_watch_rules),
	KUNIT_CASE(ffst_test_reserved_fields_must_be_zero),
	KUNIT_CASE(ffst_test_check_fields_answer),
	KUNIT_CASE(ffst_test_watch_unknown_flag_bits_are_invalid),
	KUNIT_CASE(ffst_test_name_lengths),
	{}
};

static struct kunit_suite ffst_ioctl_test_suite = {
	.name = "flagsfirst_ioctl",
	.test_cases = ffst_ioctl_test_cases,
};

kunit_test_suites(&ffst_ioctl_test_suite, &ffst_dispatch_test_suite);

MODULE_DESCRIPTION("KUnit tests of flagsfirst's ioctl dispatcher");
MODULE_AUTHOR("The flagsfirst developers");
MODULE_LICENSE("GPL");
/* MODULE_IMPORT_NS() takes a string from 6.13 on, a name before */
MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING");
