// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, users: another uid's entries, CAP_FOWNER, the fsuid and the euid, and
 * the uids of a user namespace, which share their owner's limits.
 */

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

#include <linux/capability.h>
#include <linux/flagsfirst.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "limits_fixture.h"

/* Permission: another uid's entries */

static int nobody_cannot_touch(int fd, void *arg)
{
	const char *name = arg;
	struct flagsfirst_get g;
	char mine[64], buf[64];

	if (get(fd, name, buf, sizeof(buf), &g) || g.owner_uid != 0)
		return 1;
	if (set(fd, name, "x", 0) != -EPERM)
		return 2;
	if (set(fd, name, "x", FLAGSFIRST_SET_REPLACE) != -EPERM)
		return 3;
	if (del(fd, name, 0) != -EPERM)
		return 4;
	if (ren(fd, name, "x", 0) != -EPERM)
		return 5;
	if (set(fd, fresh(mine, "mine"), "m", 0))
		return 6;
	if (ren(fd, mine, name, 0) != -EPERM)
		return 7;
	if (ren(fd, mine, name, FLAGSFIRST_RENAME_EXCHANGE) != -EPERM)
		return 8;
	if (ren(fd, mine, name, FLAGSFIRST_RENAME_NOREPLACE) != -EEXIST)
		return 9;
	if (del(fd, "", FLAGSFIRST_DELETE_ALL) != 1)
		return 10;
	if (set(fd, mine, "m", FLAGSFIRST_SET_IMMUTABLE) != -EPERM)
		return 11;
	return 0;
}

TEST(another_uid_can_read_but_not_change_an_entry)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	uint64_t seq;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	if (!is_root())
		SKIP(return, "needs root to own an entry uid 65534 probes");
	/* uid 65534's DELETE_ALL below must find only its own one entry */
	ASSERT_LE(0, del(fd, "", FLAGSFIRST_DELETE_ALL));
	ASSERT_EQ(0, set(fd, fresh(name, "p"), "root's", 0));
	seq = seq_of(fd, name);
	EXPECT_EQ(0, as_nobody(nobody_cannot_touch, name));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_STREQ("root's", buf);
	EXPECT_EQ(seq, g.seq);
	close(fd);
}

static int nobody_creates(int fd, void *arg)
{
	return set(fd, arg, "nobody's", 0) ? 1 : 0;
}

TEST(cap_fowner_may_change_another_uids_entry)
{
	struct flagsfirst_get g;
	char name[64], buf[64];
	int fd = open_dev();

	ASSERT_LE(0, fd);
	if (!is_root())
		SKIP(return, "needs CAP_FOWNER");
	ASSERT_EQ(0, as_nobody(nobody_creates, fresh(name, "f")));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_EQ(NOBODY, g.owner_uid);
	EXPECT_EQ(0, set(fd, name, "root's now", 0));
	ASSERT_EQ(0, get(fd, name, buf, sizeof(buf), &g));
	EXPECT_EQ(NOBODY, g.owner_uid) TH_LOG("replacing keeps the owner");
	EXPECT_EQ(0, del(fd, name, 0));
	close(fd);
}

/* Subordinate uids: a user namespace made by uid 65534 and mapped to @base. */

#define USERNS_BASE	200000

/*
 * Runs @fn as root of a user namespace that @maker made, its uids 0-65535
 * mapped to USERNS_BASE and on, as newuidmap maps a login's range from
 * /etc/subuid (maker 65534) or a container runtime its container's (maker
 * root); returns its exit status, or -1.
 */
