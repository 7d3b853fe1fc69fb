/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's uapi as sid's 7.2 defines it, for what the survey probes:
 * x86-64 system call numbers and structs that Debian 12's libc and
 * headers (6.1) lack.  Copied, not included, so that the survey builds
 * and runs the same anywhere; sizes are checked below.
 */
#ifndef FLAGSFIRST_KUAPI_H
#define FLAGSFIRST_KUAPI_H

#include <stdint.h>

/* System call numbers (x86-64) */
#define NR_io_uring_setup	425
#define NR_io_uring_register	427
#define NR_open_tree		428
#define NR_move_mount		429
#define NR_fsopen		430
#define NR_fsconfig		431
#define NR_fsmount		432
#define NR_fspick		433
#define NR_pidfd_open		434
#define NR_clone3		435
#define NR_close_range		436
#define NR_openat2		437
#define NR_pidfd_getfd		438
#define NR_faccessat2		439
#define NR_process_madvise	440
#define NR_epoll_pwait2		441
#define NR_mount_setattr	442
#define NR_quotactl_fd		443
#define NR_landlock_create_ruleset	444
#define NR_landlock_add_rule	445
#define NR_landlock_restrict_self	446
#define NR_memfd_secret		447
#define NR_process_mrelease	448
#define NR_futex_waitv		449
#define NR_set_mempolicy_home_node	450
#define NR_cachestat		451
#define NR_fchmodat2		452
#define NR_map_shadow_stack	453
#define NR_futex_wake		454
#define NR_futex_wait		455
#define NR_futex_requeue	456
#define NR_statmount		457
#define NR_listmount		458
#define NR_lsm_get_self_attr	459
#define NR_lsm_set_self_attr	460
#define NR_lsm_list_modules	461
#define NR_mseal		462
#define NR_setxattrat		463
#define NR_getxattrat		464
#define NR_listxattrat		465
#define NR_removexattrat	466
#define NR_open_tree_attr	467
#define NR_file_getattr		468
#define NR_file_setattr		469
#define NR_listns		470

struct k_open_how {			/* linux/openat2.h */
	uint64_t flags, mode, resolve;
};

#define K_OPEN_HOW_SIZE_VER0	24

struct k_clone_args {			/* linux/sched.h */
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		 stack_size, tls, set_tid, set_tid_size, cgroup;
};

#define K_CLONE_ARGS_SIZE_VER0	64
#define K_CLONE_INTO_CGROUP	(1ULL << 33)

