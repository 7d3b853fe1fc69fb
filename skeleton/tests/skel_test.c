// SPDX-License-Identifier: GPL-2.0-only
/*
 * skel selftests: every rule of the dispatcher on every op
 * (discipline_tests.h), then what each op does.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/skel.h>

#include "kselftest_harness.h"

#include "discipline.h"
#include "ops.h"		/* SKEL_TEST_OP_*: tables.sh, from the header */

#define SKEL_IOC_TYPE	_IOC_TYPE(SKEL_IOC_CONFIGURE)

/* What a call needs between preparing it and checking it. */
struct names {
	uint64_t changes;	/* the counter's changes before the call */
};

static int open_dev_mode(int mode)
{
	return open("/dev/skel", mode | O_CLOEXEC);
}

static int open_dev(void)
{
	return open_dev_mode(O_RDWR);
}

static int configure(int fd, uint64_t flags, uint64_t value)
{
	struct skel_configure c = { .flags = flags, .value = value };

	return ffst(fd, SKEL_IOC_CONFIGURE, &c);
}

/* The counter and its changes, or UINT64_MAX for both on an error. */
static struct skel_query query(int fd, uint64_t flags)
{
	struct skel_query q = { .flags = flags };

	if (ffst(fd, SKEL_IOC_QUERY, &q)) {
		q.value = UINT64_MAX;
		q.changes = UINT64_MAX;
	}
	return q;
}

static void forget_changes(int fd, void *state)
{
	struct names *n = state;

	n->changes = query(fd, 0).changes;
}

/*
 * What each ABI release of the module has for each op (by ioctl number):
 * its struct size and flags, as numbers -- not taken from the header this
 * program includes, since one built against the first release's knows
 * that one only, nor from the module, which is what is under test.
 * tables.sh writes them from tests/abi/v0 and today's header; an op with
 * no entry in a release is as its variant says (an op added later).
 */
#include "releases.h"

#define NR_RELEASES	((int)ARRAY_SIZE(releases))

/* The release the module runs: the cell's (SKEL_ABI), else the latest. */
static int module_abi(void)
{
	const char *cell = getenv("SKEL_ABI");
	int abi = cell ? atoi(cell) : NR_RELEASES - 1;

	return abi < NR_RELEASES ? abi : NR_RELEASES - 1;
}

static const struct release *release_of(unsigned int nr)
{
	return &releases[module_abi()][nr];
}

/* skel, as it describes itself to the dispatcher's tests. */
static const struct discipline skel_discipline = {
	.ioc_type = SKEL_IOC_TYPE,
	.check_fields = SKEL_CHECK_FIELDS,
	.open_dev = open_dev_mode,
	.module_abi = module_abi,
	.release_of = release_of,
	.state_size = sizeof(struct names),
	.forget_changes = forget_changes,
};

#include "discipline_tests.h"

/* A CONFIGURE of 1, on a counter of 10 that any flag may change. */
static void fill_configure(int fd, void *state, void *buf, uint64_t flags)
{
	struct skel_configure c = { .flags = flags, .value = 1 };

	(void)state;
	configure(fd, 0, 10);
	memcpy(buf, &c, sizeof(c));
}

static bool happened_configure(int fd, void *state)
{
	struct names *n = state;

	return query(fd, 0).changes != n->changes;
}

static void fill_query(int fd, void *state, void *buf, uint64_t flags)
{
	struct skel_query q = { .flags = flags };

	(void)state;
	configure(fd, 0, 10);
	memcpy(buf, &q, sizeof(q));
}

/* RESET aside, a QUERY changes nothing; what it writes is checked below. */
static bool happened_query(int fd, void *state)
{
	struct names *n = state;

	return query(fd, 0).changes != n->changes;
}

/* Each op: what the header says of it (ops.h), then what it does. */
FIXTURE_VARIANT_ADD(op, configure) {
	SKEL_TEST_OP_configure,
	.d = &skel_discipline,
	.conflicts = { { SKEL_CONFIGURE_ADD, SKEL_CONFIGURE_SUB } },
	.fill = fill_configure,
	.happened = happened_configure,
	.changes_table = true,
	.mutates = true,
	.known = {
		{ SKEL_CONFIGURE_ADD, 0, 0 },
		{ SKEL_CONFIGURE_SUB, 0, 0 },
	},
};

FIXTURE_VARIANT_ADD(op, query) {
	SKEL_TEST_OP_query,
	.d = &skel_discipline,
	.fill = fill_query,
	.happened = happened_query,
	.mutating_flags = SKEL_QUERY_RESET,
	.known = { { SKEL_QUERY_RESET, 0, 0 } },
};

/* The device's counter at @value, with no change counted yet. */
static void start_at(int fd, uint64_t value)
{
	configure(fd, 0, value);
	query(fd, SKEL_QUERY_RESET);
}

/* CONFIGURE */

TEST(configure_sets_the_counter_and_query_reads_it_back)
{
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	EXPECT_EQ(0, configure(fd, 0, 42));
	EXPECT_EQ(42, query(fd, 0).value);
	EXPECT_EQ(1, query(fd, 0).changes);
	close(fd);
}

