// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey: the history behind flagsfirst, asked of the running
 * kernel.  Each probe calls one system call with one bit that no kernel
 * defines (none in the uapi headers of sid's 7.2, the newest kernel of the
 * test matrix) and reports whether the kernel rejected it, ignored it or
 * lacks the call.  It needs no module and no /dev/flagsfirst.
 *
 * Every probe is harmless: files are created in a private temporary
 * directory that is removed at the end; a call the kernel might carry out
 * is one that changes nothing (mount_setattr() with an empty attribute
 * set, close_range() of fds nobody has, mseal() of zero bytes, wait4() of
 * a child that has exited); clone3() and finit_module() get arguments that
 * fail with EBADF once past the flags check, so no child is made and no
 * module loaded even by a kernel that ignored the bit.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "survey.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The unknown bits (none is defined by 7.2's uapi headers for its call) */
#define O_UNKNOWN	(1 << 28)	/* O_*, and the fd flags built on them */
#define AT_UNKNOWN	(1 << 30)	/* AT_*, RENAME_* */
#define MAP_UNKNOWN	0x200000	/* between MAP_FIXED_NOREPLACE and MAP_HUGE_* */
#define MFD_UNKNOWN	0x100000	/* MFD_* end at 0x10, MFD_HUGE_* start at bit 26 */
#define CLONE_UNKNOWN	(1ULL << 40)	/* CLONE_* end at bit 37 */
#define WAIT_UNKNOWN	0x100		/* between WCONTINUED and WNOWAIT */

/* Syscall numbers newer than some libcs' headers (x86-64) */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_mseal
#define SYS_mseal 462
#endif

/* The kernel's structs, as uapi defines them (libc may lack them) */
struct survey_open_how {
	uint64_t flags, mode, resolve;
};

struct survey_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		 stack_size, tls, set_tid, set_tid_size, cgroup;
};

struct survey_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

struct survey_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

#define SURVEY_CLONE_INTO_CGROUP	(1ULL << 33)

static char dir[64];		/* the private temporary directory */

static char *in_dir(const char *name)
{
	static char path[2][sizeof(dir) + 1 + 256];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* A fresh file in the directory, for the probes that need one. */
static int make_file(const char *name)
{
	int fd = open(in_dir(name), O_CREAT | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 && ftruncate(fd, 4096))
		return -1;
	return fd;
}

/* Each probe returns the call's result: >= 0, or -errno. */
static long res(long ret)
{
	return ret < 0 ? -errno : ret;
}

/* An fd the probe made: closed, so that nothing is left behind. */
static long res_fd(long ret)
{
	if (ret >= 0) {
		close(ret);
		return 0;
	}
	return -errno;
}

static long p_open(void)
{
	return res_fd(open(in_dir("file"), O_RDONLY | O_UNKNOWN));
}

static long p_openat(void)
{
	return res_fd(openat(AT_FDCWD, in_dir("file"), O_RDONLY | O_UNKNOWN));
}

static long p_openat2(void)
{
	struct survey_open_how how = { .flags = O_RDONLY | O_UNKNOWN };

	return res_fd(syscall(SYS_openat2, AT_FDCWD, in_dir("file"), &how,
			      sizeof(how)));
}

static long p_openat2_tail(void)
{
	unsigned char buf[sizeof(struct survey_open_how) + 8] = { 0 };

	buf[sizeof(struct survey_open_how)] = 1;
	return res_fd(syscall(SYS_openat2, AT_FDCWD, in_dir("file"), buf,
			      sizeof(buf)));
}

static long p_renameat2(void)
{
	/* A rename that went ahead is undone: the file keeps its name. */
	long ret = res(syscall(SYS_renameat2, AT_FDCWD, in_dir("file"),
			       AT_FDCWD, in_dir("moved"), AT_UNKNOWN));

	if (ret == 0 && rename(in_dir("moved"), in_dir("file")))
		return -errno;
	return ret;
}

static long p_dup3(void)
{
	int fd = make_file("dup"), newfd = 100, ret;

	if (fd < 0)
		return -errno;
	/* A free fd: a dup3() that went ahead must close nothing of ours */
	while (fcntl(newfd, F_GETFD) >= 0)
		newfd++;
	ret = res(dup3(fd, newfd, O_UNKNOWN));
	if (ret >= 0)
		close(ret);
	close(fd);
	return ret < 0 ? ret : 0;
}

static long p_pipe2(void)
{
	int fds[2];
	long ret = res(pipe2(fds, O_UNKNOWN));

	if (ret == 0) {
		close(fds[0]);
		close(fds[1]);
	}
	return ret;
}

static long p_epoll_create1(void)
{
	return res_fd(syscall(SYS_epoll_create1, O_UNKNOWN));
}

static long p_eventfd2(void)
{
	return res_fd(syscall(SYS_eventfd2, 0, O_UNKNOWN));
}

static long p_inotify_init1(void)
{
	return res_fd(syscall(SYS_inotify_init1, O_UNKNOWN));
}

static long p_signalfd4(void)
{
	uint64_t mask = 0;

	return res_fd(syscall(SYS_signalfd4, -1, &mask, sizeof(mask), O_UNKNOWN));
}

static long p_accept4(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int lfd, cfd = -1;
	long ret = -errno;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", in_dir("sock"));
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	if (bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) || listen(lfd, 1))
		goto out;
	cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&sun, sizeof(sun)))
		goto out;
	/* A connection is waiting: an accept4() that went ahead succeeds. */
	ret = res_fd(accept4(lfd, NULL, NULL, O_UNKNOWN));
