// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, flagsfirst survey: the verdicts the man pages document for a handful of
 * the kernel's own calls, every row as pinned for the running release, and
 * a survey that leaves nothing behind.
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
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "kselftest_harness.h"
#include "helpers.h"

/*
 * flagsfirst survey: the verdicts the man pages document for a handful of
 * the kernel's own calls, so that a probe that broke fails here.  The
 * client is $FLAGSFIRST_CLIENT, or flagsfirst on PATH.
 */

FIXTURE(survey) {
	char tsv[65536];
};

FIXTURE_VARIANT(survey) {
	const char *row;	/* name, verdict, errno, as --tsv prints them */
};

FIXTURE_VARIANT_ADD(survey, open_ignores_an_unknown_bit) {
	.row = "open\tignores\t0",
};

FIXTURE_VARIANT_ADD(survey, openat2_rejects_an_unknown_bit_with_EINVAL) {
	.row = "openat2\trejects\tEINVAL",
};

FIXTURE_VARIANT_ADD(survey, renameat2_rejects_an_unknown_bit_with_EINVAL) {
	.row = "renameat2\trejects\tEINVAL",
};

FIXTURE_VARIANT_ADD(survey, pipe2_rejects_an_unknown_bit_with_EINVAL) {
	.row = "pipe2\trejects\tEINVAL",
};

FIXTURE_VARIANT_ADD(survey, mmap_shared_validate_rejects_an_unknown_bit_with_EOPNOTSUPP) {
	.row = "mmap-MAP_SHARED_VALIDATE\trejects\tEOPNOTSUPP",
};

FIXTURE_VARIANT_ADD(survey, syncfs_has_no_flags) {
	.row = "syncfs\tnoflags\t0",
};

/*
 * splice once passed here as "ignores", probed with a length of 0, which
 * returns before the flags are read; with a byte to move it rejects.
 */
FIXTURE_VARIANT_ADD(survey, splice_rejects_an_unknown_flag_with_a_byte_to_move) {
	.row = "splice\trejects\tEINVAL",
};

/* clock_nanosleep reads only TIMER_ABSTIME: the bit passes */
FIXTURE_VARIANT_ADD(survey, clock_nanosleep_ignores_an_unknown_flag) {
	.row = "clock_nanosleep\tignores\t0",
};

/*
 * send() passes an unknown MSG_ bit; its control (MSG_OOB, EOPNOTSUPP on a
 * datagram socket) shows the flags reached the socket, or it says unproven
 */
FIXTURE_VARIANT_ADD(survey, send_ignores_an_unknown_flag_its_control_shows) {
	.row = "send\tignores\t0",
};

FIXTURE_VARIANT_ADD(survey, preadv2_rejects_an_unknown_rwf_flag_with_EOPNOTSUPP) {
	.row = "preadv2\trejects\tEOPNOTSUPP",
};

FIXTURE_VARIANT_ADD(survey, clone3_rejects_a_struct_below_its_first_size_with_EINVAL) {
	.row = "clone3:size-below-ver0\trejects\tEINVAL",
};

FIXTURE_VARIANT_ADD(survey, openat2_accepts_a_bigger_struct_with_a_zero_tail) {
	.row = "openat2:zero-tail\taccepts\t0",
};

FIXTURE_VARIANT_ADD(survey, openat2_rejects_a_struct_above_a_page_with_E2BIG) {
	.row = "openat2:size-above-page\trejects\tE2BIG",
};

FIXTURE_VARIANT_ADD(survey, sched_getattr_tells_its_struct_size) {
	.row = "sched_getattr-size\ttells\tsize=56",
};

FIXTURE_SETUP(survey)
{
	const char *client = getenv("FLAGSFIRST_CLIENT");
	char cmd[256];
	size_t n = 1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s survey --tsv", client ? client : "flagsfirst");
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	self->tsv[0] = '\n';	/* every row, the first too, follows a newline */
	n += fread(self->tsv + 1, 1, sizeof(self->tsv) - 2, f);
	self->tsv[n] = '\0';
	ASSERT_EQ(0, pclose(f)) TH_LOG("%s failed", cmd);
}

FIXTURE_TEARDOWN(survey)
{
}

