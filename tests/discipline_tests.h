/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst: the tests of tests/discipline.h, for every FIXTURE_VARIANT(op)
 * the test file added.  Included once, after FIXTURE_SETUP(op) and
 * FIXTURE_TEARDOWN(op).
 */

#define MAX(a, b)	((a) > (b) ? (a) : (b))

#define SIZE_CASE(test, usize, tail, expected, effect)				\
TEST_F(op, test)								\
{										\
	EXPECT_EQ(expected, call_sized(self->fd, variant, &self->n,		\
				       usize, tail, 0, 0));			\
	EXPECT_EQ(effect, variant->happened(self->fd, &self->n));		\
}

SIZE_CASE(struct_one_byte_smaller_than_ver0_fails_with_EINVAL,
	  variant->ver0 - 1, 0, -EINVAL, false)
SIZE_CASE(ver0_struct_succeeds, variant->ver0, 0, 0, variant->changes_table)
SIZE_CASE(current_struct_succeeds, variant->size, 0, 0, variant->changes_table)
SIZE_CASE(bigger_struct_with_zero_tail_succeeds, variant->size + 8, 0, 0,
	  variant->changes_table)
/* Past both structs: an ABI-0 binary's tail is a newer module's field. */
SIZE_CASE(bigger_struct_with_non_zero_tail_fails_with_E2BIG,
	  MAX(variant->size, module_release(variant)->size) + 8, 1,
	  -E2BIG, false)
/* Not a whole number of words: between ver0 and current, or a short tail. */
SIZE_CASE(odd_size_struct_with_zero_tail_succeeds, variant->ver0 + 5, 0, 0,
	  variant->changes_table)
SIZE_CASE(page_size_struct_with_zero_tail_succeeds, PAGE, 0, 0,
	  variant->changes_table)
SIZE_CASE(page_size_struct_with_non_zero_tail_fails_with_E2BIG,
	  PAGE, 0x80, -E2BIG, false)
SIZE_CASE(struct_one_byte_over_page_size_fails_with_E2BIG,
	  PAGE + 1, 0, -E2BIG, false)

TEST_F(op, struct_ending_on_an_unmapped_page_fails_with_EFAULT)
{
	EXPECT_EQ(-EFAULT, call_sized(self->fd, variant, &self->n,
				      variant->size, 0, 0, 1));
	EXPECT_EQ(false, variant->happened(self->fd, &self->n));
}

TEST_F(op, odd_size_struct_ending_on_an_unmapped_page_fails_with_EFAULT)
{
	EXPECT_EQ(-EFAULT, call_sized(self->fd, variant, &self->n,
				      variant->ver0 + 5, 0, 0, 1));
	EXPECT_EQ(false, variant->happened(self->fd, &self->n));
}

TEST_F(op, null_struct_fails_with_EFAULT)
{
	EXPECT_EQ(-EFAULT, ffst(self->fd, ffst_cmd(variant->nr, variant->size), NULL));
}

TEST_F(op, every_unknown_flag_bit_fails_with_EINVAL)
{
	int bit;

	for (bit = 0; bit < 64; bit++) {
		uint64_t flag = 1ULL << bit;

		if (flag & (variant->flags | FLAGSFIRST_CHECK_FIELDS))
			continue;
		EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, &self->n,
					      variant->size, 0, flag, 0))
			TH_LOG("flag bit %d", bit);
		EXPECT_EQ(false, variant->happened(self->fd, &self->n))
			TH_LOG("flag bit %d changed the table", bit);
	}
}

TEST_F(op, every_known_flag_bit_gives_its_documented_result)
{
	uint64_t seen = 0;
	int i;

	for (i = 0; i < 5 && variant->known[i].bit; i++) {
		int expected = is_root() ? variant->known[i].root
					 : variant->known[i].user;
		int ret;

		/* A module of an older ABI does not know the bit yet. */
		if (module_abi() < variant->known[i].abi)
			expected = -EINVAL;
		ret = call_sized(self->fd, variant, &self->n, variant->size, 0,
				 variant->known[i].bit, 0);

		EXPECT_EQ(expected, ret > 0 ? 1 : ret)
			TH_LOG("flag 0x%llx",
			       (unsigned long long)variant->known[i].bit);
		seen |= variant->known[i].bit;
	}
	/* The header's mask and this table agree: no flag goes untested. */
	EXPECT_EQ(variant->flags, seen);
}

TEST_F(op, every_conflicting_pair_fails_with_EINVAL)
{
	int i;

	for (i = 0; i < 2 && variant->conflicts[i][0]; i++) {
		uint64_t pair = variant->conflicts[i][0] | variant->conflicts[i][1];

		EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, &self->n,
					      variant->size, 0, pair, 0));
		EXPECT_EQ(false, variant->happened(self->fd, &self->n));
	}
}

TEST_F(op, every_non_zero_reserved_field_fails_with_EINVAL)
{
	unsigned char buf[PAGE] = { 0 };
	int i;

	for (i = 0; i < 2 && variant->reserved[i].size; i++) {
		prepare(self->fd, variant, &self->n, buf, 0);
		memset(buf + variant->reserved[i].offset, 0x01,
		       variant->reserved[i].size);
		EXPECT_EQ(-EINVAL, ffst(self->fd, ffst_cmd(variant->nr, variant->size), buf));
		EXPECT_EQ(false, variant->happened(self->fd, &self->n));
	}
}

TEST_F(op, check_fields_with_another_flag_fails_with_EINVAL)
{
	uint64_t other = variant->flags ? variant->flags & -variant->flags : 1;

	EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, &self->n, variant->size,
				      0, FLAGSFIRST_CHECK_FIELDS | other, 0));
	EXPECT_EQ(false, variant->happened(self->fd, &self->n));
}

