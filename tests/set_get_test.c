// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, SET and GET: creating, replacing, the flags, immutable entries, every
 * output field, short buffers and bad pointers.
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

/* SET */

TEST(set_creates_an_entry_get_reads_it_back)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "s"), "hello", 0));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_STREQ("hello", buf);
	EXPECT_EQ(5, g.value_len);
	EXPECT_EQ(0, g.attrs);
	EXPECT_EQ(geteuid(), g.owner_uid);
	EXPECT_LT(0, g.seq);
	close(fd);
}

TEST(set_without_flags_replaces_and_seq_increases)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	uint64_t seq;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "s"), "one", 0));
	seq = seq_of(fd, name);
	ASSERT_EQ(0, set(fd, name, "two", 0));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_STREQ("two", buf);
	EXPECT_LT(seq, g.seq);
	close(fd);
}

TEST(set_noreplace_on_an_existing_name_fails_with_EEXIST_and_keeps_it)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	uint64_t seq;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "s"), "one", FLAGSFIRST_SET_NOREPLACE));
	seq = seq_of(fd, name);
	EXPECT_EQ(-EEXIST, set(fd, name, "two", FLAGSFIRST_SET_NOREPLACE));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_STREQ("one", buf);
	EXPECT_EQ(seq, g.seq);
	close(fd);
}

TEST(set_replace_on_a_missing_name_fails_with_ENOENT_and_creates_nothing)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, set(fd, fresh(name, "s"), "v", FLAGSFIRST_SET_REPLACE));
	EXPECT_EQ(false, exists(fd, name));
	ASSERT_EQ(0, set(fd, name, "v", 0));
	EXPECT_EQ(0, set(fd, name, "w", FLAGSFIRST_SET_REPLACE));
	close(fd);
}

TEST(set_names_and_values_at_and_past_their_limits)
{
	static char value[FLAGSFIRST_VALUE_MAX + 1];
	char name[FLAGSFIRST_NAME_MAX + 2], tag[64];
	struct flagsfirst_set s = { 0 };
	int fd = open_dev();

	ASSERT_LE(0, fd);
	fresh(tag, "limit");
	memset(name, 'n', sizeof(name));
	memcpy(name, tag, strlen(tag));
	name[FLAGSFIRST_NAME_MAX] = '\0';
	EXPECT_EQ(0, set(fd, name, "v", 0)) TH_LOG("a 255-byte name");
	name[FLAGSFIRST_NAME_MAX] = 'n';
	name[FLAGSFIRST_NAME_MAX + 1] = '\0';
	EXPECT_EQ(-ENAMETOOLONG, set(fd, name, "v", 0)) TH_LOG("a 256-byte name");
	EXPECT_EQ(-ENOENT, set(fd, "", "v", 0)) TH_LOG("an empty name");

	s.name = ptr(fresh(tag, "value"));
	s.value = ptr(value);
	s.value_len = FLAGSFIRST_VALUE_MAX;
	EXPECT_EQ(0, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("a 64 KiB value");
	s.value_len = FLAGSFIRST_VALUE_MAX + 1;
	s.name = ptr(fresh(tag, "value"));
	EXPECT_EQ(-E2BIG, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("64 KiB + 1");
	EXPECT_EQ(false, exists(fd, tag));
	s.value = 0;
	s.value_len = 0;
	EXPECT_EQ(0, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("empty value, NULL pointer");
	close(fd);
}

TEST(set_with_bad_pointers_fails_with_EFAULT_and_creates_nothing)
{
	unsigned char *unmapped = at_page_end(0, 0);
	struct flagsfirst_set s = { .value = ptr("v"), .value_len = 1 };
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, unmapped);
	s.name = 0;
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("NULL name");
	s.name = ptr(unmapped);
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("unmapped name");
	s.name = ptr(fresh(name, "s"));
	s.value = ptr(unmapped - 1);
	s.value_len = 2;
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("value straddles a hole");
	s.value = 0xffffffffffff0000ULL;
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_SET, &s)) TH_LOG("kernel address");
	EXPECT_EQ(false, exists(fd, name));
	close(fd);
}

static int immutable_checks(int fd, void *arg)
{
	const char *name = arg;
	char other[64];

	fresh(other, "other");
	if (set(fd, other, "o", 0))
		return 10;
	if (set(fd, name, "x", 0) != -EPERM)
		return 11;
	if (set(fd, name, "x", FLAGSFIRST_SET_REPLACE) != -EPERM)
		return 12;
	if (del(fd, name, 0) != -EPERM)
		return 13;
	if (ren(fd, name, "elsewhere", 0) != -EPERM)
		return 14;
	if (ren(fd, other, name, 0) != -EPERM)
		return 15;
	if (ren(fd, name, other, FLAGSFIRST_RENAME_EXCHANGE) != -EPERM)
		return 16;
	if (ren_legacy(fd, other, name) != -EPERM)
		return 17;
	if (del(fd, "", FLAGSFIRST_DELETE_ALL) < 0 || !exists(fd, name))
		return 18;
	return 0;
}

