// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst torture tests: the helpers the modes share (torture.h). */

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
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "torture.h"

int dev;	/* /dev/flagsfirst, opened by main() */

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# torture: FAILED: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	exit(1);
}

uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

int ffst(unsigned long cmd, void *arg)
{
	int ret = ioctl(dev, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* Every errno the uapi header documents for an ioctl of ours. */
bool documented(int err)
{
	static const int ok[] = {
		ENOTTY, EINVAL, E2BIG, EFAULT, ENOENT, ENAMETOOLONG, EEXIST,
		EPERM, ENOSPC, EDQUOT, ERANGE, ENOMEM, ESTALE, EMFILE, ENFILE,
		EBADF, EINTR,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		if (err == ok[i])
			return true;
	return false;
}

/* xorshift64*: small, fast, and the same sequence for the same seed. */
uint64_t rng_state;	/* rnd()'s, seeded by the fuzzer */

uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

struct stats read_stats(void)
{
	struct stats st = { 0 };
	char key[32];
	unsigned long v;
	FILE *f = fopen(STATS, "r");

	if (!f)
		die("%s: %s (debugfs mounted?)", STATS, strerror(errno));
	while (fscanf(f, "%31s %lu", key, &v) == 2) {
		if (!strcmp(key, "entries"))
			st.entries = v;
		else if (!strcmp(key, "bytes"))
			st.bytes = v;
		else if (!strcmp(key, "allocated"))
			st.allocated = v;
	}
	fclose(f);
	return st;
}

int set(const char *name, const char *value, uint64_t flags)
{
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(name), .value = ptr(value),
		.value_len = strlen(value),
	};

	return ffst(FLAGSFIRST_IOC_SET, &s);
}

/* GET into @buf; returns the ioctl's result, with the output in @g. */
int get(const char *name, char *buf, size_t len, struct flagsfirst_get *g)
{
	memset(g, 0, sizeof(*g));
	g->name = ptr(name);
	g->value = ptr(buf);
	g->value_len = len;
	return ffst(FLAGSFIRST_IOC_GET, g);
}

int del_all(void)
{
	struct flagsfirst_delete d = {
		.flags = FLAGSFIRST_DELETE_ALL, .name = ptr(""),
	};

	return ffst(FLAGSFIRST_IOC_DELETE, &d);
}

int ren(const char *a, const char *b, uint64_t flags)
{
	struct flagsfirst_rename r = {
		.flags = flags, .oldname = ptr(a), .newname = ptr(b),
	};

	return ffst(FLAGSFIRST_IOC_RENAME, &r);
}
