// SPDX-License-Identifier: GPL-2.0-only
/* skel: the command-line client of /dev/skel. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/skel.h>

#include "client.h"
#include "ops.h"	/* from the header, by ops.sh: every op's flags and fields */

static const char *errno_name(int err)
{
	switch (err) {
	case ENOTTY: return "ENOTTY";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EFAULT: return "EFAULT";
	case EBADF: return "EBADF";
	case EOVERFLOW: return "EOVERFLOW";
	case ERANGE: return "ERANGE";
	case ENOMEM: return "ENOMEM";
	default: return "E?";
	}
}

static const char *errno_reason(int err)
{
	switch (err) {
	case ENOTTY: return "the running module has no such ioctl (type, number or direction)";
	case EINVAL: return "invalid: an unknown or conflicting flag, a non-zero reserved field, "
			    "or a struct smaller than its first version";
	case E2BIG: return "too big: a struct over PAGE_SIZE, or non-zero bytes past what the "
			   "kernel knows";
	case EFAULT: return "a pointer the kernel could not read or write";
	case EBADF: return "the device was not opened for writing";
	case EOVERFLOW: return "the counter would pass the largest __u64";
	case ERANGE: return "the counter would go below 0";
	default: return strerror(err);
	}
}

static int fail(const char *what)
{
	int err = errno;

	fprintf(stderr, "skel: %s: %s: %s\n", what, errno_name(err),
		errno_reason(err));
	return 1;
}

/* Every op of the header (ops.h): probe and raw know each. */
static const struct op ops[] = { SKEL_OPS(SKEL_OP) };

static int usage(void)
{
	const struct op *op;

	fputs("usage: skel configure VALUE [--add|--sub]\n"
	      "       skel query [--reset]\n"
	      "       skel probe\n"
	      "       skel raw OP --size N --flags X [--tail-byte B] [--FIELD N]...\n"
	      "OP and its fields:\n", stderr);
	for (op = ops; op < ops + ARRAY_SIZE(ops); op++) {
		const struct field *f;

		fprintf(stderr, "  %s:", op->name);
		for (f = op->fields; f->name; f++)
			fprintf(stderr, " --%s", f->name);
		fputc('\n', stderr);
	}
	fputs("The device is $SKEL_DEV, or /dev/skel; its counter is the\n"
	      "device's, so one run sees what the one before it did.\n", stderr);
	return 2;
}

static int open_dev(void)
{
	const char *path = getenv("SKEL_DEV");
	int fd;

	if (!path)
		path = "/dev/skel";
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "skel: %s: %s (is the module loaded?)\n",
			path, strerror(errno));
	return fd;
}

static int cmd_configure(int fd, int argc, char **argv)
{
	struct skel_configure c = { 0 };
	uint64_t value;

	if (argc < 1 || argc > 2 || !parse_u64(argv[0], &value))
		return usage();
	c.value = value;
	if (argc == 2 && !strcmp(argv[1], "--add"))
		c.flags = SKEL_CONFIGURE_ADD;
	else if (argc == 2 && !strcmp(argv[1], "--sub"))
		c.flags = SKEL_CONFIGURE_SUB;
	else if (argc == 2)
		return usage();
	if (ioctl(fd, SKEL_IOC_CONFIGURE, &c))
		return fail("configure");
	return 0;
}

static int cmd_query(int fd, int argc, char **argv)
{
	struct skel_query q = { 0 };

	if (argc == 1 && !strcmp(argv[0], "--reset"))
		q.flags = SKEL_QUERY_RESET;
	else if (argc)
		return usage();
	if (ioctl(fd, SKEL_IOC_QUERY, &q))
		return fail("query");
	printf("value %" PRIu64 ", changes %" PRIu64 "\n", (uint64_t)q.value,
	       (uint64_t)q.changes);
	return 0;
}

/* The ops' own commands, by name; an op without one has probe and raw. */
static const struct {
	const char *name;
	int (*run)(int fd, int argc, char **argv);
} cmds[] = {
	{ "configure", cmd_configure },
	{ "query", cmd_query },
};

/* skel, as it describes itself to the client core (client.h). */
static const struct client client = {
	.name = "skel",
	.ioc_type = _IOC_TYPE(SKEL_IOC_CONFIGURE),
	.check_fields = SKEL_CHECK_FIELDS,
	.ops = ops,
	.nr_ops = ARRAY_SIZE(ops),
	.errno_name = errno_name,
	.errno_reason = errno_reason,
	.usage = usage,
};

int main(int argc, char **argv)
{
	const char *cmd;
	size_t i;
	int fd, ret;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	fd = open_dev();
	if (fd < 0)
		return 1;
	argc -= 2;
	argv += 2;
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmd, cmds[i].name))
			break;
	if (i < ARRAY_SIZE(cmds))
		ret = cmds[i].run(fd, argc, argv);
	else if (!strcmp(cmd, "probe"))
		ret = argc ? usage() : cmd_probe(fd, &client);
	else if (!strcmp(cmd, "raw"))
		ret = cmd_raw(fd, &client, argc, argv);
	else
		ret = usage();
	close(fd);
	return ret;
}
