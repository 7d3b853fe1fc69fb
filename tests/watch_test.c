// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, WATCH and its records: masks, flags, every op's record in order, full
 * queues and OVERFLOW, poll, epoll, blocking and non-blocking reads.
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
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "helpers.h"

/* WATCH: an fd-returning op with its own CLOEXEC and NONBLOCK */

TEST(watch_masks_with_an_unknown_bit_or_no_bit_fail_with_EINVAL)
{
	int fd = open_dev(), bit, wfd;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, watch(fd, 0, 0)) TH_LOG("an empty mask");
	for (bit = 0; bit < 64; bit++) {
		uint64_t m = 1ULL << bit;

		wfd = watch(fd, m, 0);
		if (m & FLAGSFIRST_EVENT_ALL) {
			EXPECT_LE(0, wfd) TH_LOG("mask bit %d", bit);
			close(wfd);
		} else {
			EXPECT_EQ(-EINVAL, wfd) TH_LOG("mask bit %d", bit);
		}
	}
	close(fd);
}

TEST(watch_flags_read_back_with_fcntl)
{
	int fd = open_dev(), i, wfd;

	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		uint64_t flags = (i & 1 ? FLAGSFIRST_WATCH_CLOEXEC : 0) |
				 (i & 2 ? FLAGSFIRST_WATCH_NONBLOCK : 0);

		wfd = watch(fd, FLAGSFIRST_EVENT_ALL, flags);
		ASSERT_LE(0, wfd);
		EXPECT_EQ(i & 1 ? FD_CLOEXEC : 0, fcntl(wfd, F_GETFD) & FD_CLOEXEC)
			TH_LOG("flags 0x%llx", (unsigned long long)flags);
		EXPECT_EQ(i & 2 ? O_NONBLOCK : 0, fcntl(wfd, F_GETFL) & O_NONBLOCK)
			TH_LOG("flags 0x%llx", (unsigned long long)flags);
		close(wfd);
	}
	close(fd);
}

TEST(watch_without_a_free_descriptor_fails_with_EMFILE)
{
	struct rlimit rl;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = fd + 1;	/* fd is the highest one open */
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	EXPECT_EQ(-EMFILE, watch(fd, FLAGSFIRST_EVENT_ALL, 0));
	close(fd);
}

FIXTURE(events) {
	int fd, wfd;
	unsigned char buf[64 * 1024];
	struct rec recs[64];
};

FIXTURE_SETUP(events)
{
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	self->wfd = watch(self->fd, FLAGSFIRST_EVENT_ALL,
			  FLAGSFIRST_WATCH_CLOEXEC | FLAGSFIRST_WATCH_NONBLOCK);
	ASSERT_LE(0, self->wfd);
}

FIXTURE_TEARDOWN(events)
{
	close(self->wfd);
	close(self->fd);
}

#define EXPECT_REC(r, t, n, nn) do {						\
	const struct rec *__r = &(r);						\
										\
	EXPECT_EQ(t, __r->type);						\
	EXPECT_STREQ(n, __r->name);						\
	EXPECT_STREQ(nn, __r->newname);						\
} while (0)

