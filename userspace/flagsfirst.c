// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: the command-line client of /dev/flagsfirst. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/flagsfirst.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>

#include "survey.h"
#include "tour.h"

#include "client.h"

#define FFST_IOC_TYPE	_IOC_TYPE(FLAGSFIRST_IOC_SET)

/*
 * Every op's flags and fields, by name (set_flags[], set_fields[], ...),
 * made from the header by generic/userspace/ops.sh, as a generated
 * interface's client has them: a new flag or field needs no line here.
 */
#include "ops.h"

static const struct flag_name event_types[] = {
	{ FLAGSFIRST_EVENT_SET, "set" },
	{ FLAGSFIRST_EVENT_DELETE, "delete" },
	{ FLAGSFIRST_EVENT_RENAME, "rename" },
	{ FLAGSFIRST_EVENT_EXCHANGE, "exchange" },
	{ FLAGSFIRST_EVENT_OVERFLOW, "overflow" },
	{ 0, NULL },
};

static const char *errno_name(int err)
{
	switch (err) {
	case ENOTTY: return "ENOTTY";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EFAULT: return "EFAULT";
	case ENOENT: return "ENOENT";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EEXIST: return "EEXIST";
	case EPERM: return "EPERM";
	case ENOSPC: return "ENOSPC";
	case EDQUOT: return "EDQUOT";
	case ERANGE: return "ERANGE";
	case ESTALE: return "ESTALE";
	case ENOMEM: return "ENOMEM";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case EACCES: return "EACCES";
	case EBADF: return "EBADF";
	default: return "E?";
	}
}

static const char *errno_reason(int err)
{
	switch (err) {
	case ENOTTY: return "the running module has no such ioctl (type, number or direction)";
	case EINVAL: return "invalid: an unknown or conflicting flag, a non-zero reserved field, "
			    "or a struct smaller than its first version";
	case E2BIG: return "too big: a struct over PAGE_SIZE, non-zero bytes past what the "
			   "kernel knows, or a value over FLAGSFIRST_VALUE_MAX";
	case EFAULT: return "a pointer the kernel could not read or write";
	case ENOENT: return "no such entry (or an empty name)";
	case ENAMETOOLONG: return "the name is longer than FLAGSFIRST_NAME_MAX";
	case EEXIST: return "the name exists and the flags said not to replace it";
	case EPERM: return "not permitted: the entry is immutable, another uid owns it, "
			   "or a capability is missing";
	case ENOSPC: return "the table is full (max_entries or max_bytes)";
	case EDQUOT: return "the owner's share is used up "
			    "(max_entries_per_uid or max_bytes_per_uid)";
	case ERANGE: return "the buffer is smaller than the value";
	case ESTALE: return "the entry changed since that seq (compare-and-set lost)";
	case ENOMEM: return "the kernel is out of memory";
	case EMFILE: return "no file descriptor left, "
			    "or this uid holds max_watches_per_uid watch fds";
	case EBADF: return "the device was not opened for writing";
	case ENFILE: return "the system has no file left";
	default: return strerror(err);
	}
}

static int fail(const char *what)
{
	int err = errno;

	fprintf(stderr, "flagsfirst: %s: %s: %s\n", what, errno_name(err),
		errno_reason(err));
	return 1;
}

static int usage(void)
{
	fputs("usage: flagsfirst set NAME VALUE [--noreplace|--replace] [--immutable]\n"
#ifdef FLAGSFIRST_SET_IF_SEQ
	      "                      [--if-seq SEQ]\n"
#endif
	      "       flagsfirst get NAME\n"
	      "       flagsfirst delete NAME | --all\n"
	      "       flagsfirst rename OLD NEW [--noreplace|--exchange]\n"
	      "       flagsfirst rename-legacy OLD NEW\n"
	      "       flagsfirst watch [--mask set,delete,rename,exchange] [--count N]\n"
	      "       flagsfirst probe\n"
	      "       flagsfirst survey [--tsv | --ktap | --pinned]\n"
	      "       flagsfirst ioctls\n"
	      "       flagsfirst tour [--pause] [LESSON...]   (as root, the module loaded)\n"
	      "       flagsfirst tour --list\n"
	      "       flagsfirst raw set|get|delete|rename|watch --size N --flags X\n"
	      "                  [--tail-byte B] [--reserved X] [--name S]\n"
	      "                  [--newname S] [--value S] [--mask X]\n"
	      "                  [--expect-seq N]\n"
	      "       flagsfirst --as-uid UID COMMAND...   (as root: drop to UID first)\n"
	      "The device is $FLAGSFIRST_DEV, or /dev/flagsfirst.\n", stderr);
	return 2;
}

