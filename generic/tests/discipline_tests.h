/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The generic core: the rules of the dispatcher, tested on every versioned op of
 * an interface (generic/module/dispatch.c applies them): struct sizes below
 * VER0, above a page, with zero and non-zero tails, ending on an unmapped
 * page; each of the 64 flag bits; conflicting pairs; __reserved fields;
 * CHECK_FIELDS into poisoned buffers; EBADF for a mutating op on an fd not
 * opened for writing; ENOTTY for the other directions.
 *
 * The test file includes it once, after kselftest_harness.h and
 * discipline.h, then adds one FIXTURE_VARIANT_ADD(op, ...) per op, each
 * naming the interface's struct discipline.  It knows nothing of what the
 * ops do: each variant says how to fill a call that succeeds and how to
 * see whether one took effect.
 */
#ifndef FFST_DISCIPLINE_TESTS_H
#define FFST_DISCIPLINE_TESTS_H

#include <fcntl.h>
#include <stdlib.h>

#include "discipline.h"

FIXTURE(op) {
	int fd;
	void *state;		/* struct discipline's @state_size bytes */
};

FIXTURE_VARIANT(op) {
	const struct discipline *d;
	unsigned int nr;
	size_t ver0, size;
	uint64_t flags;			/* this header's mask for the op */
	uint64_t conflicts[2][2];	/* pairs that must fail together */
	struct field fields[8];		/* understood fields; {0,0} ends */
	struct field reserved[2];
	/* Prepares what it needs and fills @buf with a call that returns 0. */
	void (*fill)(int fd, void *state, void *buf, uint64_t flags);
	/* Whether the call's effect is visible. */
	bool (*happened)(int fd, void *state);
	/*
	 * Changes state, so a successful call has an effect and needs an fd
	 * open for writing; or does with these flags.  Said once, in the
	 * module's op table: the interface's tables take both from there.
	 */
	bool mutates;
	uint64_t mutating_flags;
	bool returns_fd;		/* a successful call returns an fd */
	/*
	 * A call with just one known bit succeeds (returns 0), unless listed
	 * here: what it returns then, as root and not (1 stands for any
	 * positive count).  A bit the module's ABI does not take is EINVAL.
	 */
	struct { uint64_t bit; int root, user; } known[5];
};

FIXTURE_SETUP(op)
{
	const struct discipline *d = variant->d;

	self->fd = d->open_dev(O_RDWR);
	ASSERT_LE(0, self->fd);
	self->state = calloc(1, d->state_size ? d->state_size : 1);
	ASSERT_NE(NULL, self->state);
	if (d->setup)
		ASSERT_EQ(0, d->setup(self->fd, self->state));
}

FIXTURE_TEARDOWN(op)
{
	if (variant->d->teardown)
		variant->d->teardown(self->fd, self->state);
	free(self->state);
	close(self->fd);
}

static unsigned long op_cmd(const FIXTURE_VARIANT(op) *v, size_t usize)
{
	return ffst_cmd(v->d->ioc_type, v->nr, usize);
}

/*
 * Fills @buf with a call of the op that succeeds (making what it needs),
 * then forgets those changes: what ->happened() sees from now on came
 * from the call.
 */
static void prepare(int fd, const FIXTURE_VARIANT(op) *v, void *state,
		    void *buf, uint64_t flags)
{
	v->fill(fd, state, buf, flags);
	v->d->forget_changes(fd, state);
}

/* A new fd is success; CHECK_FIELDS returns 0, never an fd. */
static int op_result(const FIXTURE_VARIANT(op) *v, int ret, uint64_t flags)
{
	if (v->returns_fd && ret > 0 && !(flags & v->d->check_fields)) {
		close(ret);
		ret = 0;
	}
	return ret;
}

/*
 * Calls the op with a struct of @usize bytes at the end of a page: the
 * header's struct, then @tail in every byte past it.  Returns the result.
 */
