// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst torture tests: fault injection (flagsfirst_torture faults). */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "torture.h"

/* ---------------------------------------------------------------- faults */

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("%s: %s", path, strerror(errno));
	close(fd);
}

/* The table as far as one scenario can see it. */
struct snap {
	struct stats st;
	char values[4][64];
	uint64_t seqs[4];
};

static const char *const fault_names[4] = { "fa", "fb", "fc", "fd" };

static void snapshot(struct snap *s)
{
	struct flagsfirst_get g;
	int i;

	memset(s, 0, sizeof(*s));
	s->st = read_stats();
	for (i = 0; i < 4; i++)
		if (get(fault_names[i], s->values[i], sizeof(s->values[i]) - 1, &g) == 0)
			s->seqs[i] = g.seq;
}

struct scenario {
	const char *name;
	void (*prepare)(void);
	int (*op)(void);
};

static void prep_none(void)
{
	del_all();
}

static void prep_a(void)
{
	del_all();
	set("fa", "alpha", 0);
}

static void prep_ab(void)
{
	prep_a();
	set("fb", "beta", 0);
}

/* A watcher, so that changes also allocate event records. */
static int watched = -1;

static void prep_watched(void)
{
	struct flagsfirst_watch w = { .flags = FLAGSFIRST_WATCH_CLOEXEC |
					       FLAGSFIRST_WATCH_NONBLOCK,
				      .mask = FLAGSFIRST_EVENT_ALL };
	static char buf[64 * 1024];

	prep_a();
	if (watched < 0)
		watched = ffst(FLAGSFIRST_IOC_WATCH, &w);
	while (read(watched, buf, sizeof(buf)) > 0)
		;
}

static int op_set_new(void)
{
	return set("fa", "new", 0);
}

static int op_set_replace(void)
{
	return set("fa", "replaced", 0);
}

static int op_get(void)
{
	struct flagsfirst_get g;
	char buf[64];

	return get("fa", buf, sizeof(buf), &g);
}

static int op_delete(void)
{
	struct flagsfirst_delete d = { .name = ptr("fa") };

	return ffst(FLAGSFIRST_IOC_DELETE, &d);
}

static int op_delete_all(void)
{
	return del_all() == 2 ? 0 : -1;
}

static int op_rename(void)
{
	return ren("fa", "fc", 0);
}

static int op_rename_replace(void)
{
	return ren("fa", "fb", 0);
}

static int op_exchange(void)
{
	return ren("fa", "fb", FLAGSFIRST_RENAME_EXCHANGE);
}

static int op_rename_legacy(void)
{
	struct flagsfirst_rename_legacy r = { ptr("fa"), ptr("fd") };

	return ffst(FLAGSFIRST_IOC_RENAME_LEGACY, &r);
}