static int open_dev(void)
{
	const char *path = getenv("FLAGSFIRST_DEV");
	int fd;

	if (!path)
		path = "/dev/flagsfirst";
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "flagsfirst: %s: %s (is the module loaded?)\n",
			path, strerror(errno));
	return fd;
}

static void print_value(const unsigned char *v, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		if (v[i] == '"' || v[i] == '\\')
			printf("\\%c", v[i]);
		else if (v[i] >= 0x20 && v[i] < 0x7f)
			putchar(v[i]);
		else
			printf("\\x%02x", v[i]);
	}
	putchar('"');
}

#ifdef FLAGSFIRST_SET_IF_SEQ
/*
 * Asks the running kernel with CHECK_FIELDS whether SET knows IF_SEQ, and
 * says so plainly if it does not: the honest version of glibc papering
 * over a missing kernel feature.
 */
static bool kernel_has_if_seq(int fd)
{
	unsigned char buf[256] = { 0 };
	uint64_t flags = FLAGSFIRST_CHECK_FIELDS;

	memcpy(buf, &flags, sizeof(flags));
	if (ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, FFST_IOC_TYPE,
			   _IOC_NR(FLAGSFIRST_IOC_SET), sizeof(buf)), buf))
		return false;
	memcpy(&flags, buf, sizeof(flags));
	if (flags & FLAGSFIRST_SET_IF_SEQ)
		return true;
	fprintf(stderr, "flagsfirst: set --if-seq: not supported by the running "
		"kernel (its SET accepts %s, struct size %zu)\n",
		flags_str(set_flags, flags), kernel_size(buf, sizeof(buf)));
	return false;
}
#endif

static int cmd_set(int fd, int argc, char **argv)
{
	struct flagsfirst_set set = { 0 };
	int i;

	if (argc < 2)
		return usage();
	for (i = 2; i < argc; i++) {
#ifdef FLAGSFIRST_SET_IF_SEQ
		uint64_t seq;

		if (!strcmp(argv[i], "--if-seq") && i + 1 < argc &&
		    parse_u64(argv[i + 1], &seq)) {
			set.flags |= FLAGSFIRST_SET_IF_SEQ;
			set.expect_seq = seq;
			i++;
			continue;
		}
#endif
		if (!strcmp(argv[i], "--noreplace"))
			set.flags |= FLAGSFIRST_SET_NOREPLACE;
		else if (!strcmp(argv[i], "--replace"))
			set.flags |= FLAGSFIRST_SET_REPLACE;
		else if (!strcmp(argv[i], "--immutable"))
			set.flags |= FLAGSFIRST_SET_IMMUTABLE;
		else
			return usage();
	}
	set.name = ptr(argv[0]);
	set.value = ptr(argv[1]);
	set.value_len = strlen(argv[1]);
#ifdef FLAGSFIRST_SET_IF_SEQ
	if ((set.flags & FLAGSFIRST_SET_IF_SEQ) && !kernel_has_if_seq(fd))
		return 1;
#endif
	if (ioctl(fd, FLAGSFIRST_IOC_SET, &set))
		return fail("set");
	return 0;
}

static int cmd_get(int fd, int argc, char **argv)
{
	static unsigned char value[FLAGSFIRST_VALUE_MAX];
	struct flagsfirst_get get = { 0 };

	if (argc != 1)
		return usage();
	get.name = ptr(argv[0]);
	get.value = ptr(value);
	get.value_len = sizeof(value);
	if (ioctl(fd, FLAGSFIRST_IOC_GET, &get))
		return fail("get");
	printf("%s = ", argv[0]);
	print_value(value, get.value_len);
	printf(" (%u bytes, seq %" PRIu64 ", owner %u%s)\n", get.value_len,
	       (uint64_t)get.seq, get.owner_uid,
	       get.attrs & FLAGSFIRST_ATTR_IMMUTABLE ? ", immutable" : "");
	return 0;
}

static int cmd_delete(int fd, int argc, char **argv)
{
	struct flagsfirst_delete del = { 0 };
	int ret;

	if (argc != 1)
		return usage();
	if (!strcmp(argv[0], "--all")) {
		del.flags = FLAGSFIRST_DELETE_ALL;
		del.name = ptr("");
	} else {
		del.name = ptr(argv[0]);
	}
	ret = ioctl(fd, FLAGSFIRST_IOC_DELETE, &del);
	if (ret < 0)
		return fail("delete");
	if (del.flags & FLAGSFIRST_DELETE_ALL)
		printf("deleted %d entries\n", ret);
	return 0;
}

