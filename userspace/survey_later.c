// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey, part 1 continued: the calls since the article, and
 * those the first survey did not name (files and mounts, security,
 * processes and futexes, memory, I/O), each with one bit that no kernel of
 * the matrix defines.  A call that needs a capability is marked .priv: the
 * survey asks it again as uid 65534.  Every probe changes nothing: see
 * each one.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atlas.h"
#include "kuapi.h"

/* A page of our own, for the memory calls: never one that matters. */
static char page[4096] __attribute__((aligned(4096)));

static long p_setxattrat(void)
{
	struct k_xattr_args args = { 0 };

	return res(syscall(NR_setxattrat, AT_FDCWD, in_dir("file"), AT_UNKNOWN,
			   "user.survey", &args, sizeof(args)));
}

static long p_getxattrat(void)
{
	char value[16];
	struct k_xattr_args args = { .value = (uintptr_t)value, .size = sizeof(value) };

	return res(syscall(NR_getxattrat, AT_FDCWD, in_dir("file"), AT_UNKNOWN,
			   "user.none", &args, sizeof(args)));
}

static long p_listxattrat(void)
{
	char list[256];

	return res(syscall(NR_listxattrat, AT_FDCWD, in_dir("file"), AT_UNKNOWN,
			   list, sizeof(list)));
}

static long p_removexattrat(void)
{
	return res(syscall(NR_removexattrat, AT_FDCWD, in_dir("file"), AT_UNKNOWN,
			   "user.none"));
}

static long p_file_getattr(void)
{
	struct k_file_attr fa;

	return res(syscall(NR_file_getattr, AT_FDCWD, in_dir("file"), &fa,
			   sizeof(fa), AT_UNKNOWN));
}

static long p_file_setattr(void)
{
	struct k_file_attr fa = { 0 };	/* no attribute: what the file has */

	return res(syscall(NR_file_setattr, AT_FDCWD, in_dir("file"), &fa,
			   sizeof(fa), AT_UNKNOWN));
}

static long p_landlock_create_ruleset(void)
{
	return res_fd(syscall(NR_landlock_create_ruleset, NULL, 0, FLAGS_UNKNOWN));
}

/* fd -1: a call that went ahead fails with EBADF (7.2 defines bit 0) */
static long p_landlock_add_rule(void)
{
	uint64_t attr[2] = { 0 };

	return res(syscall(NR_landlock_add_rule, -1, K_LANDLOCK_RULE_PATH_BENEATH,
			   attr, FLAGS_UNKNOWN));
}

static long p_landlock_restrict_self(void)
{
	return res(syscall(NR_landlock_restrict_self, -1, FLAGS_UNKNOWN));
}

static long p_cachestat(void)
{
	struct k_cachestat_range range = { 0, 4096 };
	struct k_cachestat cs;
	int fd = make_file("cache");
	long ret;

	if (fd < 0)
		return -errno;
	ret = res(syscall(NR_cachestat, fd, &range, &cs, 1));
	close(fd);
	return ret;
}

/* A futex word of our own that holds 0: a wait for 1 returns at once */
static uint32_t futex_word;

static long p_futex_waitv(void)
{
	struct k_futex_waitv w = {
		.val = 1,
		.uaddr = (uintptr_t)&futex_word,
		.flags = K_FUTEX2_SIZE_U32 | K_FUTEX2_PRIVATE,
	};

	return res(syscall(NR_futex_waitv, &w, 1, 1, NULL, 0));
}

static long p_futex_wake(void)
{
	return res(syscall(NR_futex_wake, &futex_word, ~0UL, 1,
			   K_FUTEX2_SIZE_U32 | K_FUTEX2_PRIVATE | FUTEX2_UNKNOWN));
}

static long p_futex_wait(void)
{
	return res(syscall(NR_futex_wait, &futex_word, 1, ~0UL,
			   K_FUTEX2_SIZE_U32 | K_FUTEX2_PRIVATE | FUTEX2_UNKNOWN,
			   NULL, 0));
}