out:
	if (cfd >= 0)
		close(cfd);
	close(lfd);
	unlink(in_dir("sock"));
	return ret;
}

static long p_socket(void)
{
	return res_fd(socket(AF_UNIX, SOCK_STREAM | O_UNKNOWN, 0));
}

static long p_utimensat(void)
{
	return res(utimensat(AT_FDCWD, in_dir("file"), NULL, AT_UNKNOWN));
}

static long p_fstatat(void)
{
	struct stat st;

	return res(syscall(SYS_newfstatat, AT_FDCWD, in_dir("file"), &st, AT_UNKNOWN));
}

static long p_linkat(void)
{
	long ret = res(syscall(SYS_linkat, AT_FDCWD, in_dir("file"), AT_FDCWD,
			       in_dir("link"), AT_UNKNOWN));

	unlink(in_dir("link"));
	return ret;
}

static long p_unlinkat(void)
{
	int fd = make_file("victim");

	if (fd < 0)
		return -errno;
	close(fd);
	return res(syscall(SYS_unlinkat, AT_FDCWD, in_dir("victim"), AT_UNKNOWN));
}

static long p_fchownat(void)
{
	/* To its own owner: a change that went ahead changes nothing. */
	return res(syscall(SYS_fchownat, AT_FDCWD, in_dir("file"), getuid(),
			   getgid(), AT_UNKNOWN));
}

static long p_faccessat2(void)
{
	return res(syscall(SYS_faccessat2, AT_FDCWD, in_dir("file"), F_OK, AT_UNKNOWN));
}

static long p_fchmodat2(void)
{
	/* To the mode it has: nothing changes */
	return res(syscall(SYS_fchmodat2, AT_FDCWD, in_dir("file"), 0600, AT_UNKNOWN));
}

static long p_process_vm_readv(void)
{
	char from[8] = "survey", to[8];
	struct iovec local = { to, sizeof(to) }, remote = { from, sizeof(from) };

	return res(syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 1));
}

static long mmap_probe(int type)
{
	int fd = make_file("map");
	void *p;

	if (fd < 0)
		return -errno;
	p = mmap(NULL, 4096, PROT_READ, type | MAP_UNKNOWN, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	munmap(p, 4096);
	return 0;
}

static long p_mmap_shared(void)
{
	return mmap_probe(MAP_SHARED);
}

static long p_mmap_shared_validate(void)
{
	return mmap_probe(MAP_SHARED_VALIDATE);
}

/*
 * clone3() must never make a child here: CLONE_INTO_CGROUP with an fd
 * nobody has fails with EBADF before a task exists, so a kernel that
 * let the unknown bit (or the tail) through answers EBADF, not a pid.
 */
static long clone3_probe(uint64_t flags, bool tail)
{
	struct {
		struct survey_clone_args args;
		uint64_t extra;
	} buf = {
		.args = {
			.flags = flags | SURVEY_CLONE_INTO_CGROUP,
			.exit_signal = SIGCHLD,
			.cgroup = 0x7fffffff,
		},
		.extra = tail,
	};
	long ret = syscall(SYS_clone3, &buf, tail ? sizeof(buf) : sizeof(buf.args));

	if (ret == 0)
		_exit(0);	/* cannot happen, see above; never run on */
	if (ret > 0)
		waitpid(ret, NULL, 0);
	return res(ret);
}

static long p_clone3(void)
{
	return clone3_probe(CLONE_UNKNOWN, false);
}

static long p_clone3_tail(void)
{
	return clone3_probe(0, true);
}

static long p_mount_setattr(void)
{
	/* Nothing to set or clear: a call that went ahead changes nothing. */
	struct survey_mount_attr attr = { 0 };

	return res(syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_UNKNOWN, &attr,
			   sizeof(attr)));
}

