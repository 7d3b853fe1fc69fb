// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, DELETE, DELETE_ALL, RENAME (NOREPLACE, EXCHANGE) and RENAME_LEGACY.
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

/* DELETE */

TEST(delete_removes_an_entry_then_fails_with_ENOENT)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "d"), "v", 0));
	EXPECT_EQ(0, del(fd, name, 0));
	EXPECT_EQ(false, exists(fd, name));
	EXPECT_EQ(-ENOENT, del(fd, name, 0));
	close(fd);
}

TEST(delete_of_an_empty_name_without_all_fails_with_ENOENT)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "d"), "v", 0));
	EXPECT_EQ(-ENOENT, del(fd, "", 0));
	EXPECT_EQ(true, exists(fd, name));
	close(fd);
}

TEST(delete_all_with_a_non_empty_name_fails_with_EINVAL_and_deletes_nothing)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "d"), "v", 0));
	EXPECT_EQ(-EINVAL, del(fd, name, FLAGSFIRST_DELETE_ALL));
	EXPECT_EQ(true, exists(fd, name));
	close(fd);
}

TEST(delete_all_removes_every_entry_of_the_caller_and_returns_the_count)
{
	char a[64], b[64], c[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	del(fd, "", FLAGSFIRST_DELETE_ALL);
	ASSERT_EQ(0, set(fd, fresh(a, "d"), "v", 0));
	ASSERT_EQ(0, set(fd, fresh(b, "d"), "v", 0));
	ASSERT_EQ(0, set(fd, fresh(c, "d"), "v", 0));
	EXPECT_EQ(3, del(fd, "", FLAGSFIRST_DELETE_ALL));
	EXPECT_EQ(false, exists(fd, a));
	EXPECT_EQ(false, exists(fd, c));
	EXPECT_EQ(0, del(fd, "", FLAGSFIRST_DELETE_ALL));
	close(fd);
}

/* RENAME */

TEST(rename_moves_the_entry_keeping_value_and_owner)
{
	struct flagsfirst_get g;
	char a[64], b[64], buf[64];
	uint64_t seq;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "r"), "moved", 0));
	seq = seq_of(fd, a);
	ASSERT_EQ(0, ren(fd, a, fresh(b, "r"), 0));
	EXPECT_EQ(false, exists(fd, a));
	ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
	EXPECT_STREQ("moved", buf);
	EXPECT_EQ(geteuid(), g.owner_uid);
	EXPECT_LT(seq, g.seq);
	close(fd);
}

TEST(rename_onto_an_existing_name_replaces_it)
{
	struct flagsfirst_get g;
	char a[64], b[64], buf[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "r"), "winner", 0));
	ASSERT_EQ(0, set(fd, fresh(b, "r"), "loser", 0));
	ASSERT_EQ(0, ren(fd, a, b, 0));
	EXPECT_EQ(false, exists(fd, a));
	ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
	EXPECT_STREQ("winner", buf);
	close(fd);
}

TEST(rename_noreplace_onto_an_existing_name_fails_with_EEXIST)
{
	struct flagsfirst_get g;
	char a[64], b[64], buf[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "r"), "a", 0));
	ASSERT_EQ(0, set(fd, fresh(b, "r"), "b", 0));
	EXPECT_EQ(-EEXIST, ren(fd, a, b, FLAGSFIRST_RENAME_NOREPLACE));
	ASSERT_EQ(0, get(fd, a, buf, sizeof(buf), &g));
	EXPECT_STREQ("a", buf);
	ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
	EXPECT_STREQ("b", buf);
	close(fd);
}

TEST(rename_exchange_swaps_two_entries_atomically)
{
	struct flagsfirst_get g;
	char a[64], b[64], buf[64];
	uint64_t seq_a, seq_b;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "x"), "first", 0));
	ASSERT_EQ(0, set(fd, fresh(b, "x"), "second", 0));
	seq_a = seq_of(fd, a);
	seq_b = seq_of(fd, b);
	ASSERT_LT(seq_a, seq_b);
	ASSERT_EQ(0, ren(fd, a, b, FLAGSFIRST_RENAME_EXCHANGE));
	ASSERT_EQ(0, get(fd, a, buf, sizeof(buf), &g));
	EXPECT_STREQ("second", buf);
	seq_a = g.seq;
	ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
	EXPECT_STREQ("first", buf);
	/* One change: both entries take its one seq, newer than either's. */
	EXPECT_EQ(seq_a, g.seq);
	EXPECT_LT(seq_b, g.seq);
	close(fd);
}

/*
 * EXCHANGE and RENAME hand values from entry to entry without copying
 * them, so a value can outlive the entry it was created with.  Each step
 * reads every value back, small (copied under RCU) and big (by reference).
 */