static int in_userns_of(uid_t maker, int (*fn)(int fd, void *arg), void *arg)
{
	int to_parent[2], to_child[2], status, fd, ret = -1;
	char path[64], map[64], c;
	pid_t pid;

	/* Debian's kernels once had unprivileged user namespaces off. */
	write_file("/proc/sys/kernel/unprivileged_userns_clone", "1");
	if (pipe(to_parent))
		return -1;
	if (pipe(to_child)) {
		close(to_parent[0]);
		close(to_parent[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(to_parent[0]);
		close(to_child[1]);
		if (become(maker) || unshare(CLONE_NEWUSER))
			_exit(100);
		if (write(to_parent[1], "u", 1) != 1 ||
		    read(to_child[0], &c, 1) != 1 || c != 'm')
			_exit(101);
		if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
			_exit(102);
		fd = open_dev();
		_exit(fd < 0 ? 103 : fn(fd, arg));
	}
	/* Only the child writes to_parent: its exit ends the read below. */
	close(to_parent[1]);
	close(to_child[0]);
	if (pid < 0)
		goto out;
	c = 'x';
	if (read(to_parent[0], &c, 1) == 1) {
		snprintf(map, sizeof(map), "0 %d 65536\n", USERNS_BASE);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		c = write_file(path, map) ? 'x' : 'm';
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		if (write_file(path, map))
			c = 'x';
		if (write(to_child[1], &c, 1) != 1)
			kill(pid, SIGKILL);
	}
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		ret = WEXITSTATUS(status);
out:
	close(to_parent[0]);
	close(to_child[1]);
	return ret;
}

static int in_userns(int (*fn)(int fd, void *arg), void *arg)
{
	return in_userns_of(NOBODY, fn, arg);
}

/* Whether this kernel lets uid 65534 make a user namespace. */
static int userns_probe(int fd, void *arg)
{
	(void)fd;
	(void)arg;
	return 0;
}

/* Acts as uid @uid of the namespace, which keeps root as its saved uid. */
static int ns_seteuid(uid_t uid)
{
	return setresuid(-1, uid, -1);
}

/* max_entries_per_uid 4: uids 1 and 2 of the namespace take 2 each. */
static int ns_entries(int fd, void *arg)
{
	static const struct { uid_t uid; int n; int err; } steps[] = {
		{ 1, 2, 0 }, { 2, 2, 0 }, { 3, 1, -EDQUOT }, { 0, 1, -EDQUOT },
	};
	char name[64];
	size_t i;
	int j;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (ns_seteuid(steps[i].uid))
			return 50;
		for (j = 0; j < steps[i].n; j++)
			if (set(fd, fresh(name, "ns"), "v", 0) != steps[i].err)
				return 10 + i;
		if (ns_seteuid(0))
			return 51;
	}
	return 0;
}

static int one_set(int fd, void *arg)
{
	char name[64];

	return -set(fd, fresh(name, arg), "v", 0);
}

#define VALUE_1000	1000

static int fill_1000s(int fd, const char *prefix, int uid)
{
	static char value[VALUE_1000 + 1];
	char name[64];
	int n, err = 0;

	memset(value, 'b', VALUE_1000);
	for (n = 0; n < 200 && !err; n++) {
		/* names of one length: every entry takes the same memory */
		snprintf(name, sizeof(name), "%s.%05d.%03d", prefix, uid, n);
		err = set(fd, name, value, 0);
	}
	return err == -EDQUOT ? n - 1 : -1;
}

/* As uid 65533 of the initial namespace: how many values fit its share. */
static int fill_my_1000s(int fd, void *arg)
{
	(void)arg;
	return fill_1000s(fd, "bytes", 65533);
}

/* Each of uids 1-16 of the namespace fills its share: how many fit. */
static int ns_fill_1000s(int fd, void *arg)
{
	int uid, n, total = 0;

	(void)arg;
	for (uid = 1; uid <= 16; uid++) {
		if (ns_seteuid(uid))
			return 250;
		n = fill_1000s(fd, "nsbytes", uid);
		if (n < 0 || ns_seteuid(0))
			return 251;
		total += n;
	}
	return total;
}

/* max_watches_per_uid 2: held by uids 1 and 2, refused to 3 and to root. */
static int ns_watches(int fd, void *arg)
{
	static const struct { uid_t uid; int err; } steps[] = {
		{ 1, 0 }, { 2, 0 }, { 3, -EMFILE }, { 0, -EMFILE },
	};
	size_t i;
	int wfd;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (ns_seteuid(steps[i].uid))
			return 50;
		wfd = watch(fd, FLAGSFIRST_EVENT_ALL, 0);
		if ((wfd < 0 ? wfd : 0) != steps[i].err)
			return 10 + i;
		if (ns_seteuid(0))
			return 51;
	}
	return 0;
}

static int two_watches(int fd, void *arg)
{
	(void)arg;
	return watch(fd, FLAGSFIRST_EVENT_ALL, 0) < 0 ||
	       watch(fd, FLAGSFIRST_EVENT_ALL, 0) < 0;
}

/*
 * Whether uid 65534 may make a user namespace here (a kernel without
 * CONFIG_USER_NS, as the debug kernels, may not).
 */
static bool have_userns(void)
{
	return in_userns(userns_probe, NULL) == 0;
}

TEST_F(limits, a_user_namespaces_uids_share_their_owners_entries)
{
	if (!have_userns())
		SKIP(return, "uid 65534 cannot make a user namespace");
	ASSERT_EQ(0, write_param("max_entries_per_uid", "4"));
	EXPECT_EQ(0, in_userns(ns_entries, NULL))
		TH_LOG("10 + the step that went otherwise");
	EXPECT_EQ(EDQUOT, as_nobody(one_set, "owner"))
		TH_LOG("its owner's share is spent too");
	EXPECT_EQ(0, as_uid(NOBODY - 1, one_set, "other"))
		TH_LOG("another uid of the initial namespace keeps its own");
}

