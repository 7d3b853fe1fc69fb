// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst torture tests for the debug kernel (make check-debug):
 *
 *   flagsfirst_torture fuzz [-s SEED] [-n IOCTLS]
 *	random ioctls, seeded and reproducible, then a consistency check of
 *	the table against the module's own accounting
 *   flagsfirst_torture stress [-t SECONDS]
 *	8 threads on overlapping names; checks the invariants as it goes
 *   flagsfirst_torture faults
 *	makes the 1st, 2nd, ... allocation of each op fail (failslab with
 *	fail-nth) until the op succeeds; every failure must be ENOMEM and
 *	leave the table as it was
 *
 * Each prints one "# <mode>: ..." line of figures and exits 0 on success.
 * Run as root, on a freshly loaded module.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/flagsfirst.h>

#include "torture.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: flagsfirst_torture fuzz|stress|faults [options]\n", stderr);
		return 2;
	}
	dev = open("/dev/flagsfirst", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("/dev/flagsfirst: %s", strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "fuzz"))
		return fuzz(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stress"))
		return stress(argc - 1, argv + 1);
	if (!strcmp(argv[1], "faults"))
		return faults(argc - 1, argv + 1);
	return 2;
}
