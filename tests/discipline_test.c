// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests: the dispatcher's rules on every op of flagsfirst
 * (generic/tests/discipline_tests.h), then the ones outside the table of
 * ops: ENOTTY for unknown numbers and foreign types, the order of the
 * checks, RENAME_LEGACY on a read-only fd.
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
#include "ops.h"	/* FLAGSFIRST_TEST_OP_*: tables.sh, from the header and the op table */

/* What a call of an op needs between preparing it and checking it. */
struct names {
	char a[64], b[64];
	int wfd;	/* watches every change, to see that a call made none */
	int fds;	/* this process's open fds before the call */
};

static int count_fds(void)
{
	struct dirent *d;
	int count = 0;
	DIR *dir = opendir("/proc/self/fd");

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		count += d->d_name[0] != '.';
	closedir(dir);
	return count - 1;	/* the directory's own */
}

static int open_mode(int mode)
{
	return open("/dev/flagsfirst", mode | O_CLOEXEC);
}

/* A watch fd on every change: a call that must change nothing queues none. */
static int setup(int fd, void *state)
{
	struct names *n = state;

	n->wfd = watch(fd, FLAGSFIRST_EVENT_ALL,
		       FLAGSFIRST_WATCH_CLOEXEC | FLAGSFIRST_WATCH_NONBLOCK);
	return n->wfd < 0 ? n->wfd : 0;
}

static void teardown(int fd, void *state)
{
	struct names *n = state;

	(void)fd;
	close(n->wfd);
}

/*
 * Drains the fixture's watch fd and counts the fds: what the watch fd
 * shows from now on, and any fd more than now, came from the call.
 */
static void forget_changes(int fd, void *state)
{
	struct names *n = state;
	unsigned char junk[4096];

	(void)fd;
	while (read_nb(n->wfd, junk, sizeof(junk)) > 0)
		;
	n->fds = count_fds();
}

/* flagsfirst, as it describes itself to the dispatcher's tests. */
static const struct discipline flagsfirst = {
	.ioc_type = _IOC_TYPE(FLAGSFIRST_IOC_SET),
	.check_fields = FLAGSFIRST_CHECK_FIELDS,
	.open_dev = open_mode,
	.release_of = release_of,
	.state_size = sizeof(struct names),
	.setup = setup,
	.teardown = teardown,
	.forget_changes = forget_changes,
};

#include "discipline_tests.h"

/*
 * flagsfirst's ops for the rules of discipline_tests.h: what this header
 * says of each, and how to build a call of it that succeeds.
 */
static void fill_set(int fd, void *state, void *buf, uint64_t flags)
{
	struct names *n = state;
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(fresh(n->a, "set")),
		.value = ptr("v"), .value_len = 1,
	};

	(void)fd;
	memcpy(buf, &s, sizeof(s));
}

static bool happened_set(int fd, void *state)
{
	struct names *n = state;

	return exists(fd, n->a);
}

static void fill_get(int fd, void *state, void *buf, uint64_t flags)
{
	struct names *n = state;
	static char value[16];
	struct flagsfirst_get g = {
		.flags = flags, .name = ptr(fresh(n->a, "get")),
		.value = ptr(value), .value_len = sizeof(value),
	};

	set(fd, n->a, "v", 0);
	memcpy(buf, &g, sizeof(g));
}

/*
 * Whether a call that must change nothing changed something after all: a
 * record on the fixture's watch fd (any change of the table queues one),
 * or an fd more than before the call (a WATCH that opened one).
 */
static bool happened_anything(int fd, void *state)
{
	struct names *n = state;
	unsigned char buf[512];

	(void)fd;
	return read_nb(n->wfd, buf, sizeof(buf)) > 0 || count_fds() != n->fds;
}

static void fill_delete(int fd, void *state, void *buf, uint64_t flags)
{
	struct names *n = state;
	struct flagsfirst_delete d = {
		.flags = flags, .name = ptr(fresh(n->a, "delete")),
	};

	set(fd, n->a, "v", 0);
	if (flags & FLAGSFIRST_DELETE_ALL)
		d.name = ptr("");
	memcpy(buf, &d, sizeof(d));
}

