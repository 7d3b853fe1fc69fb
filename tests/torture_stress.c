// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst torture tests: the stress test (flagsfirst_torture stress). */

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

/* ---------------------------------------------------------------- stress */

#define THREADS		8
#define SHARED		12	/* names every op plays with */
#define EXCHANGED	8	/* names only EXCHANGE touches */
#define BIG		100	/* a value GET reads by reference, not under RCU */

static atomic_bool stop;
static atomic_ulong total_ops;

/* What each op may answer under contention: anything else is a bug. */
static bool allowed(int ret, int op)
{
	switch (op) {
	case 0:	return !ret || ret == -EEXIST || ret == -ENOENT;	/* set */
	case 1:	return !ret || ret == -ENOENT;				/* get */
	case 2:	return !ret || ret == -ENOENT;				/* delete */
	case 3:	return !ret || ret == -ENOENT || ret == -EEXIST;	/* rename */
	default: return !ret || ret == -ENOENT;				/* exchange */
	}
}

struct worker {
	pthread_t tid;
	uint64_t rng;
	uint64_t last_seq[SHARED + EXCHANGED];
	char failure[160];
};

/*
 * The value exchanged name i starts with: "v" and digit i, then for odd i
 * the digit again up to BIG bytes.  Returns its length.
 */
static size_t xvalue(unsigned int i, char *out)
{
	size_t len = i % 2 ? BIG : 2;

	out[0] = 'v';
	memset(out + 1, '0' + i, len - 1);
	out[len] = '\0';
	return len;
}

/* Which exchanged value @buf holds, whole, or -1. */
static int xvalue_of(const char *buf, size_t len)
{
	char want[BIG + 1];
	int i = buf[0] == 'v' ? buf[1] - '0' : -1;

	if (i < 0 || i >= EXCHANGED || len != xvalue(i, want))
		return -1;
	return memcmp(buf, want, len) ? -1 : i;
}

/* A shared name holds "value" or BIG bytes of 'L', whole. */
static bool shared_value_ok(const char *buf, size_t len)
{
	size_t i;

	if (len == 5)
		return !memcmp(buf, "value", 5);
	for (i = 0; i < len; i++)
		if (buf[i] != 'L')
			return false;
	return len == BIG;
}

static uint64_t wrnd(struct worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545f4914f6cdd1dULL;
}

static void name_of(char *buf, unsigned int i)
{
	if (i < SHARED)
		sprintf(buf, "s%u", i);
	else
		sprintf(buf, "x%u", i - SHARED);
}

static void *stress_worker(void *arg)
{
	struct worker *w = arg;
	char a[16], b[16], buf[256], big[BIG + 1];
	struct flagsfirst_get g;
	unsigned long ops = 0;

	memset(big, 'L', BIG);
	big[BIG] = '\0';

	while (!atomic_load(&stop) && !w->failure[0]) {
		unsigned int i = wrnd(w) % (SHARED + EXCHANGED);
		unsigned int j = wrnd(w) % (SHARED + EXCHANGED);
		unsigned int op = wrnd(w) % 5;
		bool i_shared = i < SHARED, j_shared = j < SHARED;
		int ret;

		/* The exchanged set only ever meets EXCHANGE among itself. */
		if (i_shared != j_shared)
			j = i;
		if (i >= SHARED && op != 1)
			op = 4;
		name_of(a, i);
		name_of(b, j);
		switch (op) {
		case 0:
			ret = set(a, wrnd(w) % 2 ? "value" : big, wrnd(w) % 3 == 0 ?
				  FLAGSFIRST_SET_NOREPLACE : 0);
			break;
		case 1:
			ret = get(a, buf, sizeof(buf) - 1, &g);
			if (!ret && g.seq < w->last_seq[i])
				snprintf(w->failure, sizeof(w->failure),
					 "%s: seq went back from %" PRIu64 " to %llu",
					 a, w->last_seq[i], (unsigned long long)g.seq);
			if (!ret)
				w->last_seq[i] = g.seq;
			if (!ret && i >= SHARED && xvalue_of(buf, g.value_len) < 0)
				snprintf(w->failure, sizeof(w->failure),
					 "%s holds a value EXCHANGE never put there", a);
			if (!ret && i < SHARED && !shared_value_ok(buf, g.value_len))
				snprintf(w->failure, sizeof(w->failure),
					 "%s holds a torn value (%u bytes)", a, g.value_len);
			break;
		case 2: {
			struct flagsfirst_delete d = { .name = ptr(a) };

			ret = ffst(FLAGSFIRST_IOC_DELETE, &d);
			break;
		}
		case 3:
			ret = ren(a, b, wrnd(w) % 2 ? FLAGSFIRST_RENAME_NOREPLACE : 0);
			break;
		default:
			ret = ren(a, b, FLAGSFIRST_RENAME_EXCHANGE);
			if (i >= SHARED && ret)
				snprintf(w->failure, sizeof(w->failure),
					 "EXCHANGE %s %s: %d", a, b, ret);
			break;
		}
		if (!allowed(ret, op))
			snprintf(w->failure, sizeof(w->failure),
				 "op %u on %s %s: errno %d", op, a, b, -ret);
		ops++;
	}
	atomic_fetch_add(&total_ops, ops);
	return NULL;
}

