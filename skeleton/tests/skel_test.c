// SPDX-License-Identifier: GPL-2.0-only
/*
 * skel selftests: every rule of the dispatcher on every op
 * (discipline_tests.h), then what each op does.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/skel.h>

#include "kselftest_harness.h"

#include "discipline.h"
#include "ops.h"		/* SKEL_TEST_OP_*: tables.sh, from the header */

#define SKEL_IOC_TYPE	_IOC_TYPE(SKEL_IOC_CONFIGURE)

/* What a call needs between preparing it and checking it. */
struct names {
	uint64_t changes;	/* the counter's changes before the call */
};

static int open_dev_mode(int mode)
{
	return open("/dev/skel", mode | O_CLOEXEC);
}

static int open_dev(void)
{
	return open_dev_mode(O_RDWR);
}

/*
 * Without the device (the module not loaded, or not built) the program
 * skips as a whole, as kselftest expects, rather than fail every test.
 */
static void __attribute__((constructor)) skip_without_the_device(void)
{
	if (access("/dev/skel", F_OK) && errno == ENOENT)
		ksft_exit_skip("/dev/skel is absent: load the skel module\n");
}

static int configure(int fd, uint64_t flags, uint64_t value)
{
	struct skel_configure c = { .flags = flags, .value = value };

	return ffst(fd, SKEL_IOC_CONFIGURE, &c);
}

/* The counter and its changes, or UINT64_MAX for both on an error. */
static struct skel_query query(int fd, uint64_t flags)
{
	struct skel_query q = { .flags = flags };

	if (ffst(fd, SKEL_IOC_QUERY, &q)) {
		q.value = UINT64_MAX;
		q.changes = UINT64_MAX;
	}
	return q;
}

static void forget_changes(int fd, void *state)
{
	struct names *n = state;

	n->changes = query(fd, 0).changes;
}

/*
 * What the module has for each op (by ioctl number) at each abi_version:
 * its struct size and flags, as numbers -- not taken from the header this
 * program includes, since one built against a frozen release's knows that
 * one only, nor from the running module, which is what is under test.
 * tables.sh writes them from the ABI rows of module/ioctl.c's op table.
 */
#include "releases.h"

#define NR_RELEASES	((int)ARRAY_SIZE(releases))

/* The release the module runs: the cell's (SKEL_ABI), else the latest. */
static int module_abi(void)
{
	const char *cell = getenv("SKEL_ABI");
	int abi = cell ? atoi(cell) : NR_RELEASES - 1;

	return abi < NR_RELEASES ? abi : NR_RELEASES - 1;
}

static const struct release *release_of(unsigned int nr)
{
	return &releases[module_abi()][nr];
}

/* skel, as it describes itself to the dispatcher's tests. */
static const struct discipline skel_discipline = {
	.ioc_type = SKEL_IOC_TYPE,
	.check_fields = SKEL_CHECK_FIELDS,
	.open_dev = open_dev_mode,
	.release_of = release_of,
	.state_size = sizeof(struct names),
	.forget_changes = forget_changes,
};

#include "discipline_tests.h"

/* The device's counter at @value, with no change counted yet. */
static void start_at(int fd, uint64_t value)
{
	configure(fd, 0, value);
	query(fd, SKEL_QUERY_RESET);
}

/*
 * Each op's tests, tests/ops/<op>.h, for every op of the header this
 * program is built with (and tests/ops/<op>_ver<n>.h, where there is one,
 * for each size the header gives it): an old release's program has no
 * newer op or field, and needs no #ifdef for them.  Each file starts with
 * the op's FIXTURE_VARIANT_ADD(op, ...): what the header and the op table
 * say of it (ops.h: whether it changes state, its flags, sizes and
 * fields), how to fill a call of it that succeeds and how to see that one
 * took effect.  Every known flag's call is expected to succeed; one that
 * fails goes in .known, with what it returns as root and not.
 */
#include "op_tests.h"

TEST_HARNESS_MAIN