struct k_mount_attr {			/* linux/mount.h */
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#define K_MOUNT_ATTR_SIZE_VER0	32

struct k_sched_attr {			/* linux/sched/types.h */
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

#define K_SCHED_ATTR_SIZE_VER0	48

struct k_mnt_id_req {			/* linux/mount.h */
	uint32_t size, mnt_ns_fd;
	uint64_t mnt_id, param, mnt_ns_id;
};

#define K_MNT_ID_REQ_SIZE_VER0	24
#define K_LSMT_ROOT		0xffffffffffffffffULL
#define K_STATMOUNT_SB_BASIC	0x1U
#define K_STATMOUNT_MNT_BASIC	0x2U
#define K_STATMOUNT_SUPPORTED_MASK 0x1000U

struct k_statmount {			/* the fixed part of linux/mount.h's */
	uint32_t size, mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root, mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype, sb_source, opt_num, opt_array, opt_sec_num,
		 opt_sec_array;
	uint64_t supported_mask;
	uint32_t mnt_uidmap_num, mnt_uidmap, mnt_gidmap_num, mnt_gidmap;
	uint64_t __spare2[43];
	char str[];
};

struct k_xattr_args {			/* linux/xattr.h */
	uint64_t value;
	uint32_t size, flags;
};

#define K_XATTR_ARGS_SIZE_VER0	16

struct k_file_attr {			/* linux/fs.h */
	uint64_t fa_xflags;
	uint32_t fa_extsize, fa_nextents, fa_projid, fa_cowextsize;
};

#define K_FILE_ATTR_SIZE_VER0	24

struct k_landlock_ruleset_attr {	/* linux/landlock.h */
	uint64_t handled_access_fs, handled_access_net, scoped;
	uint64_t quiet_access_fs, quiet_access_net, quiet_scoped;
};

#define K_LANDLOCK_CREATE_RULESET_VERSION	1U
#define K_LANDLOCK_RULE_PATH_BENEATH		1

struct k_pidfd_info {			/* linux/pidfd.h, VER0: 64 bytes */
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid,
		 fsuid, fsgid;
	int32_t exit_code;
};

#define K_PIDFD_INFO_SIZE_VER0		64
#define K_PIDFD_INFO_PID		(1ULL << 0)
#define K_PIDFD_INFO_SUPPORTED_MASK	(1ULL << 5)
/* _IOWR(0xFF, 11, size): PIDFD_GET_INFO with the size of the caller's struct */
#define K_PIDFD_GET_INFO(size)	(0xc000ff0bU | ((uint32_t)(size) << 16))

struct k_ns_id_req {			/* linux/nsfs.h */
	uint32_t size, spare;
	uint64_t ns_id;
	uint32_t ns_type, spare2;
	uint64_t user_ns_id;
};

#define K_NS_ID_REQ_SIZE_VER0	32

struct k_futex_waitv {			/* linux/futex.h */
	uint64_t val, uaddr;
	uint32_t flags, __reserved;
};

#define K_FUTEX2_SIZE_U32	0x02
#define K_FUTEX2_PRIVATE	128

struct k_cachestat_range {
	uint64_t off, len;
};

struct k_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

struct k_io_uring_params {		/* linux/io_uring.h */
	uint32_t sq_entries, cq_entries, flags, sq_thread_cpu,
		 sq_thread_idle, features, wq_fd, resv[3];
	uint32_t sq_off[10], cq_off[10];
};

#define K_IORING_REGISTER_PROBE	8
#define K_IORING_REGISTER_QUERY	35

struct k_io_uring_probe {
	uint8_t last_op, ops_len;
	uint16_t resv;
	uint32_t resv2[3];
	struct { uint8_t op, resv; uint16_t flags; uint32_t resv2; } ops[256];
};

#define K_IO_URING_OP_SUPPORTED	1U

struct k_io_uring_query_hdr {		/* linux/io_uring/query.h */
	uint64_t next_entry, query_data;
	uint32_t query_op, size;
	int32_t result;
	uint32_t __resv[3];
};

struct k_io_uring_query_opcode {
	uint32_t nr_request_opcodes, nr_register_opcodes;
	uint64_t feature_flags, ring_setup_flags, enter_flags, sqe_flags;
	uint32_t nr_query_opcodes, __pad;
};

/* linux/perf_event.h: the first published struct, and a software event */
struct k_perf_event_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint32_t wakeup_events, bp_type;
	uint64_t bp_addr;
};

#define K_PERF_ATTR_SIZE_VER0		64
#define K_PERF_TYPE_SOFTWARE		1
#define K_PERF_COUNT_SW_DUMMY		9
#define K_PERF_ATTR_DISABLED		(1ULL << 0)
#define K_PERF_ATTR_EXCLUDE_KERNEL	(1ULL << 5)
#define K_PERF_ATTR_EXCLUDE_HV		(1ULL << 6)

/* linux/bpf.h: BPF_MAP_CREATE's first fields, and the union's size on 7.2 */
struct k_bpf_map_create {
	uint32_t map_type, key_size, value_size, max_entries, map_flags;
};

#define K_BPF_MAP_CREATE		0
#define K_BPF_PROG_GET_NEXT_ID		11
#define K_BPF_MAP_TYPE_ARRAY		2

#define K_SECCOMP_GET_ACTION_AVAIL	2
#define K_SECCOMP_GET_NOTIF_SIZES	3
#define K_SECCOMP_RET_KILL_PROCESS	0x80000000U

#define K_PR_SET_MDWE	65

_Static_assert(sizeof(struct k_open_how) == K_OPEN_HOW_SIZE_VER0, "open_how");
_Static_assert(sizeof(struct k_clone_args) == 88, "clone_args VER2");
_Static_assert(sizeof(struct k_mount_attr) == K_MOUNT_ATTR_SIZE_VER0, "mount_attr");
_Static_assert(sizeof(struct k_sched_attr) == 56, "sched_attr VER1");
_Static_assert(sizeof(struct k_mnt_id_req) == 32, "mnt_id_req VER1");
_Static_assert(sizeof(struct k_statmount) == 512, "statmount");
_Static_assert(sizeof(struct k_xattr_args) == K_XATTR_ARGS_SIZE_VER0, "xattr_args");
_Static_assert(sizeof(struct k_file_attr) == K_FILE_ATTR_SIZE_VER0, "file_attr");
_Static_assert(sizeof(struct k_pidfd_info) == K_PIDFD_INFO_SIZE_VER0, "pidfd_info VER0");
_Static_assert(sizeof(struct k_ns_id_req) == K_NS_ID_REQ_SIZE_VER0, "ns_id_req");
_Static_assert(sizeof(struct k_perf_event_attr) == K_PERF_ATTR_SIZE_VER0, "perf VER0");
_Static_assert(sizeof(struct k_io_uring_params) == 120, "io_uring_params");

#endif /* FLAGSFIRST_KUAPI_H */