TEST_F(events, every_mutating_op_queues_exactly_its_record_in_order)
{
	char a[64], b[64], c[64];
	struct rec *r = self->recs;
	int i;

	fresh(a, "ev");
	fresh(b, "ev");
	fresh(c, "ev");
	ASSERT_EQ(0, set(self->fd, a, "1", 0));
	ASSERT_EQ(0, set(self->fd, a, "2", 0));
	ASSERT_EQ(0, ren(self->fd, a, b, 0));
	ASSERT_EQ(0, set(self->fd, a, "3", 0));
	ASSERT_EQ(0, ren(self->fd, a, b, FLAGSFIRST_RENAME_EXCHANGE));
	ASSERT_EQ(0, ren_legacy(self->fd, b, c));
	ASSERT_EQ(0, del(self->fd, c, 0));

	ASSERT_EQ(7, drain(self->wfd, self->buf, sizeof(self->buf), r, 64));
	EXPECT_REC(r[0], FLAGSFIRST_EVENT_SET, a, "");
	EXPECT_REC(r[1], FLAGSFIRST_EVENT_SET, a, "");
	EXPECT_REC(r[2], FLAGSFIRST_EVENT_RENAME, a, b);
	EXPECT_REC(r[3], FLAGSFIRST_EVENT_SET, a, "");
	EXPECT_REC(r[4], FLAGSFIRST_EVENT_EXCHANGE, a, b);
	EXPECT_REC(r[5], FLAGSFIRST_EVENT_RENAME, b, c);
	EXPECT_REC(r[6], FLAGSFIRST_EVENT_DELETE, c, "");
	/* braces: EXPECT_*() and its TH_LOG() are two statements */
	for (i = 1; i < 7; i++) {
		EXPECT_LT(r[i - 1].seq, r[i].seq) {
			TH_LOG("record %d", i);
		}
	}
	EXPECT_EQ(r[4].seq, seq_of(self->fd, a)) TH_LOG("EXCHANGE's seq is the entries'");
	EXPECT_EQ(-EAGAIN, drain(self->wfd, self->buf, sizeof(self->buf), r, 64));
}

TEST_F(events, delete_all_queues_one_delete_per_entry)
{
	char a[64], b[64];
	struct rec *r = self->recs;
	int n, i, seen = 0;

	del(self->fd, "", FLAGSFIRST_DELETE_ALL);
	drain(self->wfd, self->buf, sizeof(self->buf), r, 64);
	ASSERT_EQ(0, set(self->fd, fresh(a, "all"), "v", 0));
	ASSERT_EQ(0, set(self->fd, fresh(b, "all"), "v", 0));
	ASSERT_EQ(2, drain(self->wfd, self->buf, sizeof(self->buf), r, 64));
	ASSERT_EQ(2, del(self->fd, "", FLAGSFIRST_DELETE_ALL));
	n = drain(self->wfd, self->buf, sizeof(self->buf), r, 64);
	ASSERT_EQ(2, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(FLAGSFIRST_EVENT_DELETE, r[i].type);
		seen |= !strcmp(r[i].name, a) ? 1 : !strcmp(r[i].name, b) ? 2 : 4;
	}
	EXPECT_EQ(3, seen);
	EXPECT_LT(r[0].seq, r[1].seq);
}

TEST_F(events, failed_ops_queue_nothing)
{
	char a[64], b[64];
	struct rec *r = self->recs;

	ASSERT_EQ(0, set(self->fd, fresh(a, "f"), "v", 0));
	ASSERT_EQ(0, set(self->fd, fresh(b, "f"), "v", 0));
	ASSERT_EQ(2, drain(self->wfd, self->buf, sizeof(self->buf), r, 64));

	EXPECT_EQ(-EEXIST, set(self->fd, a, "v", FLAGSFIRST_SET_NOREPLACE));
	EXPECT_EQ(-ENOENT, set(self->fd, "missing", "v", FLAGSFIRST_SET_REPLACE));
	EXPECT_EQ(-EINVAL, set(self->fd, a, "v", 1ULL << 40));
	EXPECT_EQ(-EEXIST, ren(self->fd, a, b, FLAGSFIRST_RENAME_NOREPLACE));
	EXPECT_EQ(-ENOENT, ren(self->fd, "missing", b, 0));
	EXPECT_EQ(-ENOENT, del(self->fd, "missing", 0));
	EXPECT_EQ(-EINVAL, del(self->fd, a, FLAGSFIRST_DELETE_ALL));
	EXPECT_EQ(0, ren(self->fd, a, a, 0)) TH_LOG("no change, no record");
	EXPECT_EQ(-EAGAIN, drain(self->wfd, self->buf, sizeof(self->buf), r, 64));
}