static int cmd_rename(int fd, int argc, char **argv)
{
	struct flagsfirst_rename rename = { 0 };
	int i;

	if (argc < 2)
		return usage();
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--noreplace"))
			rename.flags |= FLAGSFIRST_RENAME_NOREPLACE;
		else if (!strcmp(argv[i], "--exchange"))
			rename.flags |= FLAGSFIRST_RENAME_EXCHANGE;
		else
			return usage();
	}
	rename.oldname = ptr(argv[0]);
	rename.newname = ptr(argv[1]);
	if (ioctl(fd, FLAGSFIRST_IOC_RENAME, &rename))
		return fail("rename");
	return 0;
}

static int cmd_rename_legacy(int fd, int argc, char **argv)
{
	struct flagsfirst_rename_legacy legacy;

	if (argc != 2)
		return usage();
	legacy.oldname = ptr(argv[0]);
	legacy.newname = ptr(argv[1]);
	if (ioctl(fd, FLAGSFIRST_IOC_RENAME_LEGACY, &legacy))
		return fail("rename-legacy");
	return 0;
}

static bool parse_mask(char *list, uint64_t *mask)
{
	const struct flag_name *t;
	char *word;

	*mask = 0;
	for (word = strtok(list, ","); word; word = strtok(NULL, ",")) {
		for (t = event_types; t->name; t++)
			if (t->bit != FLAGSFIRST_EVENT_OVERFLOW && !strcmp(word, t->name))
				break;
		if (!t->name)
			return false;
		*mask |= t->bit;
	}
	return *mask != 0;
}

/* Prints one record; steps by size and finds the names at hdr_size. */
static void print_event(const unsigned char *rec)
{
	struct flagsfirst_event ev;
	const struct flag_name *t;
	const char *type = "?", *name;

	memcpy(&ev, rec, sizeof(ev));
	for (t = event_types; t->name; t++)
		if (t->bit == ev.type)
			type = t->name;
	name = (const char *)rec + ev.hdr_size;
	printf("%-8s seq %-6" PRIu64, type, (uint64_t)ev.seq);
	if (ev.type == FLAGSFIRST_EVENT_OVERFLOW)
		printf(" (the queue was full: changes from this seq on were dropped)");
	else if (ev.type == FLAGSFIRST_EVENT_RENAME)
		printf(" %s -> %s", name, name + ev.name_len + 1);
	else if (ev.type == FLAGSFIRST_EVENT_EXCHANGE)
		printf(" %s <-> %s", name, name + ev.name_len + 1);
	else
		printf(" %s", name);
	printf("\n");
	fflush(stdout);
}

static int cmd_watch(int fd, int argc, char **argv)
{
	static unsigned char buf[64 * 1024] __attribute__((aligned(8)));
	struct flagsfirst_watch watch = {
		.flags = FLAGSFIRST_WATCH_CLOEXEC, .mask = FLAGSFIRST_EVENT_ALL,
	};
	uint64_t count = 0, seen = 0, mask;
	ssize_t len, off;
	int i, wfd;

	for (i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--mask")) {
			if (!parse_mask(argv[i + 1], &mask))
				return usage();
			watch.mask = mask;
		} else if (!strcmp(argv[i], "--count")) {
			if (!parse_u64(argv[i + 1], &count))
				return usage();
		} else {
			return usage();
		}
	}
	if (i != argc)
		return usage();
	wfd = ioctl(fd, FLAGSFIRST_IOC_WATCH, &watch);
	if (wfd < 0)
		return fail("watch");
	while (!count || seen < count) {
		len = read(wfd, buf, sizeof(buf));
		if (len < 0) {
			fail("read");
			close(wfd);
			return 1;
		}
		for (off = 0; off < len && (!count || seen < count); seen++) {
			uint32_t size;

			print_event(buf + off);
			memcpy(&size, buf + off, sizeof(size));
			off += size;
		}
	}
	close(wfd);
	return 0;
}

