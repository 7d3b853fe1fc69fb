// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, memory cgroups: who pays for a watch's records, and a watcher whose
 * cgroup is full never makes another writer wait.
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

/* The count @event of @cg's memory.events, or -1. */
static long cg_event(const char *cg, const char *event)
{
	char buf[2 * CG_PATH];

	return read_key(cg_file(buf, cg, "memory.events"), event);
}

/*
 * How long, in us, tasks of @cg stalled on memory (PSI's "some" total: the
 * time in reclaim, for one), or -1 without PSI.
 */
static long cg_stalled_us(const char *cg)
{
	char buf[2 * CG_PATH], line[128];
	long total = -1;
	FILE *f = fopen(cg_file(buf, cg, "memory.pressure"), "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "some ", 5) && strstr(line, "total="))
			total = atol(strstr(line, "total=") + 6);
	fclose(f);
	return total;
}

/* Holds as many watch fds as uid 65534 may, unread, until @stop is read. */
static pid_t hold_watches(const char *cg, int ready, int stop)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd, n = 0, err = 0;
		char c;

		/* Never outlive the test, holding fds every SET queues on. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (cg_enter(cg) || setgroups(0, NULL) ||
		    setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(1);
		fd = open_dev();
		while (fd >= 0 && !err && n < 100000) {
			int wfd = watch(fd, FLAGSFIRST_EVENT_ALL, 0);

			if (wfd < 0)
				err = wfd;
			else
				n++;
		}
		if (err != -EMFILE)
			n = -1;
		if (write(ready, &n, sizeof(n)) != sizeof(n))
			_exit(1);
		if (read(stop, &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	return pid;
}

/* The tests that make memory cgroups, with room for a debug kernel. */
FIXTURE(memcg) {
	int unused;
};

FIXTURE_SETUP(memcg)
{
	if (!have_memcg())
		SKIP(return, "needs root and the memory controller");
}

FIXTURE_TEARDOWN(memcg)
{
}

/* A debug kernel takes minutes to queue 128,000 records. */
TEST_F_TIMEOUT(memcg, watch_records_are_charged_to_the_watcher_not_to_the_writer, 600)
{
	char wcg[CG_PATH], scg[CG_PATH], buf[2 * CG_PATH], per_uid[32];
	int ready[2], stop[2], n = 0, status;
	long watcher_before, grown;
	pid_t pid;

	ASSERT_EQ(0, cg_make(wcg, "watcher"));
	ASSERT_EQ(0, cg_make(scg, "writer"));
	ASSERT_EQ(0, write_file(cg_file(buf, scg, "memory.max"), "33554432"));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(stop));
	pid = hold_watches(wcg, ready[1], stop[0]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(sizeof(n), read(ready[0], &n, sizeof(n)));
	read_param("max_watches_per_uid", per_uid, sizeof(per_uid));
	EXPECT_EQ(atoi(per_uid), n) TH_LOG("then EMFILE: max_watches_per_uid");
	watcher_before = cg_current(wcg);

	/* Every SET queues a 64-byte record on each of the n fds nobody reads. */
	grown = grow_by_sets(scg, 1000, 8, "memcg.");
	EXPECT_LE(0, grown) TH_LOG("the writer's SETs failed in its 32 MiB (%ld)", grown);
	TH_LOG("writer's cgroup grew %ld bytes, the watcher's %ld", grown,
	       cg_current(wcg) - watcher_before);
	EXPECT_GT(2 * 1024 * 1024, grown) TH_LOG("the writer paid for the records");
	EXPECT_LT(n * 1000L * 48, cg_current(wcg) - watcher_before)
		TH_LOG("the watcher's cgroup holds its records");

	ASSERT_EQ(1, write(stop[1], "x", 1));
	waitpid(pid, &status, 0);
	del(open_dev(), "", FLAGSFIRST_DELETE_ALL);
	rmdir(wcg);
	rmdir(scg);
}

/* What a writer saw of its SETs while the hostile uid was at work. */
struct writer_lat {
	int fd;
	atomic_bool stop;
	unsigned long sets, failed;
	uint64_t worst_ns;
};

static void *time_sets(void *arg)
{
	struct writer_lat *w = arg;
	char name[64];

	fresh(name, "lat");
	while (!atomic_load(&w->stop)) {
		uint64_t t0 = now_ns(), t;

		w->failed += set(w->fd, name, "v", 0) != 0;
		t = now_ns() - t0;
		if (t > w->worst_ns)
			w->worst_ns = t;
		w->sets++;
	}
	return NULL;
}

#define HOSTILE_WATCHES	64
#define HOSTILE_FILLERS	16	/* 16 x 1024 records: more than 2 CPUs' charge stock */
#define HOSTILE_ENTRIES	60

/* What the hostile uid reports once its DELETE_ALL returned. */
struct hostile_report {
	long deleted;
	uint64_t took_ns;
	unsigned long overflows;	/* OVERFLOW records the readers read */
	unsigned long silent;		/* readers short of a DELETE, no OVERFLOW */
	unsigned long fillers_told;	/* unread watches with their OVERFLOW */
};

struct hostile_reader {
	pthread_t tid;
	int wfds[HOSTILE_WATCHES];
	atomic_bool stop;
	/* the reader thread's, then the child's once it joined */
	unsigned long deletes[HOSTILE_WATCHES];
	bool overflowed[HOSTILE_WATCHES];
};

/* Faulted in before the cgroup is full, as everything the child touches. */
static unsigned char hostile_buf[8192];

/*
 * Reads what is queued on @wfd; counts its DELETE records of "hostile.*"
 * in @deletes and says in @overflowed whether it read an OVERFLOW record.
 */
static void drain_watch(int wfd, unsigned long *deletes, bool *overflowed)
{
	static const char prefix[] = "hostile.";
	ssize_t got;
	int reads = 64;		/* more than a queue holds: writers still write */

	while (reads-- &&
	       (got = read_nb(wfd, hostile_buf, sizeof(hostile_buf))) > 0) {
		ssize_t off = 0;
		struct flagsfirst_event ev;

		while (off + (ssize_t)sizeof(ev) <= got) {
			memcpy(&ev, hostile_buf + off, sizeof(ev));
			if (ev.type == FLAGSFIRST_EVENT_OVERFLOW)
				*overflowed = true;
			if (ev.type == FLAGSFIRST_EVENT_DELETE &&
			    ev.name_len >= sizeof(prefix) - 1 &&
			    !memcmp(hostile_buf + off + ev.hdr_size, prefix,
				    sizeof(prefix) - 1))
				(*deletes)++;
			if (!ev.size)
				return;
			off += ev.size;
		}
	}
}

/* Re-arms the watchers: an OVERFLOW record read lets the next one queue. */
static void *read_watches(void *arg)
{
	struct hostile_reader *r = arg;

	do {
		int i;

		for (i = 0; i < HOSTILE_WATCHES; i++)
			drain_watch(r->wfds[i], &r->deletes[i], &r->overflowed[i]);
		usleep(200);
	} while (!atomic_load(&r->stop));
	return NULL;
}

/*
 * uid 65534 in cgroup @cg: entries and watch fds of DELETEs of its own and
 * a thread reading them, all in memory before the parent limits the cgroup
 * (told on @ready), so that nothing it touches later needs a page; and
 * watch fds of everything it never reads, whose records of the parent's
 * SETs fill what room the limit leaves (they cannot make the OOM killer
 * run).  On @go it deletes its entries, says how long that took in @rep
 * (shared memory: a pipe would need a page) and exits.
 */
static pid_t hostile_watcher(const char *cg, int ready, int go,
			     struct hostile_report *rep)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	static struct hostile_reader r;
	int fillers[HOSTILE_FILLERS];
	pid_t pid = fork();
	char name[32], c;
	int fd, i;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) || setrlimit(RLIMIT_MEMLOCK, &unlimited) ||
	    become(NOBODY))
		_exit(1);
	fd = open_dev();
	if (fd < 0)
		_exit(2);
	for (i = 0; i < HOSTILE_ENTRIES; i++) {
		snprintf(name, sizeof(name), "hostile.%d", i);
		if (set(fd, name, "v", 0))
			_exit(3);
	}
	for (i = 0; i < HOSTILE_WATCHES; i++) {
		r.wfds[i] = watch(fd, FLAGSFIRST_EVENT_DELETE, FLAGSFIRST_WATCH_NONBLOCK);
		if (r.wfds[i] < 0)
			_exit(4);
	}
	for (i = 0; i < HOSTILE_FILLERS; i++) {
		fillers[i] = watch(fd, FLAGSFIRST_EVENT_ALL, FLAGSFIRST_WATCH_NONBLOCK);
		if (fillers[i] < 0)
			_exit(4);
	}
	memset(hostile_buf, 0, sizeof(hostile_buf));
	if (pthread_create(&r.tid, NULL, read_watches, &r) ||
	    mlockall(MCL_CURRENT | MCL_FUTURE))
		_exit(5);
	usleep(100000);		/* the reader has run: its stack is in */
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(6);
	rep->took_ns = now_ns();
	rep->deleted = del(fd, "", FLAGSFIRST_DELETE_ALL);
	rep->took_ns = now_ns() - rep->took_ns;
	usleep(100000);
	atomic_store(&r.stop, true);
	pthread_join(r.tid, NULL);
	for (i = 0; i < HOSTILE_WATCHES; i++) {
		drain_watch(r.wfds[i], &r.deletes[i], &r.overflowed[i]);
		rep->overflows += r.overflowed[i];
		rep->silent += !r.overflowed[i] && r.deletes[i] != HOSTILE_ENTRIES;
	}
	for (i = 0; i < HOSTILE_FILLERS; i++) {
		unsigned long deletes = 0;
		bool told = false;

		drain_watch(fillers[i], &deletes, &told);
		rep->fillers_told += told;
	}
	_exit(0);
}