static int call_sized(int fd, const FIXTURE_VARIANT(op) *v, void *state,
		      size_t usize, unsigned char tail, uint64_t flags,
		      size_t shift)
{
	unsigned char full[PAGE + 8] = { 0 }, *buf;

	prepare(fd, v, state, full, flags);
	if (usize > v->size)
		memset(full + v->size, tail, usize - v->size);
	buf = at_page_end(usize, shift);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, full, usize - shift);
	return op_result(v, ffst(fd, op_cmd(v, usize), buf), flags);
}

/* Calls the op on @fd, after filling its struct on @rw (read-write). */
static int call_on(int rw, int fd, const FIXTURE_VARIANT(op) *v, void *state,
		   uint64_t flags)
{
	unsigned char buf[PAGE] = { 0 };

	prepare(rw, v, state, buf, flags);
	return op_result(v, ffst(fd, op_cmd(v, v->size), buf), flags);
}

/*
 * What the running module's release has for @v's op: the interface's
 * table says, or for an op it has no row for (NULL, or size 0), the
 * variant's own size and flags.
 */
static struct release module_release(const FIXTURE_VARIANT(op) *v)
{
	struct release r = { v->size, v->flags };
	const struct release *in = v->d->release_of ?
				   v->d->release_of(v->nr) : NULL;

	if (in && in->size)
		r = *in;
	return r;
}

static size_t size_max(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* A call of @usize bytes, the bytes past the struct @tail: its result. */
static void size_case(struct __test_metadata *_metadata,
		      FIXTURE_DATA(op) *self, const FIXTURE_VARIANT(op) *variant,
		      size_t usize, unsigned char tail, int expected, bool effect)
{
	EXPECT_EQ(expected, call_sized(self->fd, variant, self->state,
				       usize, tail, 0, 0));
	EXPECT_EQ(effect, variant->happened(self->fd, self->state));
}

TEST_F(op, struct_one_byte_smaller_than_ver0_fails_with_EINVAL)
{
	size_case(_metadata, self, variant, variant->ver0 - 1, 0, -EINVAL, false);
}

TEST_F(op, ver0_struct_succeeds)
{
	size_case(_metadata, self, variant, variant->ver0, 0, 0,
		  variant->mutates);
}

TEST_F(op, current_struct_succeeds)
{
	size_case(_metadata, self, variant, variant->size, 0, 0,
		  variant->mutates);
}

TEST_F(op, bigger_struct_with_zero_tail_succeeds)
{
	size_case(_metadata, self, variant, variant->size + 8, 0, 0,
		  variant->mutates);
}

/* Past both structs: an ABI-0 binary's tail is a newer module's field. */
TEST_F(op, bigger_struct_with_non_zero_tail_fails_with_E2BIG)
{
	size_case(_metadata, self, variant,
		  size_max(variant->size, module_release(variant).size) + 8, 1,
		  -E2BIG, false);
}

/* Not a whole number of words: between ver0 and current, or a short tail. */
TEST_F(op, odd_size_struct_with_zero_tail_succeeds)
{
	size_case(_metadata, self, variant, variant->ver0 + 5, 0, 0,
		  variant->mutates);
}

TEST_F(op, page_size_struct_with_zero_tail_succeeds)
{
	size_case(_metadata, self, variant, PAGE, 0, 0, variant->mutates);
}

TEST_F(op, page_size_struct_with_non_zero_tail_fails_with_E2BIG)
{
	size_case(_metadata, self, variant, PAGE, 0x80, -E2BIG, false);
}

TEST_F(op, struct_one_byte_over_page_size_fails_with_E2BIG)
{
	size_case(_metadata, self, variant, PAGE + 1, 0, -E2BIG, false);
}

TEST_F(op, struct_ending_on_an_unmapped_page_fails_with_EFAULT)
{
	EXPECT_EQ(-EFAULT, call_sized(self->fd, variant, self->state,
				      variant->size, 0, 0, 1));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
}

TEST_F(op, odd_size_struct_ending_on_an_unmapped_page_fails_with_EFAULT)
{
	EXPECT_EQ(-EFAULT, call_sized(self->fd, variant, self->state,
				      variant->ver0 + 5, 0, 0, 1));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
}

TEST_F(op, null_struct_fails_with_EFAULT)
{
	EXPECT_EQ(-EFAULT, ffst(self->fd, op_cmd(variant, variant->size), NULL));
}

/*
 * Unknown to the module's ABI, which is not always this program's header:
 * an old program's header lacks a newer module's flags, and a new
 * program's has flags that a module loaded as an older ABI rejects.
 */
TEST_F(op, every_unknown_flag_bit_fails_with_EINVAL)
{
	uint64_t known = module_release(variant).flags | variant->d->check_fields;
	int bit;

	for (bit = 0; bit < 64; bit++) {
		uint64_t flag = 1ULL << bit;

		if (flag & known)
			continue;
		EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, self->state,
					      variant->size, 0, flag, 0)) {
			TH_LOG("flag bit %d", bit);
		}
		EXPECT_EQ(false, variant->happened(self->fd, self->state)) {
			TH_LOG("flag bit %d changed the state", bit);
		}
	}
}

