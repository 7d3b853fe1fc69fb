// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, ABI versions: the struct layouts pinned, SET's expect_seq and IF_SEQ
 * (ABI 1) on a module of either ABI and from a binary of either header,
 * CHECK_FIELDS's answer per release, and a module that loads untainted.
 */

#define _GNU_SOURCE
#include <assert.h>
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

/* Pinned in user space too: the same layout on -m32 and -m64. */
#define PIN(type, field, offset) \
	static_assert(offsetof(struct type, field) == (offset), #type "." #field)
#if HEADER_ABI >= 1
static_assert(sizeof(struct flagsfirst_set) == FLAGSFIRST_SET_SIZE_VER1, "set");
PIN(flagsfirst_set, expect_seq, 32);
#else
static_assert(sizeof(struct flagsfirst_set) == FLAGSFIRST_SET_SIZE_VER0, "set");
#endif
static_assert(sizeof(struct flagsfirst_get) == FLAGSFIRST_GET_SIZE_VER0, "get");
static_assert(sizeof(struct flagsfirst_delete) == FLAGSFIRST_DELETE_SIZE_VER0, "delete");
static_assert(sizeof(struct flagsfirst_rename) == FLAGSFIRST_RENAME_SIZE_VER0, "rename");
static_assert(sizeof(struct flagsfirst_rename_legacy) == 16, "rename_legacy");
static_assert(sizeof(struct flagsfirst_watch) == FLAGSFIRST_WATCH_SIZE_VER0, "watch");
static_assert(sizeof(struct flagsfirst_event) == FLAGSFIRST_EVENT_HDR_SIZE_VER0, "event");
PIN(flagsfirst_set, name, 8);
PIN(flagsfirst_set, value, 16);
PIN(flagsfirst_set, value_len, 24);
PIN(flagsfirst_set, __reserved, 28);
PIN(flagsfirst_get, value_len, 24);
PIN(flagsfirst_get, attrs, 28);
PIN(flagsfirst_get, seq, 32);
PIN(flagsfirst_get, owner_uid, 40);
PIN(flagsfirst_get, __reserved, 44);
PIN(flagsfirst_rename, newname, 16);
PIN(flagsfirst_rename_legacy, newname, 8);
PIN(flagsfirst_watch, mask, 8);
PIN(flagsfirst_event, hdr_size, 4);
PIN(flagsfirst_event, type, 6);
PIN(flagsfirst_event, seq, 8);
PIN(flagsfirst_event, name_len, 16);
PIN(flagsfirst_event, newname_len, 20);

/* Op @nr's struct size as CHECK_FIELDS shows it: any binary can ask. */
static size_t kernel_size(int fd, unsigned int nr)
{
	uint64_t cf = FLAGSFIRST_CHECK_FIELDS;
	unsigned char buf[256] = { 0 };
	size_t n = sizeof(buf);

	memcpy(buf, &cf, sizeof(cf));
	if (ffst(fd, ffst_cmd(FFST_IOC_TYPE, nr, sizeof(buf)), buf))
		return 0;
	while (n && !buf[n - 1])
		n--;
	return (n + 7) & ~(size_t)7;
}

/* The CHECK_FIELDS flags answer of op @nr. */
static uint64_t check_fields_flags(int fd, unsigned int nr)
{
	uint64_t cf[PAGE / 8] = { FLAGSFIRST_CHECK_FIELDS };

	if (ffst(fd, ffst_cmd(FFST_IOC_TYPE, nr, 64), cf))
		return 0;
	return cf[0];
}

TEST(the_module_answers_check_fields_as_its_release_says)
{
	static const unsigned int nrs[] = { 0x00, 0x01, 0x02, 0x03, 0x05 };
	int fd = open_dev();
	size_t i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		EXPECT_EQ(release_of(nrs[i])->size, kernel_size(fd, nrs[i]))
			TH_LOG("op 0x%02x's struct size", nrs[i]);
		EXPECT_EQ(release_of(nrs[i])->flags | FLAGSFIRST_CHECK_FIELDS,
			  check_fields_flags(fd, nrs[i]))
			TH_LOG("op 0x%02x's flags", nrs[i]);
	}
	close(fd);
}

/* In the ABI matrix: the module was loaded as this run's cell says. */
TEST(the_module_runs_the_abi_this_run_was_started_for)
{
	const char *cell = getenv("FLAGSFIRST_ABI");
	char param[16];

	if (!cell)
		SKIP(return, "not started by the ABI matrix (FLAGSFIRST_ABI)");
	read_param("abi_version", param, sizeof(param));
	EXPECT_STREQ(cell, strtok(param, "\n")) TH_LOG("the module's abi_version");
}

/* SET at ABI 1: expect_seq and IF_SEQ, on a module of either ABI */

#if HEADER_ABI >= 1
static int set_if_seq(int fd, const char *name, const char *value,
		      uint64_t flags, uint64_t expect_seq, size_t usize)
{
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(name), .value = ptr(value),
		.value_len = strlen(value), .expect_seq = expect_seq,
	};

	return ffst(fd, ffst_cmd(FFST_IOC_TYPE, _IOC_NR(FLAGSFIRST_IOC_SET), usize), &s);
}