/*
 * CHECK_FIELDS with a struct of @usize bytes that end where an unmapped page
 * begins, poisoned past the flags: every byte must be written, and none
 * past @usize (it would fault).  Fields the module knows read all ones,
 * reserved fields and the tail past the module's struct read 0.
 */
static void check_fields_into_poison(struct __test_metadata *_metadata,
				     int fd, struct names *n,
				     const FIXTURE_VARIANT(op) *variant,
				     size_t usize)
{
	unsigned char *buf = at_page_end(usize, 0), full[PAGE] = { 0 };
	uint64_t flags, expected;
	size_t ksize, i, j, at;

	ASSERT_NE(NULL, buf);
	module_view(variant, &expected, &ksize);
	prepare(fd, variant, n, full, FLAGSFIRST_CHECK_FIELDS);
	memcpy(buf, full, sizeof(flags));
	memset(buf + sizeof(flags), POISON, usize - sizeof(flags));
	ASSERT_EQ(0, ffst(fd, ffst_cmd(variant->nr, usize), buf));

	memcpy(&flags, buf, sizeof(flags));
	EXPECT_EQ(expected | FLAGSFIRST_CHECK_FIELDS, flags);
	for (i = 0; variant->fields[i].size; i++) {
		for (j = 0; j < variant->fields[i].size; j++) {
			at = variant->fields[i].offset + j;
			/* past the caller's or an older module's struct */
			if (at < usize && at < ksize)
				EXPECT_EQ(0xff, buf[at]) TH_LOG("byte %zu", at);
		}
	}
	for (i = 0; i < 2 && variant->reserved[i].size; i++) {
		for (j = 0; j < variant->reserved[i].size; j++) {
			at = variant->reserved[i].offset + j;
			if (at < usize)
				EXPECT_EQ(0, buf[at]) TH_LOG("byte %zu", at);
		}
	}
	for (i = ksize; i < usize; i++)
		EXPECT_EQ(0, buf[i]) TH_LOG("tail byte %zu", i);
	for (i = 0; i < usize; i++)
		EXPECT_NE(POISON, buf[i]) TH_LOG("byte %zu left unwritten", i);
}

TEST_F(op, check_fields_writes_masks_fields_and_zero_tail_into_a_poisoned_struct)
{
	check_fields_into_poison(_metadata, self->fd, &self->n, variant,
				 variant->size + 64);
}

/* Part of a field, or a tail that is not a whole word. */
TEST_F(op, check_fields_at_an_odd_size_writes_exactly_its_bytes)
{
	check_fields_into_poison(_metadata, self->fd, &self->n, variant,
				 variant->ver0 + 5);
}

TEST_F(op, check_fields_at_ver0_size_writes_nothing_past_it)
{
	unsigned char *buf = at_page_end(variant->ver0, 0), full[PAGE] = { 0 };
	uint64_t flags, expected;
	size_t ksize;

	ASSERT_NE(NULL, buf);
	prepare(self->fd, variant, &self->n, full, FLAGSFIRST_CHECK_FIELDS);
	memcpy(buf, full, variant->ver0);
	/* at_page_end() makes any write past ver0 bytes fault. */
	ASSERT_EQ(0, ffst(self->fd, ffst_cmd(variant->nr, variant->ver0), buf));
	memcpy(&flags, buf, sizeof(flags));
	module_view(variant, &expected, &ksize);
	EXPECT_EQ(expected | FLAGSFIRST_CHECK_FIELDS, flags);
}

/* The CHECK_FIELDS flags answer of op @nr. */
static __attribute__((unused)) uint64_t check_fields_flags(int fd,
							   unsigned int nr)
{
	uint64_t cf[PAGE / 8] = { FLAGSFIRST_CHECK_FIELDS };

	if (ffst(fd, ffst_cmd(nr, 64), cf))
		return 0;
	return cf[0];
}

TEST_F(op, check_fields_changes_nothing_in_the_table)
{
	EXPECT_EQ(0, call_sized(self->fd, variant, &self->n, variant->size, 0,
				FLAGSFIRST_CHECK_FIELDS, 0));
	EXPECT_EQ(false, variant->happened(self->fd, &self->n));
}

TEST_F(op, check_fields_obeys_the_size_bounds)
{
	EXPECT_EQ(-EINVAL, call_sized(self->fd, variant, &self->n,
				      variant->ver0 - 1, 0,
				      FLAGSFIRST_CHECK_FIELDS, 0));
	EXPECT_EQ(-E2BIG, call_sized(self->fd, variant, &self->n, PAGE + 1, 0,
				     FLAGSFIRST_CHECK_FIELDS, 0));
	EXPECT_EQ(-EFAULT, call_sized(self->fd, variant, &self->n,
				      variant->size, 0,
				      FLAGSFIRST_CHECK_FIELDS, 1));
}

TEST_F(op, other_directions_fail_with_ENOTTY)
{
	unsigned int nr = variant->nr;
	unsigned char buf[PAGE] = { 0 };
	size_t size = variant->size;

	prepare(self->fd, variant, &self->n, buf, 0);
	EXPECT_EQ(-ENOTTY, ffst(self->fd, _IOC(_IOC_WRITE, FFST_IOC_TYPE, nr, size), buf));
	EXPECT_EQ(-ENOTTY, ffst(self->fd, _IOC(_IOC_READ, FFST_IOC_TYPE, nr, size), buf));
	EXPECT_EQ(-ENOTTY, ffst(self->fd, _IOC(_IOC_NONE, FFST_IOC_TYPE, nr, 0), buf));
	EXPECT_EQ(false, variant->happened(self->fd, &self->n));
}
