// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, limits: every module parameter at 0, 1 and its documented boundary, the
 * byte accounting against what is allocated, the per-uid shares, and the
 * parameters' ranges.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "limits_fixture.h"

/* Limits */

TEST_F(limits, a_full_table_fails_with_ENOSPC_until_an_entry_goes)
{
	long entries = read_stat("entries");
	char name[64], first[64], max[32];
	int i, ret = 0;

	if (entries < 0)
		SKIP(return, "no " STATS);
	/* Exactly 50 more than the table holds (immutable entries stay). */
	snprintf(max, sizeof(max), "%ld", entries + 50);
	ASSERT_EQ(0, write_param("max_entries", max));
	ASSERT_EQ(0, set(self->fd, fresh(first, "full"), "v", 0));
	for (i = 1; i < 60 && !ret; i++)
		ret = set(self->fd, fresh(name, "full"), "v", 0);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(51, i) TH_LOG("50 fit, the 51st is ENOSPC");
	EXPECT_EQ(false, exists(self->fd, name));
	EXPECT_EQ(0, set(self->fd, first, "replacing needs no room", 0));
	EXPECT_EQ(0, del(self->fd, first, 0));
	EXPECT_EQ(0, set(self->fd, name, "v", 0));
	EXPECT_EQ(-ENOSPC, set(self->fd, fresh(first, "full"), "v", 0));
}