/* raw: a call of each op, from the options given (the rest zero). */
static void raw_set(void *out, uint64_t flags, uint64_t reserved,
		    struct raw_opts *o)
{
	const char *value = raw_str(o, "--value", "raw-value");
	struct flagsfirst_set s = {
		.flags = flags, .name = ptr(raw_str(o, "--name", "raw-name")),
		.value = ptr(value), .value_len = strlen(value),
		.__reserved = reserved,
#ifdef FLAGSFIRST_SET_IF_SEQ
		.expect_seq = raw_u64(o, "--expect-seq", 0),
#endif
	};

	memcpy(out, &s, sizeof(s));
}

static void raw_get(void *out, uint64_t flags, uint64_t reserved,
		    struct raw_opts *o)
{
	static char value[FLAGSFIRST_VALUE_MAX];
	struct flagsfirst_get g = {
		.flags = flags, .name = ptr(raw_str(o, "--name", "raw-name")),
		.value = ptr(value), .value_len = sizeof(value),
		.__reserved = reserved,
	};

	memcpy(out, &g, sizeof(g));
}

static void raw_delete(void *out, uint64_t flags, uint64_t reserved,
		       struct raw_opts *o)
{
	struct flagsfirst_delete d = {
		.flags = flags, .name = ptr(raw_str(o, "--name", "raw-name")),
	};

	(void)reserved;
	memcpy(out, &d, sizeof(d));
}

static void raw_rename(void *out, uint64_t flags, uint64_t reserved,
		       struct raw_opts *o)
{
	struct flagsfirst_rename r = {
		.flags = flags, .oldname = ptr(raw_str(o, "--name", "raw-name")),
		.newname = ptr(raw_str(o, "--newname", "raw-newname")),
	};

	(void)reserved;
	memcpy(out, &r, sizeof(r));
}

static void raw_watch(void *out, uint64_t flags, uint64_t reserved,
		      struct raw_opts *o)
{
	struct flagsfirst_watch w = {
		.flags = flags,
		.mask = raw_u64(o, "--mask", FLAGSFIRST_EVENT_ALL),
	};

	(void)reserved;
	memcpy(out, &w, sizeof(w));
}

/* A WATCH that succeeded made an fd. */
static void raw_watch_done(int ret, uint64_t flags)
{
	if (flags != FLAGSFIRST_CHECK_FIELDS)
		close(ret);
}

/*
 * Every extensible op: probe, raw and its own command from one entry; its
 * flags and fields from ops.h, which counts the header's: an op of the
 * header without an entry here does not build.
 */
static const struct op ops[] = {
	{ "set", _IOC_NR(FLAGSFIRST_IOC_SET), sizeof(struct flagsfirst_set),
	  set_flags, set_fields, raw_set, NULL, cmd_set },
	{ "get", _IOC_NR(FLAGSFIRST_IOC_GET), sizeof(struct flagsfirst_get),
	  get_flags, get_fields, raw_get, NULL, cmd_get },
	{ "delete", _IOC_NR(FLAGSFIRST_IOC_DELETE), sizeof(struct flagsfirst_delete),
	  delete_flags, delete_fields, raw_delete, NULL, cmd_delete },
	{ "rename", _IOC_NR(FLAGSFIRST_IOC_RENAME), sizeof(struct flagsfirst_rename),
	  rename_flags, rename_fields, raw_rename, NULL, cmd_rename },
	{ "watch", _IOC_NR(FLAGSFIRST_IOC_WATCH), sizeof(struct flagsfirst_watch),
	  watch_flags, watch_fields, raw_watch, raw_watch_done, cmd_watch },
};

_Static_assert(ARRAY_SIZE(ops) == FLAGSFIRST_NR_OPS_LISTED,
	       "an op of the header has no entry in ops[]");

/*
 * The ioctl numbers this program was built with, and two of Linux's to
 * compare (lesson 12): a 32-bit build (flagsfirst-m32) prints the same
 * numbers for flagsfirst's ops, whose structs have one layout on every
 * ABI, and others for a payload that does not.
 */
