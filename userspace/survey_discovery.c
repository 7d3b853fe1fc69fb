// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey, part 3: discovery.  Each way a program can ask the
 * running kernel what it supports, asked: what it tells (a number, a mask,
 * a size), or how it fails where the kernel lacks it.  Nothing is changed:
 * every question is a read, and an io_uring ring made to ask is closed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "atlas.h"
#include "kuapi.h"

/* flagsfirst's SET with CHECK_FIELDS: the flags this module accepts */
static long d_check_fields(void)
{
	struct flagsfirst_set set = { .flags = FLAGSFIRST_CHECK_FIELDS };
	int fd = open("/dev/flagsfirst", O_RDONLY | O_CLOEXEC);
	long ret;

	if (fd < 0)
		return -ENODEV;
	ret = res(ioctl(fd, FLAGSFIRST_IOC_SET, &set));
	close(fd);
	return ret < 0 ? ret : (long)(set.flags & ~FLAGSFIRST_CHECK_FIELDS);
}

/* sched_getattr with a page: .size says how big the kernel's struct is */
static long d_sched_getattr(void)
{
	memset(big, 0, 4096);
	if (syscall(SYS_sched_getattr, 0, big, 4096, 0))
		return -errno;
	return ((struct k_sched_attr *)big)->size;
}

/* perf_event_open with a struct too big: the kernel writes its size back */
static long d_perf_size(void)
{
	struct k_perf_event_attr *attr = (void *)big;
	long ret;

	memset(big, 0, BIG_SIZE);
	attr->type = K_PERF_TYPE_SOFTWARE;
	attr->size = 4096 + 8;
	attr->config = K_PERF_COUNT_SW_DUMMY;
	big[4096] = 1;
	ret = res_fd(syscall(SYS_perf_event_open, attr, 0, -1, 0, 0));	/* never an event */
	if (ret != -E2BIG)
		return ret < 0 ? ret : SILENT;
	return attr->size;
}

/* io_uring's probe: a ring of one entry, asked which ops it supports */
static long d_io_uring_probe(void)
{
	static struct k_io_uring_probe probe;
	struct k_io_uring_params p = { 0 };
	int fd = syscall(NR_io_uring_setup, 1, &p), i;
	long n = 0;

	if (fd < 0)
		return -errno;
	memset(&probe, 0, sizeof(probe));
	if (syscall(NR_io_uring_register, fd, K_IORING_REGISTER_PROBE, &probe, 256)) {
		n = -errno;
	} else {
		for (i = 0; i < probe.ops_len; i++)
			n += !!(probe.ops[i].flags & K_IO_URING_OP_SUPPORTED);
	}
	close(fd);
	return n;
}

/* io_uring's QUERY: no ring needed (fd -1), the number of request ops */
static long d_io_uring_query(void)
{
	struct k_io_uring_query_opcode op = { 0 };
	struct k_io_uring_query_hdr hdr = {
		.query_data = (uintptr_t)&op,
		.query_op = 0,		/* IO_URING_QUERY_OPCODES */
		.size = sizeof(op),
	};

	if (syscall(NR_io_uring_register, -1, K_IORING_REGISTER_QUERY, &hdr, 0))
		return -errno;
	return hdr.result < 0 ? hdr.result : (long)op.nr_request_opcodes;
}

/*
 * statmount's SUPPORTED_MASK: the mask bits this kernel knows.  SB_BASIC
 * (6.8) is asked too: a kernel that answers it and not the question is
 * silent; one that answers neither shows nothing.
 */
static long d_statmount_mask(void)
{
	static struct k_statmount sm;
	struct k_mnt_id_req req = {
		.size = K_MNT_ID_REQ_SIZE_VER0,
		.param = K_STATMOUNT_SUPPORTED_MASK | K_STATMOUNT_SB_BASIC,
	};

	req.mnt_id = root_mnt_id();
	if (syscall(NR_statmount, &req, &sm, sizeof(sm), 0))
		return -errno;
	if (sm.mask & K_STATMOUNT_SUPPORTED_MASK)
		return (long)sm.supported_mask;
	return sm.mask & K_STATMOUNT_SB_BASIC ? SILENT : UNPROVEN;
}

/* PIDFD_GET_INFO's SUPPORTED_MASK, on the caller's own pidfd */
static long d_pidfd_mask(void)
{
	struct {
		struct k_pidfd_info info;
		uint32_t coredump[4];
		uint64_t supported_mask;
	} info = { .info.mask = K_PIDFD_INFO_SUPPORTED_MASK };
	int pidfd = syscall(NR_pidfd_open, getpid(), 0);
	long ret;

	if (pidfd < 0)
		return -errno;
	ret = res(ioctl(pidfd, K_PIDFD_GET_INFO(sizeof(info)), &info));
	close(pidfd);
	if (ret < 0)
		return ret;
	if (info.info.mask & K_PIDFD_INFO_SUPPORTED_MASK)
		return (long)info.supported_mask;
	/* every kernel with the ioctl answers PIDFD_INFO_PID unasked */
	return info.info.mask & K_PIDFD_INFO_PID ? SILENT : UNPROVEN;
}

/* landlock's ABI version: a flag that turns the call into the question */
static long d_landlock_abi(void)
{
	return res(syscall(NR_landlock_create_ruleset, NULL, 0,
			   K_LANDLOCK_CREATE_RULESET_VERSION));
}

/* statx's mask: every field asked for, the ones the kernel filled told */
static long d_statx_mask(void)
{
	struct statx stx;

	if (statx(AT_FDCWD, in_dir("file"), 0, 0x7fffffff, &stx))
		return -errno;
	return stx.stx_mask;
}