TEST(immutable_entries_cannot_be_changed_renamed_or_deleted_even_by_root)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	if (!is_root())
		SKIP(return, "needs CAP_LINUX_IMMUTABLE");
	ASSERT_EQ(0, set(fd, fresh(name, "imm"), "forever", FLAGSFIRST_SET_IMMUTABLE));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_EQ(FLAGSFIRST_ATTR_IMMUTABLE, g.attrs);
	EXPECT_EQ(0, immutable_checks(fd, name));
	EXPECT_EQ(0, ren(fd, name, name, 0)) TH_LOG("onto itself changes nothing");
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_STREQ("forever", buf);
	close(fd);
}

TEST(immutable_without_cap_linux_immutable_fails_with_EPERM)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	if (is_root())
		SKIP(return, "runs as an unprivileged uid");
	EXPECT_EQ(-EPERM, set(fd, fresh(name, "imm"), "v", FLAGSFIRST_SET_IMMUTABLE));
	EXPECT_EQ(false, exists(fd, name));
	close(fd);
}

/* GET */

TEST(get_of_a_missing_name_fails_with_ENOENT)
{
	struct flagsfirst_get g;
	char name[64], buf[8];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, get(fd, fresh(name, "g"), buf, sizeof(buf), &g));
	EXPECT_EQ(-ENOENT, get(fd, "", buf, sizeof(buf), &g));
	close(fd);
}

TEST(get_writes_every_output_field_into_a_poisoned_struct)
{
	struct flagsfirst_watch w = {
		.flags = FLAGSFIRST_WATCH_NONBLOCK, .mask = FLAGSFIRST_EVENT_SET,
	};
	unsigned char value[32], buf[256];
	struct flagsfirst_get g;
	struct rec r;
	char name[64];
	int fd = open_dev(), wfd;

	ASSERT_LE(0, fd);
	wfd = ffst(fd, FLAGSFIRST_IOC_WATCH, &w);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(0, set(fd, fresh(name, "g"), "abc", 0));
	/* The seq SET gave the entry, from its record: not another GET. */
	ASSERT_EQ(1, drain(wfd, buf, sizeof(buf), &r, 1));
	close(wfd);
	memset(&g, POISON, sizeof(g));
	memset(value, POISON, sizeof(value));
	g.flags = 0;
	g.__reserved = 0;
	g.name = ptr(name);
	g.value = ptr(value);
	g.value_len = sizeof(value);
	ASSERT_EQ(0, ffst(fd, FLAGSFIRST_IOC_GET, &g));
	EXPECT_EQ(3, g.value_len);
	EXPECT_EQ(0, g.attrs);
	EXPECT_EQ(r.seq, g.seq);
	EXPECT_EQ(geteuid(), g.owner_uid);
	EXPECT_EQ(0, g.__reserved);
	EXPECT_EQ(0, memcmp(value, "abc", 3));
	EXPECT_EQ(POISON, value[3]) TH_LOG("the buffer past the value is left alone");
	close(fd);
}

TEST(get_with_a_zero_length_buffer_reports_the_size_only)
{
	struct flagsfirst_get g = { 0 };
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "g"), "twelve bytes", 0));
	g.name = ptr(name);
	g.value = 0;
	ASSERT_EQ(0, ffst(fd, FLAGSFIRST_IOC_GET, &g));
	EXPECT_EQ(12, g.value_len);
	close(fd);
}

/*
 * ERANGE still answers every output field, as a successful GET would: a
 * caller learns the size, the seq (for a SET(IF_SEQ) to follow) and the
 * owner in one call.  The fields are poisoned first, so a field left
 * unwritten is seen.
 */
TEST(get_with_a_short_buffer_fails_with_ERANGE_and_reports_every_field)
{
	struct flagsfirst_get want = { 0 }, g;
	unsigned char value[16];
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "g"), "twelve bytes", 0));
	/* a second SET, so that the seq is not the first one handed out */
	ASSERT_EQ(0, set(fd, name, "twelve bytes", 0));
	want.name = ptr(name);
	want.value = ptr(value);
	want.value_len = sizeof(value);
	ASSERT_EQ(0, ffst(fd, FLAGSFIRST_IOC_GET, &want));
	ASSERT_NE(0, want.seq);

	memset(&g, POISON, sizeof(g));
	memset(value, POISON, sizeof(value));
	g.flags = 0;
	g.name = ptr(name);
	g.value = ptr(value);
	g.value_len = 11;
	g.__reserved = 0;
	EXPECT_EQ(-ERANGE, ffst(fd, FLAGSFIRST_IOC_GET, &g));
	EXPECT_EQ(12, g.value_len);
	EXPECT_EQ(want.seq, g.seq);
	EXPECT_EQ(want.attrs, g.attrs);
	EXPECT_EQ(getuid(), g.owner_uid);
	EXPECT_EQ(0, g.__reserved);
	EXPECT_EQ(POISON, value[0]) TH_LOG("the buffer is left alone");
	close(fd);
}

TEST(get_with_bad_pointers_fails_with_EFAULT)
{
	unsigned char *unmapped = at_page_end(0, 0);
	struct flagsfirst_get g = { 0 };
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "g"), "value", 0));
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_GET, &g)) TH_LOG("NULL name");
	g.name = ptr(name);
	g.value = ptr(unmapped - 2);
	g.value_len = 5;
	EXPECT_EQ(-EFAULT, ffst(fd, FLAGSFIRST_IOC_GET, &g)) TH_LOG("value straddles a hole");
	close(fd);
}

TEST_HARNESS_MAIN