/* @uid, in cgroup @cg, timing its SETs until @stop can be read; reports on @out. */
static pid_t timed_writer(uid_t uid, const char *cg, int stop, int out)
{
	struct writer_lat w = { 0 };
	pid_t pid = fork();
	pthread_t tid;
	char c;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) || (uid && become(uid)))
		_exit(1);
	w.fd = open_dev();
	if (w.fd < 0 || pthread_create(&tid, NULL, time_sets, &w))
		_exit(2);
	if (read(stop, &c, 1) != 1)
		_exit(3);
	atomic_store(&w.stop, true);
	pthread_join(tid, NULL);
	_exit(write(out, &w, sizeof(w)) == sizeof(w) ? 0 : 4);
}

/*
 * Records for a watcher whose memory cgroup is full cannot be charged.
 * Before, each one was tried with reclaim (16 rounds) under the table's
 * lock, from whichever writer made the change: uid 65534's DELETE_ALL of
 * 60 entries held the lock 4-5 s with 64 such watchers, and every other
 * uid's SET waited as long.  How long reclaim takes depends on what the
 * cgroup holds (here, little to scan); that it happened does not: the
 * writers' own cgroup counts the time they stalled on memory (PSI), and
 * they have all the room they want there.
 */
/* Stalls of a writer's own, not reclaim for the watchers: well under this. */
#define STALL_BOUND_US	20000