/* What the variant's table says a call with just @bit returns. */
static int known_result(const FIXTURE_VARIANT(op) *v, uint64_t bit)
{
	int i;

	if (!(bit & module_release(v).flags))
		return -EINVAL;		/* an ABI before the flag's */
	for (i = 0; i < 5 && v->known[i].bit; i++)
		if (v->known[i].bit == bit)
			return is_root() ? v->known[i].root : v->known[i].user;
	return 0;
}

TEST_F(op, every_known_flag_bit_gives_its_documented_result)
{
	int bit;

	for (bit = 0; bit < 64; bit++) {
		uint64_t flag = 1ULL << bit;
		int ret;

		if (!(flag & variant->flags))
			continue;
		ret = call_sized(self->fd, variant, self->state, variant->size, 0,
				 flag, 0);
		EXPECT_EQ(known_result(variant, flag), ret > 0 ? 1 : ret) {
			TH_LOG("flag 0x%llx", (unsigned long long)flag);
		}
	}
}

/*
 * The op table says once whether an op, or a flag of it, changes state
 * (the variant takes it from there): a call that changed something must
 * be one that an fd opened read-only is refused.
 */
TEST_F(op, every_call_that_changes_state_is_marked_so_in_the_op_table)
{
	int bit;

	for (bit = -1; bit < 64; bit++) {
		uint64_t flag = bit < 0 ? 0 : 1ULL << bit;
		bool marked = variant->mutates || (flag & variant->mutating_flags);

		if (bit >= 0 && !(flag & variant->flags & module_release(variant).flags))
			continue;
		if (call_sized(self->fd, variant, self->state, variant->size, 0,
			       flag, 0) < 0)
			continue;	/* only a call that succeeded */
		if (variant->happened(self->fd, self->state)) {
			EXPECT_TRUE(marked) {
				TH_LOG("op 0x%02x, flags 0x%llx: an unmarked change",
				       variant->nr, (unsigned long long)flag);
			}
		}
	}
}

TEST_F(op, every_conflicting_pair_fails_with_EINVAL)
{
	int i;

	for (i = 0; i < 2 && variant->conflicts[i][0]; i++) {
		uint64_t pair = variant->conflicts[i][0] | variant->conflicts[i][1];

		EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, self->state,
					      variant->size, 0, pair, 0));
		EXPECT_EQ(false, variant->happened(self->fd, self->state));
	}
}

