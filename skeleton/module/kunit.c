// SPDX-License-Identifier: GPL-2.0-only
/*
 * skel: KUnit tests, as a module of their own, skel_kunit.ko, built only
 * with CONFIG_SKEL_KUNIT_TEST=m on a kernel with KUnit (in tree: kunit.py
 * run --kunitconfig=drivers/misc/skel): the generic core's suite
 * (dispatch_kunit.c) on skel's table of operations, and skel's own cases.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "dispatch_kunit.h"
#include "ioctl.h"

/* The generic core's suite runs on skel's table. */
const struct ffst_iface *const ffst_kunit_iface = &skel_iface;

/* CONFIGURE's ADD and SUB together are invalid; each alone is not. */
static void skel_test_configure_add_and_sub_conflict(struct kunit *test)
{
	const struct ffst_op *op = &skel_iface.ops[_IOC_NR(SKEL_IOC_CONFIGURE)];
	struct skel_configure c = {};

	c.flags = SKEL_CONFIGURE_ADD;
	KUNIT_EXPECT_TRUE(test, op->args_valid(&c, sizeof(c)));
	c.flags = SKEL_CONFIGURE_SUB;
	KUNIT_EXPECT_TRUE(test, op->args_valid(&c, sizeof(c)));
	c.flags = SKEL_CONFIGURE_ADD | SKEL_CONFIGURE_SUB;
	KUNIT_EXPECT_FALSE(test, op->args_valid(&c, sizeof(c)));
}

static struct kunit_case skel_test_cases[] = {
	KUNIT_CASE(skel_test_configure_add_and_sub_conflict),
	{}
};

static struct kunit_suite skel_test_suite = {
	.name = "skel_ioctl",
	.test_cases = skel_test_cases,
};

kunit_test_suites(&skel_test_suite, &ffst_dispatch_test_suite);

MODULE_DESCRIPTION("KUnit tests of skel's ioctls");
MODULE_LICENSE("GPL");
/* MODULE_IMPORT_NS() takes a string from 6.13 on, a name before */
MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING");