TEST_F(events, a_mask_selects_the_records)
{
	char a[64];
	struct rec *r = self->recs;
	int wfd;

	wfd = watch(self->fd, FLAGSFIRST_EVENT_DELETE, FLAGSFIRST_WATCH_NONBLOCK);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(0, set(self->fd, fresh(a, "m"), "v", 0));
	ASSERT_EQ(0, del(self->fd, a, 0));
	ASSERT_EQ(1, drain(wfd, self->buf, sizeof(self->buf), r, 64));
	EXPECT_REC(r[0], FLAGSFIRST_EVENT_DELETE, a, "");
	close(wfd);
}

TEST_F(events, a_buffer_too_small_for_the_next_record_fails_with_EINVAL)
{
	char a[64];
	unsigned char small[FLAGSFIRST_EVENT_HDR_SIZE_VER0 + 8];
	struct rec *r = self->recs;
	ssize_t one;

	ASSERT_EQ(0, set(self->fd, fresh(a, "a-name-long-enough-to-need-more-room"), "v", 0));
	ASSERT_EQ(0, set(self->fd, a, "w", 0));
	EXPECT_EQ(-1, read_nb(self->wfd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	/* Room for one and a half records returns exactly one. */
	one = read_nb(self->wfd, self->buf, 1);
	EXPECT_EQ(-1, one);
	memset(self->buf, POISON, sizeof(self->buf));
	one = read_nb(self->wfd, self->buf, 24 + 40 + 24);
	ASSERT_LT(0, one);
	EXPECT_EQ(1, parse(self->buf, one, r, 64));
	EXPECT_EQ(POISON, self->buf[one]);
	EXPECT_EQ(1, drain(self->wfd, self->buf, sizeof(self->buf), r, 64))
		TH_LOG("the second record was kept");
}

/* Room to read a whole queue of max_queued_events records at once. */
struct whole_queue {
	unsigned int max;	/* max_queued_events */
	struct rec *r;
	unsigned char *buf;
	size_t len;
};

static bool whole_queue_alloc(struct whole_queue *q)
{
	char param[32];

	read_param("max_queued_events", param, sizeof(param));
	q->max = atoi(param);
	q->len = (q->max + 16) * 64;
	q->r = calloc(q->max + 16, sizeof(*q->r));
	q->buf = malloc(q->len);
	return q->r && q->buf;
}

/* Reads what the queue holds: the number of records, or -1. */
static int whole_queue_read(int wfd, struct whole_queue *q)
{
	return parse(q->buf, read_nb(wfd, q->buf, q->len), q->r, q->max + 16);
}

static void whole_queue_free(struct whole_queue *q)
{
	free(q->r);
	free(q->buf);
}

TEST_F(events, a_full_queue_keeps_the_oldest_and_queues_one_overflow)
{
	uint64_t first_dropped = 0;
	struct whole_queue q;
	unsigned int i;
	char a[64];

	ASSERT_EQ(true, whole_queue_alloc(&q));
	ASSERT_LT(0, q.max);
	ASSERT_GE(4096, q.max) TH_LOG("the test reads the whole queue at once");
	fresh(a, "of");
	for (i = 0; i < q.max + 10; i++) {
		ASSERT_EQ(0, set(self->fd, a, "v", 0));
		if (i == q.max)
			first_dropped = seq_of(self->fd, a);
	}
	ASSERT_EQ(q.max + 1, whole_queue_read(self->wfd, &q));
	EXPECT_EQ(FLAGSFIRST_EVENT_SET, q.r[q.max - 1].type);
	EXPECT_EQ(FLAGSFIRST_EVENT_OVERFLOW, q.r[q.max].type);
	EXPECT_EQ(first_dropped, q.r[q.max].seq) TH_LOG("the first change dropped");
	EXPECT_STREQ("", q.r[q.max].name);
	/* Read, the queue takes records again. */
	ASSERT_EQ(0, set(self->fd, a, "v", 0));
	EXPECT_EQ(1, drain(self->wfd, self->buf, sizeof(self->buf), self->recs, 64));
	EXPECT_EQ(FLAGSFIRST_EVENT_SET, self->recs[0].type);
	whole_queue_free(&q);
}

/*
 * Once a queue has overflowed it takes nothing more, even when the reader
 * has made room, until its OVERFLOW record is read: a record queued after
 * the gap would make the loss look smaller than it was.
 */
TEST_F(events, an_overflowed_queue_takes_nothing_until_its_overflow_is_read)
{
	struct whole_queue q;
	unsigned int i;
	uint64_t last;
	size_t one;
	char a[64];

	ASSERT_EQ(true, whole_queue_alloc(&q));
	ASSERT_LT(1, q.max);
	ASSERT_GE(4096, q.max) TH_LOG("the test reads the whole queue at once");
	fresh(a, "gap");
	one = (sizeof(struct flagsfirst_event) + strlen(a) + 1 + 7) / 8 * 8;
	ASSERT_GE(64, one);
	for (i = 0; i < q.max + 1; i++)
		ASSERT_EQ(0, set(self->fd, a, "v", 0));
	/* One record read: room for one, but the OVERFLOW is still queued. */
	ASSERT_EQ((ssize_t)one, read_nb(self->wfd, q.buf, one));
	ASSERT_EQ(0, set(self->fd, a, "v", 0));
	ASSERT_EQ(q.max, whole_queue_read(self->wfd, &q))
		TH_LOG("a record was queued after the gap");
	EXPECT_EQ(FLAGSFIRST_EVENT_SET, q.r[q.max - 2].type);
	EXPECT_EQ(FLAGSFIRST_EVENT_OVERFLOW, q.r[q.max - 1].type);
	/* The OVERFLOW read, the next change is queued again. */
	ASSERT_EQ(0, set(self->fd, a, "v", 0));
	last = seq_of(self->fd, a);
	EXPECT_EQ(1, drain(self->wfd, self->buf, sizeof(self->buf), self->recs, 64));
	EXPECT_EQ(FLAGSFIRST_EVENT_SET, self->recs[0].type);
	EXPECT_EQ(last, self->recs[0].seq);
	whole_queue_free(&q);
}

static atomic_int alarm_handled;	/* lock-free: safe in a handler */

static void on_alarm(int sig)
{
	(void)sig;
	alarm_handled++;
}

static void arm(bool restart, int ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = {
		.it_value = { ms / 1000, ms % 1000 * 1000 },
	};

	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGALRM, &sa, NULL);
	if (ms)
		setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * A thread that acts once the main thread sleeps in the kernel: it SETs
 * @name (waking a poll, epoll_wait or read), or with @signal first sends
 * SIGALRM and waits for the handler and for the main thread to sleep
 * again.  @slept says it saw the main thread asleep, so the wake-up the
 * test names really happened; a test that raced past it proves nothing.
 */
struct when_asleep {
	pthread_t tid;
	pid_t main;
	bool signal, slept;
	char name[64];
};

static bool sleeping(pid_t tid);

static bool wait_asleep(pid_t tid)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (sleeping(tid))
			return true;
		usleep(500);
	}
	return false;
}