static long p_futex_requeue(void)
{
	struct k_futex_waitv w[2] = {
		{ .uaddr = (uintptr_t)&futex_word,
		  .flags = K_FUTEX2_SIZE_U32 | K_FUTEX2_PRIVATE },
		{ .uaddr = (uintptr_t)&futex_word,
		  .flags = K_FUTEX2_SIZE_U32 | K_FUTEX2_PRIVATE },
	};

	return res(syscall(NR_futex_requeue, w, 1, 0, 0));
}

/* A shadow stack a kernel that ignored the bit mapped is unmapped again */
static long p_map_shadow_stack(void)
{
	long ret = syscall(NR_map_shadow_stack, 0, 4096, FLAGS_UNKNOWN);

	if (ret < 0)
		return -errno;
	munmap((void *)ret, 4096);
	return 0;
}

static long p_process_mrelease(void)
{
	return res(syscall(NR_process_mrelease, -1, 1));
}

static long p_memfd_secret(void)
{
	return res_fd(syscall(NR_memfd_secret, O_UNKNOWN));
}

/* Our own pidfd, for the pidfd calls */
static int self_pidfd(void)
{
	return syscall(NR_pidfd_open, getpid(), 0);
}

static long p_pidfd_getfd(void)
{
	int pidfd = self_pidfd();
	long ret;

	if (pidfd < 0)
		return -errno;
	ret = res_fd(syscall(NR_pidfd_getfd, pidfd, 0, 1));
	close(pidfd);
	return ret;
}

/* Signal 0: a call that went ahead sends nothing */
static long p_pidfd_send_signal(void)
{
	int pidfd = self_pidfd();
	long ret;

	if (pidfd < 0)
		return -errno;
	ret = res(syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, FLAGS_UNKNOWN));
	close(pidfd);
	return ret;
}

static long rw2_probe(long nr)
{
	char buf[8] = "survey";
	struct iovec iov = { buf, sizeof(buf) };
	int fd = make_file("rw");
	long ret;

	if (fd < 0)
		return -errno;
	ret = res(syscall(nr, fd, &iov, 1, 0, 0, RWF_UNKNOWN));
	close(fd);
	return ret < 0 ? ret : 0;
}

static long p_preadv2(void)
{
	return rw2_probe(SYS_preadv2);
}

static long p_pwritev2(void)
{
	return rw2_probe(SYS_pwritev2);
}