TEST_F(op, every_non_zero_reserved_field_fails_with_EINVAL)
{
	unsigned char buf[PAGE] = { 0 };
	int i;

	for (i = 0; i < 2 && variant->reserved[i].size; i++) {
		prepare(self->fd, variant, self->state, buf, 0);
		memset(buf + variant->reserved[i].offset, 0x01,
		       variant->reserved[i].size);
		EXPECT_EQ(-EINVAL, ffst(self->fd, op_cmd(variant, variant->size), buf));
		EXPECT_EQ(false, variant->happened(self->fd, self->state));
	}
}

TEST_F(op, check_fields_with_another_flag_fails_with_EINVAL)
{
	uint64_t other = variant->flags ? variant->flags & -variant->flags : 1;

	EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, self->state, variant->size,
				      0, variant->d->check_fields | other, 0));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
}

/*
 * CHECK_FIELDS with a struct of @usize bytes that end where an unmapped page
 * begins, poisoned past the flags: every byte must be written, and none
 * past @usize (it would fault).  Fields the module knows read all ones,
 * reserved fields and the tail past the module's struct read 0.
 */
static void check_fields_into_poison(struct __test_metadata *_metadata,
				     int fd, void *state,
				     const FIXTURE_VARIANT(op) *variant,
				     size_t usize)
{
	unsigned char *buf = at_page_end(usize, 0), full[PAGE] = { 0 };
	uint64_t flags, expected;
	size_t ksize, i, j, at;

	ASSERT_NE(NULL, buf);
	expected = module_release(variant).flags;
	ksize = module_release(variant).size;
	prepare(fd, variant, state, full, variant->d->check_fields);
	memcpy(buf, full, sizeof(flags));
	memset(buf + sizeof(flags), POISON, usize - sizeof(flags));
	ASSERT_EQ(0, ffst(fd, op_cmd(variant, usize), buf));

	memcpy(&flags, buf, sizeof(flags));
	EXPECT_EQ(expected | variant->d->check_fields, flags);
	for (i = 0; variant->fields[i].size; i++) {
		for (j = 0; j < variant->fields[i].size; j++) {
			at = variant->fields[i].offset + j;
			/* past the caller's or an older module's struct */
			if (at < usize && at < ksize) {
				EXPECT_EQ(0xff, buf[at]) {
					TH_LOG("byte %zu", at);
				}
			}
		}
	}
	for (i = 0; i < 2 && variant->reserved[i].size; i++) {
		for (j = 0; j < variant->reserved[i].size; j++) {
			at = variant->reserved[i].offset + j;
			if (at < usize) {
				EXPECT_EQ(0, buf[at]) {
					TH_LOG("byte %zu", at);
				}
			}
		}
	}
	for (i = ksize; i < usize; i++) {
		EXPECT_EQ(0, buf[i]) {
			TH_LOG("tail byte %zu", i);
		}
	}
	for (i = 0; i < usize; i++) {
		EXPECT_NE(POISON, buf[i]) {
			TH_LOG("byte %zu left unwritten", i);
		}
	}
}

TEST_F(op, check_fields_writes_masks_fields_and_zero_tail_into_a_poisoned_struct)
{
	check_fields_into_poison(_metadata, self->fd, self->state, variant,
				 variant->size + 64);
}

/* Part of a field, or a tail that is not a whole word. */
TEST_F(op, check_fields_at_an_odd_size_writes_exactly_its_bytes)
{
	check_fields_into_poison(_metadata, self->fd, self->state, variant,
				 variant->ver0 + 5);
}

TEST_F(op, check_fields_at_ver0_size_writes_nothing_past_it)
{
	unsigned char *buf = at_page_end(variant->ver0, 0), full[PAGE] = { 0 };
	uint64_t flags, expected;

	ASSERT_NE(NULL, buf);
	prepare(self->fd, variant, self->state, full, variant->d->check_fields);
	memcpy(buf, full, variant->ver0);
	/* at_page_end() makes any write past ver0 bytes fault. */
	ASSERT_EQ(0, ffst(self->fd, op_cmd(variant, variant->ver0), buf));
	memcpy(&flags, buf, sizeof(flags));
	expected = module_release(variant).flags;
	EXPECT_EQ(expected | variant->d->check_fields, flags);
}

