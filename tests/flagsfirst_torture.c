// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst torture tests for the debug kernel (make check-debug):
 *
 *   flagsfirst_torture fuzz [-s SEED] [-n IOCTLS]
 *	random ioctls, seeded and reproducible, then a consistency check of
 *	the table against the module's own accounting
 *   flagsfirst_torture stress [-t SECONDS]
 *	8 threads on overlapping names; checks the invariants as it goes
 *   flagsfirst_torture faults
 *	makes the 1st, 2nd, ... allocation of each op fail (failslab with
 *	fail-nth) until the op succeeds; every failure must be ENOMEM and
 *	leave the table as it was
 *
 * Each prints one "# <mode>: ..." line of figures and exits 0 on success.
 * Run as root, on a freshly loaded module.
 */

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

#define PAGE		4096
#define STATS		"/sys/kernel/debug/flagsfirst/stats"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)	((a) < (b) ? (a) : (b))

static int dev;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# torture: FAILED: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	exit(1);
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static int ffst(unsigned long cmd, void *arg)
{
	int ret = ioctl(dev, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* Every errno the uapi header documents for an ioctl of ours. */
static bool documented(int err)
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
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

struct stats {
	unsigned long entries, bytes, allocated;
};

static struct stats read_stats(void)
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

static int set(const char *name, const char *value, uint64_t flags)
{
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(name), .value = ptr(value),
		.value_len = strlen(value),
	};

	return ffst(FLAGSFIRST_IOC_SET, &s);
}

/* GET into @buf; returns the ioctl's result, with the output in @g. */
static int get(const char *name, char *buf, size_t len, struct flagsfirst_get *g)
{
	memset(g, 0, sizeof(*g));
	g->name = ptr(name);
	g->value = ptr(buf);
	g->value_len = len;
	return ffst(FLAGSFIRST_IOC_GET, g);
}

static int del_all(void)
{
	struct flagsfirst_delete d = {
		.flags = FLAGSFIRST_DELETE_ALL, .name = ptr(""),
	};

	return ffst(FLAGSFIRST_IOC_DELETE, &d);
}

static int ren(const char *a, const char *b, uint64_t flags)
{
	struct flagsfirst_rename r = {
		.flags = flags, .oldname = ptr(a), .newname = ptr(b),
	};

	return ffst(FLAGSFIRST_IOC_RENAME, &r);
}

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

static int fuzz(int argc, char **argv)
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

static int stress(int argc, char **argv)
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

static int faults(int argc, char **argv)
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
	printf("# faults: %u fault sites injected over %zu ops: %u ENOMEM with "
	       "the table unchanged, %u survived\n", failed + tolerated,
	       ARRAY_SIZE(scenarios), failed, tolerated);
	del_all();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: flagsfirst_torture fuzz|stress|faults [options]\n", stderr);
		return 2;
	}
	dev = open("/dev/flagsfirst", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("/dev/flagsfirst: %s", strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "fuzz"))
		return fuzz(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stress"))
		return stress(argc - 1, argv + 1);
	if (!strcmp(argv[1], "faults"))
		return faults(argc - 1, argv + 1);
	return 2;
}
