// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, what one caller can make the others wait for: a GET during a long
 * DELETE_ALL, a writer queued for the table (SIGKILL ends its wait), and a
 * FIFO task on the CPU of a walk that takes nothing.
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
#include "limits_fixture.h"

/* Latency: a GET never waits for most of a long DELETE_ALL. */

struct getter {
	pthread_t tid;
	int fd;
	const char *name;
	atomic_bool stop;
	atomic_ulong gets;
	uint64_t worst_ns;
};

static void *get_loop(void *arg)
{
	struct getter *g = arg;
	struct flagsfirst_get out;
	char buf[64];

	while (!atomic_load(&g->stop)) {
		uint64_t t0 = now_ns(), t;

		get(g->fd, g->name, buf, sizeof(buf), &out);
		t = now_ns() - t0;
		if (t > g->worst_ns)
			g->worst_ns = t;
		atomic_fetch_add(&g->gets, 1);
	}
	return NULL;
}

#define LATENCY_ENTRIES	65536

TEST_F_TIMEOUT(limits, the_longest_get_during_a_65536_entry_delete_all_is_short, 600)
{
	struct getter g = { .fd = self->fd, .name = "latency.0" };
	uint64_t t0, took;
	char name[32];
	long deleted;
	int i;

	for (i = 0; i < LATENCY_ENTRIES; i++) {
		snprintf(name, sizeof(name), "latency.%d", i);
		ASSERT_EQ(0, set(self->fd, name, "v", 0)) TH_LOG("entry %d", i);
	}
	ASSERT_EQ(0, pthread_create(&g.tid, NULL, get_loop, &g));
	while (atomic_load(&g.gets) < 1000)
		usleep(1000);
	g.worst_ns = 0;
	t0 = now_ns();
	deleted = del(self->fd, "", FLAGSFIRST_DELETE_ALL);
	took = now_ns() - t0;
	usleep(10000);
	atomic_store(&g.stop, true);
	pthread_join(g.tid, NULL);
	EXPECT_LE(LATENCY_ENTRIES, deleted);
	printf("# DELETE_ALL of %ld entries took %llu us; the longest GET meanwhile %llu us\n",
	       deleted, (unsigned long long)took / 1000,
	       (unsigned long long)g.worst_ns / 1000);
	/* Before, GETs spun for the whole removal: about half of the call. */
	EXPECT_GT(took / 8, g.worst_ns) TH_LOG("a GET waited for DELETE_ALL");
}

/* A table of @n root-owned entries named @prefix.N; 0 or the failing SET's errno. */
static int fill_table(int fd, const char *prefix, int from, int n)
{
	char name[64];
	int i, err;

	for (i = from; i < n; i++) {
		snprintf(name, sizeof(name), "%s.%d", prefix, i);
		err = set(fd, name, "v", 0);
		if (err)
			return err;
	}
	return 0;
}

/* How long a DELETE_ALL takes that finds nothing of uid 65533's to take. */
static uint64_t empty_walk_ns(int cpu)
{
	int pipefd[2], status;
	uint64_t took = 0;
	pid_t pid;

	if (pipe(pipefd))
		return 0;
	pid = fork();
	if (pid == 0) {
		cpu_set_t set;
		int fd;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) || become(NOBODY - 1))
			_exit(1);
		fd = open_dev();
		took = now_ns();
		if (del(fd, "", FLAGSFIRST_DELETE_ALL) != 0)
			_exit(2);
		took = now_ns() - took;
		_exit(write(pipefd[1], &took, sizeof(took)) == sizeof(took) ? 0 : 3);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &took, sizeof(took)) != sizeof(took))
		took = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return took;
}

/*
 * Grows the table until one walk of it by a caller who owns nothing takes
 * at least @ns (a debug kernel gets there sooner), up to max_entries/2.
 */
static int walk_of_at_least(int fd, const char *prefix, uint64_t ns,
			    uint64_t *walk)
{
	int n = 0, want = 16384;

	for (;;) {
		if (fill_table(fd, prefix, n, want))
			return -1;
		n = want;
		*walk = empty_walk_ns(0);
		if (*walk >= ns || n >= 1 << 19)
			return n;
		want *= 2;
	}
}

/* uid 65533, pinned to CPU @cpu (or not, if -1), DELETE_ALL in a loop. */
static pid_t walker(int cpu)
{
	pid_t pid = fork();
	cpu_set_t set;
	int fd;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(1);
	}
	if (become(NOBODY - 1))
		_exit(1);
	fd = open_dev();
	for (;;)
		del(fd, "", FLAGSFIRST_DELETE_ALL);
}

/* The state letter of process @pid, or 0. */
static char proc_state(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return state_of(path);
}

#define KILL_WALKERS	8

/*
 * A SET that waits for the table's lock dies at once on SIGKILL, and does
 * nothing: with a plain mutex_lock() it would wait its turn behind every
 * walker queued before it, then make its entry, then die.
 */
