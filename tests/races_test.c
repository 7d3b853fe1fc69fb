// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, races: the CLOEXEC race WATCH_CLOEXEC closes, GETs that overlap SETs,
 * EXCHANGEs (each value and seq checked against the history a watch fd
 * told) and a DELETE_ALL, and readers whose buffers fault during an
 * overflow.
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

#define WATCH_FD_LINK	"anon_inode:[flagsfirst-watch]"

/* Milliseconds of CLOCK_MONOTONIC since @t0. */
static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * A name that SET keeps replacing exists at every instant: a GET racing
 * with the replacement sees the old value or the new one, whole, and never
 * ENOENT.  Small values are copied under RCU, large ones through a
 * reference to the entry; both paths race here for a second each, and
 * longer if the reads have not yet seen both values (on a busy host the
 * writer may not have run beside them), up to RACE_MS.
 */
#define RACE_MS		10000

TEST(get_sees_a_whole_value_and_never_enoent_while_set_replaces_it)
{
	static const size_t sizes[] = { 32, 200 };	/* FFST_SMALL_VALUE is 64 */
	char name[64], a[256], b[256], out[257];
	struct flagsfirst_get g;
	int fd = open_dev(), status;
	atomic_bool *stop;
	size_t i;

	ASSERT_LE(0, fd);
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stop);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned long reads = 0, missed = 0, torn = 0, saw_a = 0, saw_b = 0;
		bool exited = false;
		struct timespec t0;
		pid_t pid;

		memset(a, 'a', sizes[i]);
		memset(b, 'b', sizes[i]);
		a[sizes[i]] = b[sizes[i]] = '\0';
		ASSERT_EQ(0, set(fd, fresh(name, "race"), a, 0));
		atomic_store(stop, false);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			while (!atomic_load(stop))
				if (set(fd, name, b, 0) || set(fd, name, a, 0))
					_exit(1);
			_exit(0);
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			int ret = get(fd, name, out, sizeof(out), &g);

			reads++;
			if (ret == -ENOENT)
				missed++;
			else if (ret || (strcmp(out, a) && strcmp(out, b)))
				torn++;
			saw_a += !ret && !strcmp(out, a);
			saw_b += !ret && !strcmp(out, b);
			if (reads % 64 == 0)
				exited = waitpid(pid, &status, WNOHANG) != 0;
		} while (!exited && ms_since(&t0) < RACE_MS &&
			 (ms_since(&t0) < 1000 || !saw_a || !saw_b));
		atomic_store(stop, true);
		if (!exited)
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
		/* The reads overlapped the writer: they saw both values. */
		EXPECT_LT(0, saw_a) TH_LOG("%lu reads in %ld ms", reads, ms_since(&t0));
		EXPECT_LT(0, saw_b) TH_LOG("%lu reads in %ld ms", reads, ms_since(&t0));
		EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
			TH_LOG("the writer failed, %zu-byte values", sizes[i]);
		EXPECT_EQ(0, missed) TH_LOG("%lu of %lu GETs of %zu-byte values",
					    missed, reads, sizes[i]);
		EXPECT_EQ(0, torn) TH_LOG("%lu of %lu GETs of %zu-byte values",
					  torn, reads, sizes[i]);
		EXPECT_EQ(0, del(fd, name, 0));
	}
	munmap(stop, sizeof(*stop));
	close(fd);
}

/*
 * GETs of a name that EXCHANGE keeps swapping with another: each (value,
 * seq) pair a GET returns must be one the exchanges made, the value whole.
 * The history is what a watch fd told (EXCHANGE records, in seq order):
 * after the k-th exchange, at its seq, the first name holds the second's
 * first value if k is odd and its own if k is even.  A value of one
 * exchange with the seq of another, or a seq no exchange had, fails.
 * Small values are copied under RCU and big ones through a reference; the
 * two names' values move with no copy, so both paths are raced.
 */
FIXTURE(exchanges) {
	int fd, wfd;
	char a[64], b[64];
};

FIXTURE_VARIANT(exchanges) {
	size_t len;
};

FIXTURE_VARIANT_ADD(exchanges, small_values) { .len = 32 };	/* FFST_SMALL_VALUE is 64 */
FIXTURE_VARIANT_ADD(exchanges, big_values) { .len = 200 };