static void *act_when_asleep(void *arg)
{
	struct when_asleep *w = arg;
	int fd = open_dev();

	w->slept = wait_asleep(w->main);
	if (w->signal) {
		syscall(SYS_tgkill, getpid(), w->main, SIGALRM);
		while (!alarm_handled)
			usleep(500);
		w->slept &= wait_asleep(w->main);
	}
	set(fd, w->name, "woken", 0);
	close(fd);
	return NULL;
}

TEST_F(events, poll_reports_readability_and_wakes_up)
{
	struct pollfd pfd = { .fd = self->wfd, .events = POLLIN };
	struct when_asleep w = { .main = syscall(SYS_gettid) };

	EXPECT_EQ(0, poll(&pfd, 1, 0)) TH_LOG("an empty queue is not readable");
	fresh(w.name, "poll");
	ASSERT_EQ(0, pthread_create(&w.tid, NULL, act_when_asleep, &w));
	EXPECT_EQ(1, poll(&pfd, 1, 20000));
	pthread_join(w.tid, NULL);
	EXPECT_EQ(true, w.slept) TH_LOG("the SET came before poll() slept: no wake-up tested");
	EXPECT_EQ(POLLIN, pfd.revents & POLLIN);
	EXPECT_EQ(1, drain(self->wfd, self->buf, sizeof(self->buf), self->recs, 64));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

TEST_F(events, epoll_wakes_up_on_a_change)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct when_asleep w = { .main = syscall(SYS_gettid) };
	int ep;

	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->wfd, &ev));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	fresh(w.name, "epoll");
	ASSERT_EQ(0, pthread_create(&w.tid, NULL, act_when_asleep, &w));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 20000));
	pthread_join(w.tid, NULL);
	EXPECT_EQ(true, w.slept) TH_LOG("the SET came before epoll_wait() slept");
	EXPECT_EQ(EPOLLIN, out.events & EPOLLIN);
	close(ep);
}