TEST_F_TIMEOUT(limits, sigkill_ends_a_writer_waiting_for_the_table_at_once, 600)
{
	pid_t walkers[KILL_WALKERS], victim = -1;
	uint64_t walk, took = 0;
	char name[64] = "";
	int i, tries, status;

	/*
	 * A SET seen waiting may still get the lock before SIGKILL reaches
	 * it (mutex_lock_killable() tries the lock before it looks at the
	 * signal), if a walker lets it go in between: under TCG the kill
	 * comes some milliseconds after the look, so the walks are long.
	 */
	ASSERT_LT(0, walk_of_at_least(self->fd, "kill", 20000000, &walk));
	for (i = 0; i < KILL_WALKERS; i++) {
		walkers[i] = walker(-1);
		ASSERT_LT(0, walkers[i]);
	}
	usleep(100000);
	for (tries = 0; tries < 20 && !took; tries++) {
		int waited;

		fresh(name, "kill.victim");
		victim = fork();
		if (victim == 0) {
			int fd = open_dev();

			_exit(set(fd, name, "v", 0) ? 1 : 0);
		}
		ASSERT_LT(0, victim);
		/* Asleep in the kernel: waiting for the lock */
		for (waited = 0; waited < 5000 && proc_state(victim) != 'D'; waited++)
			usleep(100);
		if (proc_state(victim) != 'D') {
			/* It got the lock first: its entry goes, try again */
			waitpid(victim, &status, 0);
			del(self->fd, name, 0);
			continue;
		}
		took = now_ns();
		kill(victim, SIGKILL);
		waitpid(victim, &status, 0);
		took = now_ns() - took;
		EXPECT_EQ(true, WIFSIGNALED(status));
	}
	for (i = 0; i < KILL_WALKERS; i++) {
		kill(walkers[i], SIGKILL);
		waitpid(walkers[i], &status, 0);
	}
	ASSERT_NE(0, took) TH_LOG("no SET was ever seen waiting for the lock");
	TH_LOG("a walk of the table: %llu ms; the SET died %llu ms after SIGKILL",
	       (unsigned long long)walk / 1000000,
	       (unsigned long long)took / 1000000);
	EXPECT_EQ(false, exists(self->fd, name)) TH_LOG("the killed SET still ran");
	EXPECT_GT(1000000000ULL, took);
}

#define FIFO_PERIOD_NS	1000000
#define FIFO_WAKEUPS	400

/*
 * A SCHED_FIFO task on CPU 0 that wakes every millisecond: the median and
 * the worst of how late it woke, in ns, on @out.
 */
static pid_t fifo_task(int out)
{
	static uint64_t late[FIFO_WAKEUPS];
	struct sched_param sp = { .sched_priority = 50 };
	pid_t pid = fork();
	uint64_t res[2] = { 0 }, next;
	cpu_set_t set;
	int i, j;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	usleep(100000);		/* the walker is at it */
	next = now_ns();
	for (i = 0; i < FIFO_WAKEUPS; i++) {
		struct timespec ts;

		next += FIFO_PERIOD_NS;
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		late[i] = now_ns() - next;
		if (late[i] > FIFO_PERIOD_NS)	/* no catching up in a burst */
			next = now_ns();
	}
	for (i = 1; i < FIFO_WAKEUPS; i++)	/* insertion sort: 400 */
		for (j = i; j > 0 && late[j - 1] > late[j]; j--) {
			uint64_t t = late[j];

			late[j] = late[j - 1];
			late[j - 1] = t;
		}
	res[0] = late[FIFO_WAKEUPS / 2];
	res[1] = late[FIFO_WAKEUPS - 1];
	_exit(write(out, res, sizeof(res)) == sizeof(res) ? 0 : 2);
}

/*
 * Debian's kernels preempt only where the kernel offers to: a walk of the
 * table must offer to every so many entries it passes, not every so many
 * it takes, or a caller who owns nothing holds its CPU for the whole walk.
 */
TEST_F_TIMEOUT(limits, a_delete_all_that_takes_nothing_lets_a_same_cpu_fifo_task_run, 900)
{
	uint64_t walk, alone[2], beside[2];
	pid_t hog, fifo;
	int out[2], status, n;

	ASSERT_EQ(0, write_param("max_bytes", "1073741824"));
	n = walk_of_at_least(self->fd, "fifo", 16000000, &walk);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, pipe(out));
	/* How late it wakes on its own: the timer's granularity, and TCG's */
	fifo = fifo_task(out[1]);
	ASSERT_LT(0, fifo);
	ASSERT_EQ(sizeof(alone), read(out[0], alone, sizeof(alone)))
		TH_LOG("the SCHED_FIFO task could not run");
	waitpid(fifo, &status, 0);
	hog = walker(0);
	ASSERT_LT(0, hog);
	fifo = fifo_task(out[1]);
	ASSERT_LT(0, fifo);
	ASSERT_EQ(sizeof(beside), read(out[0], beside, sizeof(beside)));
	kill(hog, SIGKILL);
	waitpid(hog, &status, 0);
	waitpid(fifo, &status, 0);
	close(out[0]);
	close(out[1]);
	TH_LOG("%d entries, walked in %llu us; the FIFO task woke late by",
	       n, (unsigned long long)walk / 1000);
	TH_LOG("%llu us alone and %llu us beside the walks (medians; worst %llu, %llu)",
	       (unsigned long long)alone[0] / 1000,
	       (unsigned long long)beside[0] / 1000,
	       (unsigned long long)alone[1] / 1000,
	       (unsigned long long)beside[1] / 1000);
	if (walk < 4 * FIFO_PERIOD_NS)
		SKIP(return, "a walk of the largest table took only %llu us",
		     (unsigned long long)walk / 1000);
	/* Without: it waits out the rest of the walk, on average half of it */
	EXPECT_GT(alone[0] + walk / 8, beside[0]);
}

TEST_HARNESS_MAIN
