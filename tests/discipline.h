/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst: the rules of the dispatcher, tested on every versioned op of
 * the interface (module/dispatch.c applies them): struct sizes below VER0,
 * above a page, with zero and non-zero tails, ending on an unmapped page;
 * each of the 64 flag bits; conflicting pairs; __reserved fields;
 * CHECK_FIELDS into poisoned buffers; ENOTTY for the other directions.
 * It knows nothing of what the ops do.
 *
 * The test file includes it after kselftest_harness.h and <linux/...>,
 * having defined:
 *   FFST_IOC_TYPE       the ioctl type of its ops
 *   struct names        what its ops' calls need between fill and check
 *   FIXTURE(op)         { int fd; struct names n; }
 * then defines its ops' FIXTURE_VARIANT_ADD(op, ...) entries,
 * FIXTURE_SETUP(op), FIXTURE_TEARDOWN(op) and the hooks declared below,
 * and includes discipline_tests.h, the tests themselves.
 */
#ifndef FLAGSFIRST_DISCIPLINE_H
#define FLAGSFIRST_DISCIPLINE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE		4096
#define POISON		0xcc

static __attribute__((unused)) uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* The ioctl's result, or -errno: tests compare against -EINVAL and such. */
static int ffst(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

static unsigned long ffst_cmd(unsigned int nr, size_t usize)
{
	return _IOC(_IOC_READ | _IOC_WRITE, FFST_IOC_TYPE, nr, usize);
}

static bool is_root(void)
{
	return geteuid() == 0;
}

/*
 * @len bytes that end exactly where an unmapped page begins, so that any
 * read or write past them faults.  @shift moves them that many bytes onto
 * the unmapped page.
 */
static unsigned char *at_page_end(size_t len, size_t shift)
{
	size_t maplen = (len + PAGE - 1) / PAGE * PAGE + PAGE;
	unsigned char *map;

	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	munmap(map + maplen - PAGE, PAGE);
	return map + maplen - PAGE - len + shift;
}

/*
 * What a release of the module has for op number @nr: its struct size and
 * flags.  An interface with one release so far defines FFST_ONE_RELEASE
 * and they are the variant's own; one with several writes them out in
 * release_of() (it must not ask the module under test) and says which
 * one the module was loaded as in module_abi().
 */
struct release {
	size_t size;
	uint64_t flags;
};

#ifdef FFST_ONE_RELEASE
static int module_abi(void)
{
	return 0;
}
#else
static const struct release *release_of(unsigned int nr);
static int module_abi(void);
#endif
/* Forgets what preparing a call changed (the watch records, the fds). */
static void forget_changes(int fd, struct names *n);

struct field {
	size_t offset, size;
};

FIXTURE_VARIANT(op) {
	unsigned int nr;
	size_t ver0, size;
	uint64_t flags;			/* this header's mask for the op */
	uint64_t conflicts[2][2];	/* pairs that must fail together */
	struct field fields[8];		/* understood fields; {0,0} ends */
	struct field reserved[2];
	/* Prepares entries and fills @buf with a call that returns 0. */
	void (*fill)(int fd, struct names *n, void *buf, uint64_t flags);
	/* Whether the call's effect is visible in the table. */
	bool (*happened)(int fd, struct names *n);
	bool changes_table;		/* a successful call changes it */
	bool returns_fd;		/* a successful call returns an fd */
	/*
	 * What a call with just this known bit returns, as root and not
	 * (1 stands for any positive count), from ABI @abi on.
	 */
	struct { uint64_t bit; int root, user, abi; } known[5];
};

/*
 * Fills @buf with a call of the op that succeeds (making what it needs),
 * then forgets those changes: what ->happened() sees from now on came
 * from the call.
 */
static void prepare(int fd, const FIXTURE_VARIANT(op) *v, struct names *n,
		    void *buf, uint64_t flags)
{
	v->fill(fd, n, buf, flags);
	forget_changes(fd, n);
}

/*
 * Calls the op with a struct of @usize bytes at the end of a page: the
 * header's struct, then @tail in every byte past it.  Returns the result.
 */
static int call_sized(int fd, const FIXTURE_VARIANT(op) *v, struct names *n,
		      size_t usize, unsigned char tail, uint64_t flags,
		      size_t shift)
{
	unsigned char full[PAGE + 8] = { 0 }, *buf;
	int ret;

	prepare(fd, v, n, full, flags);
	if (usize > v->size)
		memset(full + v->size, tail, usize - v->size);
	buf = at_page_end(usize, shift);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, full, usize - shift);
	ret = ffst(fd, ffst_cmd(v->nr, usize), buf);
	/* A new fd is success; CHECK_FIELDS returns 0, never an fd. */
	if (v->returns_fd && ret > 0 && !(flags & FLAGSFIRST_CHECK_FIELDS)) {
		close(ret);
		ret = 0;
	}
	return ret;
}

/* The release the running module is, for @v's op. */
static const struct release *module_release(const FIXTURE_VARIANT(op) *v)
{
#ifdef FFST_ONE_RELEASE
	static struct release r;

	r.size = v->size;
	r.flags = v->flags;
	return &r;
#else
	return release_of(v->nr);
#endif
}

/* What the running module accepts for this op and how big its struct is. */
static void module_view(const FIXTURE_VARIANT(op) *v, uint64_t *flags,
			size_t *size)
{
	*flags = module_release(v)->flags;
	*size = module_release(v)->size;
}

/* The module's struct size as CHECK_FIELDS shows it: any binary can ask. */
static __attribute__((unused)) size_t kernel_size(int fd, unsigned int nr)
{
	uint64_t cf = FLAGSFIRST_CHECK_FIELDS;
	unsigned char buf[256] = { 0 };
	size_t n = sizeof(buf);

	memcpy(buf, &cf, sizeof(cf));
	if (ffst(fd, ffst_cmd(nr, sizeof(buf)), buf))
		return 0;
	while (n && !buf[n - 1])
		n--;
	return (n + 7) & ~(size_t)7;
}

#endif /* FLAGSFIRST_DISCIPLINE_H */
