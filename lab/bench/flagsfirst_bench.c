// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst_bench: flagsfirst against the kernel's own VFS doing the same
 * jobs, side by side in one run (make bench).  Each measurement is the
 * median of REPS repetitions, in ns per call; the table gives ratios to the
 * floor (an ioctl the module rejects with ENOTTY) and to the VFS peer,
 * each the median of the ratios within one repetition.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#define REPS		21
#define MAX_FNS		16
#define STATS		"/sys/kernel/debug/flagsfirst/stats"
#define STR(x)		#x
#define XSTR(x)		STR(x)

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

/* Calls of @fn that take about 10 ms. */
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
	return n * 10000000 / (t ? t : 1) + 1;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/* ns per call of each function (rows) in each repetition (columns) */
struct samples {
	double ns[MAX_FNS][REPS];
	double floor[MAX_FNS][REPS];	/* the floor's batch just before */
};

/* ns per call of @n calls of @fn in a row. */
static double run_batch(void (*fn)(void), uint64_t n)
{
	uint64_t t = now_ns();

	for (uint64_t i = 0; i < n; i++)
		fn();
	return (double)(now_ns() - t) / n;
}

/*
 * ns per call of each of @fns, side by side, @fns[0] being the floor:
 * every repetition runs a batch of each in turn, starting one further each
 * time so that none always follows the same neighbour (and pays for its
 * RCU callbacks), and each right after a batch of the floor.  The host
 * (TCG on a shared machine) changes speed within a second; a batch and the
 * floor's just before it are 10 ms apart.
 */
static void measure_all(void (*const fns[])(void), int n, struct samples *s)
{
	uint64_t batch[MAX_FNS];
	int f, r;

	for (f = 0; f < n; f++)
		batch[f] = batch_for(fns[f]);
	for (r = 0; r < REPS; r++) {
		for (int k = 0; k < n; k++) {
			f = (k + r) % n;
			s->floor[f][r] = run_batch(fns[0], batch[0]);
			s->ns[f][r] = run_batch(fns[f], batch[f]);
		}
	}
}

/* The median ns per call of row @f. */
static double ns_of(const struct samples *s, int f)
{
	double v[REPS];

	memcpy(v, s->ns[f], sizeof(v));
	return median(v, REPS);
}

/* Row @f against the floor: the median of its ratio to the floor just before. */
static double vs_floor(const struct samples *s, int f)
{
	double v[REPS];

	for (int r = 0; r < REPS; r++)
		v[r] = s->ns[f][r] / s->floor[f][r];
	return median(v, REPS);
}

