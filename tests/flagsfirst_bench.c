// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst_bench: flagsfirst against the kernel's own VFS doing the same
 * jobs, side by side in one run (make bench).  Each measurement is the
 * median of REPS repetitions, in ns per call; the table gives ratios to the
 * floor (an ioctl the module rejects with ENOTTY) and to the VFS peer.
 * Run as root in the VM, with /tmp on tmpfs and debugfs mounted.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#define REPS		7
#define STATS		"/sys/kernel/debug/flagsfirst/stats"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int dev;
static char value32[32] = "0123456789abcdef0123456789abcdef";

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	printf("# bench: FAILED: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Calls of @fn that take about 40 ms. */
static uint64_t batch_for(void (*fn)(void))
{
	uint64_t t, n = 1;

	for (;;) {
		t = now_ns();
		for (uint64_t i = 0; i < n; i++)
			fn();
		t = now_ns() - t;
		if (t > 10000000 || n >= (1 << 24))
			break;
		n *= 2;
	}
	return n * 40000000 / (t ? t : 1) + 1;
}

/*
 * ns per call of each of @fns, side by side: every repetition runs a batch
 * of each in turn, starting one further each time so that none always
 * follows the same neighbour (and pays for its RCU callbacks), and the
 * result is each one's median over REPS repetitions.
 */
static void measure_all(void (*const fns[])(void), int n, double *ns)
{
	double per[16][REPS];
	uint64_t batch[16], t;
	int f, r;

	for (f = 0; f < n; f++)
		batch[f] = batch_for(fns[f]);
	for (r = 0; r < REPS; r++) {
		for (int k = 0; k < n; k++) {
			f = (k + r) % n;
			t = now_ns();
			for (uint64_t i = 0; i < batch[f]; i++)
				fns[f]();
			per[f][r] = (double)(now_ns() - t) / batch[f];
		}
	}
	for (f = 0; f < n; f++) {
		qsort(per[f], REPS, sizeof(per[f][0]), cmp_double);
		ns[f] = per[f][REPS / 2];
	}
}

static double measure(void (*fn)(void))
{
	double ns;

	measure_all(&fn, 1, &ns);
	return ns;
}

/* ------------------------------------------------------------ the calls */

static void set_or_die(const char *name, const void *value, uint32_t len, uint64_t flags)
{
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(name), .value = ptr(value), .value_len = len,
	};

	if (ioctl(dev, FLAGSFIRST_IOC_SET, &s))
		die(name);
}

static void call_enotty(void)
{
	char buf[16] = { 0 };

	ioctl(dev, _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0x1f, 16), buf);
}

static void call_getppid(void)
{
	syscall(SYS_getppid);
}

static const char *get_name = "bench.get";

static void call_get(void)
{
	char out[32];
	struct flagsfirst_get g = {
		.name = ptr(get_name), .value = ptr(out), .value_len = sizeof(out),
	};

	if (ioctl(dev, FLAGSFIRST_IOC_GET, &g))
		die("GET");
}

static void call_getxattr(void)
{
	char out[32];

	if (getxattr("/tmp/bench.x", "trusted.bench", out, sizeof(out)) != 32)
		die("getxattr");
}

static void call_set_delete(void)
{
	struct flagsfirst_delete d = { .name = ptr("bench.sd") };

	set_or_die("bench.sd", value32, 32, FLAGSFIRST_SET_NOREPLACE);
	if (ioctl(dev, FLAGSFIRST_IOC_DELETE, &d))
		die("DELETE");
}

static void call_setxattr_remove(void)
{
	if (setxattr("/tmp/bench.x", "trusted.sd", value32, 32, XATTR_CREATE) ||
	    removexattr("/tmp/bench.x", "trusted.sd"))
		die("setxattr/removexattr");
}