/*
 * The eighth thread watches, as a hostile reader would: a quarter of its
 * reads go to an unmapped page, a quarter to a read-only one, a quarter to
 * a buffer that ends at an unmapped page after one record, while the queue
 * (max_queued_events 4 during the stress) overflows.  A faulting read must
 * leave its record queued, so the records that do arrive still come in
 * strictly rising seq, OVERFLOW included: none lost, none read twice.
 */
static void *stress_watcher(void *arg)
{
	static unsigned char good[64 * 1024];
	struct worker *w = arg;
	struct flagsfirst_watch wa = {
		.flags = FLAGSFIRST_WATCH_CLOEXEC | FLAGSFIRST_WATCH_NONBLOCK,
		.mask = FLAGSFIRST_EVENT_ALL,
	};
	unsigned char *map, *bufs[4];
	size_t lens[4] = { 4096, 4096, 4096, sizeof(good) };
	uint64_t last = 0;
	unsigned long ops = 0, reads = 0;
	int wfd = ffst(FLAGSFIRST_IOC_WATCH, &wa);

	map = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (wfd < 0 || map == MAP_FAILED) {
		snprintf(w->failure, sizeof(w->failure), "WATCH: %d", wfd);
		return NULL;
	}
	munmap(map + 2 * 4096, 4096);
	mprotect(map + 4096, 4096, PROT_READ);
	bufs[0] = map + 2 * 4096;		/* unmapped */
	bufs[1] = map + 4096;			/* read-only */
	bufs[2] = map + 4096 - 40;		/* one short record, then read-only */
	bufs[3] = good;
	while (!atomic_load(&stop) && !w->failure[0]) {
		int which = reads++ % 4;
		unsigned char *buf = bufs[which];
		ssize_t len = read(wfd, buf, lens[which]), off = 0;

		while (len > 0 && off < len) {
			struct flagsfirst_event ev;

			memcpy(&ev, buf + off, sizeof(ev));
			if (ev.seq <= last)
				snprintf(w->failure, sizeof(w->failure),
					 "record type %u seq %llu after %" PRIu64,
					 ev.type, (unsigned long long)ev.seq, last);
			last = ev.seq;
			off += ev.size;
			ops++;
		}
		if (len < 0 && errno != EAGAIN && !(errno == EFAULT && which < 3))
			snprintf(w->failure, sizeof(w->failure), "read: %s",
				 strerror(errno));
		/* Watches come and go too. */
		if (reads % 256 == 255) {
			close(wfd);
			wfd = ffst(FLAGSFIRST_IOC_WATCH, &wa);
			last = 0;
		}
	}
	close(wfd);
	munmap(map, 2 * 4096);
	atomic_fetch_add(&total_ops, ops);
	return NULL;
}

/* Writes a module parameter; returns its old value in @old (if non-NULL). */
static void set_param(const char *name, const char *value, char *old, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/flagsfirst/parameters/%s", name);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die("open %s", path);
	if (old) {
		n = read(fd, old, len - 1);
		old[n > 0 ? n : 0] = '\0';
	}
	if (pwrite(fd, value, strlen(value), 0) != (ssize_t)strlen(value))
		die("write %s", path);
	close(fd);
}

int stress(int argc, char **argv)
{
	struct worker workers[THREADS] = { 0 };
	char name[16], buf[256], seen[EXCHANGED] = { 0 };
	struct flagsfirst_get g;
	int seconds = 20, opt, i;
	char queued[32];

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			return 2;
		seconds = atoi(optarg);
	}
	del_all();
	set_param("max_queued_events", "4", queued, sizeof(queued));
	for (i = 0; i < EXCHANGED; i++) {
		char value[BIG + 1];

		xvalue(i, value);
		name_of(name, SHARED + i);
		if (set(name, value, 0))
			die("set %s", name);
	}
	for (i = 0; i < THREADS; i++) {
		workers[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1);
		if (pthread_create(&workers[i].tid, NULL, i == THREADS - 1 ?
				   stress_watcher : stress_worker, &workers[i]))
			die("pthread_create");
	}
	sleep(seconds);
	atomic_store(&stop, true);
	for (i = 0; i < THREADS; i++) {
		pthread_join(workers[i].tid, NULL);
		if (workers[i].failure[0])
			die("stress thread %d: %s", i, workers[i].failure);
	}
	/* The exchanged set still holds each value exactly once. */
	for (i = 0; i < EXCHANGED; i++) {
		int held;

		name_of(name, SHARED + i);
		if (get(name, buf, sizeof(buf) - 1, &g))
			die("%s is gone", name);
		held = xvalue_of(buf, g.value_len);
		if (held < 0)
			die("%s holds a value EXCHANGE never put there", name);
		if (seen[held]++)
			die("value %d is held twice after the exchanges", held);
	}
	set_param("max_queued_events", queued, NULL, 0);
	printf("# stress: %lu ops in %d s by %d threads (one watching, through "
	       "faulting buffers); seq never went back, records in order, "
	       "%d exchanged values conserved\n",
	       atomic_load(&total_ops), seconds, THREADS, EXCHANGED);
	del_all();
	return 0;
}