/* seccomp's NOTIF_SIZES: the sizes of the structs the kernel writes */
static long d_seccomp_sizes(void)
{
	uint16_t sizes[3];

	if (syscall(SYS_seccomp, K_SECCOMP_GET_NOTIF_SIZES, 0, sizes))
		return -errno;
	return sizes[0];
}

/*
 * bpf, by trial as libbpf probes: a command (BPF_TOKEN_CREATE, 6.9) with an
 * fd nobody has is EBADF where the kernel knows it, EINVAL where not.
 */
static long d_bpf_trial(void)
{
	uint32_t attr[4] = { 0, (uint32_t)-1 };	/* flags, bpffs_fd */
	long ret = res(syscall(SYS_bpf, 36 /* BPF_TOKEN_CREATE */, attr, sizeof(attr)));

	return ret == -EBADF ? 1 : ret == -EINVAL ? 0 : ret;
}

/* By trial with one flag: pidfd_open's PIDFD_THREAD (6.9, O_EXCL) */
static long d_trial_pidfd_thread(void)
{
	long ret = res_fd(syscall(NR_pidfd_open, getpid(), O_EXCL));

	return ret == 0 ? 1 : ret == -EINVAL ? 0 : ret;
}

/* By trial with one flag: openat2's RESOLVE_CACHED (5.12) */
static long d_trial_resolve_cached(void)
{
	struct k_open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = 0x20 };
	long ret = res_fd(syscall(SYS_openat2, AT_FDCWD, in_dir("file"), &how,
				  sizeof(how)));

	/* EAGAIN: known, but the lookup was not in the cache */
	return ret == 0 || ret == -EAGAIN ? 1 : ret == -EINVAL ? 0 : ret;
}

const struct row discover_rows[] = {
#define D(n, s, l, q, c, t, ...) { .name = n, .kind = DISCOVER, .since = s, \
	.arg = q, .lesson = l, .call = c, .tells = t, __VA_ARGS__ }
	D("flagsfirst-CHECK_FIELDS", "-", "flags = every flag SET accepts",
	  "SET flags=CHECK_FIELDS", d_check_fields, "flags=%#lx",
	  /* pinned by the module's ABI: 1 added FLAGSFIRST_SET_IF_SEQ */
	  .expect = "tells flags=0x7; 1: tells flags=0xf"),
	D("sched_getattr-size", "3.14", "the kernel's struct size in .size",
	  "a 4096-byte buffer", d_sched_getattr, "size=%ld",
	  .expect = "tells size=56"),
	D("perf_event_open-size", "2.6.31", "E2BIG writes the kernel's size back",
	  "attr.size 4104", d_perf_size, "size=%ld", .priv = 1,
	  .expect = "tells *; 6.1: tells size=128; 6.2: tells *; 6.12: tells size=136; "
		  "6.13: tells *; 7.2: tells size=144"),
	D("seccomp-NOTIF_SIZES", "5.0", "the sizes of the structs it writes",
	  "SECCOMP_GET_NOTIF_SIZES", d_seccomp_sizes, "notif=%ld",
	  .expect = "tells notif=80"),
	D("io_uring-PROBE", "5.6", "a ring, then which ops it supports",
	  "IORING_REGISTER_PROBE", d_io_uring_probe, "ops=%ld",
	  .expect = "tells *; 6.1: tells ops=49; 6.2: tells *; 6.12: tells ops=58; "
		  "6.13: tells *; 7.2: tells ops=65"),
	D("io_uring-QUERY", "6.13-7.2", "no ring: ops, flags and features",
	  "IORING_REGISTER_QUERY", d_io_uring_query, "ops=%ld",
	  .expect = "0: fails EINVAL; 6.13-7.2: tells ops=65"),
	D("statmount-SUPPORTED_MASK", "6.8", "the mask bits this kernel knows",
	  "param SUPPORTED_MASK", d_statmount_mask, "mask=%#lx",
	  .expect = "silent 0; 6.15: tells *; 7.2: tells mask=0x7fff"),
	D("pidfd-SUPPORTED_MASK", "6.13-7.2", "the info bits this kernel knows",
	  "PIDFD_GET_INFO mask", d_pidfd_mask, "mask=%#lx",
	  .expect = "0: fails ENOTTY; 6.2-6.12: fails EINVAL; 6.13: silent 0; 6.19: tells *; "
		  "7.2: tells mask=0xff"),
	D("landlock-ABI", "5.13", "a version number: what each adds is listed",
	  "flags=VERSION", d_landlock_abi, "abi=%ld",
	  .expect = "tells *; 6.1: tells abi=2; 6.2: tells *; 6.12: tells abi=6; 6.13: tells *; "
		  "7.2: tells abi=10"),
	D("statx-mask", "4.11", "ask for every field: the filled ones told",
	  "mask 0x7fffffff", d_statx_mask, "mask=%#lx",
	  .expect = "tells *; 6.1: tells mask=0x1fff; 6.2-6.12: tells mask=0x4fff"),
	D("bpf-trial", "3.18", "by trial, as libbpf: a command known or not",
	  "BPF_TOKEN_CREATE", d_bpf_trial, "known=%ld", .priv = 1,
	  .expect = "tells known=0; 6.9: tells known=1"),
	D("trial-PIDFD_THREAD", "6.9", "by trial: one flag, EINVAL if unknown",
	  "pidfd_open O_EXCL", d_trial_pidfd_thread, "known=%ld",
	  .expect = "0: tells known=0; 6.9: tells known=1"),
	D("trial-RESOLVE_CACHED", "5.12", "by trial: one flag, EINVAL if unknown",
	  "openat2 resolve 0x20", d_trial_resolve_cached, "known=%ld",
	  .expect = "tells known=1"),
#undef D
};

const size_t nr_discover_rows = ARRAY_SIZE(discover_rows);