static void call_exchange(void)
{
	struct flagsfirst_rename r = {
		.flags = FLAGSFIRST_RENAME_EXCHANGE,
		.oldname = ptr("bench.a"), .newname = ptr("bench.b"),
	};

	if (ioctl(dev, FLAGSFIRST_IOC_RENAME, &r))
		die("EXCHANGE");
}

static void call_renameat2(void)
{
	if (syscall(SYS_renameat2, AT_FDCWD, "/tmp/bench.a", AT_FDCWD,
		    "/tmp/bench.b", RENAME_EXCHANGE))
		die("renameat2");
}

/* SET replacing one entry, with a struct of @usize bytes. */
static void set_sized(size_t usize)
{
	unsigned char buf[FLAGSFIRST_SET_SIZE_VER0 + 128] = { 0 };
	struct flagsfirst_set s = {
		.name = ptr("bench.sized"), .value = ptr(value32), .value_len = 32,
	};

	memcpy(buf, &s, sizeof(s));
	if (ioctl(dev, _IOC(_IOC_READ | _IOC_WRITE, 'Y', _IOC_NR(FLAGSFIRST_IOC_SET),
			    usize), buf))
		die("SET sized");
}

static void call_set_ver0(void)
{
	set_sized(FLAGSFIRST_SET_SIZE_VER0);
}

static void call_set_current(void)
{
	set_sized(sizeof(struct flagsfirst_set));
}

static void call_set_tail(void)
{
	set_sized(sizeof(struct flagsfirst_set) + 64);
}

static void call_check_fields(void)
{
	struct flagsfirst_set s = { .flags = FLAGSFIRST_CHECK_FIELDS };

	if (ioctl(dev, FLAGSFIRST_IOC_SET, &s))
		die("CHECK_FIELDS");
}

static void call_unknown_flag(void)
{
	struct flagsfirst_set s = { .flags = 1ULL << 40 };

	ioctl(dev, FLAGSFIRST_IOC_SET, &s);
}

/* ------------------------------------------------------------- helpers */

static void populate(unsigned long from, unsigned long to)
{
	char name[32];

	for (unsigned long i = from; i < to; i++) {
		snprintf(name, sizeof(name), "k%015lu", i);	/* 16 bytes */
		set_or_die(name, value32, 32, 0);
	}
}

static void delete_all(void)
{
	struct flagsfirst_delete d = { .flags = FLAGSFIRST_DELETE_ALL, .name = ptr("") };

	ioctl(dev, FLAGSFIRST_IOC_DELETE, &d);
}

static long stat_of(const char *key)
{
	char k[32];
	long v, found = -1;
	FILE *f = fopen(STATS, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

/* Slab plus vmalloc in use, in bytes, from /proc/meminfo. */
static long kernel_mem(void)
{
	char line[128];
	long kb, total = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %ld kB", &kb) == 1 ||
		    sscanf(line, "VmallocUsed: %ld kB", &kb) == 1)
			total += kb * 1024;
	}
	fclose(f);
	return total;
}

/* ---------------------------------------------------------- concurrency */

static atomic_bool stop;

static void *reader(void *arg)
{
	const char *name = arg;
	unsigned long n = 0;
	char out[32];

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct flagsfirst_get g = {
			.name = ptr(name), .value = ptr(out), .value_len = sizeof(out),
		};

		if (ioctl(dev, FLAGSFIRST_IOC_GET, &g))
			die("GET in a reader");
		n++;
	}
	return (void *)n;
}

/* A writer at a steady pace: a change every millisecond. */
static void *writer(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		set_or_die("bench.w", value32, 32, 0);
		n++;
		usleep(1000);
	}
	return (void *)n;
}