TEST_F(events, nonblocking_read_of_an_empty_queue_fails_with_EAGAIN)
{
	struct itimerval off = { 0 };
	ssize_t got;
	int err;

	arm(false, 2000);	/* a read that blocks ends in EINTR */
	got = read(self->wfd, self->buf, sizeof(self->buf));
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	EXPECT_EQ(-1, got);
	EXPECT_EQ(EAGAIN, err);
}

TEST_F(events, a_blocking_read_is_interrupted_by_a_signal)
{
	int wfd = watch(self->fd, FLAGSFIRST_EVENT_ALL, 0);

	ASSERT_LE(0, wfd);
	arm(false, 100);
	EXPECT_EQ(-1, read(wfd, self->buf, sizeof(self->buf)));
	EXPECT_EQ(EINTR, errno);
	close(wfd);
}

TEST_F(events, a_blocking_read_restarts_after_an_sa_restart_signal)
{
	struct when_asleep w = { .main = syscall(SYS_gettid), .signal = true };
	int wfd = watch(self->fd, FLAGSFIRST_EVENT_ALL, 0);
	ssize_t got;

	ASSERT_LE(0, wfd);
	arm(true, 0);	/* the handler, with SA_RESTART; no timer */
	alarm_handled = 0;
	fresh(w.name, "restart");
	ASSERT_EQ(0, pthread_create(&w.tid, NULL, act_when_asleep, &w));
	got = read(wfd, self->buf, sizeof(self->buf));
	pthread_join(w.tid, NULL);
	/* The read slept, took the signal, slept again, and then got a record. */
	EXPECT_EQ(true, w.slept);
	EXPECT_EQ(1, alarm_handled) TH_LOG("the signal came, and was handled once");
	EXPECT_EQ(1, parse(self->buf, got, self->recs, 64))
		TH_LOG("the read was restarted, not failed (got %zd)", got);
	close(wfd);
}

TEST(a_watch_fd_pins_the_module)
{
	int fd = open_dev(), wfd;

	ASSERT_LE(0, fd);
	if (!is_root())
		SKIP(return, "needs CAP_SYS_MODULE");
	wfd = watch(fd, FLAGSFIRST_EVENT_ALL, FLAGSFIRST_WATCH_CLOEXEC);
	ASSERT_LE(0, wfd);
	close(fd);	/* only the watch fd holds the module now */
	EXPECT_EQ(-1, syscall(__NR_delete_module, "flagsfirst", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(wfd);
}

/* Resource exhaustion: WATCH at the fd and per-uid limits while SETs run. */

/* Active objects in the kmalloc caches that hold watch records. */
static long record_slabs(void)
{
	char line[256], name[64];
	long total = 0, active;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &active) == 2 &&
		    (!strncmp(name, "kmalloc-cg-", 11) || !strncmp(name, "kmalloc-", 8)))
			total += active;
	fclose(f);
	return total;
}