static long p_sched_setattr(void)
{
	struct survey_sched_attr attr = { .size = sizeof(attr) };

	/* The policy and nice value it has: nothing changes. */
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0))
		return -errno;
	return res(syscall(SYS_sched_setattr, 0, &attr, 1));
}

static long p_statx(void)
{
	struct statx stx;

	return res(statx(AT_FDCWD, in_dir("file"), AT_UNKNOWN, STATX_BASIC_STATS, &stx));
}

static long p_memfd_create(void)
{
	return res_fd(syscall(SYS_memfd_create, "survey", MFD_UNKNOWN));
}

static long p_pidfd_open(void)
{
	return res_fd(syscall(SYS_pidfd_open, getpid(), O_UNKNOWN));
}

static long p_close_range(void)
{
	/* fds nobody has */
	return res(syscall(SYS_close_range, ~0U - 1, ~0U, O_UNKNOWN));
}

static long p_wait4(void)
{
	pid_t pid = fork();
	long ret;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0);
	ret = res(wait4(pid, NULL, WAIT_UNKNOWN, NULL));
	if (ret != pid)
		waitpid(pid, NULL, 0);
	return ret < 0 ? ret : 0;
}

static long p_finit_module(void)
{
	/* fd -1: a call that went ahead fails with EBADF and loads nothing */
	return res(syscall(SYS_finit_module, -1, "", O_UNKNOWN));
}

static long p_mseal(void)
{
	/* Zero bytes at a page: a call that went ahead seals nothing. */
	static char page[4096] __attribute__((aligned(4096)));

	return res(syscall(SYS_mseal, page, 0, 1));
}

struct probe {
	const char *name;
	const char *since;	/* the release that added the call */
	const char *lesson;
	const char *bit;	/* the unknown bit it sets */
	long (*call)(void);	/* NULL: the call has no flags argument */
	int rejects_with;	/* the documented answer to an unknown bit */
};