static int op_watch(void)
{
	struct flagsfirst_watch w = { .flags = FLAGSFIRST_WATCH_CLOEXEC,
				      .mask = FLAGSFIRST_EVENT_ALL };
	int fd = ffst(FLAGSFIRST_IOC_WATCH, &w);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static const struct scenario scenarios[] = {
	{ "SET of a new name", prep_none, op_set_new },
	{ "SET replacing", prep_a, op_set_replace },
	{ "GET", prep_a, op_get },
	{ "DELETE", prep_a, op_delete },
	{ "DELETE_ALL", prep_ab, op_delete_all },
	{ "RENAME", prep_a, op_rename },
	{ "RENAME replacing", prep_ab, op_rename_replace },
	{ "RENAME_EXCHANGE", prep_ab, op_exchange },
	{ "RENAME_LEGACY", prep_a, op_rename_legacy },
	{ "WATCH", prep_none, op_watch },
	{ "SET while watched", prep_watched, op_set_replace },
	{ "RENAME while watched", prep_watched, op_rename },
};

/*
 * The header's order, rules 6 to 8: an unprivileged IMMUTABLE SET is EPERM
 * before anything is allocated, so it is EPERM even when the first
 * allocation it could make would fail, and it makes none (fail-nth is
 * still armed afterwards).  In a child that drops to uid 65534 with no
 * capabilities, the device and its fail-nth opened before.
 */
static void immutable_refused_before_allocating(void)
{
	static char value[FLAGSFIRST_VALUE_MAX];	/* faulted in below */
	char path[64], left[16] = "";
	int status, ret, fd;
	pid_t pid;
	ssize_t n;

	memset(value, 'v', sizeof(value));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		struct flagsfirst_set s = {
			.flags = FLAGSFIRST_SET_IMMUTABLE, .name = ptr("fi"),
			.value = ptr(value), .value_len = sizeof(value),
		};

		snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
			 (long)syscall(SYS_gettid));
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 || setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		if (pwrite(fd, "1", 1, 0) != 1)
			_exit(101);
		ret = ffst(FLAGSFIRST_IOC_SET, &s);
		n = pread(fd, left, sizeof(left) - 1, 0);
		if (pwrite(fd, "0", 1, 0) != 1 || n <= 0)
			_exit(102);
		if (ret != -EPERM) {
			printf("# faults: IMMUTABLE as 65534: errno %d, not EPERM\n",
			       -ret);
			_exit(1);
		}
		if (atoi(left) != 1) {
			printf("# faults: IMMUTABLE as 65534: fail-nth %s\n",
			       left);
			_exit(1);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		die("the unprivileged SET's child did not exit");
	if (WEXITSTATUS(status) >= 100)
		die("the unprivileged SET's child could not set up (%d)",
		    WEXITSTATUS(status));
	if (WEXITSTATUS(status))
		die("an unprivileged IMMUTABLE SET allocated before it was refused");
	printf("# faults: an unprivileged IMMUTABLE SET is EPERM with no allocation made\n");
}

int faults(int argc, char **argv)
{
	unsigned int failed = 0, tolerated = 0, s, nth;
	char path[64], num[16], left[16];
	int nth_fd;

	(void)argc;
	(void)argv;
	/* GFP_KERNEL allocations too, and no stack trace per injection. */
	write_file("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	write_file("/sys/kernel/debug/failslab/verbose", "0");
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	/* Kept open: even a close() between arming and the op may allocate. */
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		die("%s: %s", path, strerror(errno));

	for (s = 0; s < ARRAY_SIZE(scenarios); s++) {
		const struct scenario *sc = &scenarios[s];
		unsigned int enomem = 0;

		/*
		 * Fail the nth allocation of the op, n = 1, 2, ..., until it
		 * makes fewer than n: then every one of its allocations has
		 * failed once.  An op may also survive a failure (kmemleak's
		 * own allocations fall back to a pool, a watcher's record
		 * becomes an OVERFLOW); it must never fail otherwise.
		 */
		for (nth = 1; nth < 1000; nth++) {
			struct snap before, after;
			ssize_t n;
			int ret;

			sc->prepare();
			snapshot(&before);
			snprintf(num, sizeof(num), "%u", nth);
			if (pwrite(nth_fd, num, strlen(num), 0) < 0)
				die("arming fail-nth: %s", strerror(errno));
			ret = sc->op();
			n = pread(nth_fd, left, sizeof(left) - 1, 0);
			if (pwrite(nth_fd, "0", 1, 0) < 0 || n <= 0)
				die("fail-nth: %s", strerror(errno));
			left[n] = '\0';
			if (ret == 0 && atoi(left) > 0)
				break;		/* fewer than nth allocations */
			if (ret == 0) {
				tolerated++;
				continue;
			}
			if (ret != -ENOMEM)
				die("%s, allocation %u failed: errno %d, not ENOMEM",
				    sc->name, nth, -ret);
			snapshot(&after);
			if (memcmp(&before, &after, sizeof(before)))
				die("%s, allocation %u failed: the table changed",
				    sc->name, nth);
			enomem++;
		}
		if (nth == 1000)
			die("%s never ran out of allocations", sc->name);
		failed += enomem;
		printf("# faults: %s: %u allocations failed in turn, %u with ENOMEM "
		       "and the table unchanged\n", sc->name, nth - 1, enomem);
	}
	close(nth_fd);
	if (watched >= 0)
		close(watched);
	immutable_refused_before_allocating();
	printf("# faults: %u fault sites injected over %zu ops: %u ENOMEM with "
	       "the table unchanged, %u survived\n", failed + tolerated,
	       ARRAY_SIZE(scenarios), failed, tolerated);
	del_all();
	return 0;
}