/* One round of uid 65534's DELETE_ALL with other uids writing, as measured. */
struct watcher_round {
	struct hostile_report rep;
	struct writer_lat lat[2];
	long stalled;		/* the writers' memory stalls (us), or -1 */
	long filled;		/* SETs until a record could not be charged */
	long ooms;
	int status;		/* uid 65534's */
};

/*
 * Limits @cg to what it holds plus 16 KiB.  What it holds is read once the
 * CPUs' charge stock is back in the counter: memory.high below the usage
 * drains it (memory.max would call the OOM killer when nothing else can
 * be reclaimed); a stock left in place, up to 64 pages a CPU, would take
 * charges past the limit.
 */
static int cg_limit_to_current(const char *cg)
{
	char buf[2 * CG_PATH], max[32];

	if (write_file(cg_file(buf, cg, "memory.high"), "0") ||
	    write_file(cg_file(buf, cg, "memory.high"), "max"))
		return -1;
	usleep(100000);		/* other CPUs drain theirs from a work item */
	snprintf(max, sizeof(max), "%ld", cg_current(cg) + 16384);
	return write_file(cg_file(buf, cg, "memory.max"), max);
}

/*
 * SETs of root's until one queues fewer records than uid 65534 has fillers
 * (each filler's queue holds 1024): the number of SETs that took, or -1.
 */
static long fill_watchers(int fd)
{
	char name[32];
	long i;

	for (i = 0; i < 1000; i++) {
		long before = read_stat("records");

		snprintf(name, sizeof(name), "fill.%ld", i);
		if (before < 0 || set(fd, name, "v", 0))
			return -1;
		if (read_stat("records") - before < HOSTILE_FILLERS)
			return i + 1;
	}
	return -1;
}

/*
 * uid 65534's watchers in a cgroup of their own, if @full limited to what
 * they hold and filled by root's SETs, and root and uid 65533 writing from
 * another cgroup while it deletes its entries.
 */