TEST(set_if_seq_replaces_only_while_the_seq_is_unchanged)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	uint64_t seq;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "cas"), "one", 0));
	seq = seq_of(fd, name);
	if (module_abi() < 1) {
		/* To ABI 0, expect_seq is a non-zero tail: that comes first. */
		EXPECT_EQ(-E2BIG, set_if_seq(fd, name, "two", FLAGSFIRST_SET_IF_SEQ,
					     seq, sizeof(struct flagsfirst_set)));
		EXPECT_EQ(-EINVAL, set_if_seq(fd, name, "two", FLAGSFIRST_SET_IF_SEQ,
					      0, sizeof(struct flagsfirst_set)))
			TH_LOG("an ABI-0 module does not know IF_SEQ");
		return;
	}
	EXPECT_EQ(0, set_if_seq(fd, name, "two", FLAGSFIRST_SET_IF_SEQ, seq,
				sizeof(struct flagsfirst_set)));
	EXPECT_EQ(-ESTALE, set_if_seq(fd, name, "three", FLAGSFIRST_SET_IF_SEQ,
				      seq, sizeof(struct flagsfirst_set)));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_STREQ("two", buf);
	EXPECT_LT(seq, g.seq);
	EXPECT_EQ(0, set_if_seq(fd, name, "three", FLAGSFIRST_SET_IF_SEQ |
				FLAGSFIRST_SET_REPLACE, g.seq,
				sizeof(struct flagsfirst_set)));
	close(fd);
}

TEST(set_if_seq_on_a_missing_name_fails_with_ENOENT)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(module_abi() < 1 ? -E2BIG : -ENOENT,
		  set_if_seq(fd, fresh(name, "cas"), "v", FLAGSFIRST_SET_IF_SEQ, 1,
			     sizeof(struct flagsfirst_set)));
	EXPECT_EQ(false, exists(fd, name));
	close(fd);
}

TEST(set_if_seq_in_a_ver0_struct_fails_with_EINVAL)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "cas"), "v", 0));
	EXPECT_EQ(-EINVAL, set_if_seq(fd, name, "w", FLAGSFIRST_SET_IF_SEQ, 0,
				      FLAGSFIRST_SET_SIZE_VER0))
		TH_LOG("the flag gates a field the size does not cover");
	close(fd);
}

TEST(set_expect_seq_without_if_seq_is_rejected)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, fresh(name, "cas"), "v", 0));
	/*
	 * ABI 1: zero means "as before", so non-zero needs the flag.  ABI 0:
	 * the bytes are past its struct and not zero.
	 */
	EXPECT_EQ(module_abi() < 1 ? -E2BIG : -EINVAL,
		  set_if_seq(fd, name, "w", 0, seq_of(fd, name),
			     sizeof(struct flagsfirst_set)));
	EXPECT_EQ(module_abi() < 1 ? -E2BIG : -EINVAL,
		  set_if_seq(fd, name, "w", FLAGSFIRST_SET_IF_SEQ |
			     FLAGSFIRST_SET_NOREPLACE, seq_of(fd, name),
			     sizeof(struct flagsfirst_set)));
	close(fd);
}

TEST(a_ver1_struct_with_zero_expect_seq_works_on_every_abi)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, set_if_seq(fd, fresh(name, "cas"), "v", 0, 0,
				FLAGSFIRST_SET_SIZE_VER1));
	EXPECT_EQ(true, exists(fd, name));
	close(fd);
}

TEST(check_fields_reports_the_set_layout_of_the_running_abi)
{
	unsigned char buf[64];
	struct flagsfirst_set s;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	memset(buf, POISON, sizeof(buf));
	memset(&s, 0, sizeof(s));
	s.flags = FLAGSFIRST_CHECK_FIELDS;
	memcpy(buf, &s, sizeof(s.flags));
	ASSERT_EQ(0, ffst(fd, ffst_cmd(FFST_IOC_TYPE, _IOC_NR(FLAGSFIRST_IOC_SET),
				       sizeof(buf)), buf));
	memcpy(&s, buf, sizeof(s));
	EXPECT_EQ(module_abi() < 1 ? FLAGSFIRST_SET_SIZE_VER0 : FLAGSFIRST_SET_SIZE_VER1,
		  kernel_size(fd, _IOC_NR(FLAGSFIRST_IOC_SET)));
	EXPECT_EQ(module_abi() < 1 ? 0 : FLAGSFIRST_SET_IF_SEQ,
		  s.flags & FLAGSFIRST_SET_IF_SEQ);
	EXPECT_EQ(module_abi() < 1 ? 0 : ~0ULL, s.expect_seq);
	close(fd);
}
#endif

/* The production module never taints the kernel as a test module would. */
TEST(loading_the_module_does_not_taint_the_kernel_as_a_test)
{
	long tainted = read_long("/proc/sys/kernel/tainted");

	ASSERT_LE(0, tainted);
	EXPECT_EQ(0, tainted & (1L << 18)) TH_LOG("TAINT_TEST: a KUnit suite ran");
}

/*
 * An ioctl's number carries its payload's size: these are the numbers of
 * a 64-bit program, pinned, so that the -m32 cells, which build this same
 * file as a 32-bit one, fail if any struct had another layout there (a
 * second number, and compat code in the module to match it).
 */
TEST(every_ioctl_number_is_the_same_for_32_and_64_bit_programs)
{
	static const struct {
		unsigned long cmd, want;
	} pins[] = {
#if HEADER_ABI >= 1
		{ FLAGSFIRST_IOC_SET, 0xc0285900 },
#else
		{ FLAGSFIRST_IOC_SET, 0xc0205900 },
#endif
		{ FLAGSFIRST_IOC_GET, 0xc0305901 },
		{ FLAGSFIRST_IOC_DELETE, 0xc0105902 },
		{ FLAGSFIRST_IOC_RENAME, 0xc0185903 },
		{ FLAGSFIRST_IOC_RENAME_LEGACY, 0x40105904 },
		{ FLAGSFIRST_IOC_WATCH, 0xc0105905 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pins); i++)
		EXPECT_EQ(pins[i].want, pins[i].cmd)
			TH_LOG("op %lu, built as a %zu-bit program",
			       (unsigned long)_IOC_NR(pins[i].cmd), sizeof(long) * 8);
}

TEST_HARNESS_MAIN