/* GETs per second with @readers threads while the writer runs, median of 5. */
static double get_throughput(int readers)
{
	static const char *const names[] = { "bench.r0", "bench.r1" };
	double per[5];

	for (int r = 0; r < 5; r++) {
		pthread_t t[3];
		unsigned long total = 0;
		void *ret;
		uint64_t start;

		atomic_store(&stop, false);
		pthread_create(&t[2], NULL, writer, NULL);
		start = now_ns();
		for (int i = 0; i < readers; i++)
			pthread_create(&t[i], NULL, reader, (void *)names[i]);
		usleep(300000);
		atomic_store(&stop, true);
		for (int i = 0; i < readers; i++) {
			pthread_join(t[i], &ret);
			total += (unsigned long)ret;
		}
		per[r] = total * 1e9 / (double)(now_ns() - start);
		pthread_join(t[2], NULL);
	}
	qsort(per, 5, sizeof(per[0]), cmp_double);
	return per[2];
}

/* ---------------------------------------------------------------- main */

static void row(const char *what, double ns, double floor, double peer,
		const char *target, bool ok)
{
	printf("%-44s %9.0f %8.2fx", what, ns, ns / floor);
	if (peer > 0)
		printf(" %8.2fx", ns / peer);
	else
		printf(" %9s", "");
	if (target)
		printf("  %-28s %s", target, ok ? "met" : "MISSED");
	printf("\n");
}