static int watcher_round(int fd, bool full, struct watcher_round *r)
{
	int ready[2], go[2], stop[2], out[2], i, err = -1;
	char cg[CG_PATH], wcg[CG_PATH];
	struct hostile_report *rep;
	pid_t hostile, writers[2];
	char c;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED || cg_make(cg, "full") || cg_make(wcg, "writers") ||
	    pipe(ready) || pipe(go) || pipe(stop) || pipe(out))
		return -1;
	memset(rep, 0, sizeof(*rep));
	hostile = hostile_watcher(cg, ready[1], go[0], rep);
	close(ready[1]);
	if (hostile < 0 || read(ready[0], &c, 1) != 1)
		goto out;
	if (full && cg_limit_to_current(cg))
		goto out;
	r->filled = full ? fill_watchers(fd) : 0;
	r->stalled = cg_stalled_us(wcg);
	writers[0] = timed_writer(0, wcg, stop[0], out[1]);
	writers[1] = timed_writer(NOBODY - 1, wcg, stop[0], out[1]);
	if (writers[0] < 0 || writers[1] < 0)
		goto out;
	usleep(500000);
	if (write(go[1], "g", 1) != 1 || waitpid(hostile, &r->status, 0) != hostile)
		goto out;
	r->ooms = cg_event(cg, "oom");
	usleep(200000);
	if (write(stop[1], "ss", 2) != 2)
		goto out;
	for (i = 0; i < 2; i++) {
		if (read(out[0], &r->lat[i], sizeof(r->lat[i])) != sizeof(r->lat[i]))
			goto out;
		waitpid(writers[i], NULL, 0);
	}
	if (r->stalled >= 0)
		r->stalled = cg_stalled_us(wcg) - r->stalled;
	r->rep = *rep;
	err = 0;
out:
	close(ready[0]);
	close(go[0]);
	close(go[1]);
	close(stop[0]);
	close(stop[1]);
	close(out[0]);
	close(out[1]);
	munmap(rep, sizeof(*rep));
	rmdir(cg);
	rmdir(wcg);
	return err;
}

TEST_F_TIMEOUT(memcg, watchers_in_a_full_cgroup_never_make_other_writers_wait, 300)
{
	struct watcher_round room = { 0 }, full = { 0 };
	uint64_t bound = 1000000000ULL;
	int fd = open_dev(), i;

	ASSERT_LE(0, fd);
	/* What a DELETE_ALL notifying 64 watchers costs here (a debug kernel: seconds) */
	ASSERT_EQ(0, watcher_round(fd, false, &room));
	del(fd, "", FLAGSFIRST_DELETE_ALL);
	ASSERT_EQ(0, watcher_round(fd, true, &full));
	del(fd, "", FLAGSFIRST_DELETE_ALL);
	close(fd);
	if (bound < 4 * room.rep.took_ns)
		bound = 4 * room.rep.took_ns;

	TH_LOG("uid 65534's DELETE_ALL: %llu ms with room, %llu ms full",
	       (unsigned long long)room.rep.took_ns / 1000000,
	       (unsigned long long)full.rep.took_ns / 1000000);
	TH_LOG("the watchers' cgroup was full after %ld SETs", full.filled);
	EXPECT_LT(0, full.filled) TH_LOG("every record was charged: no test");
	EXPECT_EQ(true, WIFEXITED(full.status) && !WEXITSTATUS(full.status))
		TH_LOG("uid 65534 died (status %#x)", full.status);
	EXPECT_EQ(HOSTILE_ENTRIES, full.rep.deleted);
	EXPECT_GT(bound, full.rep.took_ns) TH_LOG("the lock was held that long");
	for (i = 0; i < 2; i++) {
		TH_LOG("the longest of %lu SETs meanwhile: %llu ms", full.lat[i].sets,
		       (unsigned long long)full.lat[i].worst_ns / 1000000);
		EXPECT_GT(bound, full.lat[i].worst_ns) TH_LOG("a writer waited");
		EXPECT_EQ(0, full.lat[i].failed);
	}
	/*
	 * Reclaim for the watcher under the table's lock stalled the writers
	 * for seconds; what is left is a page fault that met the VM's own
	 * pressure outside the lock (211 us once, in one run of 16 on 7.2).
	 */
	TH_LOG("the writers stalled on memory for %ld us", full.stalled);
	if (full.stalled >= 0)
		EXPECT_GT(STALL_BOUND_US, full.stalled)
			TH_LOG("a writer reclaimed for the watcher");
	EXPECT_EQ(0, full.ooms) TH_LOG("the OOM killer ran in the watcher's cgroup");
	/*
	 * A record that could not be charged is lost; its watcher must be
	 * told.  Each reader got all of uid 65534's DELETEs or an OVERFLOW,
	 * and each watch nobody read, full, has its OVERFLOW.  (The cgroup's
	 * "max" events do not tell: GFP_NOWAIT fails without counting one.)
	 */
	TH_LOG("%lu readers told of a loss", full.rep.overflows);
	EXPECT_EQ(0, room.rep.silent) TH_LOG("a reader lost records, with room");
	EXPECT_EQ(0, full.rep.silent) TH_LOG("a reader lost records untold");
	EXPECT_EQ(HOSTILE_FILLERS, full.rep.fillers_told)
		TH_LOG("an unread watch was not told");
}

TEST_HARNESS_MAIN
