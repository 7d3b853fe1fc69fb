/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The generic core: what the client does for every op of the dispatcher, from one
 * table: probe (each op's CHECK_FIELDS answer) and raw (any size, flags and
 * tail, into a struct that ends where an unmapped page begins).  The client
 * describes its interface in a struct client (the ioctl type, the table of
 * ops, how to name an errno and how to print its usage) and passes it to
 * cmd_probe(), cmd_raw() and find_op(); each entry of its table of ops
 * says how to fill a call of the op for raw, and names the op's own
 * command.  Nothing here calls into the client but through that struct.
 */
#ifndef FFST_CLIENT_H
#define FFST_CLIENT_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RAW_MAX 16384	/* _IOC_SIZE can say at most 16383 */
#define RAW_OPTS 8	/* an op's own options of raw, at most */

struct flag_name {
	uint64_t bit;
	const char *name;
};

struct field {
	const char *name;
	size_t offset, size;
};

#define FIELD(type, f) { #f, offsetof(struct type, f), sizeof(((struct type *)0)->f) }

/* The options of raw that are an op's own ("--name S"), as given. */
struct raw_opts {
	int n;
	const char *key[RAW_OPTS], *val[RAW_OPTS];
	bool used[RAW_OPTS];
	bool bad;		/* a number that did not parse */
};

/* What this client knows of each extensible op: one entry each. */
struct op {
	const char *name;
	unsigned int nr;
	size_t size;		/* sizeof the struct in this client's header */
	const struct flag_name *flags;
	const struct field *fields;
	/*
	 * raw: a call of it into @out (@size bytes), @flags and the rest; or
	 * NULL: @flags, then each of @fields from its option ("--value N")
	 */
	void (*raw_fill)(void *out, uint64_t flags, uint64_t reserved,
			 struct raw_opts *o);
	/* raw: after a call that succeeded (an op that returns an fd closes it) */
	void (*raw_done)(int ret, uint64_t flags);
	/* its own command (argv after the op's name), or NULL */
	int (*cmd)(int fd, int argc, char **argv);
};

/* An interface, as its client describes it to this core. */
struct client {
	const char *name;		/* the program, for messages */
	unsigned int ioc_type;		/* the type byte of its ioctls */
	uint64_t check_fields;		/* its CHECK_FIELDS flag */
	const struct op *ops;
	size_t nr_ops;
	const char *(*errno_name)(int err);	/* "EINVAL" */
	const char *(*errno_reason)(int err);	/* what it means here */
	int (*usage)(void);		/* prints it; returns the exit code */
};

/* Says that @what failed, and why; returns the exit code. */
static int client_fail(const struct client *c, const char *what)
{
	int err = errno;

	fprintf(stderr, "%s: %s: %s: %s\n", c->name, what, c->errno_name(err),
		c->errno_reason(err));
	return 1;
}

static __attribute__((unused)) uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && *s && !*end;
}

static const char *flags_str(const struct flag_name *names, uint64_t flags)
{
	static char buf[256];
	const struct flag_name *f;
	size_t n = 0;

	buf[0] = '\0';
	for (f = names; f->name; f++) {
		if (flags & f->bit) {
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? "|" : "", f->name);
			flags &= ~f->bit;
		}
	}
	if (flags)
		snprintf(buf + n, sizeof(buf) - n, "%s0x%" PRIx64 "(unknown to this client)",
			 n ? "|" : "", flags);
	else if (!n)
		snprintf(buf, sizeof(buf), "0");
	return buf;
}

/* The kernel's struct ends at its last non-zero byte, rounded up to 8. */
static size_t kernel_size(const unsigned char *buf, size_t len)
{
	while (len && !buf[len - 1])
		len--;
	return (len + 7) & ~(size_t)7;
}

static bool all_ones(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++ != 0xff)
			return false;
	return true;
}

/* CHECK_FIELDS of every op of @c: sizes, flags and fields, side by side. */
static int cmd_probe(int fd, const struct client *c)
{
	static const size_t usize = 256;
	unsigned char buf[256];
	const struct field *f;
	const struct op *op;
	uint64_t flags;
	size_t ksize;

	printf("%-7s %-5s %-42s %s\n", "op", "size", "valid flags", "fields");
	for (op = c->ops; op < c->ops + c->nr_ops; op++) {
		memset(buf, 0xcc, sizeof(buf));
		flags = c->check_fields;
		memcpy(buf, &flags, sizeof(flags));
		if (ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, c->ioc_type, op->nr, usize), buf)) {
			printf("%-7s %s (%s)\n", op->name, c->errno_name(errno),
			       errno == ENOTTY ? "not in this kernel" :
			       "CHECK_FIELDS not supported");
			continue;
		}
		memcpy(&flags, buf, sizeof(flags));
		ksize = kernel_size(buf, usize);
		printf("%-7s %-5zu %-42s", op->name, ksize, flags_str(op->flags, flags));
		for (f = op->fields; f->name; f++)
			if (f->offset + f->size <= ksize &&
			    all_ones(buf + f->offset, f->size))
				printf(" %s", f->name);
		if (ksize > op->size)
			printf(" +%zu bytes this client does not know", ksize - op->size);
		printf("\n");
	}
	return 0;
}