TEST_F(op, check_fields_changes_no_state)
{
	EXPECT_EQ(0, call_sized(self->fd, variant, self->state, variant->size, 0,
				variant->d->check_fields, 0));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
}

TEST_F(op, check_fields_obeys_the_size_bounds)
{
	EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, self->state,
				      variant->ver0 - 1, 0,
				      variant->d->check_fields, 0));
	EXPECT_EQ(-E2BIG, call_sized(self->fd, variant, self->state, PAGE + 1, 0,
				     variant->d->check_fields, 0));
	EXPECT_EQ(-EFAULT, call_sized(self->fd, variant, self->state,
				      variant->size, 0,
				      variant->d->check_fields, 1));
}

TEST_F(op, other_directions_fail_with_ENOTTY)
{
	unsigned int nr = variant->nr;
	unsigned char buf[PAGE] = { 0 };
	size_t size = variant->size;

	prepare(self->fd, variant, self->state, buf, 0);
	unsigned int type = variant->d->ioc_type;

	prepare(self->fd, variant, self->state, buf, 0);
	EXPECT_EQ(-ENOTTY, ffst(self->fd, _IOC(_IOC_WRITE, type, nr, size), buf));
	EXPECT_EQ(-ENOTTY, ffst(self->fd, _IOC(_IOC_READ, type, nr, size), buf));
	EXPECT_EQ(-ENOTTY, ffst(self->fd, _IOC(_IOC_NONE, type, nr, 0), buf));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
}

/* FMODE_WRITE: a mutating op needs an fd opened for writing (EBADF). */
TEST_F(op, a_read_only_fd_fails_a_mutating_op_with_EBADF_and_runs_the_others)
{
	int ro = variant->d->open_dev(O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(variant->mutates ? -EBADF : 0,
		  call_on(self->fd, ro, variant, self->state, 0));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
	close(ro);
}

/* A flag that makes an otherwise read-only op change state (RESET). */
TEST_F(op, a_read_only_fd_fails_each_mutating_flag_with_EBADF)
{
	int bit, ro = variant->d->open_dev(O_RDONLY);

	ASSERT_LE(0, ro);
	for (bit = 0; bit < 64; bit++) {
		uint64_t flag = 1ULL << bit;

		if (!(variant->mutating_flags & flag))
			continue;
		EXPECT_EQ(-EBADF, call_on(self->fd, ro, variant, self->state,
					  flag)) {
			TH_LOG("flag bit %d", bit);
		}
		EXPECT_EQ(false, variant->happened(self->fd, self->state)) {
			TH_LOG("flag bit %d changed something", bit);
		}
	}
	close(ro);
}

TEST_F(op, a_write_only_fd_runs_every_op)
{
	int wo = variant->d->open_dev(O_WRONLY);

	ASSERT_LE(0, wo);
	EXPECT_EQ(0, call_on(self->fd, wo, variant, self->state, 0));
	EXPECT_EQ(variant->mutates, variant->happened(self->fd, self->state));
	close(wo);
}

TEST_F(op, an_unknown_bit_on_a_read_only_fd_is_still_EINVAL)
{
	uint64_t unknown = ~(module_release(variant).flags |
			     variant->d->check_fields);
	int ro = variant->d->open_dev(O_RDONLY);

	ASSERT_LE(0, ro);
	unknown &= -unknown;	/* the lowest */
	EXPECT_EQ(-EINVAL, call_on(self->fd, ro, variant, self->state,
				   unknown));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
	close(ro);
}

TEST_F(op, check_fields_works_on_a_read_only_fd)
{
	int ro = variant->d->open_dev(O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(0, call_on(self->fd, ro, variant, self->state,
			     variant->d->check_fields));
	EXPECT_EQ(false, variant->happened(self->fd, self->state));
	close(ro);
}

#endif /* FFST_DISCIPLINE_TESTS_H */