FIXTURE_SETUP(exchanges)
{
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	fresh(self->a, "xchg.a");
	fresh(self->b, "xchg.b");
}

FIXTURE_TEARDOWN(exchanges)
{
	del(self->fd, self->a, 0);
	del(self->fd, self->b, 0);
	close(self->fd);
}

#define EXCHANGES	20000
#define EXCHANGE_GETS	262144		/* 2^18 per thread */

struct pair {
	uint64_t seq;
	char first;		/* the value's first byte; 0: torn or failed */
};

struct exchange_getter {
	pthread_t tid;
	int fd;
	const char *name;
	size_t len;
	atomic_bool *stop;
	struct pair *pairs;
	unsigned long n;
};

static void *get_pairs(void *arg)
{
	struct exchange_getter *g = arg;
	char out[257];

	while (!atomic_load(g->stop) && g->n < EXCHANGE_GETS) {
		struct flagsfirst_get got;
		struct pair *p = &g->pairs[g->n++];
		size_t i;

		p->first = 0;
		if (get(g->fd, g->name, out, sizeof(out), &got))
			continue;
		p->seq = got.seq;
		for (i = 1; i < g->len && out[i] == out[0]; i++)
			;
		if (i == g->len && strlen(out) == g->len && got.value_len == g->len)
			p->first = out[0];
	}
	return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

TEST_F_TIMEOUT(exchanges, every_get_returns_a_value_and_seq_the_exchanges_made, 300)
{
	static uint64_t history[EXCHANGES + 1];
	struct exchange_getter g[2];
	unsigned char buf[65536];
	char va[256], vb[256];
	unsigned long bad = 0, checked = 0, odd = 0;
	struct rec *recs;
	atomic_bool stop = false;
	int i, j, n, told = 0;

	memset(va, 'a', variant->len);
	memset(vb, 'b', variant->len);
	va[variant->len] = '\0';
	vb[variant->len] = '\0';
	ASSERT_EQ(0, set(self->fd, self->a, va, 0));
	ASSERT_EQ(0, set(self->fd, self->b, vb, 0));
	history[0] = seq_of(self->fd, self->a);
	self->wfd = watch(self->fd, FLAGSFIRST_EVENT_EXCHANGE, FLAGSFIRST_WATCH_NONBLOCK);
	ASSERT_LE(0, self->wfd);
	recs = calloc(1024, sizeof(*recs));
	ASSERT_NE(NULL, recs);
	for (i = 0; i < 2; i++) {
		g[i] = (struct exchange_getter){
			.fd = self->fd, .name = self->a, .len = variant->len,
			.stop = &stop, .pairs = calloc(EXCHANGE_GETS, sizeof(struct pair)),
		};
		ASSERT_NE(NULL, g[i].pairs);
		ASSERT_EQ(0, pthread_create(&g[i].tid, NULL, get_pairs, &g[i]));
	}
	for (i = 1; i <= EXCHANGES; i++) {
		ASSERT_EQ(0, ren(self->fd, self->a, self->b, FLAGSFIRST_RENAME_EXCHANGE));
		/* the queue holds max_queued_events (1024 by default) */
		if (i % 256 && i != EXCHANGES)
			continue;
		while ((n = drain(self->wfd, buf, sizeof(buf), recs, 1024)) > 0)
			for (j = 0; j < n && told < EXCHANGES; j++)
				if (recs[j].type == FLAGSFIRST_EVENT_EXCHANGE)
					history[++told] = recs[j].seq;
		ASSERT_EQ(-EAGAIN, n) TH_LOG("a bad record, or OVERFLOW");
	}
	atomic_store(&stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(g[i].tid, NULL);
	ASSERT_EQ(EXCHANGES, told) TH_LOG("the watch fd told %d exchanges", told);
	for (i = 1; i <= EXCHANGES; i++)
		ASSERT_LT(history[i - 1], history[i]);
	/* Each pair: its seq is the k-th exchange's, its value k's parity */
	for (i = 0; i < 2; i++) {
		unsigned long k;

		for (k = 0; k < g[i].n; k++) {
			const struct pair *p = &g[i].pairs[k];
			uint64_t *at;
			long idx;

			if (!p->first) {
				bad++;
				continue;
			}
			at = bsearch(&p->seq, history, EXCHANGES + 1,
				     sizeof(history[0]), cmp_u64);
			idx = at ? at - history : -1;
			checked++;
			odd += idx > 0 && idx % 2;
			if (idx < 0 || p->first != (idx % 2 ? 'b' : 'a')) {
				if (bad++ < 5)
					TH_LOG("GET %lu: seq %llu (exchange %ld) with '%c...'",
					       k, (unsigned long long)p->seq, idx, p->first);
			}
		}
		free(g[i].pairs);
	}
	free(recs);
	close(self->wfd);
	TH_LOG("%d exchanges, %lu GETs checked (%lu at an odd one)", EXCHANGES,
	       checked, odd);
	EXPECT_EQ(0, bad);
	/* They overlapped: GETs saw both values */
	EXPECT_LT(0, odd);
	EXPECT_LT(odd, checked);
}

/*
 * The 2.6.27 lesson, measured.  Two threads create watch fds in a loop
 * while the main thread forks children that exec and count the watch fds
 * they inherited.  With FLAGSFIRST_WATCH_CLOEXEC none may leak; setting
 * FD_CLOEXEC afterwards with fcntl() races with fork(), and the leaks are
 * reported (not asserted: the window is narrow and timing-dependent).
 */
FIXTURE(race) {
	int fd;
	atomic_bool stop;
};

FIXTURE_VARIANT(race) {
	bool with_flag;
};

FIXTURE_VARIANT_ADD(race, watch_cloexec_flag) {
	.with_flag = true,
};

FIXTURE_VARIANT_ADD(race, fcntl_after_watch) {
	.with_flag = false,
};

FIXTURE_SETUP(race)
{
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	atomic_init(&self->stop, false);
}

FIXTURE_TEARDOWN(race)
{
	close(self->fd);
}

struct racer {
	int fd;
	bool with_flag;
	atomic_bool *stop;
};

static void *create_watches(void *arg)
{
	struct racer *r = arg;
	int wfd;

	while (!atomic_load(r->stop)) {
		wfd = watch(r->fd, FLAGSFIRST_EVENT_SET,
			    r->with_flag ? FLAGSFIRST_WATCH_CLOEXEC : 0);
		if (wfd < 0)
			continue;
		if (!r->with_flag)
			fcntl(wfd, F_SETFD, FD_CLOEXEC);
		close(wfd);
	}
	return NULL;
}

/* At most this many children, or this many seconds (debug kernels are slow). */
#define RACE_CHILDREN	200
#define RACE_SECONDS	20

TEST_F_TIMEOUT(race, children_count_inherited_watch_fds, 3 * RACE_SECONDS)
{
	struct racer r = { self->fd, variant->with_flag, &self->stop };
	int i, children, status, leaked = 0, leaking_children = 0;
	time_t end = time(NULL) + RACE_SECONDS;
	pthread_t threads[2];
	pid_t pid;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, create_watches, &r));
	for (children = 0; children < RACE_CHILDREN && time(NULL) < end; children++) {
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "races_test", "--count-watch-fds",
			      (char *)NULL);
			_exit(255);
		}
		ASSERT_LT(0, pid);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_NE(255, WEXITSTATUS(status));
		leaked += WEXITSTATUS(status);
		leaking_children += WEXITSTATUS(status) > 0;
	}
	atomic_store(&self->stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);

	printf("# race: %s: %d watch fds leaked into %d of %d exec'd children\n",
	       variant->with_flag ? "FLAGSFIRST_WATCH_CLOEXEC" :
	       "fcntl(F_SETFD, FD_CLOEXEC) after WATCH",
	       leaked, leaking_children, children);
	fflush(stdout);
	if (variant->with_flag)
		EXPECT_EQ(0, leaked);
}

