// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey, part 2: the size rules of every extensible struct.
 * Each call that takes a struct with its size is given the sizes the rules
 * are about: below the first published size, above a page, bigger than
 * every kernel's struct with a zero tail and with a non-zero one; and where
 * the kernel writes the struct back, a bigger buffer (is the tail zeroed?)
 * and a smaller one (truncated, or refused?).  copy_struct_from_user() and,
 * since 6.13, copy_struct_to_user() are the kernel's own answers; flagsfirst's
 * ops follow them and are measured by the same code, as the reference.
 *
 * Every struct is one whose call changes nothing once past the size check
 * (see each call below), so "accepts" is a result, never a change.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "atlas.h"
#include "kuapi.h"

unsigned char big[BIG_SIZE] __attribute__((aligned(8)));

/* The rules, in the order of their rows */
enum rule {
	BELOW_VER0,	/* size < the first published size */
	ABOVE_PAGE,	/* size > PAGE_SIZE, every byte zero */
	ZERO_TAIL,	/* 8 bytes past every kernel's struct, zero */
	NONZERO_TAIL,	/* the same, with a 1 in them */
	OUT_ZEROED,	/* a bigger buffer: the kernel zeroes what it does not know */
	OUT_TRUNCATED,	/* a buffer of the first size: the kernel fills what fits */
	NR_RULES,
};

static const char *const rule_name[NR_RULES] = {
	"size-below-ver0", "size-above-page", "zero-tail", "nonzero-tail",
	"out-tail-zeroed", "out-truncated",
};

/*
 * A struct the kernel reads with its size: @call makes the call on @s of
 * @size bytes and returns 0 once past the size checks (a success, or the
 * error that follows them), else -errno.  @fill writes a valid struct.
 * @out (the calls that write it back): the same for a struct written to
 * @s; the caller checks the bytes.
 */
struct sized {
	const char *call;
	const char *since;
	const char *lesson;
	unsigned int ver0;	/* the first published size */
	unsigned int known;	/* the biggest any kernel of the matrix knows */
	void (*fill)(void *s, unsigned int size);
	long (*call_in)(void *s, unsigned int size);
	long (*call_out)(void *s, unsigned int size);
	unsigned int priv;
	const char *expect[NR_RULES];
	const char *expect_nobody[NR_RULES];
};

/* openat2: the file, read-only; the fd it opens is closed */
static void fill_open_how(void *s, unsigned int size)
{
	struct k_open_how *how = s;

	(void)size;
	how->flags = O_RDONLY | O_CLOEXEC;
}

static long in_openat2(void *s, unsigned int size)
{
	return res_fd(syscall(SYS_openat2, AT_FDCWD, in_dir("file"), s, size));
}

/* clone3: CLONE_INTO_CGROUP with an fd nobody has, EBADF once past */
static void fill_clone_args(void *s, unsigned int size)
{
	struct k_clone_args *args = s;

	(void)size;
	args->flags = K_CLONE_INTO_CGROUP;
	args->exit_signal = SIGCHLD;
	args->cgroup = 0x7fffffff;
}

static long in_clone3(void *s, unsigned int size)
{
	long ret = syscall(SYS_clone3, s, size);

	if (ret == 0)
		_exit(0);	/* cannot happen: EBADF comes first */
	return past(res(ret), EBADF);
}

/* sched_setattr: the policy and nice value the caller has */
static void fill_sched_attr(void *s, unsigned int size)
{
	struct k_sched_attr attr = { .size = sizeof(attr) };

	syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0);
	memcpy(s, &attr, K_SCHED_ATTR_SIZE_VER0);
	((struct k_sched_attr *)s)->size = size;
}

static long in_sched_setattr(void *s, unsigned int size)
{
	((struct k_sched_attr *)s)->size = size;
	return res(syscall(SYS_sched_setattr, 0, s, 0));
}

static long out_sched_getattr(void *s, unsigned int size)
{
	return res(syscall(SYS_sched_getattr, 0, s, size, 0));
}

/* perf_event_open: a software counter, never made (see p_perf_event_open) */
static void fill_perf_attr(void *s, unsigned int size)
{
	struct k_perf_event_attr *attr = s;

	attr->type = K_PERF_TYPE_SOFTWARE;
	attr->size = size;
	attr->config = K_PERF_COUNT_SW_DUMMY;
	attr->flags = K_PERF_ATTR_DISABLED | K_PERF_ATTR_EXCLUDE_KERNEL |
		      K_PERF_ATTR_EXCLUDE_HV;
}