TEST_F_TIMEOUT(events, failed_watches_at_the_fd_limit_leave_nothing_behind, 120)
{
	struct writer w = { .fd = self->fd };
	long slabs_before, records_left;
	struct rlimit rl, saved;
	int i, emfile = 0, tries = 20000;

	/*
	 * 20000 failures make a leak of one object each stand out in the
	 * slab counts; a debug kernel (20-40 times slower) has kmemleak,
	 * which finds a single one, and gets a tenth of the calls
	 */
	if (!access("/sys/kernel/debug/kmemleak", F_OK))
		tries = 2000;
	fresh(w.name, "exhaust");
	close(self->wfd);
	self->wfd = open_dev();	/* the teardown closes it */
	slabs_before = record_slabs();
	ASSERT_EQ(0, pthread_create(&w.tid, NULL, set_until, &w));
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &saved));
	rl = saved;
	rl.rlim_cur = self->wfd + 1;	/* the highest fd open */
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	for (i = 0; i < tries; i++)
		emfile += watch(self->fd, FLAGSFIRST_EVENT_ALL, 0) == -EMFILE;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &saved));
	__atomic_store_n(&w.n, 1, __ATOMIC_RELAXED);
	pthread_join(w.tid, NULL);
	EXPECT_EQ(tries, emfile);
	del(self->fd, w.name, 0);
	if (!is_root())
		return;
	records_left = read_stat("records");
	/*
	 * On a debug kernel KASAN's quarantine holds freed objects: kmemleak
	 * checks that tier instead of the slab counts.
	 */
	if (!access("/sys/kernel/debug/kmemleak", F_OK))
		slabs_before = -1;
	EXPECT_EQ(0, records_left) TH_LOG("records queued on watch fds that never existed");
	/*
	 * Allow what the rest of the system allocated meanwhile, and give
	 * RCU a few seconds to free the entries the writer replaced.
	 */
	for (i = 0; slabs_before >= 0 && i < 50 &&
	     record_slabs() >= slabs_before + 2000; i++)
		usleep(100000);
	if (slabs_before >= 0) {
		EXPECT_GT(slabs_before + 2000, record_slabs())
			TH_LOG("%ld kmalloc objects more than before",
			       record_slabs() - slabs_before);
	}
}

/* A non-blocking read never waits behind a blocked reader. */

struct blocked {
	int wfd;
	ssize_t got;
	pid_t tid;
	unsigned char buf[4096];
};

static void *blocking_read(void *arg)
{
	struct blocked *b = arg;

	b->tid = syscall(SYS_gettid);
	b->got = read(b->wfd, b->buf, sizeof(b->buf));
	return NULL;
}

/* Whether thread @tid of this process sleeps. */
static bool sleeping(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	return state_of(path) == 'S';
}

TEST_F(events, a_nonblocking_read_does_not_wait_behind_a_blocked_reader)
{
	struct blocked b = { .wfd = watch(self->fd, FLAGSFIRST_EVENT_ALL, 0) };
	pthread_t tid;
	char a[64];
	int i;

	ASSERT_LE(0, b.wfd);
	ASSERT_EQ(0, pthread_create(&tid, NULL, blocking_read, &b));
	for (i = 0; i < 2000 && !(b.tid && sleeping(b.tid)); i++)
		usleep(1000);
	ASSERT_EQ(true, sleeping(b.tid)) TH_LOG("the first reader never blocked");
	ASSERT_EQ(0, fcntl(b.wfd, F_SETFL, O_NONBLOCK));
	alarm(10);	/* with the bug, this read would wait until a signal */
	EXPECT_EQ(-1, read(b.wfd, self->buf, sizeof(self->buf)));
	EXPECT_EQ(EAGAIN, errno);
	alarm(0);
	/*
	 * It did not wait for the first reader: that one is still blocked
	 * (no record has come).  Structure, not time: a busy host may stop
	 * this thread for as long as it likes.
	 */
	EXPECT_EQ(true, sleeping(b.tid)) TH_LOG("the first reader is no longer blocked");
	/* A record wakes the first reader. */
	ASSERT_EQ(0, set(self->fd, fresh(a, "wake"), "v", 0));
	pthread_join(tid, NULL);
	EXPECT_LT(0, b.got);
	close(b.wfd);
}