/* Run by the race's children after execve(): how many watch fds came along. */
static int count_watch_fds(void)
{
	char path[300], link[64];
	struct dirent *d;
	int count = 0;
	ssize_t n;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return 255;
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		count += !strcmp(link, WATCH_FD_LINK);
	}
	closedir(dir);
	return count > 254 ? 254 : count;
}

/*
 * Adversarial readers: faulting buffers while the queue overflows.  The
 * writer makes its w.n changes, and goes on until the reader has had a
 * read fault (@faulted) or FAULT_MS have passed: on a busy host its
 * changes may all have come while the reader was not running.
 */
#define FAULT_MS	20000

struct fault_writer {
	struct writer w;
	atomic_bool faulted;
	struct timespec t0;
};

static void *write_loop(void *arg)
{
	struct fault_writer *fw = arg;
	int i;

	for (i = 0; i < fw->w.n; i++)
		set(fw->w.fd, fw->w.name, "v", 0);
	while (!atomic_load(&fw->faulted) && ms_since(&fw->t0) < FAULT_MS)
		set(fw->w.fd, fw->w.name, "v", 0);
	return NULL;
}

FIXTURE(reader) {
	int fd, wfd;
	char saved[32];
	unsigned char *unmapped, *ro, *straddle, *good;
};