TEST_F(limits, a_user_namespaces_uids_share_their_owners_bytes)
{
	int alone, together;

	if (!have_userns())
		SKIP(return, "uid 65534 cannot make a user namespace");
	ASSERT_EQ(0, write_param("max_bytes_per_uid", "8192"));
	ASSERT_EQ(0, write_param("max_bytes", "32768"));
	alone = as_uid(NOBODY - 1, fill_my_1000s, NULL);
	ASSERT_LT(0, alone);
	del(self->fd, "", FLAGSFIRST_DELETE_ALL);
	together = in_userns(ns_fill_1000s, NULL);
	TH_LOG("one uid fits %d values of 1000 bytes; 16 of the namespace's %d", alone,
	       together);
	EXPECT_EQ(alone, together) TH_LOG("the namespace's uids have one share");
	EXPECT_EQ(0, as_uid(NOBODY - 1, one_set, "room")) TH_LOG("not ENOSPC");
}

TEST_F(limits, a_user_namespaces_uids_share_their_owners_watches)
{
	if (!have_userns())
		SKIP(return, "uid 65534 cannot make a user namespace");
	ASSERT_EQ(0, write_param("max_watches_per_uid", "2"));
	EXPECT_EQ(0, in_userns(ns_watches, NULL))
		TH_LOG("10 + the step that went otherwise");
	EXPECT_EQ(0, as_uid(NOBODY - 1, two_watches, NULL));
}

/*
 * Root-made namespaces and exempt callers.  Root (CAP_SYS_RESOURCE) holds
 * 8 entries and 2 watch fds, the limits; none of it is anyone's share.
 */
static int root_holds_the_limits(int fd, int *wfd)
{
	char name[64];
	int i;

	for (i = 0; i < 8; i++)
		if (set(fd, fresh(name, "root.exempt"), "v", 0))
			return -1;
	for (i = 0; i < 2; i++) {
		wfd[i] = watch(fd, FLAGSFIRST_EVENT_ALL, 0);
		if (wfd[i] < 0)
			return -1;
	}
	return 0;
}

/*
 * In a namespace root made: the namespace is one user, keyed by its root
 * (uid USERNS_BASE outside): uid 0 has the whole of that share, 8 entries
 * and 2 watch fds, and uid 1 shares it (a container's root could setuid
 * through its whole range otherwise, a share for each uid).
 */
static int ns_root_made(int fd, void *arg)
{
	static const struct { uid_t uid; int n; int err; } steps[] = {
		{ 0, 8, 0 }, { 0, 1, -EDQUOT }, { 1, 1, -EDQUOT },
	};
	char name[64];
	size_t i;
	int j;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (ns_seteuid(steps[i].uid) || setfsuid(steps[i].uid) < 0)
			return 50;
		for (j = 0; j < steps[i].n; j++) {
			int want = j == steps[i].n - 1 ? steps[i].err : 0;

			if (set(fd, fresh(name, "ns.root"), "v", 0) != want)
				return 10 + i;
		}
		if (ns_seteuid(0) || setfsuid(0) < 0)
			return 51;
	}
	if (watch(fd, FLAGSFIRST_EVENT_ALL, 0) < 0 || watch(fd, FLAGSFIRST_EVENT_ALL, 0) < 0)
		return 20;
	if (watch(fd, FLAGSFIRST_EVENT_ALL, 0) != -EMFILE)
		return 21;
	return 0;
}

static int root_without_the_cap_sets_one(void);

TEST_F(limits, a_namespace_root_made_is_one_user_whatever_root_holds)
{
	int wfd[2] = { -1, -1 };

	if (!have_userns())
		SKIP(return, "this kernel makes no user namespace");
	ASSERT_EQ(0, write_param("max_entries_per_uid", "8"));
	ASSERT_EQ(0, write_param("max_watches_per_uid", "2"));
	ASSERT_EQ(0, root_holds_the_limits(self->fd, wfd));
	/* Before: charged to root, whose exempt 8 filled the share (EDQUOT) */
	EXPECT_EQ(0, in_userns_of(0, ns_root_made, NULL))
		TH_LOG("10 + the step that went otherwise, 20-21 the watches");
	/* ... and the container's 8 are not host uid 0's either */
	EXPECT_EQ(0, root_without_the_cap_sets_one())
		TH_LOG("host uid 0 without CAP_SYS_RESOURCE: the container filled its share");
	close(wfd[0]);
	close(wfd[1]);
}

/* Root without CAP_SYS_RESOURCE: its effective and permitted sets lack it. */
static int drop_sys_resource(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
	data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].permitted &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/* uid 0 without the capability: one SET; 0 or the failing errno. */