static const struct op *find_op(const struct client *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_ops; i++)
		if (!strcmp(c->ops[i].name, name))
			return &c->ops[i];
	return NULL;
}

/* Option @key of raw, or @def; marks it used. */
static const char *raw_str(struct raw_opts *o, const char *key, const char *def)
{
	int i;

	for (i = 0; i < o->n; i++) {
		if (!strcmp(o->key[i], key)) {
			o->used[i] = true;
			return o->val[i];
		}
	}
	return def;
}

static uint64_t raw_u64(struct raw_opts *o, const char *key, uint64_t def)
{
	const char *s = raw_str(o, key, NULL);
	uint64_t v;

	if (!s)
		return def;
	if (!parse_u64(s, &v))
		o->bad = true;
	return v;
}

/*
 * raw's call of an op without a raw_fill of its own: @flags, then each
 * field of the op's table from its option, "--NAME VALUE" (0 without).
 * A field of 1, 2, 4 or 8 bytes takes the value's low bytes.  Fails on
 * --reserved, which only an op's own raw_fill knows where to put.
 */
static int raw_fill_fields(const struct op *op, unsigned char *out,
			   uint64_t flags, uint64_t reserved,
			   struct raw_opts *o)
{
	const struct field *f;
	char key[64];

	if (reserved)
		return -1;
	memcpy(out, &flags, sizeof(flags));
	for (f = op->fields; f->name; f++) {
		union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } x;
		uint64_t v;

		snprintf(key, sizeof(key), "--%s", f->name);
		v = raw_u64(o, key, 0);
		switch (f->size) {
		case 1:
			x.u8 = v;
			break;
		case 2:
			x.u16 = v;
			break;
		case 4:
			x.u32 = v;
			break;
		case 8:
			x.u64 = v;
			break;
		default:
			return -1;
		}
		memcpy(out + f->offset, &x, f->size);
	}
	return 0;
}

/*
 * Sends any size, flags and trailing bytes and prints the verdict.  The
 * struct is placed to end exactly at a page boundary followed by an unmapped
 * page, so a kernel that read past usize would fault.
 */
static int cmd_raw(int fd, const struct client *c, int argc, char **argv)
{
	uint64_t usize = 0, flags = 0, tail = 0, reserved = 0, v;
	unsigned char out[256] = { 0 }, *map, *buf;
	struct raw_opts o = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	bool have_size = false;
	const struct op *op;
	size_t maplen;
	int i, ret;

	op = argc < 1 ? NULL : find_op(c, argv[0]);
	if (!op || op->size > sizeof(out))
		return c->usage();
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--size") && strcmp(argv[i], "--flags") &&
		    strcmp(argv[i], "--tail-byte") && strcmp(argv[i], "--reserved")) {
			if (o.n == RAW_OPTS)
				return c->usage();
			o.key[o.n] = argv[i];
			o.val[o.n++] = argv[i + 1];
			continue;
		}
		if (!parse_u64(argv[i + 1], &v))
			return c->usage();
		if (!strcmp(argv[i], "--size"))
			usize = v, have_size = true;
		else if (!strcmp(argv[i], "--flags"))
			flags = v;
		else if (!strcmp(argv[i], "--tail-byte"))
			tail = v;
		else
			reserved = v;
	}
	if (i != argc || !have_size || usize >= RAW_MAX || tail > 0xff)
		return c->usage();
	/* Designated initializers in raw_fill: a struct that grows must not break them. */
	if (op->raw_fill)
		op->raw_fill(out, flags, reserved, &o);
	else if (raw_fill_fields(op, out, flags, reserved, &o))
		return c->usage();
	for (i = 0; i < o.n; i++)
		if (!o.used[i])
			return c->usage();
	if (o.bad)
		return c->usage();

	maplen = ((usize + page - 1) / page + 1) * page;
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return client_fail(c, "mmap");
	munmap(map + maplen - page, page);
	buf = map + maplen - page - usize;
	memset(buf, 0, usize);
	if (usize > op->size)
		memset(buf + op->size, (int)tail, usize - op->size);
	memcpy(buf, out, usize < op->size ? usize : op->size);

	printf("%s: size %" PRIu64 " (this header: %zu), flags %s", op->name,
	       usize, op->size, flags_str(op->flags, flags));
	if (usize > op->size)
		printf(", tail bytes 0x%02" PRIx64, tail);
	printf(" -> ");
	ret = ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, c->ioc_type, op->nr, usize), buf);
	if (ret < 0) {
		printf("%s: %s\n", c->errno_name(errno), c->errno_reason(errno));
		munmap(map, maplen - page);
		return 1;
	}
	printf("ok, returned %d\n", ret);
	if (op->raw_done)
		op->raw_done(ret, flags);
	if (flags == c->check_fields) {
		uint64_t kflags;

		memcpy(&kflags, buf, sizeof(kflags));
		printf("  kernel struct size %zu, valid flags %s\n",
		       kernel_size(buf, usize), flags_str(op->flags, kflags));
	}
	munmap(map, maplen - page);
	return 0;
}

#endif /* FFST_CLIENT_H */