static long in_perf_event_open(void *s, unsigned int size)
{
	((struct k_perf_event_attr *)s)->size = size;
	/* stdin as the group leader: EBADF once past, never an event */
	return past(res_fd(syscall(SYS_perf_event_open, s, 0, -1, 0, 0)), EBADF);
}

/* bpf: the next program id after the biggest there can be: ENOENT once past */
static void fill_bpf_attr(void *s, unsigned int size)
{
	(void)size;
	*(uint32_t *)s = 0x7ffffffe;	/* start_id, below INT_MAX */
}

static long in_bpf(void *s, unsigned int size)
{
	return past(res(syscall(SYS_bpf, K_BPF_PROG_GET_NEXT_ID, s, size)), ENOENT);
}

/* mount_setattr: nothing to set or clear on / (a mount's root) */
static void fill_nothing(void *s, unsigned int size)
{
	(void)s;
	(void)size;
}

static long in_mount_setattr(void *s, unsigned int size)
{
	return res(syscall(NR_mount_setattr, AT_FDCWD, "/", 0, s, size));
}

/* statmount and listmount: the root mount, read */
static void fill_mnt_id_req(void *s, unsigned int size)
{
	struct k_mnt_id_req *req = s;

	req->size = size;
	req->mnt_id = root_mnt_id();
	req->param = K_STATMOUNT_MNT_BASIC;
}

static long in_statmount(void *s, unsigned int size)
{
	static struct k_statmount sm;

	((struct k_mnt_id_req *)s)->size = size;
	return res(syscall(NR_statmount, s, &sm, sizeof(sm), 0));
}

static long in_listmount(void *s, unsigned int size)
{
	uint64_t ids[4];
	long ret;

	((struct k_mnt_id_req *)s)->size = size;
	((struct k_mnt_id_req *)s)->mnt_id = K_LSMT_ROOT;
	((struct k_mnt_id_req *)s)->param = 0;
	ret = res(syscall(NR_listmount, s, ids, 4, 0));
	return ret < 0 ? ret : 0;
}

/* The xattr calls: an attribute the file does not have (ENODATA) */
static void fill_xattr_args(void *s, unsigned int size)
{
	static char value[8];
	struct k_xattr_args *args = s;

	(void)size;
	args->value = (uintptr_t)value;
	args->size = sizeof(value);
}

static long in_getxattrat(void *s, unsigned int size)
{
	return past(res(syscall(NR_getxattrat, AT_FDCWD, in_dir("file"), 0,
				"user.none", s, size)), ENODATA);
}

/* Replaces only an attribute that exists: there is none (ENODATA) */
static long in_setxattrat(void *s, unsigned int size)
{
	((struct k_xattr_args *)s)->flags = 2;	/* XATTR_REPLACE */
	return past(past(res(syscall(NR_setxattrat, AT_FDCWD, in_dir("file"), 0,
				     "user.none", s, size)), ENODATA), EOPNOTSUPP);
}

/* file_getattr and file_setattr: the temporary file's, as it has them */
static long in_file_getattr(void *s, unsigned int size)
{
	return past(res(syscall(NR_file_getattr, AT_FDCWD, in_dir("file"), s, size, 0)),
		    EOPNOTSUPP);
}

static long in_file_setattr(void *s, unsigned int size)
{
	struct k_file_attr fa = { 0 };

	/* Past the size checks tmpfs answers: what it has, or EOPNOTSUPP */
	if (!syscall(NR_file_getattr, AT_FDCWD, in_dir("file"), &fa, sizeof(fa), 0))
		memcpy(s, &fa, sizeof(fa) < size ? sizeof(fa) : size);
	return past(res(syscall(NR_file_setattr, AT_FDCWD, in_dir("file"), s, size, 0)),
		    EOPNOTSUPP);
}

static long out_file_getattr(void *s, unsigned int size)
{
	return res(syscall(NR_file_getattr, AT_FDCWD, in_dir("file"), s, size, 0));
}