int main(void)
{
	double floor, ppid, get, gx, sd, sx, ex, rx, v0, cur, tail, cf, uf;
	double g2, g4, g6, t1, t2, s_min, s_max;
	long mem0, mem1, acct0, acct1;
	int fd, missed = 0;
	const unsigned long n_mem = 100000;

	dev = open("/dev/flagsfirst", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("/dev/flagsfirst");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Room for the scaling runs. */
	system("echo 2000000 > /sys/module/flagsfirst/parameters/max_entries;"
	       "echo 1000000000 > /sys/module/flagsfirst/parameters/max_bytes");
	delete_all();

	fd = open("/tmp/bench.x", O_CREAT | O_RDWR, 0600);
	close(fd);
	if (setxattr("/tmp/bench.x", "trusted.bench", value32, 32, 0))
		die("setxattr trusted.bench on /tmp (tmpfs)");
	close(open("/tmp/bench.a", O_CREAT | O_RDWR, 0600));
	close(open("/tmp/bench.b", O_CREAT | O_RDWR, 0600));
	set_or_die(get_name, value32, 32, 0);
	set_or_die("bench.a", value32, 32, 0);
	set_or_die("bench.b", "other", 5, 0);
	set_or_die("bench.sized", value32, 32, 0);
	set_or_die("bench.r0", value32, 32, 0);
	set_or_die("bench.r1", value32, 32, 0);

	{
		static void (*const fns[])(void) = {
			call_enotty, call_getppid, call_get, call_getxattr,
			call_set_delete, call_setxattr_remove, call_exchange,
			call_renameat2, call_set_ver0, call_set_current,
			call_set_tail, call_check_fields, call_unknown_flag,
		};
		double ns[ARRAY_SIZE(fns)];

		measure_all(fns, ARRAY_SIZE(fns), ns);
		floor = ns[0], ppid = ns[1], get = ns[2], gx = ns[3];
		sd = ns[4], sx = ns[5], ex = ns[6], rx = ns[7];
		v0 = ns[8], cur = ns[9], tail = ns[10], cf = ns[11], uf = ns[12];
	}

	/* Scaling: the same GET with 1e2, 1e4 and 1e6 entries around it. */
	populate(0, 100);
	g2 = measure(call_get);
	populate(100, 10000);
	g4 = measure(call_get);
	populate(10000, 1000000);
	g6 = measure(call_get);

	/* Memory: 1e5 entries of 16-byte names and 32-byte values. */
	delete_all();
	sleep(1);	/* kfree_rcu() and the hash table's shrinking */
	set_or_die(get_name, value32, 32, 0);
	set_or_die("bench.r0", value32, 32, 0);
	set_or_die("bench.r1", value32, 32, 0);
	mem0 = kernel_mem();
	acct0 = stat_of("memory");
	populate(0, n_mem);
	sleep(1);
	mem1 = kernel_mem();
	acct1 = stat_of("memory");

	t1 = get_throughput(1);
	t2 = get_throughput(2);
	delete_all();

	s_min = v0 < cur ? (v0 < tail ? v0 : tail) : (cur < tail ? cur : tail);
	s_max = v0 > cur ? (v0 > tail ? v0 : tail) : (cur > tail ? cur : tail);

	printf("%-44s %9s %9s %9s  %-28s\n", "measurement (median of 7)", "ns/call",
	       "vs floor", "vs VFS", "target");
	row("floor: ioctl rejected with ENOTTY", floor, floor, 0, NULL, true);
	row("getppid()", ppid, floor, 0, NULL, true);
	row("GET, 32-byte value", get, floor, gx, "<= 2.0x floor, <= 0.5x VFS",
	    get <= 2.0 * floor && get <= 0.5 * gx);
	row("  getxattr, 32-byte trusted. xattr, tmpfs", gx, floor, 0, NULL, true);
	row("SET(NOREPLACE) + DELETE", sd, floor, sx, "<= 4.0x floor, <= 0.5x VFS",
	    sd <= 4.0 * floor && sd <= 0.5 * sx);
	row("  setxattr(XATTR_CREATE) + removexattr", sx, floor, 0, NULL, true);
	row("RENAME(EXCHANGE)", ex, floor, rx, "<= 2.0x floor, <= 0.5x VFS",
	    ex <= 2.0 * floor && ex <= 0.5 * rx);
	row("  renameat2(RENAME_EXCHANGE), tmpfs", rx, floor, 0, NULL, true);
	row("rejected unknown flag (EINVAL)", uf, floor, 0, "<= 1.2x floor", uf <= 1.2 * floor);
	row("CHECK_FIELDS", cf, floor, 0, "<= 1.3x floor", cf <= 1.3 * floor);
	row("SET replacing, VER0 struct (32 bytes)", v0, floor, 0, NULL, true);
	row("SET replacing, current struct", cur, floor, 0, NULL, true);
	row("SET replacing, current + 64 zero bytes", tail, floor, 0,
	    "the three within 5%", s_max <= 1.05 * s_min);
	row("GET with 1e2 entries", g2, floor, 0, NULL, true);
	row("GET with 1e4 entries", g4, floor, 0, NULL, true);
	row("GET with 1e6 entries", g6, floor, 0, "<= 1.5x GET at 1e2", g6 <= 1.5 * g2);
	printf("%-44s %9.0f bytes/entry (slab + vmalloc: %.0f), %.0f beyond name and value  %s\n",
	       "memory, 1e5 entries of 16 + 32 bytes",
	       (double)(acct1 - acct0) / n_mem, (double)(mem1 - mem0) / n_mem,
	       (double)(acct1 - acct0) / n_mem - 48,
	       (double)(acct1 - acct0) / n_mem - 48 <= 128 ? "<= 128: met" : "<= 128: MISSED");
	printf("%-44s %9.0f GETs/s, 2 readers %.0f GETs/s: %.2fx  %s\n",
	       "GET throughput while a writer runs, 1 reader", t1, t2, t2 / t1,
	       t2 >= 1.6 * t1 ? ">= 1.6x: met" : ">= 1.6x: MISSED");

	missed += !(get <= 2.0 * floor && get <= 0.5 * gx);
	missed += !(sd <= 4.0 * floor && sd <= 0.5 * sx);
	missed += !(ex <= 2.0 * floor && ex <= 0.5 * rx);
	missed += !(uf <= 1.2 * floor) + !(cf <= 1.3 * floor);
	missed += !(s_max <= 1.05 * s_min) + !(g6 <= 1.5 * g2);
	missed += (double)(acct1 - acct0) / n_mem - 48 > 128;
	missed += t2 < 1.6 * t1;
	printf("# bench: %d of 9 targets missed\n", missed);
	return 0;
}