static bool happened_delete(int fd, void *state)
{
	struct names *n = state;

	return !exists(fd, n->a);
}

static void fill_rename(int fd, void *state, void *buf, uint64_t flags)
{
	struct names *n = state;
	struct flagsfirst_rename r = {
		.flags = flags, .oldname = ptr(fresh(n->a, "rename")),
		.newname = ptr(fresh(n->b, "renamed")),
	};

	set(fd, n->a, "v", 0);
	memcpy(buf, &r, sizeof(r));
}

static bool happened_rename(int fd, void *state)
{
	struct names *n = state;

	return exists(fd, n->b);
}

FIXTURE_VARIANT_ADD(op, set) {
	FLAGSFIRST_TEST_OP_set,
	.d = &flagsfirst,
	.conflicts = {
		{ FLAGSFIRST_SET_NOREPLACE, FLAGSFIRST_SET_REPLACE },
#if HEADER_ABI >= 1
		{ FLAGSFIRST_SET_NOREPLACE, FLAGSFIRST_SET_IF_SEQ },
#endif
	},
	.fill = fill_set,
	.happened = happened_set,
	.known = {
		{ FLAGSFIRST_SET_NOREPLACE, 0, 0 },
		{ FLAGSFIRST_SET_REPLACE, -ENOENT, -ENOENT },
		{ FLAGSFIRST_SET_IMMUTABLE, 0, -EPERM },
#if HEADER_ABI >= 1
		{ FLAGSFIRST_SET_IF_SEQ, -ENOENT, -ENOENT },
#endif
	},
};

FIXTURE_VARIANT_ADD(op, get) {
	FLAGSFIRST_TEST_OP_get,
	.d = &flagsfirst,
	.fill = fill_get,
	.happened = happened_anything,
};

FIXTURE_VARIANT_ADD(op, delete) {
	FLAGSFIRST_TEST_OP_delete,
	.d = &flagsfirst,
	.fill = fill_delete,
	.happened = happened_delete,
	.known = { { FLAGSFIRST_DELETE_ALL, 1, 1 } },
};

FIXTURE_VARIANT_ADD(op, rename) {
	FLAGSFIRST_TEST_OP_rename,
	.d = &flagsfirst,
	.conflicts = { { FLAGSFIRST_RENAME_NOREPLACE, FLAGSFIRST_RENAME_EXCHANGE } },
	.fill = fill_rename,
	.happened = happened_rename,
	.known = {
		{ FLAGSFIRST_RENAME_NOREPLACE, 0, 0 },
		{ FLAGSFIRST_RENAME_EXCHANGE, -ENOENT, -ENOENT },
	},
};

static void fill_watch(int fd, void *state, void *buf, uint64_t flags)
{
	struct flagsfirst_watch w = {
		.flags = flags, .mask = FLAGSFIRST_EVENT_SET,
	};

	(void)fd;
	(void)state;
	memcpy(buf, &w, sizeof(w));
}

FIXTURE_VARIANT_ADD(op, watch) {
	FLAGSFIRST_TEST_OP_watch,
	.d = &flagsfirst,
	.fill = fill_watch,
	.happened = happened_anything,
	.returns_fd = true,
	.known = {
		{ FLAGSFIRST_WATCH_CLOEXEC, 0, 0 },
		{ FLAGSFIRST_WATCH_NONBLOCK, 0, 0 },
	},
};

