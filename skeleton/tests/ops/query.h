/* SPDX-License-Identifier: GPL-2.0-only */
/* QUERY: the rules of every op (discipline_tests.h), then its own. */

static void fill_query(int fd, void *state, void *buf, uint64_t flags)
{
	struct skel_query q = { .flags = flags };

	(void)state;
	configure(fd, 0, 10);
	memcpy(buf, &q, sizeof(q));
}

/* RESET aside, a QUERY changes nothing; what it writes is checked below. */
static bool happened_query(int fd, void *state)
{
	struct names *n = state;

	return query(fd, 0).changes != n->changes;
}

FIXTURE_VARIANT_ADD(op, query) {
	SKEL_TEST_OP_query,
	.d = &skel_discipline,
	.fill = fill_query,
	.happened = happened_query,
};

TEST(query_reset_reports_the_changes_then_sets_them_to_zero)
{
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	configure(fd, 0, 1);
	configure(fd, SKEL_CONFIGURE_ADD, 1);
	EXPECT_EQ(2, query(fd, SKEL_QUERY_RESET).changes);
	EXPECT_EQ(0, query(fd, 0).changes);
	EXPECT_EQ(2, query(fd, 0).value) TH_LOG("the counter stays");
	close(fd);
}

/* RESET changes state: a read-only fd may read, not reset. */
TEST(query_reset_on_an_fd_opened_read_only_fails_with_EBADF_and_resets_nothing)
{
	struct skel_query q = { .flags = SKEL_QUERY_RESET };
	int rw = open_dev(), fd = open_dev_mode(O_RDONLY);

	ASSERT_LE(0, rw);
	ASSERT_LE(0, fd);
	start_at(rw, 0);
	configure(rw, 0, 1);
	EXPECT_EQ(-EBADF, ffst(fd, SKEL_IOC_QUERY, &q));
	EXPECT_EQ(1, query(fd, 0).changes);
	close(fd);
	close(rw);
}

/*
 * copy_struct_to_user(): every output field written over poison, and the
 * bytes past the kernel's struct (zero on the way in) still zero.
 */
TEST(query_writes_every_output_field_into_a_poisoned_struct)
{
	/* the module's struct, which may be bigger than this header's */
	size_t ksize = release_of(_IOC_NR(SKEL_IOC_QUERY))->size, i;
	unsigned char buf[64] = { 0 };
	struct skel_query q;
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	configure(fd, 0, 9);
	/* the output fields both know: a module's unknown bytes must be 0 */
	memset(buf + 8, POISON, (ksize < sizeof(q) ? ksize : sizeof(q)) - 8);
	ASSERT_EQ(0, ffst(fd, ffst_cmd(SKEL_IOC_TYPE, _IOC_NR(SKEL_IOC_QUERY),
				       sizeof(buf)), buf));
	memcpy(&q, buf, sizeof(q));
	EXPECT_EQ(9, q.value);
	EXPECT_EQ(1, q.changes);
	/* braces: EXPECT_*() and its TH_LOG() are two statements */
	for (i = ksize > sizeof(q) ? ksize : sizeof(q); i < sizeof(buf); i++) {
		EXPECT_EQ(0, buf[i]) {
			TH_LOG("tail byte %zu", i);
		}
	}
	close(fd);
}

TEST(query_at_ver0_size_writes_nothing_past_it)
{
	unsigned char *buf = at_page_end(SKEL_QUERY_SIZE_VER0, 0);
	int fd = open_dev();

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, buf);
	memset(buf, 0, SKEL_QUERY_SIZE_VER0);
	/* any write past the struct would fault */
	EXPECT_EQ(0, ffst(fd, ffst_cmd(SKEL_IOC_TYPE, _IOC_NR(SKEL_IOC_QUERY),
				       SKEL_QUERY_SIZE_VER0), buf));
	close(fd);
}
