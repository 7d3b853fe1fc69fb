// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst selftests: the helpers every topic file shares (helpers.h). */

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

#include "kselftest.h"	/* ARRAY_SIZE() */
#include "helpers.h"

int open_dev(void)
{
	return open("/dev/flagsfirst", O_RDWR | O_CLOEXEC);
}

/*
 * Without the device (the module not loaded, or not built) a program
 * skips as a whole, as kselftest expects, rather than fail every test.
 */
static void __attribute__((constructor)) skip_without_the_device(void)
{
	if (access("/dev/flagsfirst", F_OK) && errno == ENOENT)
		ksft_exit_skip("/dev/flagsfirst is absent: load the flagsfirst module\n");
}

/* Names no other test (nor the other uid's run) uses. */
char *fresh(char *buf, const char *what)
{
	static int n;

	sprintf(buf, "%s.%d.%d", what, getpid(), n++);
	return buf;
}

int set(int fd, const char *name, const char *value, uint64_t flags)
{
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(name), .value = ptr(value),
		.value_len = value ? strlen(value) : 0,
	};

	return ffst(fd, FLAGSFIRST_IOC_SET, &s);
}

/* Fills @get (value into @buf, a string) and returns the GET result. */
int get(int fd, const char *name, char *buf, size_t len,
	struct flagsfirst_get *get)
{
	int ret;

	memset(get, 0, sizeof(*get));
	memset(buf, 0, len);
	get->name = ptr(name);
	get->value = ptr(buf);
	get->value_len = len - 1;
	ret = ffst(fd, FLAGSFIRST_IOC_GET, get);
	return ret;
}

bool exists(int fd, const char *name)
{
	struct flagsfirst_get g = { .name = ptr(name) };

	return ffst(fd, FLAGSFIRST_IOC_GET, &g) == 0;
}

uint64_t seq_of(int fd, const char *name)
{
	struct flagsfirst_get g = { .name = ptr(name) };

	return ffst(fd, FLAGSFIRST_IOC_GET, &g) == 0 ? g.seq : 0;
}

int del(int fd, const char *name, uint64_t flags)
{
	struct flagsfirst_delete d = { .flags = flags, .name = ptr(name) };

	return ffst(fd, FLAGSFIRST_IOC_DELETE, &d);
}

int ren(int fd, const char *oldname, const char *newname, uint64_t flags)
{
	struct flagsfirst_rename r = {
		.flags = flags, .oldname = ptr(oldname), .newname = ptr(newname),
	};

	return ffst(fd, FLAGSFIRST_IOC_RENAME, &r);
}

int ren_legacy(int fd, const char *oldname, const char *newname)
{
	struct flagsfirst_rename_legacy r = {
		.oldname = ptr(oldname), .newname = ptr(newname),
	};

	return ffst(fd, FLAGSFIRST_IOC_RENAME_LEGACY, &r);
}

int watch(int fd, uint64_t mask, uint64_t flags)
{
	struct flagsfirst_watch w = { .flags = flags, .mask = mask };

	return ffst(fd, FLAGSFIRST_IOC_WATCH, &w);
}

/* Runs @fn in a child as @uid (and that gid) with no capabilities. */
int as_uid(uid_t uid, int (*fn)(int fd, void *arg), void *arg)
{
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(100);
		fd = open_dev();
		_exit(fd < 0 ? 101 : fn(fd, arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int as_nobody(int (*fn)(int fd, void *arg), void *arg)
{
	return as_uid(NOBODY, fn, arg);
}

int write_param(const char *name, const char *value)
{
	char path[128];
	int fd, err;
	ssize_t n;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	/* a value the parameter refuses is the write's errno (EINVAL) */
	n = write(fd, value, strlen(value));
	err = n < 0 ? -errno : n == (ssize_t)strlen(value) ? 0 : -EIO;
	close(fd);
	return err;
}

void read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

/* The value of @key in a file of "key value" lines at @path, or -1. */
long read_key(const char *path, const char *key)
{
	char line[128], name[64];
	long value = -1, v;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &v) == 2 && !strcmp(name, key))
			value = v;
	fclose(f);
	return value;
}

/* One figure of the module's own accounting (debugfs), or -1. */
long read_stat(const char *key)
{
	return read_key(STATS, key);
}

int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -EIO;
}