static int root_without_the_cap_sets_one(void)
{
	char name[64];
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(drop_sys_resource() ? 100 :
		      -set(open_dev(), fresh(name, "root.nocap"), "v", 0));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* uid 0 without the capability: a share of 8 entries and 2 watch fds. */
static int root_bound_by_the_limits(void)
{
	char name[64];
	int i;

	if (drop_sys_resource())
		return 50;
	for (i = 0; i < 8; i++)
		if (set(open_dev(), fresh(name, "root.bound"), "v", 0))
			return 10 + i;
	if (set(open_dev(), fresh(name, "root.bound"), "v", 0) != -EDQUOT)
		return 20;
	if (watch(open_dev(), FLAGSFIRST_EVENT_ALL, 0) < 0 ||
	    watch(open_dev(), FLAGSFIRST_EVENT_ALL, 0) < 0)
		return 30;
	if (watch(open_dev(), FLAGSFIRST_EVENT_ALL, 0) != -EMFILE)
		return 31;
	return 0;
}

TEST_F(limits, what_cap_sys_resource_holds_fills_no_share_of_its_uid)
{
	int wfd[2] = { -1, -1 }, status;
	pid_t pid;

	ASSERT_EQ(0, write_param("max_entries_per_uid", "8"));
	ASSERT_EQ(0, write_param("max_watches_per_uid", "2"));
	ASSERT_EQ(0, root_holds_the_limits(self->fd, wfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(root_bound_by_the_limits());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* Before: the exempt 8 were uid 0's share, so its first SET was EDQUOT */
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("10 + the SET that failed, 20 no EDQUOT, 30-31 the watches");
	close(wfd[0]);
	close(wfd[1]);
}

/*
 * The fsuid and the euid apart: uid 65534's fsuid, uid 65533's euid.  The
 * entries, their permissions and charges follow the fsuid; watches the
 * euid.  Each step returns its number if it goes otherwise.
 */
static int apart(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY - 1, NOBODY - 1))
		return 1;
	setfsuid(NOBODY);
	return setfsuid(-1) == NOBODY ? 0 : 2;
}

static int fsuid_owns(int fd, void *arg)
{
	struct flagsfirst_get g;
	char buf[64];

	(void)arg;
	if (apart())
		return 99;
	if (set(fd, "fsuid.new", "v", 0))
		return 10;
	if (get(fd, "fsuid.new", buf, sizeof(buf), &g) || g.owner_uid != NOBODY)
		return 11;
	if (set(fd, "fsuid.fs", "replaced", 0))
		return 12;
	if (set(fd, "fsuid.e", "replaced", 0) != -EPERM ||
	    del(fd, "fsuid.e", 0) != -EPERM ||
	    ren(fd, "fsuid.e", "fsuid.moved", 0) != -EPERM)
		return 13;
	if (del(fd, "", FLAGSFIRST_DELETE_ALL) != 2)
		return 14;
	return exists(fd, "fsuid.e") ? 0 : 15;
}

static int make_entry(int fd, void *arg)
{
	return -set(fd, arg, "v", 0);
}

TEST_F(limits, entries_belong_to_the_fsuid_not_the_euid)
{
	EXPECT_EQ(0, as_uid(NOBODY, make_entry, "fsuid.fs"));
	EXPECT_EQ(0, as_uid(NOBODY - 1, make_entry, "fsuid.e"));
	EXPECT_EQ(0, as_uid(0, fsuid_owns, NULL))
		TH_LOG("10 + the step that went otherwise");
}

/* max_entries_per_uid 1 and max_watches_per_uid 1, ids apart. */
static int fsuid_charges(int fd, void *arg)
{
	(void)arg;
	if (apart())
		return 99;
	if (set(fd, "charge.1", "v", 0))
		return 10;		/* uid 65534's one entry */
	if (set(fd, "charge.2", "v", 0) != -EDQUOT)
		return 11;
	setfsuid(NOBODY - 1);
	if (set(fd, "charge.3", "v", 0))
		return 12;		/* uid 65533's: not its euid's second */
	setfsuid(NOBODY);
	if (watch(fd, FLAGSFIRST_EVENT_ALL, 0) < 0)
		return 13;		/* uid 65533's (euid) one watch */
	setfsuid(NOBODY - 1);
	if (watch(fd, FLAGSFIRST_EVENT_ALL, 0) != -EMFILE)
		return 14;
	if (setresuid(-1, NOBODY, -1))	/* the fsuid follows: 65534 */
		return 98;
	if (watch(fd, FLAGSFIRST_EVENT_ALL, 0) < 0)
		return 15;		/* uid 65534's one watch */
	return 0;
}

TEST_F(limits, charges_follow_the_fsuid_for_entries_and_the_euid_for_watches)
{
	ASSERT_EQ(0, write_param("max_entries_per_uid", "1"));
	ASSERT_EQ(0, write_param("max_watches_per_uid", "1"));
	EXPECT_EQ(0, as_uid(0, fsuid_charges, NULL))
		TH_LOG("10 + the step that went otherwise");
}

TEST_HARNESS_MAIN