/* Row @f against row @g, each first taken against the floor just before it. */
static double vs_row(const struct samples *s, int f, int g)
{
	double v[REPS];

	for (int r = 0; r < REPS; r++)
		v[r] = (s->ns[f][r] / s->floor[f][r]) /
		       (s->ns[g][r] / s->floor[g][r]);
	return median(v, REPS);
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

/* EXCHANGE's own fixed work and nothing else: two names, the lock, two lookups. */
static void call_exchange_missing(void)
{
	struct flagsfirst_rename r = {
		.flags = FLAGSFIRST_RENAME_EXCHANGE,
		.oldname = ptr("bench.a"), .newname = ptr("bench.missing"),
	};

	if (ioctl(dev, FLAGSFIRST_IOC_RENAME, &r) != -1 || errno != ENOENT)
		die("EXCHANGE onto a missing name");
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

/*
 * The three SET sizes differ by a word or a check_zeroed_user() in a call
 * that allocates an entry and frees one through RCU, and a batch pays for
 * whatever RCU callbacks land in it.  So they are timed call by call,
 * interleaved, and compared by their medians (less the cost of reading
 * the clock): a callback delays a few calls, not the median.
 */
static void set_sizes(double ns[3])
{
	static void (*const fn[3])(void) = {
		call_set_ver0, call_set_current, call_set_tail,
	};
	enum { ROUNDS = 20001 };
	static double t[3][ROUNDS];
	double clock_ns;
	uint64_t t0;

	for (int i = 0; i < ROUNDS; i++) {
		t0 = now_ns();
		t[0][i] = now_ns() - t0;
	}
	clock_ns = median(t[0], ROUNDS);
	for (int i = 0; i < ROUNDS; i++) {
		for (int k = 0; k < 3; k++) {
			int f = (i + k) % 3;

			t0 = now_ns();
			fn[f]();
			t[f][i] = now_ns() - t0;
		}
	}
	for (int f = 0; f < 3; f++)
		ns[f] = median(t[f], ROUNDS) - clock_ns;
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

/* The control: how well two threads of any syscall run side by side here. */
static void *getppid_reader(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		syscall(SYS_getppid);
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

/* Calls per second of @readers threads of @fn in 0.3 s while the writer runs. */
static double throughput(int readers, void *(*fn)(void *))
{
	static const char *const names[] = { "bench.r0", "bench.r1" };
	pthread_t t[3];
	unsigned long total = 0;
	uint64_t start;
	void *ret;
	double rate;

	atomic_store(&stop, false);
	pthread_create(&t[2], NULL, writer, NULL);
	start = now_ns();
	for (int i = 0; i < readers; i++)
		pthread_create(&t[i], NULL, fn, (void *)names[i]);
	usleep(300000);
	atomic_store(&stop, true);
	for (int i = 0; i < readers; i++) {
		pthread_join(t[i], &ret);
		total += (unsigned long)ret;
	}
	rate = total * 1e9 / (double)(now_ns() - start);
	pthread_join(t[2], NULL);
	return rate;
}

/* ---------------------------------------------------------------- main */

/* The side-by-side measurements, in the order of their rows. */
enum {
	FLOOR, PPID, GET, GETXATTR, SET_DELETE, SETXATTR, EXCHANGE, RENAMEAT2,
	EXCHANGE_MISSING, UNKNOWN_FLAG, CHECK_FIELDS, SET_VER0, SET_CURRENT,
	SET_TAIL, NR_FNS
};

_Static_assert(FLOOR == 0, "measure_all() takes the first function as the floor");

static void (*const fns[NR_FNS])(void) = {
	[FLOOR] = call_enotty,
	[PPID] = call_getppid,
	[GET] = call_get,
	[GETXATTR] = call_getxattr,
	[SET_DELETE] = call_set_delete,
	[SETXATTR] = call_setxattr_remove,
	[EXCHANGE] = call_exchange,
	[RENAMEAT2] = call_renameat2,
	[EXCHANGE_MISSING] = call_exchange_missing,
	[UNKNOWN_FLAG] = call_unknown_flag,
	[CHECK_FIELDS] = call_check_fields,
	[SET_VER0] = call_set_ver0,
	[SET_CURRENT] = call_set_current,
	[SET_TAIL] = call_set_tail,
};

static struct samples per;
static int missed;

/*
 * One row: ns per call, ratio to the floor and to @peer (or -1), and the
 * verdict on @target, which holds if both ratios are within @max_floor and
 * @max_peer (0: not a target).
 */
static void row(const char *what, int f, int peer, const char *target,
		double max_floor, double max_peer)
{
	double to_floor = vs_floor(&per, f);
	double to_peer = peer >= 0 ? vs_row(&per, f, peer) : 0;
	bool ok = (!max_floor || to_floor <= max_floor) &&
		  (!max_peer || to_peer <= max_peer);

	printf("%-44s %9.0f %8.2fx", what, ns_of(&per, f), to_floor);
	if (peer >= 0)
		printf(" %8.2fx", to_peer);
	else
		printf(" %9s", "");
	if (target) {
		printf("  %-28s %s", target, ok ? "met" : "MISSED");
		missed += !ok;
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	static void (*const floor_and_get[])(void) = { call_enotty, call_get };
	double scale[3], scale_ns[3], t1[REPS], t2[REPS], t12[REPS], c12[REPS];
	double sizes[3], spread, overhead;
	long mem0, mem1, acct0, acct1;
	const unsigned long n_mem = 100000;
	int fd;

	if (argc > 1) {
		fprintf(stderr, "usage: %s (no arguments)\n", argv[0]);
		return 2;
	}
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

	measure_all(fns, NR_FNS, &per);
	set_sizes(sizes);

	/*
	 * Scaling: the same GET with 1e2, 1e4 and 1e6 entries around it, each
	 * time side by side with the floor, as GET / floor.
	 */
	for (int k = 0; k < 3; k++) {
		static const unsigned long entries[] = { 100, 10000, 1000000 };
		static struct samples s;

		populate(k ? entries[k - 1] : 0, entries[k]);
		measure_all(floor_and_get, 2, &s);
		scale[k] = vs_floor(&s, 1);
		scale_ns[k] = ns_of(&s, 1);
	}

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

	/* 1 and 2 readers in turn, as pairs; then the same with getppid(). */
	for (int r = 0; r < REPS; r++) {
		t1[r] = throughput(1, reader);
		t2[r] = throughput(2, reader);
		t12[r] = t2[r] / t1[r];
		c12[r] = throughput(2, getppid_reader) / throughput(1, getppid_reader);
	}
	delete_all();

	printf("%-44s %9s %9s %9s  %-28s\n", "measurement (ns: median of " XSTR(REPS) ")",
	       "ns/call", "vs floor", "vs VFS", "target");
	row("floor: ioctl rejected with ENOTTY", FLOOR, -1, NULL, 0, 0);
	row("getppid()", PPID, -1, NULL, 0, 0);
	row("GET, 32-byte value", GET, GETXATTR, "<= 2.0x floor, <= 0.5x VFS", 2.0, 0.5);
	row("  getxattr, 32-byte trusted. xattr, tmpfs", GETXATTR, -1, NULL, 0, 0);
	row("SET(NOREPLACE) + DELETE", SET_DELETE, SETXATTR, "<= 4.0x floor, <= 0.5x VFS",
	    4.0, 0.5);
	row("  setxattr(XATTR_CREATE) + removexattr", SETXATTR, -1, NULL, 0, 0);
	row("RENAME(EXCHANGE)", EXCHANGE, RENAMEAT2, "<= 2.0x floor, <= 0.5x VFS", 2.0, 0.5);
	row("  renameat2(RENAME_EXCHANGE), tmpfs", RENAMEAT2, -1, NULL, 0, 0);
	row("  EXCHANGE onto a missing name (ENOENT)", EXCHANGE_MISSING, -1, NULL, 0, 0);
	row("rejected unknown flag (EINVAL)", UNKNOWN_FLAG, -1, "<= 1.2x floor", 1.2, 0);
	row("CHECK_FIELDS", CHECK_FIELDS, -1, "<= 1.3x floor", 1.3, 0);
	row("SET replacing, VER0 struct (32 bytes)", SET_VER0, -1, NULL, 0, 0);
	row("SET replacing, current struct", SET_CURRENT, -1, NULL, 0, 0);
	row("SET replacing, current + 64 zero bytes", SET_TAIL, -1, NULL, 0, 0);
	{
		double lo = sizes[0], hi = sizes[0];

		for (int k = 1; k < 3; k++) {
			lo = sizes[k] < lo ? sizes[k] : lo;
			hi = sizes[k] > hi ? sizes[k] : hi;
		}
		spread = hi / lo;
	}
	printf("%-44s %.0f, %.0f, %.0f ns: slowest / fastest %.3f  %s\n",
	       "  the three interleaved, call by call", sizes[0], sizes[1], sizes[2],
	       spread, spread <= 1.05 ? "within 5%: met" : "within 5%: MISSED");
	missed += spread > 1.05;

	printf("%-44s %9.0f %8.2fx\n", "GET with 1e2 entries", scale_ns[0], scale[0]);
	printf("%-44s %9.0f %8.2fx\n", "GET with 1e4 entries", scale_ns[1], scale[1]);
	printf("%-44s %9.0f %8.2fx %9s  %-28s %s\n", "GET with 1e6 entries", scale_ns[2],
	       scale[2], "", "<= 1.5x GET at 1e2",
	       scale[2] <= 1.5 * scale[0] ? "met" : "MISSED");
	printf("%-44s %8.2fx\n", "  1e6 / 1e2", scale[2] / scale[0]);
	missed += scale[2] > 1.5 * scale[0];

	overhead = (double)(acct1 - acct0) / n_mem - 48;
	printf("%-44s %9.0f bytes/entry (slab + vmalloc: %.0f), %.0f beyond name and value  %s\n",
	       "memory, 1e5 entries of 16 + 32 bytes", (double)(acct1 - acct0) / n_mem,
	       (double)(mem1 - mem0) / n_mem, overhead,
	       overhead <= 128 ? "<= 128: met" : "<= 128: MISSED");
	missed += overhead > 128;
	printf("%-44s %9.0f GETs/s, 2 readers %.0f GETs/s: %.2fx  %s\n",
	       "GET throughput while a writer runs, 1 reader", median(t1, REPS),
	       median(t2, REPS), median(t12, REPS),
	       median(t12, REPS) >= 1.6 ? ">= 1.6x: met" : ">= 1.6x: MISSED");
	missed += median(t12, REPS) < 1.6;
	printf("%-44s %9s %8.2fx  (what two threads of any syscall get on this host)\n",
	       "  the same with getppid() instead of GET", "", median(c12, REPS));
	printf("# bench: %d of 9 targets missed\n", missed);
	return 0;
}