TEST_F(limits, names_and_values_over_max_bytes_fail_with_ENOSPC)
{
	static char big[4096];
	struct flagsfirst_set s = { 0 };
	char name[64];

	ASSERT_EQ(0, set(self->fd, fresh(name, "bytes"), "small", 0));
	ASSERT_EQ(0, write_param("max_bytes", "1"));
	EXPECT_EQ(-ENOSPC, set(self->fd, "b", "", 0)) TH_LOG("a new entry");
	s.name = ptr(name);
	s.value = ptr(big);
	s.value_len = sizeof(big);
	EXPECT_EQ(-ENOSPC, ffst(self->fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("a bigger value");
	EXPECT_EQ(-ENOSPC, ren(self->fd, name, "a-much-longer-name-than-before", 0));
	EXPECT_EQ(0, del(self->fd, name, 0)) TH_LOG("deleting is always allowed");
	ASSERT_EQ(0, write_param("max_bytes", "1000000"));
	EXPECT_EQ(0, ffst(self->fd, FLAGSFIRST_IOC_SET, &s));
}

static int fill_quota(int fd, void *arg)
{
	char name[64];
	int i;

	(void)arg;
	del(fd, "", FLAGSFIRST_DELETE_ALL);
	for (i = 0; i < 3; i++)
		if (set(fd, fresh(name, "quota"), "v", 0))
			return 1;
	if (set(fd, fresh(name, "quota"), "v", 0) != -EDQUOT)
		return 2;
	if (del(fd, "", FLAGSFIRST_DELETE_ALL) != 3)
		return 3;
	return 0;
}

TEST_F(limits, entries_over_the_per_uid_limit_fail_with_EDQUOT_except_cap_sys_resource)
{
	char name[64];
	int i;

	ASSERT_EQ(0, write_param("max_entries_per_uid", "3"));
	EXPECT_EQ(0, as_nobody(fill_quota, NULL));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, set(self->fd, fresh(name, "exempt"), "v", 0));
}

/* Every limit parameter at 0 and 1, for an unprivileged uid and for root. */

FIXTURE(limit) {
	int fd;
	char saved[32];
};

FIXTURE_VARIANT(limit) {
	const char *param;
	const char *value;
	/* what the first and the second try returns, as uid 65534 and root */
	int user[2], root[2];
	/* tries: 0 SET of a new name, 1 WATCH, 2 SET of a 100-byte value */
	int what;
};

/* "+N": N more than the table holds (immutable entries of earlier tests) */
FIXTURE_VARIANT_ADD(limit, max_entries_0_allows_no_entry) {
	.param = "max_entries", .value = "+0", .what = 0,
	.user = { -ENOSPC, -ENOSPC }, .root = { -ENOSPC, -ENOSPC },
};

FIXTURE_VARIANT_ADD(limit, max_entries_1_allows_one_entry) {
	.param = "max_entries", .value = "+1", .what = 0,
	.user = { 0, -ENOSPC }, .root = { 0, -ENOSPC },
};

FIXTURE_VARIANT_ADD(limit, max_bytes_0_allows_no_entry) {
	.param = "max_bytes", .value = "0", .what = 0,
	.user = { -ENOSPC, -ENOSPC }, .root = { -ENOSPC, -ENOSPC },
};

FIXTURE_VARIANT_ADD(limit, max_bytes_1_allows_no_entry) {
	.param = "max_bytes", .value = "1", .what = 0,
	.user = { -ENOSPC, -ENOSPC }, .root = { -ENOSPC, -ENOSPC },
};

FIXTURE_VARIANT_ADD(limit, max_entries_per_uid_0_allows_no_entry_but_to_cap_sys_resource) {
	.param = "max_entries_per_uid", .value = "0", .what = 0,
	.user = { -EDQUOT, -EDQUOT }, .root = { 0, 0 },
};

FIXTURE_VARIANT_ADD(limit, max_entries_per_uid_1_allows_one_entry_but_to_cap_sys_resource) {
	.param = "max_entries_per_uid", .value = "1", .what = 0,
	.user = { 0, -EDQUOT }, .root = { 0, 0 },
};

FIXTURE_VARIANT_ADD(limit, max_bytes_per_uid_0_allows_no_entry_but_to_cap_sys_resource) {
	.param = "max_bytes_per_uid", .value = "0", .what = 2,
	.user = { -EDQUOT, -EDQUOT }, .root = { 0, 0 },
};

FIXTURE_VARIANT_ADD(limit, max_bytes_per_uid_1_allows_no_entry_but_to_cap_sys_resource) {
	.param = "max_bytes_per_uid", .value = "1", .what = 2,
	.user = { -EDQUOT, -EDQUOT }, .root = { 0, 0 },
};

FIXTURE_VARIANT_ADD(limit, max_watches_per_uid_0_allows_no_watch_but_to_cap_sys_resource) {
	.param = "max_watches_per_uid", .value = "0", .what = 1,
	.user = { -EMFILE, -EMFILE }, .root = { 0, 0 },
};

FIXTURE_VARIANT_ADD(limit, max_watches_per_uid_1_allows_one_watch_but_to_cap_sys_resource) {
	.param = "max_watches_per_uid", .value = "1", .what = 1,
	.user = { 0, -EMFILE }, .root = { 0, 0 },
};

FIXTURE_SETUP(limit)
{
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	if (!is_root())
		SKIP(return, "needs root to write module parameters");
	read_param(variant->param, self->saved, sizeof(self->saved));
	ASSERT_NE(0, self->saved[0]) TH_LOG("no parameter %s", variant->param);
	/* Entries of earlier tests: immutable ones stay and count. */
	del(self->fd, "", FLAGSFIRST_DELETE_ALL);
}

FIXTURE_TEARDOWN(limit)
{
	if (is_root()) {
		write_param(variant->param, self->saved);
		del(self->fd, "", FLAGSFIRST_DELETE_ALL);
	}
	close(self->fd);
}

/* Two tries of the variant's kind; exit status: which one went wrong. */
struct tries {
	int what;
	int got[2];
};

static int two_tries(int fd, struct tries *t)
{
	static char value[101];
	char name[64];
	int i, wfd[2] = { -1, -1 };

	memset(value, 'v', 100);
	for (i = 0; i < 2; i++) {
		switch (t->what) {
		case 0:
			t->got[i] = set(fd, fresh(name, "lim"), "v", 0);
			break;
		case 1:
			wfd[i] = watch(fd, FLAGSFIRST_EVENT_ALL, FLAGSFIRST_WATCH_CLOEXEC);
			t->got[i] = wfd[i] < 0 ? wfd[i] : 0;
			break;
		default:
			t->got[i] = set(fd, fresh(name, "lim"), value, 0);
		}
	}
	for (i = 0; i < 2; i++)
		if (wfd[i] >= 0)
			close(wfd[i]);
	return 0;
}

static int two_tries_as_child(int fd, void *arg)
{
	struct tries *t = arg;

	two_tries(fd, t);
	/* errnos fit in a byte: 0x80 marks a negative one */
	return t->got[0] ? 0x80 | -t->got[0] : 0;
}

static int second_try_as_child(int fd, void *arg)
{
	struct tries *t = arg;

	two_tries(fd, t);
	return t->got[1] ? 0x80 | -t->got[1] : 0;
}

static int from_status(int status)
{
	return status & 0x80 ? -(status & 0x7f) : status;
}

TEST_F(limit, gives_its_documented_result_at_the_boundary)
{
	struct tries t = { .what = variant->what };
	const char *value = variant->value;
	char buf[32];

	if (value[0] == '+') {
		long entries = read_stat("entries");

		if (entries < 0)
			SKIP(return, "no " STATS);
		snprintf(buf, sizeof(buf), "%ld", entries + atol(value + 1));
		value = buf;
	}
	ASSERT_EQ(0, write_param(variant->param, value));
	EXPECT_EQ(variant->user[0],
		  from_status(as_nobody(two_tries_as_child, &t)))
		TH_LOG("uid 65534, first try");
	del(self->fd, "", FLAGSFIRST_DELETE_ALL);
	EXPECT_EQ(variant->user[1],
		  from_status(as_nobody(second_try_as_child, &t)))
		TH_LOG("uid 65534, second try");
	del(self->fd, "", FLAGSFIRST_DELETE_ALL);
	two_tries(self->fd, &t);
	EXPECT_EQ(variant->root[0], t.got[0]) TH_LOG("root, first try");
	EXPECT_EQ(variant->root[1], t.got[1]) TH_LOG("root, second try");
}

/* Per-uid bytes: one uid cannot take what the others need. */

/* Fills the caller's byte share with 1000-byte values: how many fit. */
static int fill_my_share(int fd, void *arg)
{
	static char value[1001];
	char name[64];
	int made, ret = 0;

	(void)arg;
	memset(value, 'q', sizeof(value) - 1);
	for (made = 0; made < 250 && !ret; made++)
		ret = set(fd, fresh(name, "share"), value, 0);
	return ret == -EDQUOT ? made - 1 : 255;
}

static int set_one_value(int fd, void *arg)
{
	char name[64];

	(void)arg;
	return set(fd, fresh(name, "other"), "mine", 0) ? 1 : 0;
}

TEST_F(limits, one_uid_filling_its_byte_share_leaves_room_for_another)
{
	int made;

	ASSERT_EQ(0, write_param("max_bytes_per_uid", "65536"));
	made = as_nobody(fill_my_share, NULL);
	ASSERT_NE(255, made) TH_LOG("uid 65534 never hit EDQUOT");
	/* An entry of a 1000-byte value takes a 2 KiB kmalloc() object. */
	EXPECT_EQ(65536 / 2048, made) TH_LOG("values of 1000 bytes in a 64 KiB share");
	EXPECT_EQ(0, as_uid(NOBODY - 1, set_one_value, NULL))
		TH_LOG("another uid still has its share");
}

TEST(the_default_byte_share_lets_16_uids_fill_theirs_before_max_bytes)
{
	char max_bytes[32], per_uid[32];

	read_param("max_bytes", max_bytes, sizeof(max_bytes));
	read_param("max_bytes_per_uid", per_uid, sizeof(per_uid));
	ASSERT_NE(0, per_uid[0]);
	ASSERT_LT(0, atoll(per_uid));
	EXPECT_LE(16, atoll(max_bytes) / atoll(per_uid));
}

/* Byte limits count what the entries take, the allocator's rounding too. */
TEST_F(limits, a_value_counts_the_memory_its_entry_really_takes)
{
	static char value[2049];
	char name[64], max[32];
	long bytes = read_stat("bytes");
	int i, ret = 0;

	if (bytes < 0)
		SKIP(return, "no " STATS);
	memset(value, 'r', sizeof(value) - 1);
	/* Entry and 2048-byte value share a kmalloc() that rounds to 4 KiB. */
	snprintf(max, sizeof(max), "%ld", bytes + 4096 - 1);
	ASSERT_EQ(0, write_param("max_bytes", max));
	EXPECT_EQ(-ENOSPC, set(self->fd, fresh(name, "r"), value, 0))
		TH_LOG("a byte short of one entry's 4 KiB");
	snprintf(max, sizeof(max), "%ld", bytes + 10 * 4096);
	ASSERT_EQ(0, write_param("max_bytes", max));
	for (i = 0; i < 20 && !ret; i++)
		ret = set(self->fd, fresh(name, "r"), value, 0);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(11, i) TH_LOG("10 fit, the 11th is ENOSPC");
}

/*
 * EXCHANGE allocates nothing and frees nothing, so it charges nothing: a
 * table that is exactly full can still swap two of its values.
 */
TEST_F(limits, an_exchange_in_a_full_table_succeeds_and_moves_no_charge)
{
	char a[64], b[64], max[32];
	long bytes;

	ASSERT_EQ(0, set(self->fd, fresh(a, "xa"), "a short value", 0));
	ASSERT_EQ(0, set(self->fd, fresh(b, "xb-with-a-longer-name"), "b", 0));
	bytes = read_stat("bytes");
	if (bytes < 0)
		SKIP(return, "no " STATS);
	snprintf(max, sizeof(max), "%ld", bytes);
	ASSERT_EQ(0, write_param("max_bytes", max));
	EXPECT_EQ(0, ren(self->fd, a, b, FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(bytes, read_stat("bytes"));
	EXPECT_EQ(0, ren(self->fd, b, a, FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(bytes, read_stat("bytes"));
}

/* Each allocation is counted once, for as long as the table keeps it. */
TEST_F(limits, the_byte_count_is_what_is_allocated_after_exchanges_and_renames)
{
	char a[64], b[64], c[64];
	long start = read_stat("bytes");

	if (start < 0)
		SKIP(return, "no " STATS);
	EXPECT_EQ(read_stat("allocated"), start);
	ASSERT_EQ(0, set(self->fd, fresh(a, "ca"), "value a", 0));
	ASSERT_EQ(0, set(self->fd, fresh(b, "cb"), "value b", 0));
	ASSERT_EQ(0, ren(self->fd, a, b, FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(read_stat("allocated"), read_stat("bytes")) TH_LOG("exchanged");
	/* b holds a's value, in a's allocation, which a keeps too */
	ASSERT_EQ(0, ren(self->fd, b, fresh(c, "cc-a-longer-name-than-b"), 0));
	EXPECT_EQ(read_stat("allocated"), read_stat("bytes")) TH_LOG("renamed");
	ASSERT_EQ(0, ren(self->fd, a, c, FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(read_stat("allocated"), read_stat("bytes")) TH_LOG("again");
	ASSERT_EQ(0, del(self->fd, a, 0));
	EXPECT_EQ(read_stat("allocated"), read_stat("bytes")) TH_LOG("one gone");
	ASSERT_EQ(0, set(self->fd, c, "replaced", 0));
	EXPECT_EQ(read_stat("allocated"), read_stat("bytes")) TH_LOG("replaced");
	ASSERT_EQ(0, del(self->fd, c, 0));
	EXPECT_EQ(start, read_stat("bytes")) TH_LOG("all gone");
	EXPECT_EQ(start, read_stat("allocated"));
}

/* Memory cgroups: who pays for what. */

TEST(a_64_kib_value_takes_at_most_a_page_more_than_its_size)
{
	int fd = open_dev(), i;
	char cg[CG_PATH], name[64];
	long grown;

	ASSERT_LE(0, fd);
	if (!have_memcg())
		SKIP(return, "needs root and the memory controller");
	ASSERT_EQ(0, cg_make(cg, "big"));
	grown = grow_by_sets(cg, 64, FLAGSFIRST_VALUE_MAX, "big64k.");
	ASSERT_LE(0, grown) TH_LOG("the SETs failed (%ld)", grown);
	TH_LOG("64 values of 64 KiB: %ld bytes (%ld per value)", grown, grown / 64);
	EXPECT_LE(64 * 65536, grown) TH_LOG("charged to the cgroup that made them");
	/* 64 KiB, a page, an entry, and slack for the cgroup's own batching */
	EXPECT_GE(64 * (65536 + 4096 + 512) + 256 * 1024, grown);
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "big64k.%d", i);
		del(fd, name, 0);
	}
	rmdir(cg);
	close(fd);
}

static int watches_at_the_uid_limit(int fd, void *arg)
{
	struct writer *w = arg;
	int i, wfd[5], emfile = 0;

	w->fd = fd;
	if (pthread_create(&w->tid, NULL, set_until, w))
		return 1;
	for (i = 0; i < 5; i++)
		wfd[i] = watch(fd, FLAGSFIRST_EVENT_ALL, 0);
	for (i = 0; i < 5000; i++)
		emfile += watch(fd, FLAGSFIRST_EVENT_ALL, 0) == -EMFILE;
	__atomic_store_n(&w->n, 1, __ATOMIC_RELAXED);
	pthread_join(w->tid, NULL);
	for (i = 0; i < 5; i++) {
		if (wfd[i] < 0)
			return 2;
		close(wfd[i]);
	}
	del(fd, w->name, 0);
	return emfile == 5000 ? 0 : 3;
}

TEST_F_TIMEOUT(limits, watches_past_the_per_uid_limit_fail_with_EMFILE_and_leave_nothing, 120)
{
	struct writer w = { 0 };

	fresh(w.name, "uidlimit");
	ASSERT_EQ(0, write_param("max_watches_per_uid", "5"));
	EXPECT_EQ(0, as_nobody(watches_at_the_uid_limit, &w));
	EXPECT_EQ(0, read_stat("records"));
}

/* Module parameters: a value the module cannot honour is refused. */

static const struct param_case {
	const char *name, *value;
	int err;
} param_cases[] = {
	{ "max_queued_events", "4294967295", -EINVAL },
	{ "max_queued_events", "2147483648", -EINVAL },
	{ "max_queued_events", "-1", -EINVAL },
	{ "max_entries", "2147483648", -EINVAL },
	{ "max_entries_per_uid", "4294967295", -EINVAL },
	{ "max_watches_per_uid", "99999999999", -ERANGE },	/* kstrtouint() */
	{ "max_watches_per_uid", "many", -EINVAL },
	{ "max_bytes", "-1", -EINVAL },
	{ "max_queued_events", "2147483647", 0 },
	{ "max_entries", "0", 0 },
	{ "max_bytes_per_uid", "18446744073709551615", 0 },
};

TEST(module_parameters_refuse_values_outside_their_range_with_EINVAL)
{
	char saved[32], now[32];
	size_t i;

	if (!is_root())
		SKIP(return, "needs root to write module parameters");
	for (i = 0; i < ARRAY_SIZE(param_cases); i++) {
		const struct param_case *c = &param_cases[i];

		read_param(c->name, saved, sizeof(saved));
		EXPECT_EQ(c->err, write_param(c->name, c->value))
			TH_LOG("%s=%s", c->name, c->value);
		read_param(c->name, now, sizeof(now));
		if (c->err)
			EXPECT_STREQ(saved, now) TH_LOG("%s changed", c->name);
		ASSERT_EQ(0, write_param(c->name, saved));
	}
}

TEST_HARNESS_MAIN
