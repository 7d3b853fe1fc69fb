// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey: the probes of the mount calls, old and new (mount,
 * umount2, the fs* calls of the new mount API, open_tree, statmount,
 * listmount, listns), and of the file handles a mount resolves
 * (name_to_handle_at, open_by_handle_at).  Their rows are in
 * survey_later.c's table, in its order; nothing here mounts anything that
 * outlives its probe.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atlas.h"
#include "kuapi.h"

/* No OPEN_TREE_CLONE: a call that went ahead gives an O_PATH fd, no mount */
long p_open_tree(void)
{
	return res_fd(syscall(NR_open_tree, AT_FDCWD, in_dir(""), AT_UNKNOWN));
}

long p_open_tree_attr(void)
{
	struct k_mount_attr attr = { 0 };

	return res_fd(syscall(NR_open_tree_attr, AT_FDCWD, in_dir(""), AT_UNKNOWN,
			      &attr, sizeof(attr)));
}

long p_statmount(void)
{
	struct k_mnt_id_req req = {
		.size = K_MNT_ID_REQ_SIZE_VER0,
		.param = K_STATMOUNT_MNT_BASIC,
	};
	static struct k_statmount sm;

	req.mnt_id = root_mnt_id();
	return res(syscall(NR_statmount, &req, &sm, sizeof(sm), 1));
}

long p_listmount(void)
{
	struct k_mnt_id_req req = {
		.size = K_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = K_LSMT_ROOT,
	};
	uint64_t ids[4];

	return res(syscall(NR_listmount, &req, ids, 4, FLAGS_UNKNOWN));
}

long p_listns(void)
{
	struct k_ns_id_req req = { .size = sizeof(req) };
	uint64_t ids[4];

	return res(syscall(NR_listns, &req, ids, 4, 1));
}

/* The fs calls: nothing is mounted, moved or reconfigured */
long p_fsopen(void)
{
	return res_fd(syscall(NR_fsopen, "tmpfs", FLAGS_UNKNOWN));
}

/* A command no kernel defines, on a file that is no fs context */
long p_fsconfig(void)
{
	int fd = open(in_dir("file"), O_RDONLY | O_CLOEXEC);
	long ret;

	if (fd < 0)
		return -errno;
	ret = res(syscall(NR_fsconfig, fd, 0x7f, NULL, NULL, 0));
	close(fd);
	return ret;
}

long p_fsmount(void)
{
	return res_fd(syscall(NR_fsmount, -1, FLAGS_UNKNOWN, 0));
}

long p_fspick(void)
{
	return res_fd(syscall(NR_fspick, AT_FDCWD, in_dir(""), FLAGS_UNKNOWN));
}

/* Paths that do not exist: a call that went ahead fails with ENOENT */
long p_move_mount(void)
{
	return res(syscall(NR_move_mount, AT_FDCWD, in_dir("none"), AT_FDCWD,
			   in_dir("none2"), FLAGS_UNKNOWN));
}

/* A path that does not exist: nothing is unmounted */
long p_umount2(void)
{
	return res(umount2(in_dir("none"), FLAGS_UNKNOWN));
}

/* Onto a path that does not exist: nothing is mounted */
/*
 * A tmpfs over the survey's own directory, unmounted at once.  The target
 * must exist: mount(2) looks it up before it reads the flags, so a
 * missing one fails with ENOENT whatever the bits.
 */
static long mount_probe(unsigned long flags)
{
	const char *at = in_dir(".");
	long ret = res(mount("none", at, "tmpfs", flags | MS_UNKNOWN, NULL));

	if (ret == 0)
		umount2(at, MNT_DETACH);
	return ret;
}

long p_mount(void)
{
	return mount_probe(0);
}

/* The control: MS_NOUSER, which no caller may pass, is EINVAL */
long c_mount(void)
{
	return mount_probe(MS_NOUSER);
}

struct survey_handle {
	unsigned int bytes;
	int type;
	unsigned char f[128];
};

long p_name_to_handle_at(void)
{
	struct survey_handle fh = { .bytes = sizeof(fh.f) };
	int mnt;

	return res(syscall(SYS_name_to_handle_at, AT_FDCWD, in_dir("file"), &fh,
			   &mnt, AT_UNKNOWN));
}

/* A handle of our file, opened with @flags and the unknown bit */
static long handle_probe(int flags)
{
	struct survey_handle fh = { .bytes = sizeof(fh.f) };
	int mnt;

	if (syscall(SYS_name_to_handle_at, AT_FDCWD, in_dir("file"), &fh, &mnt, 0))
		return -errno;
	return res_fd(syscall(SYS_open_by_handle_at, AT_FDCWD, &fh, flags | O_UNKNOWN));
}

long p_open_by_handle_at(void)
{
	return handle_probe(O_RDONLY);
}

/* The control: O_DIRECTORY on a file's handle is ENOTDIR */
long c_open_by_handle_at(void)
{
	return handle_probe(O_RDONLY | O_DIRECTORY);
}