static int cmd_ioctls(void)
{
	static const struct {
		const char *name, *payload;
		unsigned long cmd;
	} cmds[] = {
		{ "FLAGSFIRST_IOC_SET", "struct flagsfirst_set", FLAGSFIRST_IOC_SET },
		{ "FLAGSFIRST_IOC_GET", "struct flagsfirst_get", FLAGSFIRST_IOC_GET },
		{ "FLAGSFIRST_IOC_DELETE", "struct flagsfirst_delete", FLAGSFIRST_IOC_DELETE },
		{ "FLAGSFIRST_IOC_RENAME", "struct flagsfirst_rename", FLAGSFIRST_IOC_RENAME },
		{ "FLAGSFIRST_IOC_RENAME_LEGACY", "struct flagsfirst_rename_legacy",
		  FLAGSFIRST_IOC_RENAME_LEGACY },
		{ "FLAGSFIRST_IOC_WATCH", "struct flagsfirst_watch", FLAGSFIRST_IOC_WATCH },
		/* a __u32 before a __u64: 4 bytes shorter on i386 */
		{ "NVME_IOCTL_SUBMIT_IO", "struct nvme_user_io", NVME_IOCTL_SUBMIT_IO },
		/* a long in the number (the kernel reads an int) */
		{ "FS_IOC_GETFLAGS", "long", FS_IOC_GETFLAGS },
	};
	static const char *const dirs[] = { "none", "write", "read", "read-write" };
	size_t i;

	printf("# built as a %zu-bit program: command, direction, type, nr, size\n",
	       sizeof(long) * 8);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		printf("%-28s 0x%08lx %-10s '%c' %3lu %4lu bytes (%s)\n", cmds[i].name,
		       cmds[i].cmd, dirs[_IOC_DIR(cmds[i].cmd)], (int)_IOC_TYPE(cmds[i].cmd),
		       (unsigned long)_IOC_NR(cmds[i].cmd),
		       (unsigned long)_IOC_SIZE(cmds[i].cmd), cmds[i].payload);
	return 0;
}

/* flagsfirst, as it describes itself to the client core (client.h). */
static const struct client client = {
	.name = "flagsfirst",
	.ioc_type = FFST_IOC_TYPE,
	.check_fields = FLAGSFIRST_CHECK_FIELDS,
	.ops = ops,
	.nr_ops = ARRAY_SIZE(ops),
	.errno_name = errno_name,
	.errno_reason = errno_reason,
	.usage = usage,
};

/*
 * The guided tour, tour.sh carried as a string: sh runs it with this
 * client's own path as $1, so that it needs no other file of the project,
 * and the tour's own arguments (lessons, --pause, --list) after it.
 */
static int cmd_tour(int argc, char **argv)
{
	char self[PATH_MAX], **args;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int i;

	if (n < 0)
		return fail("readlink /proc/self/exe");
	self[n] = '\0';
	args = calloc(argc + 6, sizeof(*args));
	if (!args)
		return fail("calloc");
	args[0] = "sh";
	args[1] = "-c";
	args[2] = (char *)tour_script;
	args[3] = "flagsfirst-tour";
	args[4] = self;
	for (i = 0; i < argc; i++)
		args[5 + i] = argv[i];
	execv("/bin/sh", args);
	return fail("exec /bin/sh");
}

/*
 * --as-uid UID: become UID (and the group of the same number), with no
 * supplementary groups and so no capabilities, before anything else: what
 * the tour shows of an unprivileged caller needs no account database
 * (su), and the device is opened as that user.
 */
static int drop_to(const char *arg)
{
	char *end;
	unsigned long uid;

	errno = 0;
	uid = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || uid >= (uid_t)-1) {
		fprintf(stderr, "flagsfirst: --as-uid: not a user ID: '%s'\n", arg);
		return -1;
	}
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "flagsfirst: --as-uid %lu: %s\n", uid,
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct op *op;
	const char *cmd;
	int fd, ret;

	if (argc > 3 && !strcmp(argv[1], "--as-uid")) {
		if (drop_to(argv[2]))
			return 1;
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		return usage();
	cmd = argv[1];
	/* The kernel's own system calls: no device needed */
	if (!strcmp(cmd, "survey"))
		return cmd_survey(argc - 2, argv + 2);
	if (!strcmp(cmd, "tour"))
		return cmd_tour(argc - 2, argv + 2);
	if (!strcmp(cmd, "ioctls"))
		return argc > 2 ? usage() : cmd_ioctls();
	fd = open_dev();
	if (fd < 0)
		return 1;
	argc -= 2;
	argv += 2;
	op = find_op(&client, cmd);
	if (op && op->cmd)
		ret = op->cmd(fd, argc, argv);
	else if (!strcmp(cmd, "rename-legacy"))
		ret = cmd_rename_legacy(fd, argc, argv);
	else if (!strcmp(cmd, "probe"))
		ret = argc ? usage() : cmd_probe(fd, &client);
	else if (!strcmp(cmd, "raw"))
		ret = cmd_raw(fd, &client, argc, argv);
	else
		ret = usage();
	close(fd);
	return ret;
}