static long p_copy_file_range(void)
{
	int in = make_file("cfr-in"), out = make_file("cfr-out");
	long ret = -EBADF;

	if (in >= 0 && out >= 0)
		ret = res(syscall(SYS_copy_file_range, in, NULL, out, NULL, 0, 1));
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/*
 * The splice family on two pipes of our own.  splice() is asked to move the
 * one byte in the first: with a length of 0 it returns 0 before it looks at
 * its flags (fs/splice.c, every release), which once made this row say
 * "ignores".  With a byte to move, an ignored bit would move it (1).
 */
static long splice_probe(int which)
{
	int a[2], b[2];
	struct iovec iov = { page, 0 };
	long ret;

	if (pipe2(a, O_CLOEXEC))
		return -errno;
	if (pipe2(b, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	if (which == 0 && write(a[1], "x", 1) != 1)
		ret = -errno;
	else if (which == 0)
		ret = res(splice(a[0], NULL, b[1], NULL, 1, FLAGS_UNKNOWN));
	else if (which == 1)
		ret = res(tee(a[0], b[1], 0, FLAGS_UNKNOWN));
	else
		ret = res(vmsplice(a[1], &iov, 1, FLAGS_UNKNOWN));
	close(b[0]);
	close(b[1]);
out:
	close(a[0]);
	close(a[1]);
	return ret;
}

static long p_splice(void)
{
	return splice_probe(0);
}

static long p_tee(void)
{
	return splice_probe(1);
}

static long p_vmsplice(void)
{
	return splice_probe(2);
}

static long file_probe(int which)
{
	int fd = make_file("range");
	long ret;

	if (fd < 0)
		return -errno;
	if (which == 0)
		ret = res(sync_file_range(fd, 0, 0, FLAGS_UNKNOWN));
	else
		ret = res(fallocate(fd, FLAGS_UNKNOWN, 0, 4096));
	close(fd);
	return ret;
}

static long p_sync_file_range(void)
{
	return file_probe(0);
}

static long p_fallocate(void)
{
	return file_probe(1);
}

static long p_madvise(void)
{
	return res(madvise(page, sizeof(page), 9999));
}

static long p_process_madvise(void)
{
	struct iovec iov = { page, sizeof(page) };
	int pidfd = self_pidfd();
	long ret;

	if (pidfd < 0)
		return -errno;
	ret = res(syscall(NR_process_madvise, pidfd, &iov, 1, MADV_COLD, 1));
	close(pidfd);
	return ret < 0 ? ret : 0;
}

/* A page that got locked is unlocked again */
static long p_mlock2(void)
{
	long ret = res(syscall(SYS_mlock2, page, sizeof(page), FLAGS_UNKNOWN));

	if (ret == 0)
		munlock(page, sizeof(page));
	return ret;
}

static long p_membarrier(void)
{
	return res(syscall(SYS_membarrier, 0 /* QUERY */, FLAGS_UNKNOWN, 0));
}

/* No struct: a registration that went ahead fails on the NULL pointer */
static long p_rseq(void)
{
	return res(syscall(SYS_rseq, NULL, 0, FLAGS_UNKNOWN, 0));
}

static long p_userfaultfd(void)
{
	return res_fd(syscall(SYS_userfaultfd, O_CLOEXEC | O_UNKNOWN));
}

/*
 * Never an event: a group leader that is no perf event (stdin) fails with
 * EBADF past the checks of the flags, the struct and the permissions, and
 * before an event exists.  A real event would flip the scheduler's
 * perf_sched_events static key, rewriting kernel text (and QEMU's TCG once
 * met that rewrite with an Oops: int3 in __schedule).
 */
static long p_perf_event_open(void)
{
	struct k_perf_event_attr attr = {
		.type = K_PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = K_PERF_COUNT_SW_DUMMY,
		.flags = K_PERF_ATTR_DISABLED | K_PERF_ATTR_EXCLUDE_KERNEL |
			 K_PERF_ATTR_EXCLUDE_HV,
	};
	long ret = syscall(SYS_perf_event_open, &attr, 0, -1, 0, FLAGS_UNKNOWN);

	if (ret >= 0)
		close(ret);
	return ret < 0 ? -errno : 0;
}

static long p_bpf(void)
{
	union {
		struct k_bpf_map_create map;
		unsigned char all[128];
	} attr = { .map = {
		.map_type = K_BPF_MAP_TYPE_ARRAY,
		.key_size = 4, .value_size = 4, .max_entries = 1,
		.map_flags = FLAGS_UNKNOWN,
	} };

	return res_fd(syscall(SYS_bpf, K_BPF_MAP_CREATE, &attr, sizeof(attr)));
}

static long p_io_uring_setup(void)
{
	struct k_io_uring_params p = { .flags = FLAGS_UNKNOWN };

	return res_fd(syscall(NR_io_uring_setup, 1, &p));
}

/* A question, not a filter: nothing is installed */
static long p_seccomp(void)
{
	uint32_t action = K_SECCOMP_RET_KILL_PROCESS;

	return res(syscall(SYS_seccomp, K_SECCOMP_GET_ACTION_AVAIL, 1, &action));
}

/* In a child: whatever a kernel that took the bit set dies with it */
static long in_child(long (*call)(void))
{
	int fds[2];
	long ret = -ECHILD;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		ret = call();
		_exit(write(fds[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 1);
	}
	close(fds[1]);
	if (pid > 0) {
		if (read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
			ret = -ECHILD;
		waitpid(pid, NULL, 0);
	} else {
		ret = -errno;
	}
	close(fds[0]);
	return ret;
}

static long mdwe(void)
{
	return res(prctl(K_PR_SET_MDWE, FLAGS_UNKNOWN, 0, 0, 0));
}

static long p_prctl_mdwe(void)
{
	return in_child(mdwe);
}

static long p_prctl_get_nnp(void)
{
	return res(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0));
}

static long p_getrandom(void)
{
	char buf[1];

	return res(syscall(SYS_getrandom, buf, sizeof(buf), FLAGS_UNKNOWN));
}

/* A path that does not exist: nothing can be executed */
static long p_execveat(void)
{
	char *const argv[] = { (char *)"none", NULL }, *const envp[] = { NULL };

	return res(syscall(SYS_execveat, AT_FDCWD, in_dir("none"), argv, envp,
			   AT_UNKNOWN));
}

static long p_timerfd_create(void)
{
	return res_fd(timerfd_create(CLOCK_MONOTONIC, O_UNKNOWN));
}

/* A disarmed timer stays disarmed */
static long p_timerfd_settime(void)
{
	struct itimerspec its = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	long ret;

	if (fd < 0)
		return -errno;
	ret = res(timerfd_settime(fd, FLAGS_UNKNOWN, &its, NULL));
	close(fd);
	return ret;
}

static long p_mremap(void)
{
	void *p = mremap(page, sizeof(page), sizeof(page), FLAGS_UNKNOWN);

	return p == MAP_FAILED ? -errno : 0;
}

static long p_msync(void)
{
	return res(msync(page, sizeof(page), MS_ASYNC | FLAGS_UNKNOWN));
}

static long p_lsm_get_self_attr(void)
{
	uint32_t size = BIG_SIZE;

	return res(syscall(NR_lsm_get_self_attr, 100 /* LSM_ATTR_CURRENT */, big,
			   &size, FLAGS_UNKNOWN));
}

static long p_lsm_list_modules(void)
{
	uint64_t ids[32];
	uint32_t size = sizeof(ids);

	return res(syscall(NR_lsm_list_modules, ids, &size, 1));
}

static long p_fanotify_init(void)
{
	return res_fd(syscall(SYS_fanotify_init, FAN_CLOEXEC | FLAGS_UNKNOWN,
			      O_RDONLY));
}

static long p_inotify_add_watch(void)
{
	int fd = inotify_init1(IN_CLOEXEC);
	long ret;

	if (fd < 0)
		return -errno;
	ret = res(inotify_add_watch(fd, in_dir("file"), IN_ACCESS | IN_UNKNOWN));
	close(fd);
	return ret < 0 ? ret : 0;
}

static long p_waitid(void)
{
	siginfo_t info;
	pid_t pid = fork();
	long ret;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0);
	ret = res(waitid(P_PID, pid, &info, WEXITED | WAIT_UNKNOWN));
	if (ret != 0)
		waitpid(pid, NULL, 0);
	return ret;
}

/*
 * One byte over a datagram socketpair of our own.  Its sendmsg reads the
 * flags (MSG_OOB is EOPNOTSUPP there, the control) and passes the rest.
 */
static long send_probe(int flags)
{
	int sv[2];
	long ret;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	ret = res(send(sv[0], "s", 1, MSG_DONTWAIT | MSG_UNKNOWN | flags));
	close(sv[0]);
	close(sv[1]);
	return ret < 0 ? ret : 0;
}

static long p_send(void)
{
	return send_probe(0);
}

static long c_send(void)
{
	return send_probe(MSG_OOB);
}

/* No time at all: a sleep that went ahead returns at once */
static long p_clock_nanosleep(void)
{
	struct timespec ts = { 0 };

	return -clock_nanosleep(CLOCK_MONOTONIC, FLAGS_UNKNOWN, &ts, NULL);
}

/*
 * The control: 10 s with TIMER_ABSTIME is a time past (the clock is made
 * to pass 12 s first, a wait only just after boot), so the call returns
 * at once (0); read as relative, it would sleep 10 s (1).
 */
static long c_clock_nanosleep(void)
{
	struct timespec ts = { .tv_sec = 10 }, after = { .tv_sec = 12 }, t0, t1;
	long ret;

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &after, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = -clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME | FLAGS_UNKNOWN, &ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ret ? ret : t1.tv_sec - t0.tv_sec >= 5;
}

static long p_sched_getattr(void)
{
	struct k_sched_attr attr;

	/* not 1: 7.2 defines it (SCHED_GETATTR_FLAG_DL_DYNAMIC) */
	return res(syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), FLAGS_UNKNOWN));
}

static long p_pkey_alloc(void)
{
	long ret = res(syscall(SYS_pkey_alloc, FLAGS_UNKNOWN, 0));

	if (ret >= 0)
		syscall(SYS_pkey_free, ret);
	return ret < 0 ? ret : 0;
}

static long p_set_mempolicy_home_node(void)
{
	return res(syscall(NR_set_mempolicy_home_node, page, sizeof(page), 0, 1));
}

/* The rows of part 1 after the first survey's, in survey_flags.c */
const struct row later_rows[] = {
#define F(n, s, l, b, c, w, ...) { .name = n, .kind = FLAGS, .since = s, \
	.arg = b, .lesson = l, .call = c, .rejects_with = w, __VA_ARGS__ }
	/* Since the article: the *at calls and fs attributes */
	F("setxattrat", "6.13-7.2", "setxattr's *at successor: flags + sized args", "AT_ 1<<30",
	  p_setxattrat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("getxattrat", "6.13-7.2", "getxattr's *at successor: flags + sized args", "AT_ 1<<30",
	  p_getxattrat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("listxattrat", "6.13-7.2", "listxattr's *at successor, with flags", "AT_ 1<<30",
	  p_listxattrat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("removexattrat", "6.13-7.2", "removexattr's *at successor, with flags", "AT_ 1<<30",
	  p_removexattrat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("file_getattr", "6.13-7.2", "FS_IOC_FSGETXATTR as a call: flags + size",
	  "AT_ 1<<30", p_file_getattr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("file_setattr", "6.13-7.2", "FS_IOC_FSSETXATTR as a call: flags + size",
	  "AT_ 1<<30", p_file_setattr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("name_to_handle_at", "2.6.39", "an *at call born with flags", "AT_ 1<<30",
	  p_name_to_handle_at, EINVAL,
	  .expect = "rejects EINVAL"),
	F("open_by_handle_at", "2.6.39", "open's flags again: unknown bits pass",
	  "O_ 1<<28", p_open_by_handle_at, EINVAL, .priv = 1,
	  .control = c_open_by_handle_at, .control_is = -ENOTDIR,
	  .expect = "ignores 0", .expect_nobody = "denied EPERM"),
	F("execveat", "3.19", "execve's *at successor, with flags", "AT_ 1<<30",
	  p_execveat, EINVAL,
	  .expect = "rejects EINVAL"),

	/* The new mount API: flags everywhere, and who may use them */
	F("fsopen", "5.2", "the new mount API: flags from day one", "1<<30",
	  p_fsopen, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM"),
	F("fsconfig", "5.2", "a command argument: unknown ones refused", "cmd 0x7f",
	  p_fsconfig, EOPNOTSUPP,
	  .expect = "rejects EOPNOTSUPP"),
	F("fsmount", "5.2", "the new mount API: flags from day one", "1<<30",
	  p_fsmount, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM; 6.13-7.2: rejects EINVAL"),
	F("fspick", "5.2", "the new mount API: flags from day one", "1<<30",
	  p_fspick, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM"),
	F("move_mount", "5.2", "the new mount API: flags from day one", "1<<30",
	  p_move_mount, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM"),
	F("open_tree", "5.2", "the new mount API: flags from day one", "AT_ 1<<30",
	  p_open_tree, EINVAL,
	  .expect = "rejects EINVAL"),
	F("open_tree_attr", "6.13-7.2", "open_tree plus a sized mount_attr", "AT_ 1<<30",
	  p_open_tree_attr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("statmount", "6.8", "flags from day one, none defined", "flags 1",
	  p_statmount, EINVAL,
	  .expect = "rejects EINVAL"),
	F("listmount", "6.8", "flags from day one", "1<<30", p_listmount, EINVAL,
	  .expect = "rejects EINVAL"),
	F("listns", "6.13-7.2", "flags from day one, none defined", "flags 1", p_listns, EINVAL,
	  .expect = "rejects EINVAL"),
	F("mount", "1.0", "MS_ flags: unknown bits ignored", "MS_ 0x200", p_mount, EINVAL,
	  .priv = 1, .control = c_mount, .control_is = -EINVAL,
	  .expect = "ignores 0", .expect_nobody = "denied EPERM"),
	F("umount2", "2.1.116", "umount's successor, for flags", "1<<30", p_umount2, EINVAL,
	  .priv = 1,
	  .expect = "rejects EINVAL"),

	/* Security: sandboxes, filters, modules */
	F("landlock_create_ruleset", "5.13", "flags, then a version query in them",
	  "1<<30", p_landlock_create_ruleset, EINVAL,
	  .expect = "rejects EINVAL"),
	F("landlock_add_rule", "5.13", "flags from day one, defined in 7.x", "1<<30",
	  p_landlock_add_rule, EINVAL,
	  .expect = "rejects EINVAL"),
	F("landlock_restrict_self", "5.13", "flags from day one, defined in 6.15",
	  "1<<30", p_landlock_restrict_self, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM"),
	F("seccomp", "3.17", "prctl's filter mode as a call with flags", "flags 1",
	  p_seccomp, EINVAL,
	  .expect = "rejects EINVAL"),
	F("lsm_get_self_attr", "6.8", "flags from day one", "1<<30",
	  p_lsm_get_self_attr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("lsm_list_modules", "6.8", "flags from day one, none defined", "flags 1",
	  p_lsm_list_modules, EINVAL,
	  .expect = "rejects EINVAL"),
	F("bpf", "3.18", "map_flags in the sized union bpf_attr", "1<<30", p_bpf, EINVAL,
	  .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM; 6.2-6.12: rejects EINVAL"),
	F("perf_event_open", "2.6.31", "flags beside a sized struct", "1<<30",
	  p_perf_event_open, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL"),
	F("userfaultfd", "4.3", "an fd-creating call with O_ flags", "O_ 1<<28",
	  p_userfaultfd, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM"),
	F("fanotify_init", "2.6.37", "an fd-creating call with its own flags", "1<<30",
	  p_fanotify_init, EINVAL, .priv = 1,
	  .expect = "rejects EINVAL", .expect_nobody = "denied EPERM"),
	F("inotify_add_watch", "2.6.13", "a mask with flag bits in it", "IN_ 0x08000000",
	  p_inotify_add_watch, EINVAL,
	  .expect = "rejects EINVAL"),
	F("prctl-PR_SET_MDWE", "6.3", "a prctl option whose bits are checked", "1<<30",
	  p_prctl_mdwe, EINVAL,
	  .expect = "0: rejects EINVAL"),
	F("prctl-PR_GET_NO_NEW_PRIVS", "3.5", "prctl: unused arguments must be 0",
	  "arg2 1", p_prctl_get_nnp, EINVAL,
	  .expect = "rejects EINVAL"),

	/* Processes, pidfds, futexes */
	F("pidfd_getfd", "5.6", "flags from day one, none defined", "flags 1",
	  p_pidfd_getfd, EINVAL,
	  .expect = "rejects EINVAL"),
	F("pidfd_send_signal", "5.1", "flags from day one, defined in 6.9", "1<<30",
	  p_pidfd_send_signal, EINVAL,
	  .expect = "rejects EINVAL"),
	F("process_mrelease", "5.15", "flags from day one, none defined", "flags 1",
	  p_process_mrelease, EINVAL,
	  .expect = "rejects EINVAL"),
	F("waitid", "2.6.9", "options, checked", "0x100", p_waitid, EINVAL,
	  .expect = "rejects EINVAL"),
	F("futex_waitv", "5.16", "futex's successor: flags, none defined", "flags 1",
	  p_futex_waitv, EINVAL,
	  .expect = "rejects EINVAL"),
	F("futex_wake", "6.7", "futex2: the op split out, flags kept", "FUTEX2_ 0x100000",
	  p_futex_wake, EINVAL,
	  .expect = "rejects EINVAL"),
	F("futex_wait", "6.7", "futex2: the op split out, flags kept", "FUTEX2_ 0x100000",
	  p_futex_wait, EINVAL,
	  .expect = "rejects EINVAL"),
	F("futex_requeue", "6.7", "futex2: flags from day one, none defined", "flags 1",
	  p_futex_requeue, EINVAL,
	  .expect = "rejects EINVAL"),
	F("rseq", "4.18", "flags from day one", "1<<30", p_rseq, EINVAL,
	  .expect = "rejects EINVAL"),
	F("membarrier", "4.3", "flags from day one, defined in 5.10", "1<<30",
	  p_membarrier, EINVAL,
	  .expect = "rejects EINVAL"),
	F("sched_getattr", "3.14", "flags from day one; 7.2 defines 0x1", "1<<30",
	  p_sched_getattr, EINVAL,
	  .expect = "rejects EINVAL"),
	F("clock_nanosleep", "2.6", "flags: unknown bits ignored", "1<<30",
	  p_clock_nanosleep, EINVAL,
	  .control = c_clock_nanosleep, .control_is = 0,
	  .expect = "ignores 0"),

	/* Memory */
	F("madvise", "2.4", "an advice argument: unknown ones refused", "advice 9999",
	  p_madvise, EINVAL,
	  .expect = "rejects EINVAL"),
	F("process_madvise", "5.10", "flags from day one, none defined", "flags 1",
	  p_process_madvise, EINVAL,
	  .expect = "rejects EINVAL"),
	F("mlock2", "4.4", "mlock's successor, for want of flags", "1<<30",
	  p_mlock2, EINVAL,
	  .expect = "rejects EINVAL"),
	F("mremap", "2.0", "flags, checked", "1<<30", p_mremap, EINVAL,
	  .expect = "rejects EINVAL"),
	F("msync", "1.2", "flags, checked", "1<<30", p_msync, EINVAL,
	  .expect = "rejects EINVAL"),
	F("memfd_secret", "5.14", "flags from day one (off by default)", "O_ 1<<28",
	  p_memfd_secret, EINVAL,
	  .expect = "absent ENOSYS; 6.2-6.12: rejects EINVAL"),
	F("map_shadow_stack", "6.6", "flags from day one", "1<<30",
	  p_map_shadow_stack, EINVAL, .off = EOPNOTSUPP,
	  .expect = "off EOPNOTSUPP"),
	F("cachestat", "6.5", "flags from day one, none defined", "flags 1",
	  p_cachestat, EINVAL,
	  .expect = "rejects EINVAL"),
	F("pkey_alloc", "4.9", "flags from day one, none defined", "1<<30",
	  p_pkey_alloc, EINVAL,
	  .expect = "rejects EINVAL"),
	F("set_mempolicy_home_node", "5.17", "flags from day one, none defined",
	  "flags 1", p_set_mempolicy_home_node, EINVAL,
	  .expect = "rejects EINVAL"),

	/* I/O */
	F("preadv2", "4.6", "preadv's successor, for RWF_ flags", "RWF_ 1<<30",
	  p_preadv2, EOPNOTSUPP,
	  .expect = "rejects EOPNOTSUPP"),
	F("pwritev2", "4.6", "pwritev's successor, for RWF_ flags", "RWF_ 1<<30",
	  p_pwritev2, EOPNOTSUPP,
	  .expect = "rejects EOPNOTSUPP"),
	F("copy_file_range", "4.5", "flags from day one, none defined", "flags 1",
	  p_copy_file_range, EINVAL,
	  .expect = "rejects EINVAL"),
	F("splice", "2.6.17", "SPLICE_F_ flags, checked (after a length of 0)",
	  "1<<30, 1 byte", p_splice, EINVAL,
	  .expect = "rejects EINVAL"),
	F("tee", "2.6.17", "SPLICE_F_ flags, checked", "1<<30", p_tee, EINVAL,
	  .expect = "rejects EINVAL"),
	F("vmsplice", "2.6.17", "SPLICE_F_ flags, checked", "1<<30", p_vmsplice, EINVAL,
	  .expect = "rejects EINVAL"),
	F("sync_file_range", "2.6.17", "flags, checked", "1<<30", p_sync_file_range, EINVAL,
	  .expect = "rejects EINVAL"),
	F("fallocate", "2.6.23", "a mode of flag bits, checked", "1<<30",
	  p_fallocate, EOPNOTSUPP,
	  .expect = "rejects EOPNOTSUPP"),
	F("send", "2.0", "MSG_ flags: unknown bits ignored", "MSG_ 0x10000000",
	  p_send, EINVAL,
	  .control = c_send, .control_is = -EOPNOTSUPP,
	  .expect = "ignores 0"),
	F("io_uring_setup", "5.1", "flags in a struct that grows", "1<<30",
	  p_io_uring_setup, EINVAL,
	  .expect = "rejects EINVAL"),
	F("timerfd_create", "2.6.25", "an fd-creating call with flags", "O_ 1<<28",
	  p_timerfd_create, EINVAL,
	  .expect = "rejects EINVAL"),
	F("timerfd_settime", "2.6.25", "flags, checked", "1<<30", p_timerfd_settime, EINVAL,
	  .expect = "rejects EINVAL"),
	F("getrandom", "3.17", "flags from day one", "1<<30", p_getrandom, EINVAL,
	  .expect = "rejects EINVAL"),

	/* Without flags, and so with successors or none yet */
	F("epoll_pwait2", "5.11", "epoll_pwait's successor, and no flags again", "-",
	  NULL, 0,
	  .expect = "noflags 0"),
	F("quotactl_fd", "5.14", "quotactl by fd: a command, no flags", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("statfs", "1.0", "no flags: fstatfs, no *at, no successor", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("faccessat", "2.6.16", "no flags: faccessat2 (5.8) followed", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("fchmodat", "2.6.16", "no flags: fchmodat2 (6.6) followed", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("renameat", "2.6.16", "no flags: renameat2 (3.15) followed", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("dup2", "0.01", "no flags: dup3 (2.6.27) followed", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("pipe", "0.01", "no flags: pipe2 (2.6.27) followed", "-", NULL, 0,
	  .expect = "noflags 0"),
	F("epoll_create", "2.6", "no flags: epoll_create1 (2.6.27) followed", "-", NULL, 0,
	  .expect = "noflags 0"),
#undef F
};

const size_t nr_later_rows = ARRAY_SIZE(later_rows);