static const struct probe probes[] = {
	{ "open", "0.01", "flags, unknown bits ignored", "O_ 1<<28", p_open, EINVAL },
	{ "openat", "2.6.16", "flags, unknown bits ignored", "O_ 1<<28", p_openat, EINVAL },
	{ "openat2", "5.6", "open's fix: checked flags in a sized struct", "O_ 1<<28",
	  p_openat2, EINVAL },
	{ "openat2-nonzero-tail", "5.6", "a bigger struct only with a zero tail",
	  "byte 24 of 32", p_openat2_tail, E2BIG },
	{ "renameat2", "3.15", "renameat's successor, for want of flags", "RENAME_ 1<<30",
	  p_renameat2, EINVAL },
	{ "dup3", "2.6.27", "dup2's successor (the CLOEXEC wave)", "O_ 1<<28", p_dup3, EINVAL },
	{ "pipe2", "2.6.27", "pipe's successor (the CLOEXEC wave)", "O_ 1<<28", p_pipe2, EINVAL },
	{ "epoll_create1", "2.6.27", "epoll_create's successor (CLOEXEC wave)", "O_ 1<<28",
	  p_epoll_create1, EINVAL },
	{ "eventfd2", "2.6.27", "eventfd's successor (the CLOEXEC wave)", "O_ 1<<28",
	  p_eventfd2, EINVAL },
	{ "inotify_init1", "2.6.27", "inotify_init's successor (CLOEXEC wave)", "O_ 1<<28",
	  p_inotify_init1, EINVAL },
	{ "signalfd4", "2.6.27", "signalfd's successor (the CLOEXEC wave)", "O_ 1<<28",
	  p_signalfd4, EINVAL },
	{ "accept4", "2.6.28", "accept's successor, for CLOEXEC", "O_ 1<<28", p_accept4, EINVAL },
	{ "socket", "2.6.27", "flags folded into the type argument", "O_ 1<<28", p_socket, EINVAL },
	{ "utimensat", "2.6.22", "futimesat's successor, with flags", "AT_ 1<<30",
	  p_utimensat, EINVAL },
	{ "fstatat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_fstatat, EINVAL },
	{ "linkat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_linkat, EINVAL },
	{ "unlinkat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_unlinkat, EINVAL },
	{ "fchownat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_fchownat, EINVAL },
	{ "faccessat2", "5.8", "faccessat had none: the article's prediction", "AT_ 1<<30",
	  p_faccessat2, EINVAL },
	{ "fchmodat2", "6.6", "fchmodat had none: the article's prediction", "AT_ 1<<30",
	  p_fchmodat2, EINVAL },
	{ "process_vm_readv", "3.2", "a flags argument kept for the future", "flags 1",
	  p_process_vm_readv, EINVAL },
	{ "mmap-MAP_SHARED", "0.98", "flags, unknown bits ignored", "MAP_ 0x200000",
	  p_mmap_shared, EOPNOTSUPP },
	{ "mmap-MAP_SHARED_VALIDATE", "4.15", "a new type to get strict flags", "MAP_ 0x200000",
	  p_mmap_shared_validate, EOPNOTSUPP },
	{ "clone3", "5.3", "clone's successor: flags in a sized struct", "CLONE_ 1<<40",
	  p_clone3, EINVAL },
	{ "clone3-nonzero-tail", "5.3", "a bigger struct only with a zero tail",
	  "byte 88 of 96", p_clone3_tail, E2BIG },
	{ "mount_setattr", "5.12", "flags and a sized struct from day one", "AT_ 1<<30",
	  p_mount_setattr, EINVAL },
	{ "sched_setattr", "3.14", "flags from day one, none defined", "flags 1",
	  p_sched_setattr, EINVAL },
	{ "statx", "4.11", "flags from day one", "AT_ 1<<30", p_statx, EINVAL },
	{ "memfd_create", "3.17", "flags from day one", "MFD_ 0x100000", p_memfd_create, EINVAL },
	{ "pidfd_open", "5.3", "flags from day one, none at first", "O_ 1<<28",
	  p_pidfd_open, EINVAL },
	{ "close_range", "5.9", "flags from day one, none at first", "1<<28",
	  p_close_range, EINVAL },
	{ "wait4", "0.99", "wait's successor (wait3), with options", "0x100", p_wait4, EINVAL },
	{ "finit_module", "3.8", "flags added at the last minute", "1<<28",
	  p_finit_module, EINVAL },
	{ "mseal", "6.10", "flags from day one, none defined", "flags 1", p_mseal, EINVAL },
	{ "syncfs", "2.6.39", "no flags: the article's miss", "-", NULL, 0 },
	{ "readlinkat", "2.6.16", "no flags: \"\" means the fd, no AT_EMPTY_PATH", "-",
	  NULL, 0 },
	{ "mkdirat", "2.6.16", "no flags", "-", NULL, 0 },
};

/* Empties the directory: what the probes made, whatever they answered */
static void remove_all(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(in_dir(de->d_name));
	closedir(d);
}

/* The verdict on one probe's answer, and the errno it had (0 if none). */
static const char *verdict(const struct probe *p, long ret, int *err)
{
	*err = ret < 0 ? (int)-ret : 0;
	if (!p->call)
		return "noflags";
	if (ret == -ENOSYS)
		return "absent";
	if (ret == -p->rejects_with || ret == -EINVAL)
		return "rejects";
	/* Refused before the flags were looked at (not root): nothing done */
	if (ret == -EPERM && p->call == p_finit_module)
		return "rejects";
	/* Went ahead: succeeded, or failed as it does once past its flags */
	return "ignores";
}

static const char *err_name(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	return name ? name : "E?";
}

int cmd_survey(int argc, char **argv)
{
	bool tsv = argc == 1 && !strcmp(argv[0], "--tsv");
	const struct probe *p;
	int fd, err;

	if (argc && !tsv) {
		fputs("usage: flagsfirst survey [--tsv]\n", stderr);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/flagsfirst-survey.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("flagsfirst: survey: mkdtemp");
		return 1;
	}
	fd = make_file("file");
	if (fd < 0) {
		perror("flagsfirst: survey: a file to probe with");
		rmdir(dir);
		return 1;
	}
	close(fd);

	if (!tsv)
		printf("%-25s %-7s %-45s %-14s %-8s %s\n", "call", "since", "lesson",
		       "unknown bit", "verdict", "errno");
	for (p = probes; p < probes + ARRAY_SIZE(probes); p++) {
		const char *v = verdict(p, p->call ? p->call() : 0, &err);

		if (tsv)
			printf("%s\t%s\t%s\n", p->name, v, err_name(err));
		else
			printf("%-25s %-7s %-45s %-14s %-8s %s\n", p->name, p->since,
			       p->lesson, p->bit, v, err_name(err));
	}

	remove_all();
	if (rmdir(dir)) {
		fprintf(stderr, "flagsfirst: survey: %s left behind: %s\n", dir,
			strerror(errno));
		return 1;
	}
	return 0;
}
