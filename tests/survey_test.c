// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst selftests, flagsfirst survey: the verdicts the man pages document for a handful of
 * the kernel's own calls, so that a probe that broke fails here.
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

#include <linux/flagsfirst.h>

#include "kselftest_harness.h"
#include "helpers.h"

/*
 * flagsfirst survey: the verdicts the man pages document for a handful of
 * the kernel's own calls, so that a probe that broke fails here.  The
 * client is $FLAGSFIRST_CLIENT, or flagsfirst on PATH.
 */

FIXTURE(survey) {
	char tsv[8192];
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

	snprintf(want, sizeof(want), "\n%s\n", variant->row);
	EXPECT_NE(NULL, strstr(self->tsv, want))
		TH_LOG("no row '%s' in:%s", variant->row, self->tsv);
}

TEST_HARNESS_MAIN