FIXTURE_VARIANT(reader) {
	const char *max_queued;
};

FIXTURE_VARIANT_ADD(reader, queue_of_0) { .max_queued = "0" };
FIXTURE_VARIANT_ADD(reader, queue_of_1) { .max_queued = "1" };
FIXTURE_VARIANT_ADD(reader, queue_of_2) { .max_queued = "2" };
FIXTURE_VARIANT_ADD(reader, queue_of_1024) { .max_queued = "1024" };

FIXTURE_SETUP(reader)
{
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	if (!is_root())
		SKIP(return, "needs root to write max_queued_events");
	read_param("max_queued_events", self->saved, sizeof(self->saved));
	ASSERT_EQ(0, write_param("max_queued_events", variant->max_queued));
	self->wfd = watch(self->fd, FLAGSFIRST_EVENT_ALL,
			  FLAGSFIRST_WATCH_CLOEXEC | FLAGSFIRST_WATCH_NONBLOCK);
	ASSERT_LE(0, self->wfd);
	self->unmapped = at_page_end(0, 0);
	self->ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* room for two 32-byte records, then the unmapped page */
	self->straddle = at_page_end(72, 0);
	self->good = malloc(64 * 1024);
	ASSERT_NE(NULL, self->unmapped);
	ASSERT_NE(MAP_FAILED, self->ro);
	ASSERT_NE(NULL, self->straddle);
	ASSERT_NE(NULL, self->good);
}

FIXTURE_TEARDOWN(reader)
{
	if (is_root()) {
		write_param("max_queued_events", self->saved);
		close(self->wfd);
	}
	close(self->fd);
}

/*
 * Checks that @r follows @prev: SET records one seq apart, an OVERFLOW
 * record taking the next seq (the first change it stands for), and after
 * an OVERFLOW any later seq.  A record read twice, or one lost, breaks it.
 */
static bool follows(const struct rec *prev, const struct rec *r)
{
	if (prev->type == FLAGSFIRST_EVENT_OVERFLOW)
		return r->seq > prev->seq;
	return r->seq == prev->seq + 1;
}

TEST_F_TIMEOUT(reader, faulting_reads_during_overflow_lose_and_repeat_nothing, 120)
{
	struct fault_writer fw = { .w = { .fd = self->fd, .n = 10000 } };
	struct writer *w = &fw.w;
	struct rec recs[64], prev = { .type = FLAGSFIRST_EVENT_SET };
	unsigned long reads = 0, faults = 0, records = 0, overflows = 0;
	bool done = false, written = false;
	int i, n;

	fresh(w->name, "adv");
	ASSERT_EQ(0, set(self->fd, w->name, "v", 0));
	prev.seq = seq_of(self->fd, w->name);
	drain(self->wfd, self->good, 64 * 1024, recs, 64);
	clock_gettime(CLOCK_MONOTONIC, &fw.t0);
	ASSERT_EQ(0, pthread_create(&w->tid, NULL, write_loop, &fw));
	while (!done) {
		unsigned char *buf;
		size_t len;
		ssize_t got;

		switch (reads++ % 4) {
		case 0:
			buf = self->unmapped;
			len = 4096;
			break;
		case 1:
			buf = self->ro;
			len = PAGE;
			break;
		case 2:
			buf = self->straddle;
			len = 4096;
			break;
		default:
			buf = self->good;
			len = 64 * (1 + reads % 3);
		}
		got = read_nb(self->wfd, buf, len);
		if (got < 0) {
			ASSERT_TRUE(errno == EFAULT || errno == EAGAIN ||
				    (errno == EINVAL && buf == self->good))
				TH_LOG("read: %s", strerror(errno));
			faults += errno == EFAULT;
			if (errno == EFAULT)
				atomic_store(&fw.faulted, true);
			/* Empty once the writer is done: everything was read. */
			if (errno == EAGAIN && written)
				done = true;
			else if (errno == EAGAIN)
				written = pthread_tryjoin_np(w->tid, NULL) == 0;
			continue;
		}
		/* A partial read returns whole records that fit before the hole. */
		if (buf == self->straddle)
			ASSERT_GE(72, got);
		n = parse(buf, got, recs, 64);
		ASSERT_LT(0, n) TH_LOG("a malformed record");
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(follows(&prev, &recs[i]))
				TH_LOG("record %lu: seq %llu type %u after seq %llu type %u",
				       records, (unsigned long long)recs[i].seq,
				       recs[i].type, (unsigned long long)prev.seq,
				       prev.type);
			overflows += recs[i].type == FLAGSFIRST_EVENT_OVERFLOW;
			prev = recs[i];
			records++;
		}
	}
	/* The last change is the last record, or inside the last OVERFLOW's gap. */
	EXPECT_TRUE(prev.type == FLAGSFIRST_EVENT_OVERFLOW ||
		    prev.seq == seq_of(self->fd, w->name));
	EXPECT_LT(0, faults) TH_LOG("no read faulted: the test exercised nothing");
	if (atoi(variant->max_queued) < 1024)
		EXPECT_LT(0, overflows) TH_LOG("the queue never overflowed");
	printf("# %lu reads, %lu faulted, %lu records, %lu overflows\n",
	       reads, faults, records, overflows);
	del(self->fd, w->name, 0);
}

