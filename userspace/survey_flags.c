// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey, part 1: flags, the calls of the first survey (the
 * article's successors, the *at calls, the structs of 5.x); the calls
 * since, and those it did not name, are in survey_later.c.  Each probe
 * calls one system call with one bit that no kernel defines (none in the
 * uapi headers of sid's 7.2, the newest kernel of the test matrix);
 * userspace/survey.c says whether the kernel rejected it, ignored it or
 * lacks the call.
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

#include "atlas.h"
#include "kuapi.h"

static long p_open(void)
{
	return res_fd(open(in_dir("file"), O_RDONLY | O_UNKNOWN));
}

/* The control of open's rows: O_DIRECTORY on a file is ENOTDIR */
static long c_open(void)
{
	return res_fd(open(in_dir("file"), O_RDONLY | O_DIRECTORY | O_UNKNOWN));
}

static long p_openat(void)
{
	return res_fd(openat(AT_FDCWD, in_dir("file"), O_RDONLY | O_UNKNOWN));
}

static long c_openat(void)
{
	return res_fd(openat(AT_FDCWD, in_dir("file"), O_RDONLY | O_DIRECTORY | O_UNKNOWN));
}

static long p_openat2(void)
{
	struct k_open_how how = { .flags = O_RDONLY | O_UNKNOWN };

	return res_fd(syscall(SYS_openat2, AT_FDCWD, in_dir("file"), &how,
			      sizeof(how)));
}

static long p_openat2_tail(void)
{
	unsigned char buf[sizeof(struct k_open_how) + 8] = { 0 };

	buf[sizeof(struct k_open_how)] = 1;
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

/* newfstatat on 64-bit ABIs, fstatat64 (a bigger struct) on i386 */
#ifdef SYS_newfstatat
#define NR_fstatat	SYS_newfstatat
#else
#define NR_fstatat	SYS_fstatat64
#endif

static long p_fstatat(void)
{
	unsigned char st[256];	/* struct stat or struct stat64 */

	return res(syscall(NR_fstatat, AT_FDCWD, in_dir("file"), st, AT_UNKNOWN));
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
	return res(syscall(NR_fchmodat2, AT_FDCWD, in_dir("file"), 0600, AT_UNKNOWN));
}

static long p_process_vm_readv(void)
{
	char from[8] = "survey", to[8];
	struct iovec local = { to, sizeof(to) }, remote = { from, sizeof(from) };

	return res(syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 1));
}

static long mmap_probe(int flags, void *at)
{
	int fd = make_file("map");
	void *p;

	if (fd < 0)
		return -errno;
	p = mmap(at, 4096, PROT_READ, flags | MAP_UNKNOWN, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	munmap(p, 4096);
	return 0;
}

static long p_mmap_shared(void)
{
	return mmap_probe(MAP_SHARED, NULL);
}

/* The control: MAP_FIXED_NOREPLACE (4.17) onto a page in use is EEXIST */
static long c_mmap_shared(void)
{
	void *taken = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long ret;

	if (taken == MAP_FAILED)
		return -errno;
	ret = mmap_probe(MAP_SHARED | MAP_FIXED_NOREPLACE, taken);
	munmap(taken, 4096);
	return ret;
}

static long p_mmap_shared_validate(void)
{
	return mmap_probe(MAP_SHARED_VALIDATE, NULL);
}

/*
 * clone3() must never make a child here: CLONE_INTO_CGROUP with an fd
 * nobody has fails with EBADF before a task exists, so a kernel that
 * let the unknown bit (or the tail) through answers EBADF, not a pid.
 */
static long clone3_probe(uint64_t flags, bool tail)
{
	struct {
		struct k_clone_args args;
		uint64_t extra;
	} buf = {
		.args = {
			.flags = flags | K_CLONE_INTO_CGROUP,
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
	struct k_mount_attr attr = { 0 };

	return res(syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_UNKNOWN, &attr,
			   sizeof(attr)));
}

static long p_sched_setattr(void)
{
	struct k_sched_attr attr = { .size = sizeof(attr) };

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

	return res(syscall(NR_mseal, page, 0, 1));
}

/*
 * The first survey's 37 rows, in its order: their names, bits and
 * verdicts stay what they were.
 */
const struct row flag_rows[] = {
#define F(n, s, l, b, c, w, ...) { .name = n, .kind = FLAGS, .since = s, \
	.arg = b, .lesson = l, .call = c, .rejects_with = w, __VA_ARGS__ }
	F("open", "0.01", "flags, unknown bits ignored", "O_ 1<<28", p_open, EINVAL,
	  .control = c_open, .control_is = -ENOTDIR,
	  .expect = "ignores 0"),
	F("openat", "2.6.16", "flags, unknown bits ignored", "O_ 1<<28", p_openat, EINVAL,
	  .control = c_openat, .control_is = -ENOTDIR,
	  .expect = "ignores 0"),
	F("openat2", "5.6", "open's fix: checked flags in a sized struct", "O_ 1<<28",
	  p_openat2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("openat2-nonzero-tail", "5.6", "a bigger struct only with a zero tail",
	  "byte 24 of 32", p_openat2_tail, E2BIG,
	  .expect = "rejects E2BIG"),
	F("renameat2", "3.15", "renameat's successor, for want of flags", "RENAME_ 1<<30",
	  p_renameat2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("dup3", "2.6.27", "dup2's successor (the CLOEXEC wave)", "O_ 1<<28", p_dup3, EINVAL,
	  .expect = "rejects EINVAL"),
	F("pipe2", "2.6.27", "pipe's successor (the CLOEXEC wave)", "O_ 1<<28", p_pipe2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("epoll_create1", "2.6.27", "epoll_create's successor (CLOEXEC wave)", "O_ 1<<28",
	  p_epoll_create1, EINVAL,
	  .expect = "rejects EINVAL"),
	F("eventfd2", "2.6.27", "eventfd's successor (the CLOEXEC wave)", "O_ 1<<28",
	  p_eventfd2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("inotify_init1", "2.6.27", "inotify_init's successor (CLOEXEC wave)", "O_ 1<<28",
	  p_inotify_init1, EINVAL,
	  .expect = "rejects EINVAL"),
	F("signalfd4", "2.6.27", "signalfd's successor (the CLOEXEC wave)", "O_ 1<<28",
	  p_signalfd4, EINVAL,
	  .expect = "rejects EINVAL"),
	F("accept4", "2.6.28", "accept's successor, for CLOEXEC", "O_ 1<<28", p_accept4, EINVAL,
	  .expect = "rejects EINVAL"),
	F("socket", "2.6.27", "flags folded into the type argument", "O_ 1<<28", p_socket, EINVAL,
	  .expect = "rejects EINVAL"),
	F("utimensat", "2.6.22", "futimesat's successor, with flags", "AT_ 1<<30",
	  p_utimensat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("fstatat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_fstatat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("linkat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_linkat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("unlinkat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_unlinkat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("fchownat", "2.6.16", "one of four *at calls born with flags", "AT_ 1<<30",
	  p_fchownat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("faccessat2", "5.8", "faccessat had none: the article's prediction", "AT_ 1<<30",
	  p_faccessat2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("fchmodat2", "6.6", "fchmodat had none: the article's prediction", "AT_ 1<<30",
	  p_fchmodat2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("process_vm_readv", "3.2", "a flags argument kept for the future", "flags 1",
	  p_process_vm_readv, EINVAL,
	  .expect = "rejects EINVAL"),
	F("mmap-MAP_SHARED", "0.98", "flags, unknown bits ignored", "MAP_ 0x200000",
	  p_mmap_shared, EOPNOTSUPP,
	  .control = c_mmap_shared, .control_is = -EEXIST,
	  .expect = "ignores 0"),
	F("mmap-MAP_SHARED_VALIDATE", "4.15", "a new type to get strict flags", "MAP_ 0x200000",
	  p_mmap_shared_validate, EOPNOTSUPP,
	  .expect = "rejects EOPNOTSUPP"),
	F("clone3", "5.3", "clone's successor: flags in a sized struct", "CLONE_ 1<<40",
	  p_clone3, EINVAL,
	  .expect = "rejects EINVAL"),
	F("clone3-nonzero-tail", "5.3", "a bigger struct only with a zero tail",
	  "byte 88 of 96", p_clone3_tail, E2BIG,
	  .expect = "rejects E2BIG"),
	F("mount_setattr", "5.12", "flags and a sized struct from day one", "AT_ 1<<30",
	  p_mount_setattr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("sched_setattr", "3.14", "flags from day one, none defined", "flags 1",
	  p_sched_setattr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("statx", "4.11", "flags from day one", "AT_ 1<<30", p_statx, EINVAL,
	  .expect = "rejects EINVAL"),
	F("memfd_create", "3.17", "flags from day one", "MFD_ 0x100000", p_memfd_create, EINVAL,
	  .expect = "rejects EINVAL"),
	F("pidfd_open", "5.3", "flags from day one, none at first", "O_ 1<<28",
	  p_pidfd_open, EINVAL,
	  .expect = "rejects EINVAL"),
	F("close_range", "5.9", "flags from day one, none at first", "1<<28",
	  p_close_range, EINVAL,
	  .expect = "rejects EINVAL"),
	F("wait4", "0.99", "wait's successor (wait3), with options", "0x100", p_wait4, EINVAL,
	  .expect = "rejects EINVAL"),
	/* Unprivileged: EPERM, the capability first (a "rejects" since 2014) */
	F("finit_module", "3.8", "flags added at the last minute", "1<<28",
	  p_finit_module, EPERM,
	  .expect = "rejects EINVAL", .expect_nobody = "rejects EPERM"),
	F("mseal", "6.10", "flags from day one, none defined", "flags 1", p_mseal, EINVAL,
	  .expect = "rejects EINVAL"),
	F("syncfs", "2.6.39", "no flags: the article's miss", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("readlinkat", "2.6.16", "no flags: \"\" means the fd, no AT_EMPTY_PATH", "-",
	  NULL, 0,
	  .expect = "noflags 0"),
	F("mkdirat", "2.6.16", "no flags", "-", NULL, 0,
	  .expect = "noflags 0"),
#undef F
};

const size_t nr_flag_rows = ARRAY_SIZE(flag_rows);