long read_long(const char *path)
{
	char buf[64] = "";
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

/*
 * Parses what read() returned, stepping by size and finding the names at
 * hdr_size, and checks every byte a record covers.  Returns the number of
 * records, or -1 on a malformed one.
 */
int parse(const unsigned char *buf, ssize_t len, struct rec *out, int max)
{
	struct flagsfirst_event ev;
	ssize_t off = 0;
	int n = 0;

	while (off < len) {
		const char *names;
		size_t used;

		if (n == max || len - off < FLAGSFIRST_EVENT_HDR_SIZE_VER0)
			return -1;
		memcpy(&ev, buf + off, sizeof(ev));
		if (ev.size % 8 || (ssize_t)ev.size > len - off ||
		    ev.hdr_size < sizeof(ev))
			return -1;
		names = (const char *)buf + off + ev.hdr_size;
		used = ev.hdr_size + ev.name_len + 1 +
		       (ev.newname_len ? ev.newname_len + 1 : 0);
		if (used > ev.size || names[ev.name_len] != '\0' ||
		    ev.name_len > FLAGSFIRST_NAME_MAX ||
		    ev.newname_len > FLAGSFIRST_NAME_MAX)
			return -1;
		for (; used < ev.size; used++)
			if (buf[off + used] != 0)
				return -1;	/* padding must be zero */
		out[n].type = ev.type;
		out[n].seq = ev.seq;
		memcpy(out[n].name, names, ev.name_len + 1);
		out[n].newname[0] = '\0';
		if (ev.newname_len) {
			if (names[ev.name_len + 1 + ev.newname_len] != '\0')
				return -1;
			memcpy(out[n].newname, names + ev.name_len + 1,
			       ev.newname_len + 1);
		}
		off += ev.size;
		n++;
	}
	return n;
}

/*
 * read() of a watch fd that must not block, whatever the module does with
 * O_NONBLOCK: records are queued before the change that makes them
 * returns, so a queue poll() finds empty is EAGAIN without asking read().
 * A module that blocks there then fails a test in seconds instead of
 * sitting out the harness's timeout in every test that drains a queue;
 * read()'s own EAGAIN is tested once, under a timer.
 */
ssize_t read_nb(int wfd, void *buf, size_t len)
{
	struct pollfd p = { .fd = wfd, .events = POLLIN };

	if (poll(&p, 1, 0) == 0) {
		errno = EAGAIN;
		return -1;
	}
	return read(wfd, buf, len);
}

/* Reads everything queued: the number of records, or -errno. */
int drain(int wfd, unsigned char *buf, size_t len, struct rec *recs, int max)
{
	ssize_t got;

	memset(buf, POISON, len);
	got = read_nb(wfd, buf, len);
	if (got < 0)
		return -errno;
	/* Nothing past what read() returned was touched. */
	if (got < (ssize_t)len && buf[got] != POISON)
		return -EIO;
	return parse(buf, got, recs, max);
}

/* The path of @file in cgroup @cg. */
const char *cg_file(char *buf, const char *cg, const char *file)
{
	snprintf(buf, 2 * CG_PATH, "%.*s/%s", CG_PATH - 1, cg, file);
	return buf;
}

/* A fresh memory cgroup under the root, its path in @path; 0 or -errno. */
int cg_make(char *path, const char *what)
{
	char buf[2 * CG_PATH];
	static int n;

	/* The memory controller must be on for the root's children. */
	write_file(CGROUP "/cgroup.subtree_control", "+memory");
	snprintf(path, CG_PATH, CGROUP "/flagsfirst-%.16s.%d.%d", what,
		 getpid(), n++);
	if (mkdir(path, 0755))
		return -errno;
	return access(cg_file(buf, path, "memory.current"), R_OK) ? -ENOENT : 0;
}

long cg_current(const char *cg)
{
	char buf[2 * CG_PATH];

	return read_long(cg_file(buf, cg, "memory.current"));
}

/* Moves the calling process into @cg. */
int cg_enter(const char *cg)
{
	char buf[2 * CG_PATH], pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(cg_file(buf, cg, "cgroup.procs"), pid);
}

/* Whether this kernel can run a memory-cgroup test here. */
bool have_memcg(void)
{
	char cg[CG_PATH];

	if (!is_root() || cg_make(cg, "probe"))
		return false;
	rmdir(cg);
	return true;
}

/* @n SETs of @len-byte values, in cgroup @cg; the growth of its memory. */
long grow_by_sets(const char *cg, int n, size_t len, const char *prefix)
{
	int fd, i, pipefd[2], status;
	long grown = -1;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *value = malloc(len + 1), name[64];
		long before;
		int bad = 0;

		memset(value, 'm', len);
		value[len] = '\0';
		fd = open_dev();
		if (fd < 0 || cg_enter(cg))
			_exit(1);
		before = cg_current(cg);
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s%d", prefix, i);
			bad |= set(fd, name, value, 0) != 0;
		}
		grown = bad ? -2 : cg_current(cg) - before;
		if (write(pipefd[1], &grown, sizeof(grown)) != sizeof(grown))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &grown, sizeof(grown)) != sizeof(grown))
		grown = -1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return grown;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The state letter in /proc's stat file @path (R, S, D, ...), or 0. */
char state_of(const char *path)
{
	char stat[256], *p;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	p = strrchr(stat, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Drops to @uid (and its gid) with no supplementary groups or capabilities. */
int become(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

/*
 * What the module takes of each op (by ioctl number) at each abi_version:
 * its struct size and its flags, as numbers -- not taken from the header a
 * program is built with (the v0 program's knows ABI 0 only) nor from the
 * running module (which is what is under test).  tables.sh writes them
 * from the ABI rows of module/ioctl.c's op table.
 */
#include "releases.h"

#define ABI_RELEASES	((int)ARRAY_SIZE(releases))

/*
 * The ABI the module should behave as: its cell's, or its abi_version, or
 * (a module with no such parameter, as a kernel tree builds it) the latest.
 */
int module_abi(void)
{
	const char *cell = getenv("FLAGSFIRST_ABI");
	char buf[16];

	/*
	 * In the ABI matrix each run is told the ABI its cell loaded the
	 * module with: the tests expect that one, not whatever the module
	 * under test says of itself.
	 */
	if (cell && *cell)
		return atoi(cell);
	read_param("abi_version", buf, sizeof(buf));
	return buf[0] ? atoi(buf) : ABI_RELEASES - 1;
}

/* The release the running module should be, for op number @nr. */
const struct release *release_of(unsigned int nr)
{
	int abi = module_abi();

	return &releases[abi < ABI_RELEASES ? abi : ABI_RELEASES - 1][nr];
}

void *set_until(void *arg)
{
	struct writer *w = arg;

	while (!__atomic_load_n(&w->n, __ATOMIC_RELAXED))
		set(w->fd, w->name, "v", 0);
	return NULL;
}