/* landlock: a ruleset that handles execution, closed unused */
static void fill_ruleset_attr(void *s, unsigned int size)
{
	(void)size;
	((struct k_landlock_ruleset_attr *)s)->handled_access_fs = 1;
}

static long in_landlock_create_ruleset(void *s, unsigned int size)
{
	return res_fd(syscall(NR_landlock_create_ruleset, s, size, 0));
}

/* listns: the namespaces the caller can see */
static void fill_ns_id_req(void *s, unsigned int size)
{
	((struct k_ns_id_req *)s)->size = size;
}

static long in_listns(void *s, unsigned int size)
{
	uint64_t ids[4];

	long ret;

	((struct k_ns_id_req *)s)->size = size;
	ret = res(syscall(NR_listns, s, ids, 4, 0));
	return ret < 0 ? ret : 0;
}

/* PIDFD_GET_INFO on the caller's own pidfd: the size is in the command */
static void fill_pidfd_info(void *s, unsigned int size)
{
	(void)size;
	((struct k_pidfd_info *)s)->mask = 0;	/* what is always there */
}

static long pidfd_info(void *s, unsigned int size)
{
	int pidfd = syscall(NR_pidfd_open, getpid(), 0);
	long ret;

	if (pidfd < 0)
		return -errno;
	ret = res(ioctl(pidfd, K_PIDFD_GET_INFO(size), s));
	close(pidfd);
	return ret;
}

/* sched_getattr reads only the size argument: the struct is its output */
static long in_sched_getattr(void *s, unsigned int size)
{
	return res(syscall(SYS_sched_getattr, 0, s, size, 0));
}

/* flagsfirst's GET of a name nobody set (ENOENT once past), read-only */
static int ffst_fd(void)
{
	int fd = open("/dev/flagsfirst", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -ENODEV : fd;
}

static void fill_ffst_get(void *s, unsigned int size)
{
	(void)size;
	((struct flagsfirst_get *)s)->name = (uintptr_t)"survey.none";
}

static long in_ffst_get(void *s, unsigned int size)
{
	int fd = ffst_fd();
	long ret;

	if (fd < 0)
		return fd;
	ret = res(ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0x01, size), s));
	close(fd);
	return past(ret, ENOENT);
}

/* flagsfirst's SET with CHECK_FIELDS: only written back */
static long out_ffst_set(void *s, unsigned int size)
{
	int fd = ffst_fd();
	long ret;

	if (fd < 0)
		return fd;
	memset(s, 0, 8);
	((struct flagsfirst_set *)s)->flags = FLAGSFIRST_CHECK_FIELDS;
	ret = res(ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 'Y', 0x00, size), s));
	close(fd);
	return ret;
}

#define REJ_EINVAL	"rejects EINVAL"
#define REJ_E2BIG	"rejects E2BIG"
#define ACCEPTS		"accepts 0"