TEST_F(survey, reports_the_documented_verdict)
{
	char want[128];

	/* a kernel built without the call (the debug kernels' tinyconfig has no CONFIG_NET) */
	snprintf(want, sizeof(want), "\n%.*s\tabsent\tENOSYS\n",
		 (int)strcspn(variant->row, "\t"), variant->row);
	if (strstr(self->tsv, want))
		SKIP(return, "this kernel has no such call");
	snprintf(want, sizeof(want), "\n%s\n", variant->row);
	EXPECT_NE(NULL, strstr(self->tsv, want))
		TH_LOG("no row '%s' in:%s", variant->row, self->tsv);
}

/*
 * Every row against what the client pins for this release (--ktap).  The
 * pins are Debian's kernels' (make check's): another config, as the debug
 * kernels' tinyconfig, has other calls and other answers.
 */
TEST(every_row_is_what_is_pinned_for_this_release)
{
	const char *client = getenv("FLAGSFIRST_CLIENT");
	char cmd[256], line[512];
	int failed = 0, rows = 0;
	struct utsname uts;
	FILE *f;

	ASSERT_EQ(0, uname(&uts));
	if (!strstr(uts.version, "Debian"))
		SKIP(return, "the pins are for Debian's kernels, not %s", uts.version);

	snprintf(cmd, sizeof(cmd), "%s survey --ktap", client ? client : "flagsfirst");
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		rows += !strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7);
		if (!strncmp(line, "not ok ", 7)) {
			failed++;
			TH_LOG("%s", line);
		}
	}
	EXPECT_EQ(failed ? 1 : 0, WEXITSTATUS(pclose(f)));
	EXPECT_EQ(0, failed);
	EXPECT_LT(200, rows);
}

/* The user processes there are, as a set of pids in @pids; their number */
static int user_pids(pid_t *pids, int max)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int n = 0;

	while (d && (de = readdir(d)) && n < max) {
		char path[300], cmdline[8];
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		fd = open(path, O_RDONLY);
		/* kernel threads have no command line */
		if (fd >= 0 && read(fd, cmdline, sizeof(cmdline)) > 0)
			pids[n++] = atoi(de->d_name);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	return n;
}

static int count_fds(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = -1;		/* the DIR's own */

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), n = 0, got;

	if (fd < 0)
		return -1;
	while (n < (int)len - 1 && (got = read(fd, buf + n, len - 1 - n)) > 0)
		n += got;
	buf[n] = '\0';
	close(fd);
	return n;
}

/*
 * The survey, as whoever runs this (root and uid 65534 in the matrix):
 * its temporary directory, the mounts, the process table and the fds are
 * what they were.  (The client checks its own fds and children too, and
 * exits 1 if a probe left one.)
 */
TEST(the_survey_leaves_nothing_behind)
{
	static char mounts[2][65536];
	static pid_t before[4096], after[4096];
	const char *client = getenv("FLAGSFIRST_CLIENT");
	char tmp[] = "/tmp/survey_test.XXXXXX", cmd[512];
	int nb, na, i, j, fds_before, fds_after, status;
	DIR *d;
	struct dirent *de;

	ASSERT_NE(NULL, mkdtemp(tmp));
	ASSERT_LE(0, read_all("/proc/self/mountinfo", mounts[0], sizeof(mounts[0])));
	fds_before = count_fds();
	nb = user_pids(before, 4096);

	snprintf(cmd, sizeof(cmd), "TMPDIR=%s %s survey --tsv >/dev/null", tmp,
		 client ? client : "flagsfirst");
	status = system(cmd);

	na = user_pids(after, 4096);
	fds_after = count_fds();
	ASSERT_LE(0, read_all("/proc/self/mountinfo", mounts[1], sizeof(mounts[1])));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("the survey failed, or found it left something");
	d = opendir(tmp);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		EXPECT_EQ(0, strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			TH_LOG("left in $TMPDIR: %s", de->d_name);
	closedir(d);
	EXPECT_EQ(0, rmdir(tmp));
	EXPECT_STREQ(mounts[0], mounts[1]);
	EXPECT_EQ(fds_before, fds_after);
	/* every process there is now was there before */
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && before[j] != after[i]; j++)
			;
		if (after[i] != getpid())
			EXPECT_GT(nb, j) TH_LOG("a new process: %d", after[i]);
	}
}

TEST_HARNESS_MAIN