/*
 * DELETE_ALL is one change: no reader sees some of its victims gone and
 * another still there.
 */

#define ONE_CHANGE_ENTRIES	2000

struct one_change {
	int fd;
	char prefix[48];
	atomic_bool stop;
	atomic_ulong present, absent;
	unsigned long present_after_absent;
};

static void *get_backwards(void *arg)
{
	struct one_change *c = arg;
	bool seen_absent = false;
	char name[64];
	int i = 0;

	while (!atomic_load(&c->stop)) {
		/* Against the order DELETE_ALL unlinks them in. */
		snprintf(name, sizeof(name), "%s%d", c->prefix,
			 ONE_CHANGE_ENTRIES - 1 - i);
		i = (i + 97) % ONE_CHANGE_ENTRIES;
		if (exists(c->fd, name)) {
			atomic_fetch_add(&c->present, 1);
			c->present_after_absent += seen_absent;
		} else {
			atomic_fetch_add(&c->absent, 1);
			seen_absent = true;
		}
	}
	return NULL;
}

TEST(delete_all_is_one_change_for_a_concurrent_reader)
{
	struct one_change c = { .fd = open_dev() };
	struct timespec t0;
	char name[64];
	pthread_t tid;
	int i;

	ASSERT_LE(0, c.fd);
	fresh(c.prefix, "one");
	strcat(c.prefix, ".");
	/* Nothing of this uid's may be left for DELETE_ALL but these. */
	del(c.fd, "", FLAGSFIRST_DELETE_ALL);
	for (i = 0; i < ONE_CHANGE_ENTRIES; i++) {
		snprintf(name, sizeof(name), "%s%d", c.prefix, i);
		ASSERT_EQ(0, set(c.fd, name, "v", 0));
	}
	ASSERT_EQ(0, pthread_create(&tid, NULL, get_backwards, &c));
	/*
	 * DELETE_ALL once the reader has run, and the reader stopped once it
	 * has seen the deletion: on a busy host either may wait for a CPU.
	 * Bounded, so that a DELETE_ALL that deletes nothing fails in seconds.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&c.present) && ms_since(&t0) < RACE_MS)
		usleep(1000);
	EXPECT_LE(ONE_CHANGE_ENTRIES, del(c.fd, "", FLAGSFIRST_DELETE_ALL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&c.absent) && ms_since(&t0) < RACE_MS)
		usleep(1000);
	atomic_store(&c.stop, true);
	pthread_join(tid, NULL);
	EXPECT_EQ(0, c.present_after_absent)
		TH_LOG("a reader saw a victim after another was gone");
	EXPECT_LT(0, atomic_load(&c.absent))
		TH_LOG("the reader never saw the deletion");
	close(c.fd);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--count-watch-fds"))
		return count_watch_fds();
	return test_harness_run(argc, argv);
}