TEST(values_survive_exchanges_renames_and_the_loss_of_their_first_names)
{
	static const size_t sizes[] = { 8, 200 };	/* FFST_SMALL_VALUE is 64 */
	char a[64], b[64], c[64], va[256], vb[256], buf[257];
	struct flagsfirst_get g;
	int fd = open_dev();
	size_t i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(va, 'a', sizes[i]);
		memset(vb, 'b', sizes[i]);
		va[sizes[i]] = vb[sizes[i]] = '\0';
		ASSERT_EQ(0, set(fd, fresh(a, "life"), va, 0));
		ASSERT_EQ(0, set(fd, fresh(b, "life"), vb, 0));
		fresh(c, "life");

		ASSERT_EQ(0, ren(fd, a, b, FLAGSFIRST_RENAME_EXCHANGE));
		/* a holds b's value, b holds a's; a goes, b keeps a's value */
		EXPECT_EQ(0, del(fd, a, 0));
		ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
		EXPECT_STREQ(va, buf) TH_LOG("%zu bytes", sizes[i]);
		/* ... and hands it on to c */
		ASSERT_EQ(0, ren(fd, b, c, 0));
		ASSERT_EQ(0, get(fd, c, buf, sizeof(buf), &g));
		EXPECT_STREQ(va, buf) TH_LOG("%zu bytes", sizes[i]);
		EXPECT_EQ(false, exists(fd, b));
		/* exchange it back and forth with a new b, then replace both */
		ASSERT_EQ(0, set(fd, b, vb, 0));
		ASSERT_EQ(0, ren(fd, b, c, FLAGSFIRST_RENAME_EXCHANGE));
		ASSERT_EQ(0, ren(fd, c, b, FLAGSFIRST_RENAME_EXCHANGE));
		ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
		EXPECT_STREQ(vb, buf) TH_LOG("%zu bytes", sizes[i]);
		ASSERT_EQ(0, get(fd, c, buf, sizeof(buf), &g));
		EXPECT_STREQ(va, buf) TH_LOG("%zu bytes", sizes[i]);
		ASSERT_EQ(0, set(fd, c, vb, 0));
		ASSERT_EQ(0, ren(fd, c, b, 0));
		ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
		EXPECT_STREQ(vb, buf) TH_LOG("%zu bytes", sizes[i]);
		EXPECT_EQ(0, del(fd, b, 0));
		EXPECT_EQ(false, exists(fd, c));
	}
	close(fd);
}

TEST(rename_exchange_with_a_missing_name_fails_with_ENOENT)
{
	char a[64], b[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "x"), "a", 0));
	EXPECT_EQ(-ENOENT, ren(fd, a, fresh(b, "x"), FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(-ENOENT, ren(fd, b, a, FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(true, exists(fd, a));
	EXPECT_EQ(false, exists(fd, b));
	close(fd);
}

TEST(rename_onto_itself_succeeds_and_changes_nothing)
{
	char a[64];
	uint64_t seq;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "self"), "a", 0));
	seq = seq_of(fd, a);
	EXPECT_EQ(0, ren(fd, a, a, 0));
	EXPECT_EQ(0, ren(fd, a, a, FLAGSFIRST_RENAME_EXCHANGE));
	EXPECT_EQ(-EEXIST, ren(fd, a, a, FLAGSFIRST_RENAME_NOREPLACE));
	EXPECT_EQ(seq, seq_of(fd, a));
	close(fd);
}

TEST(rename_errors_for_missing_empty_and_long_names)
{
	char a[64], b[64], longname[FLAGSFIRST_NAME_MAX + 2];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	memset(longname, 'l', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	EXPECT_EQ(-ENOENT, ren(fd, fresh(a, "r"), fresh(b, "r"), 0));
	ASSERT_EQ(0, set(fd, a, "a", 0));
	EXPECT_EQ(-ENOENT, ren(fd, a, "", 0));
	EXPECT_EQ(-ENOENT, ren(fd, "", a, 0));
	EXPECT_EQ(-ENAMETOOLONG, ren(fd, a, longname, 0));
	EXPECT_EQ(-ENAMETOOLONG, ren(fd, longname, a, 0));
	EXPECT_EQ(true, exists(fd, a));
	close(fd);
}

/* RENAME_LEGACY: RENAME with flags 0, and nothing more */

TEST(rename_legacy_moves_and_replaces_like_rename_with_flags_zero)
{
	struct flagsfirst_get g;
	char a[64], b[64], c[64], buf[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(a, "l"), "a", 0));
	ASSERT_EQ(0, ren_legacy(fd, a, fresh(b, "l")));
	EXPECT_EQ(false, exists(fd, a));
	ASSERT_EQ(0, set(fd, fresh(c, "l"), "c", 0));
	ASSERT_EQ(0, ren_legacy(fd, c, b)) TH_LOG("it cannot be told not to replace");
	ASSERT_EQ(0, get(fd, b, buf, sizeof(buf), &g));
	EXPECT_STREQ("c", buf);
	EXPECT_EQ(0, ren_legacy(fd, b, b));
	EXPECT_EQ(-ENOENT, ren_legacy(fd, a, b));
	EXPECT_EQ(-ENOENT, ren_legacy(fd, b, ""));
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_RENAME_LEGACY, NULL));
	close(fd);
}

TEST_HARNESS_MAIN