/*
 * A reader whose buffer faults holds the queue while its copy waits for
 * the page; userfaultfd keeps it there for as long as the test likes.  A
 * non-blocking read meanwhile must not wait for it either: it returns
 * while the fault is still unserved.  Should it wait, a timer ends it
 * with EINTR after 5 s, and the resolver serves the fault after 10 s, so
 * the test fails rather than hangs.
 */
struct stuck {
	int wfd, uffd;
	void *page;
	size_t page_size;
	ssize_t got;
	atomic_int done;	/* the fault was served */
};

static void *read_into_the_stuck_page(void *arg)
{
	struct stuck *st = arg;

	st->got = read(st->wfd, st->page, st->page_size);
	return NULL;
}

static void serve_the_fault(struct stuck *st)
{
	static char zeros[65536];
	struct uffdio_copy copy = {
		.dst = (uintptr_t)st->page, .src = (uintptr_t)zeros,
		.len = st->page_size,
	};

	if (!atomic_exchange(&st->done, 1))
		ioctl(st->uffd, UFFDIO_COPY, &copy);
}

static void *serve_the_fault_after_10_s(void *arg)
{
	struct stuck *st = arg;
	int i;

	for (i = 0; i < 1000 && !atomic_load(&st->done); i++)
		usleep(10000);
	serve_the_fault(st);
	return NULL;
}

TEST_F(events, a_nonblocking_read_does_not_wait_behind_a_reader_inside_its_copy)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct stuck st = { .wfd = self->wfd };
	struct itimerval off = { 0 };
	struct pollfd pfd;
	struct uffd_msg msg;
	pthread_t reader, resolver;
	ssize_t got;
	char a[64];
	int err;

	st.page_size = sysconf(_SC_PAGESIZE);
	ASSERT_GE(65536, st.page_size);
	st.uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (st.uffd < 0)
		SKIP(return, "no userfaultfd that serves the kernel's faults here (%s)",
		     strerror(errno));
	ASSERT_EQ(0, ioctl(st.uffd, UFFDIO_API, &api));
	st.page = mmap(NULL, st.page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st.page);
	reg.range.start = (uintptr_t)st.page;
	reg.range.len = st.page_size;
	ASSERT_EQ(0, ioctl(st.uffd, UFFDIO_REGISTER, &reg));

	ASSERT_EQ(0, set(self->fd, fresh(a, "stuck"), "v", 0));
	ASSERT_EQ(0, pthread_create(&reader, NULL, read_into_the_stuck_page, &st));
	/* The reader is inside its copy, with the record, once its fault shows. */
	pfd = (struct pollfd){ .fd = st.uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 20000)) TH_LOG("the reader's copy never faulted");
	ASSERT_EQ((ssize_t)sizeof(msg), read(st.uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	ASSERT_EQ(0, pthread_create(&resolver, NULL, serve_the_fault_after_10_s, &st));

	arm(false, 5000);	/* a read that blocks ends in EINTR */
	got = read(self->wfd, self->buf, sizeof(self->buf));
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	EXPECT_EQ(-1, got);
	EXPECT_EQ(EAGAIN, err);
	/* Structure, not time: the stuck reader's fault is still unserved. */
	EXPECT_EQ(0, atomic_load(&st.done)) TH_LOG("the read waited for the fault to be served");
	serve_the_fault(&st);
	pthread_join(resolver, NULL);
	pthread_join(reader, NULL);
	/* The stuck reader got its record once the page came. */
	EXPECT_LT(0, st.got);
	EXPECT_EQ(FLAGSFIRST_EVENT_SET, ((struct flagsfirst_event *)st.page)->type);
	munmap(st.page, st.page_size);
	close(st.uffd);
}

TEST_HARNESS_MAIN