TEST(unknown_numbers_and_foreign_types_fail_with_ENOTTY)
{
	/* RENAME_LEGACY (0x04) is _IOW with 16 bytes and nothing else. */
	static const struct { const char *what; unsigned long cmd; } cases[] = {
		{ "number 0x06", _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0x06, 16) },
		{ "number 0x1f", _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0x1f, 16) },
		{ "number 0xff", _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0xff, 16) },
		{ "type 'Z' with SET's number", _IOC(_IOC_READ | _IOC_WRITE, 'Z', 0x00, 32) },
		{ "RENAME_LEGACY's number read-write",
		  _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0x04, 16) },
		{ "RENAME_LEGACY with 24 bytes", _IOC(_IOC_WRITE, 'Y', 0x04, 24) },
		{ "RENAME_LEGACY with 8 bytes", _IOC(_IOC_WRITE, 'Y', 0x04, 8) },
		{ "a tty ioctl", TCGETS },
	};
	unsigned char buf[64] = { 0 };
	int fd = open_dev();
	size_t i;

	ASSERT_LE(0, fd);
	/* braces: EXPECT_*() and its TH_LOG() are two statements */
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(-ENOTTY, ffst(fd, cases[i].cmd, buf)) {
			TH_LOG("case %zu: %s", i, cases[i].what ?: "");
		}
	}
	close(fd);
}

/* Validation order: validity beats existence and permission. */

static int unknown_bit_beats_eperm(int fd, void *arg)
{
	const char *name = arg;

	if (set(fd, name, "x", 1ULL << 40) != -EINVAL)
		return 1;
	if (set(fd, name, "x", FLAGSFIRST_SET_NOREPLACE | FLAGSFIRST_SET_REPLACE |
		FLAGSFIRST_SET_IMMUTABLE) != -EINVAL)
		return 2;
	if (del(fd, name, 1ULL << 40) != -EINVAL)
		return 3;
	if (ren(fd, name, "x", 1ULL << 40) != -EINVAL)
		return 4;
	if (set(fd, name, "x", 0) != -EPERM)
		return 5;
	return 0;
}

/*
 * No SKIP after an EXPECT: kselftest reports a test that failed an EXPECT
 * and then skipped as skipped (the run.sh scan catches it too).
 */
TEST(validity_beats_existence_and_permission)
{
	char name[64], longname[FLAGSFIRST_NAME_MAX + 2];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, set(fd, fresh(name, "o"), "v", 1ULL << 40))
		TH_LOG("an unknown bit on a missing name is EINVAL, not ENOENT");
	EXPECT_EQ(-EINVAL, set(fd, name, "v", FLAGSFIRST_SET_REPLACE |
			       FLAGSFIRST_SET_NOREPLACE));
	memset(longname, 'l', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	EXPECT_EQ(-ENAMETOOLONG, set(fd, longname, "v", FLAGSFIRST_SET_IMMUTABLE))
		TH_LOG("a bad name is reported before a missing capability");
	EXPECT_EQ(-ENOENT, set(fd, "", "v", FLAGSFIRST_SET_IMMUTABLE))
		TH_LOG("an empty name is reported before a missing capability");
	EXPECT_EQ(-ENOENT, ren(fd, name, "x", FLAGSFIRST_RENAME_EXCHANGE));
	close(fd);
}

TEST(validity_beats_permission_on_another_uids_entry)
{
	char name[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	if (!is_root())
		SKIP(return, "needs root to own an entry uid 65534 probes");
	ASSERT_EQ(0, set(fd, fresh(name, "o"), "v", 0));
	EXPECT_EQ(0, as_nobody(unknown_bit_beats_eperm, name));
	close(fd);
}

TEST(rename_legacy_on_a_read_only_fd_fails_with_EBADF)
{
	int fd = open_dev(), ro = open("/dev/flagsfirst", O_RDONLY | O_CLOEXEC);
	char a[64], b[64];

	ASSERT_LE(0, fd);
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, set(fd, fresh(a, "rol"), "v", 0));
	EXPECT_EQ(-EBADF, ren_legacy(ro, a, fresh(b, "rol")));
	EXPECT_EQ(true, exists(fd, a));
	EXPECT_EQ(false, exists(fd, b));
	EXPECT_EQ(-EFAULT, ffst(ro, FLAGSFIRST_IOC_RENAME_LEGACY, NULL))
		TH_LOG("the struct is read before the fd's mode is checked");
	close(ro);
	close(fd);
}

TEST_HARNESS_MAIN
