// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst torture tests: the fuzzer (flagsfirst_torture fuzz). */

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

/* ------------------------------------------------------------------ fuzz */

#define POOL 24

static char pool[POOL][FLAGSFIRST_NAME_MAX + 2];
static unsigned char *rw_area, *ro_page, *hole;
static unsigned char values[FLAGSFIRST_VALUE_MAX + 8];
static unsigned char scratch[FLAGSFIRST_VALUE_MAX + 8];	/* GET writes here */

#define RW_PAGES	5	/* more than the largest _IOC_SIZE */

static void fuzz_setup(void)
{
	unsigned char *map;
	int i;

	for (i = 0; i < POOL - 2; i++)
		snprintf(pool[i], sizeof(pool[i]), "fz%d", i);
	memset(pool[POOL - 2], 'm', FLAGSFIRST_NAME_MAX);	/* longest */
	memset(pool[POOL - 1], 'l', FLAGSFIRST_NAME_MAX + 1);	/* too long */
	for (i = 0; i < (int)sizeof(values); i++)
		values[i] = (unsigned char)(i * 7);

	/* rw (RW_PAGES) | ro (1 page) | hole (1 page, unmapped) */
	map = mmap(NULL, (RW_PAGES + 2) * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		die("mmap");
	rw_area = map;
	ro_page = map + RW_PAGES * PAGE;
	hole = ro_page + PAGE;
	strcpy((char *)ro_page, pool[0]);
	memcpy(hole - 4, "fz1x", 4);	/* a name with no NUL before the hole */
	mprotect(ro_page, PAGE, PROT_READ);
	munmap(hole, PAGE);
}

/* A pointer for a name: mostly from the pool, else every kind of bad. */
static uint64_t fuzz_name(void)
{
	switch (below(16)) {
	case 0: return 0;
	case 1: return ptr(hole);
	case 2: return 0xffffffff81000000ULL;	/* kernel text */
	case 3: return ptr(ro_page);		/* pool[0], read-only */
	case 4: return ptr("");
	case 5: return ptr(hole - 4);		/* runs into the hole */
	default: return ptr(pool[below(POOL)]);
	}
}

static uint64_t fuzz_value(uint32_t *len)
{
	static const uint32_t lens[] = { 0, 1, 32, 255, 4096, 65536, 65537 };

	*len = below(8) ? lens[below(ARRAY_SIZE(lens))] : (uint32_t)rnd();
	switch (below(12)) {
	case 0: return 0;
	case 1: return ptr(hole - below(64));	/* runs into the hole */
	case 2: return 0xffff888000000000ULL;	/* the direct map */
	case 3: return ptr(ro_page);
	default: return ptr(values);
	}
}

/* Where GET may write a value: never the pool, whose names must stay. */
static uint64_t fuzz_out(void)
{
	switch (below(8)) {
	case 0: return 0;
	case 1: return ptr(hole - below(64));
	case 2: return ptr(ro_page);
	case 3: return 0xffffffff81000000ULL;
	default: return ptr(scratch);
	}
}

static uint64_t fuzz_flags(void)
{
	switch (below(10)) {
	case 0: case 1: case 2: return 0;
	case 3: case 4: case 5: return 1ULL << below(4);
	case 6: return FLAGSFIRST_CHECK_FIELDS;
	case 7: return (1ULL << below(4)) | (1ULL << below(4));
	default: return rnd() & (below(2) ? 0xffULL : ~0ULL);
	}
}

static size_t fuzz_size(unsigned int nr)
{
	static const size_t cur[] = { 40, 48, 16, 24, 16, 16 };
	size_t base = nr < ARRAY_SIZE(cur) ? cur[nr] : 32;

	switch (below(10)) {
	case 0: return base - 8 - below(2);
	case 1: return base - 1;
	case 2: return PAGE;
	case 3: return PAGE + 1;
	case 4: return below(1 << 14);
	case 5: return base + 8;
	default: return base;
	}
}

#define MAX_WATCH 8

static int watch_fds[MAX_WATCH];
static int nr_watch;

static void fuzz_watch_fds(unsigned long *reads)
{
	static unsigned char buf[64 * 1024];
	struct pollfd p;
	int i;

	if (!nr_watch)
		return;
	i = below(nr_watch);
	if (below(4) == 0) {
		close(watch_fds[i]);
		watch_fds[i] = watch_fds[--nr_watch];
		return;
	}
	p.fd = watch_fds[i];
	p.events = POLLIN;
	if (poll(&p, 1, 0) == 1) {
		/* Sizes that fit a record or not: both are legal reads. */
		if (read(watch_fds[i], buf, below(2) ? sizeof(buf) : below(64)) < 0 &&
		    errno != EINVAL && errno != EAGAIN)
			die("read of a watch fd: %s", strerror(errno));
		(*reads)++;
	}
}

int fuzz(int argc, char **argv)
{
	unsigned long n = 1000000, i, ok = 0, foreign = 0, reads = 0;
	unsigned long by_errno[256] = { 0 };
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	unsigned long counted = 0, bytes = 0;
	struct stats st;
	int opt, e;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	rng_state = seed ? seed : 1;
	printf("# fuzz: seed %" PRIu64 " (rerun: flagsfirst_torture fuzz -s %" PRIu64
	       " -n %lu)\n", seed, seed, n);
	fflush(stdout);
	fuzz_setup();
	del_all();

	for (i = 0; i < n; i++) {
		unsigned int nr = below(10) ? below(6) : below(256);
		unsigned int dir = below(10) ? _IOC_READ | _IOC_WRITE : below(4);
		unsigned int type = 'Y';
		size_t usize = fuzz_size(nr);
		uint64_t st[8] = { 0 };
		unsigned char *arg;
		uint32_t vlen = 0;
		unsigned long cmd;
		int ret;

		if (below(20) == 0) {
			/*
			 * Not 'X' (FIFREEZE) nor 'f'/0x94 (FS_IOC_*): our fd
			 * lives on devtmpfs, and the VFS answers those.
			 */
			do
				type = below(256);
			while (type == 'X' || type == 'f' || type == 0x94 ||
			       type == 'Y');
		}
		if (usize >= 1 << 14)
			usize = (1 << 14) - 1;

		/* flags, then the op's pointers and lengths, then the rest */
		st[0] = fuzz_flags();
		st[1] = fuzz_name();
		switch (nr) {
		case 0:
			st[2] = fuzz_value(&vlen);
			break;
		case 1:
			st[2] = fuzz_out();
			vlen = below(2) ? 64 : below(128);
			break;
		case 3:
			st[2] = fuzz_name();
			break;
		case 5:
			st[1] = below(8) ? 1ULL << below(5) : rnd();
			break;
		default:
			st[2] = rnd();
			break;
		}
		st[3] = vlen;
		if (below(8) == 0)
			st[3] |= rnd() << 32;			/* __reserved */
		if (below(8) == 0)
			st[3 + below(5)] ^= 1ULL << below(64);	/* tail */

		switch (below(20)) {
		case 0: case 1:		/* straddles the hole */
			arg = hole - usize + below(3);
			if (arg < ro_page)
				memcpy(arg, st, MIN((size_t)(ro_page - arg), sizeof(st)));
			break;
		case 2:
			arg = ro_page;
			break;
		case 3:
			arg = below(2) ? NULL : (unsigned char *)0xffffffff81000000ULL;
			break;
		default:
			arg = rw_area + 8 * below(64);
			memset(arg, 0, usize + 64 > 3 * PAGE ? 3 * PAGE : usize + 64);
			memcpy(arg, st, sizeof(st));
			break;
		}
		cmd = _IOC(dir, type, nr, usize);
		if (below(50) == 0)
			cmd = FLAGSFIRST_IOC_RENAME_LEGACY;

		ret = ioctl(dev, cmd, arg);
		e = ret < 0 ? errno : 0;
		if (type != 'Y') {
			foreign++;
		} else if (ret < 0) {
			if (!documented(e))
				die("seed %" PRIu64 " ioctl %lu: cmd 0x%lx returned "
				    "undocumented errno %d (%s)", seed, i, cmd, e,
				    strerror(e));
			by_errno[e & 0xff]++;
		} else {
			ok++;
			if (nr == 5 && type == 'Y' && ret > 2 &&
			    cmd != FLAGSFIRST_IOC_RENAME_LEGACY) {
				if (nr_watch < MAX_WATCH)
					watch_fds[nr_watch++] = ret;
				else
					close(ret);
			}
		}
		if (below(16) == 0)
			fuzz_watch_fds(&reads);
	}
	while (nr_watch)
		close(watch_fds[--nr_watch]);

	/* Every entry is readable and the module's accounting adds up. */
	for (i = 0; i < POOL; i++) {
		static char buf[FLAGSFIRST_VALUE_MAX];
		struct flagsfirst_get g;

		if (get(pool[i], buf, sizeof(buf), &g) == 0) {
			counted++;
			bytes += strlen(pool[i]) + g.value_len;
		}
	}
	/*
	 * The byte count is what the entries take: at least their names and
	 * values, and exactly every allocation still alive (each is an entry
	 * or the home of a moved value), each counted once.
	 */
	st = read_stats();
	if (st.entries != counted || st.bytes < bytes || st.bytes != st.allocated)
		die("seed %" PRIu64 ": the table holds %lu entries, %lu bytes of names "
		    "and values; the module counts %lu entries charged %lu bytes, "
		    "%lu allocated", seed, counted, bytes, st.entries, st.bytes,
		    st.allocated);
	printf("# fuzz: %lu ioctls (seed %" PRIu64 "): %lu succeeded, %lu foreign, "
	       "%lu EINVAL, %lu EFAULT, %lu E2BIG, %lu ENOTTY, %lu watch reads; "
	       "table consistent (%lu entries, %lu bytes of names and values "
	       "charged %lu)\n", n, seed, ok,
	       foreign, by_errno[EINVAL], by_errno[EFAULT], by_errno[E2BIG],
	       by_errno[ENOTTY], reads, counted, bytes, st.bytes);
	del_all();
	return 0;
}