static const struct sized sized[] = {
#define Z(c, s, l, v0, kn, f, in, out, p, ...) { .call = c, .since = s, \
	.lesson = l, .ver0 = v0, .known = kn, .fill = f, .call_in = in, \
	.call_out = out, .priv = p, __VA_ARGS__ }
	Z("openat2", "5.6", "open_how: copy_struct_from_user()",
	  K_OPEN_HOW_SIZE_VER0, sizeof(struct k_open_how),
	  fill_open_how, in_openat2, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("clone3", "5.3", "clone_args: copy_struct_from_user()",
	  K_CLONE_ARGS_SIZE_VER0, sizeof(struct k_clone_args),
	  fill_clone_args, in_clone3, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("sched_setattr", "3.14", "sched_attr: its size inside it",
	  K_SCHED_ATTR_SIZE_VER0, sizeof(struct k_sched_attr),
	  fill_sched_attr, in_sched_setattr, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects E2BIG",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("sched_getattr", "3.14", "sched_attr written back: ksize in .size",
	  K_SCHED_ATTR_SIZE_VER0, sizeof(struct k_sched_attr),
	  fill_nothing, in_sched_getattr, out_sched_getattr, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects EINVAL",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "accepts 0",
		      [OUT_ZEROED] = "leaves 0; 6.13: zeroes 0",
		      [OUT_TRUNCATED] = "truncates 0" }),
	Z("perf_event_open", "2.6.31", "perf_event_attr: its size inside it",
	  K_PERF_ATTR_SIZE_VER0, 144,
	  fill_perf_attr, in_perf_event_open, NULL, 1,
	  .expect = { [BELOW_VER0] = "rejects E2BIG",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" },
	  .expect_nobody = { [ZERO_TAIL] = "denied EACCES" }),
	Z("bpf", "3.18", "union bpf_attr: smaller is zero-extended",
	  8, 512,
	  fill_bpf_attr, in_bpf, NULL, 1,
	  .expect = { [BELOW_VER0] = "accepts 0",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" },
	  .expect_nobody = { [BELOW_VER0] = "denied EPERM",
			     [ZERO_TAIL] = "denied EPERM" }),
	Z("mount_setattr", "5.12", "mount_attr: copy_struct_from_user()",
	  K_MOUNT_ATTR_SIZE_VER0, sizeof(struct k_mount_attr),
	  fill_nothing, in_mount_setattr, NULL, 1,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" },
	  .expect_nobody = { [ZERO_TAIL] = "denied EPERM",
			     [NONZERO_TAIL] = "denied EPERM" }),
	Z("statmount", "6.8", "mnt_id_req: copy_struct_from_user()",
	  K_MNT_ID_REQ_SIZE_VER0, sizeof(struct k_mnt_id_req),
	  fill_mnt_id_req, in_statmount, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("listmount", "6.8", "mnt_id_req: copy_struct_from_user()",
	  K_MNT_ID_REQ_SIZE_VER0, sizeof(struct k_mnt_id_req),
	  fill_mnt_id_req, in_listmount, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("getxattrat", "6.13-7.2", "xattr_args: copy_struct_from_user()",
	  K_XATTR_ARGS_SIZE_VER0, sizeof(struct k_xattr_args),
	  fill_xattr_args, in_getxattrat, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("setxattrat", "6.13-7.2", "xattr_args: copy_struct_from_user()",
	  K_XATTR_ARGS_SIZE_VER0, sizeof(struct k_xattr_args),
	  fill_xattr_args, in_setxattrat, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("file_getattr", "6.13-7.2", "file_attr written back",
	  K_FILE_ATTR_SIZE_VER0, sizeof(struct k_file_attr),
	  fill_nothing, in_file_getattr, out_file_getattr, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "accepts 0",
		      [OUT_ZEROED] = "zeroes 0" }),
	Z("file_setattr", "6.13-7.2", "file_attr: copy_struct_from_user()",
	  K_FILE_ATTR_SIZE_VER0, sizeof(struct k_file_attr),
	  fill_nothing, in_file_setattr, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("landlock_create_ruleset", "5.13", "ruleset_attr: copy_struct_from_user()",
	  8, sizeof(struct k_landlock_ruleset_attr),
	  fill_ruleset_attr, in_landlock_create_ruleset, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("listns", "6.13-7.2", "ns_id_req: copy_struct_from_user()",
	  K_NS_ID_REQ_SIZE_VER0, sizeof(struct k_ns_id_req),
	  fill_ns_id_req, in_listns, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("PIDFD_GET_INFO", "6.13-7.2", "pidfd_info: the size in the ioctl number",
	  K_PIDFD_INFO_SIZE_VER0, 88,
	  fill_pidfd_info, pidfd_info, pidfd_info, 0,
	  .expect = { [BELOW_VER0] = "0: rejects ENOTTY; 6.2-6.12: rejects EINVAL; "
		  "6.18: rejects ENOTTY",
		      [ABOVE_PAGE] = "0: rejects ENOTTY; 6.2-6.12: rejects EINVAL; 6.13: accepts 0",
		      [ZERO_TAIL] = "0: rejects ENOTTY; 6.2-6.12: rejects EINVAL; 6.13: accepts 0",
		      [NONZERO_TAIL] = "0: rejects ENOTTY; 6.2-6.12: rejects EINVAL; "
			"6.13: accepts 0",
		      [OUT_ZEROED] = "0: rejects ENOTTY; 6.2-6.12: rejects EINVAL; 6.13: zeroes 0",
		      [OUT_TRUNCATED] = "0: rejects ENOTTY; 6.2-6.12: rejects EINVAL; "
			"6.13: truncates 0" }),
	Z("flagsfirst-GET", "-", "flagsfirst's rules, the reference",
	  FLAGSFIRST_GET_SIZE_VER0, sizeof(struct flagsfirst_get),
	  fill_ffst_get, in_ffst_get, NULL, 0,
	  .expect = { [BELOW_VER0] = "rejects EINVAL",
		      [ABOVE_PAGE] = "rejects E2BIG",
		      [ZERO_TAIL] = "accepts 0",
		      [NONZERO_TAIL] = "rejects E2BIG" }),
	Z("flagsfirst-SET", "-", "CHECK_FIELDS writes the struct back",
	  FLAGSFIRST_SET_SIZE_VER0, sizeof(struct flagsfirst_set),
	  fill_nothing, NULL, out_ffst_set, 0,
	  .expect = { [OUT_ZEROED] = "zeroes 0",
		      [OUT_TRUNCATED] = "truncates 0" }),
#undef Z
};

/* The size each rule passes, for @z */
static unsigned int rule_size(const struct sized *z, enum rule r)
{
	switch (r) {
	case BELOW_VER0:
		return z->ver0 - 8;
	case ABOVE_PAGE:
		return 4096 + 8;
	case OUT_TRUNCATED:
		return z->ver0;
	default:
		return z->known + 8;
	}
}

/* The byte that makes a tail non-zero, and the bytes a bigger buffer has */
#define POISON	0xa5

/*
 * One rule of @z: the call's result (input rules), or 1 if the rule held,
 * 0 if not, -errno if the call failed (output rules).
 */
static long run_rule(const struct sized *z, enum rule r)
{
	unsigned int size = rule_size(z, r), i;
	long ret;

	memset(big, 0, sizeof(big));
	if (r < OUT_ZEROED) {
		z->fill(big, size);
		if (r == NONZERO_TAIL)
			big[z->known] = 1;
		return z->call_in(big, size);
	}
	/*
	 * Output: every byte poisoned but what the call reads.  A bigger
	 * buffer's bytes past the biggest struct must come back zero; a
	 * smaller one must be filled up to its end and no further.
	 */
	memset(big, POISON, sizeof(big));
	z->fill(big, size);
	ret = z->call_out(big, size);
	if (ret < 0)
		return ret;
	if (r == OUT_ZEROED) {
		for (i = z->known; i < size; i++)
			if (big[i])
				return 0;
		return 1;
	}
	return big[size] == POISON;
}

#define NR_SIZED	ARRAY_SIZE(sized)
static struct row rows[NR_SIZED * NR_RULES];
static char names[NR_SIZED * NR_RULES][64];
static const struct sized *row_sized[NR_SIZED * NR_RULES];
static enum rule row_rule[NR_SIZED * NR_RULES];
const struct row *size_rows = rows;
size_t nr_size_rows;

/* The rule a row of part 2 measures, run: see struct row's @call */
long size_rule(const struct row *row)
{
	size_t i = row - rows;

	return run_rule(row_sized[i], row_rule[i]);
}

static const char *const rule_arg[NR_RULES] = {
	"VER0 - 8 bytes", "4096 + 8 bytes", "+8 bytes, 0", "+8 bytes, a 1",
	"+8 bytes to fill", "VER0 bytes",
};

/* The rows: every rule a struct has (output rules for what is written back) */
void size_rows_init(void)
{
	const struct sized *z;
	size_t n = 0;
	int r;

	for (z = sized; z < sized + NR_SIZED; z++) {
		for (r = 0; r < NR_RULES; r++) {
			if ((r < OUT_ZEROED && !z->call_in) ||
			    (r >= OUT_ZEROED && !z->call_out))
				continue;
			/* No version is smaller than the first to fill */
			if (r == OUT_TRUNCATED && z->ver0 >= z->known)
				continue;
			snprintf(names[n], sizeof(names[n]), "%s:%s", z->call, rule_name[r]);
			rows[n] = (struct row) {
				.name = names[n],
				.kind = r < OUT_ZEROED ? SIZE_IN : SIZE_OUT,
				.since = z->since,
				.arg = rule_arg[r],
				.lesson = z->lesson,
				.tells = r == OUT_ZEROED ? "zeroes/leaves" : "truncates/overruns",
				.priv = z->priv,
				.expect = z->expect[r],
				.expect_nobody = z->expect_nobody[r],
			};
			row_sized[n] = z;
			row_rule[n] = r;
			n++;
		}
	}
	nr_size_rows = n;
}