static const struct {
	const char *what;
	uint64_t start, flags, value;
	int ret;
	uint64_t end;
} configure_cases[] = {
	{ "set", 5, 0, 7, 0, 7 },
	{ "add", 5, SKEL_CONFIGURE_ADD, 7, 0, 12 },
	{ "sub", 7, SKEL_CONFIGURE_SUB, 5, 0, 2 },
	{ "sub to zero", 7, SKEL_CONFIGURE_SUB, 7, 0, 0 },
	{ "add past U64_MAX", UINT64_MAX, SKEL_CONFIGURE_ADD, 1, -EOVERFLOW, UINT64_MAX },
	{ "sub below zero", 0, SKEL_CONFIGURE_SUB, 1, -ERANGE, 0 },
	{ "add and sub", 5, SKEL_CONFIGURE_ADD | SKEL_CONFIGURE_SUB, 1, -EINVAL, 5 },
};

TEST(each_configure_gives_its_documented_result_and_counter)
{
	int fd = open_dev();
	size_t i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(configure_cases); i++) {
		ASSERT_EQ(0, configure(fd, 0, configure_cases[i].start));
		EXPECT_EQ(configure_cases[i].ret,
			  configure(fd, configure_cases[i].flags,
				    configure_cases[i].value))
			TH_LOG("%s", configure_cases[i].what);
		EXPECT_EQ(configure_cases[i].end, query(fd, 0).value)
			TH_LOG("%s", configure_cases[i].what);
	}
	close(fd);
}

TEST(a_failed_configure_is_not_counted_as_a_change)
{
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	EXPECT_EQ(-ERANGE, configure(fd, SKEL_CONFIGURE_SUB, 1));
	EXPECT_EQ(0, query(fd, 0).changes);
	close(fd);
}

TEST(configure_on_an_fd_opened_read_only_fails_with_EBADF)
{
	int rw = open_dev(), fd = open_dev_mode(O_RDONLY);

	ASSERT_LE(0, rw);
	ASSERT_LE(0, fd);
	start_at(rw, 5);
	EXPECT_EQ(-EBADF, configure(fd, 0, 1));
	/* validity still comes first */
	EXPECT_EQ(-EINVAL, configure(fd, 1ULL << 40, 1));
	EXPECT_EQ(5, query(fd, 0).value) TH_LOG("query works on any fd");
	EXPECT_EQ(0, query(fd, 0).changes);
	close(fd);
	close(rw);
}

/* What one process sets, the next one reads: the counter is the device's. */
TEST(every_open_file_sees_the_one_counter)
{
	int a = open_dev(), b = open_dev();

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	EXPECT_EQ(0, configure(a, 0, 3));
	EXPECT_EQ(3, query(b, 0).value);
	EXPECT_EQ(0, configure(b, SKEL_CONFIGURE_ADD, 1));
	EXPECT_EQ(4, query(a, 0).value);
	close(a);
	close(b);
}

/* QUERY */

TEST(query_reset_reports_the_changes_then_sets_them_to_zero)
{
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	configure(fd, 0, 1);
	configure(fd, SKEL_CONFIGURE_ADD, 1);
	EXPECT_EQ(2, query(fd, SKEL_QUERY_RESET).changes);
	EXPECT_EQ(0, query(fd, 0).changes);
	EXPECT_EQ(2, query(fd, 0).value) TH_LOG("the counter stays");
	close(fd);
}

/* RESET changes state: a read-only fd may read, not reset. */
TEST(query_reset_on_an_fd_opened_read_only_fails_with_EBADF_and_resets_nothing)
{
	struct skel_query q = { .flags = SKEL_QUERY_RESET };
	int rw = open_dev(), fd = open_dev_mode(O_RDONLY);

	ASSERT_LE(0, rw);
	ASSERT_LE(0, fd);
	start_at(rw, 0);
	configure(rw, 0, 1);
	EXPECT_EQ(-EBADF, ffst(fd, SKEL_IOC_QUERY, &q));
	EXPECT_EQ(1, query(fd, 0).changes);
	close(fd);
	close(rw);
}

/*
 * copy_struct_to_user(): every output field written over poison, and the
 * bytes past the kernel's struct (zero on the way in) still zero.
 */
TEST(query_writes_every_output_field_into_a_poisoned_struct)
{
	/* the module's struct, which may be bigger than this header's */
	size_t ksize = release_of(_IOC_NR(SKEL_IOC_QUERY))->size, i;
	unsigned char buf[64] = { 0 };
	struct skel_query q;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	configure(fd, 0, 9);
	/* the output fields both know: a module's unknown bytes must be 0 */
	memset(buf + 8, POISON, (ksize < sizeof(q) ? ksize : sizeof(q)) - 8);
	ASSERT_EQ(0, ffst(fd, ffst_cmd(SKEL_IOC_TYPE, _IOC_NR(SKEL_IOC_QUERY),
				       sizeof(buf)), buf));
	memcpy(&q, buf, sizeof(q));
	EXPECT_EQ(9, q.value);
	EXPECT_EQ(1, q.changes);
	/* braces: EXPECT_*() and its TH_LOG() are two statements */
	for (i = ksize > sizeof(q) ? ksize : sizeof(q); i < sizeof(buf); i++) {
		EXPECT_EQ(0, buf[i]) {
			TH_LOG("tail byte %zu", i);
		}
	}
	close(fd);
}

TEST(query_at_ver0_size_writes_nothing_past_it)
{
	unsigned char *buf = at_page_end(SKEL_QUERY_SIZE_VER0, 0);
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, buf);
	memset(buf, 0, SKEL_QUERY_SIZE_VER0);
	/* any write past the struct would fault */
	EXPECT_EQ(0, ffst(fd, ffst_cmd(SKEL_IOC_TYPE, _IOC_NR(SKEL_IOC_QUERY),
				       SKEL_QUERY_SIZE_VER0), buf));
	close(fd);
}

TEST_HARNESS_MAIN
