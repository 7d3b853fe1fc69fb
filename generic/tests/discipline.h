/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The generic core: what an interface's tests share with the tests of the
 * dispatcher's rules (discipline_tests.h): calling an ioctl, a struct that
 * ends where an unmapped page begins, and struct discipline, in which an
 * interface describes itself to those tests.  It knows nothing of any
 * interface; nothing here or there calls the interface's code but through
 * struct discipline and the ops' FIXTURE_VARIANT(op) entries.
 */
#ifndef FFST_DISCIPLINE_H
#define FFST_DISCIPLINE_H

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

static inline uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* The ioctl's result, or -errno: tests compare against -EINVAL and such. */
static inline int ffst(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* The command of op @nr of ioctl type @type with a struct of @usize bytes. */
static inline unsigned long ffst_cmd(unsigned int type, unsigned int nr,
				     size_t usize)
{
	return _IOC(_IOC_READ | _IOC_WRITE, type, nr, usize);
}

static inline bool is_root(void)
{
	return geteuid() == 0;
}

/*
 * @len bytes that end exactly where an unmapped page begins, so that any
 * read or write past them faults.  @shift moves them that many bytes onto
 * the unmapped page.
 */
static inline unsigned char *at_page_end(size_t len, size_t shift)
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

/* What a release of the module has for an op: its struct size and flags. */
struct release {
	size_t size;
	uint64_t flags;
};

/* A field of an op's struct. */
struct field {
	size_t offset, size;
};

/**
 * struct discipline - an interface, as its tests describe it to
 * discipline_tests.h
 * @ioc_type: the type byte of its ioctl numbers
 * @check_fields: the flag that asks an op what it supports
 * @open_dev: opens the device with open(2) flags @mode (O_RDWR and so on)
 * @release_of: op @nr in the ABI release the module under test runs, as
 *	the test knows it (never by asking the module); NULL (the function,
 *	or what it returns) or a size of 0: the variant's own size and flags
 * @state_size: the bytes of state a test's calls share (zeroed)
 * @setup: makes that state, on the fixture's fd; NULL: nothing to make
 * @teardown: undoes @setup; NULL: nothing to undo
 * @forget_changes: forgets what preparing a call changed, so that what an
 *	op's ->happened() sees from now on came from the call
 */
struct discipline {
	unsigned int ioc_type;
	uint64_t check_fields;
	int (*open_dev)(int mode);
	const struct release *(*release_of)(unsigned int nr);
	size_t state_size;
	int (*setup)(int fd, void *state);
	void (*teardown)(int fd, void *state);
	void (*forget_changes)(int fd, void *state);
};

#endif /* FFST_DISCIPLINE_H */
