/* SPDX-License-Identifier: GPL-2.0-only */
/* CONFIGURE: the rules of every op (discipline_tests.h), then its own. */

/* A CONFIGURE of 1, on a counter of 10 that any flag may change. */
static void fill_configure(int fd, void *state, void *buf, uint64_t flags)
{
	struct skel_configure c = { .flags = flags, .value = 1 };

	(void)state;
	configure(fd, 0, 10);
	memcpy(buf, &c, sizeof(c));
}

static bool happened_configure(int fd, void *state)
{
	struct names *n = state;

	return query(fd, 0).changes != n->changes;
}

FIXTURE_VARIANT_ADD(op, configure) {
	SKEL_TEST_OP_configure,
	.d = &skel_discipline,
	.conflicts = { { SKEL_CONFIGURE_ADD, SKEL_CONFIGURE_SUB } },
	.fill = fill_configure,
	.happened = happened_configure,
};

TEST(configure_sets_the_counter_and_query_reads_it_back)
{
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	EXPECT_EQ(0, configure(fd, 0, 42));
	EXPECT_EQ(42, query(fd, 0).value);
	EXPECT_EQ(1, query(fd, 0).changes);
	close(fd);
}

static const struct {
	const char *what;
	uint64_t start, flags, value;
	int ret;
	uint64_t end;
} configure_cases[] = {
	{ "set", 5, 0, 7, 0, 7 },
	{ "add", 5, SKEL_CONFIGURE_ADD, 7, 0, 12 },
	{ "sub", 7, SKEL_CONFIGURE_SUB, 5, 0, 2 },
	{ "sub to zero", 7, SKEL_CONFIGURE_SUB, 7, 0, 0 },
	{ "add past U64_MAX", UINT64_MAX, SKEL_CONFIGURE_ADD, 1, -EOVERFLOW, UINT64_MAX },
	{ "sub below zero", 0, SKEL_CONFIGURE_SUB, 1, -ERANGE, 0 },
	{ "add and sub", 5, SKEL_CONFIGURE_ADD | SKEL_CONFIGURE_SUB, 1, -EINVAL, 5 },
};

TEST(each_configure_gives_its_documented_result_and_counter)
{
	int fd = open_dev();
	size_t i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(configure_cases); i++) {
		ASSERT_EQ(0, configure(fd, 0, configure_cases[i].start));
		EXPECT_EQ(configure_cases[i].ret,
			  configure(fd, configure_cases[i].flags,
				    configure_cases[i].value))
			TH_LOG("%s", configure_cases[i].what);
		EXPECT_EQ(configure_cases[i].end, query(fd, 0).value)
			TH_LOG("%s", configure_cases[i].what);
	}
	close(fd);
}

TEST(a_failed_configure_is_not_counted_as_a_change)
{
	int fd = open_dev();

	ASSERT_LE(0, fd);
	start_at(fd, 0);
	EXPECT_EQ(-ERANGE, configure(fd, SKEL_CONFIGURE_SUB, 1));
	EXPECT_EQ(0, query(fd, 0).changes);
	close(fd);
}

TEST(configure_on_an_fd_opened_read_only_fails_with_EBADF)
{
	int rw = open_dev(), fd = open_dev_mode(O_RDONLY);

	ASSERT_LE(0, rw);
	ASSERT_LE(0, fd);
	start_at(rw, 5);
	EXPECT_EQ(-EBADF, configure(fd, 0, 1));
	/* validity still comes first */
	EXPECT_EQ(-EINVAL, configure(fd, 1ULL << 40, 1));
	EXPECT_EQ(5, query(fd, 0).value) TH_LOG("query works on any fd");
	EXPECT_EQ(0, query(fd, 0).changes);
	close(fd);
	close(rw);
}

/* What one process sets, the next one reads: the counter is the device's. */
TEST(every_open_file_sees_the_one_counter)
{
	int a = open_dev(), b = open_dev();

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	EXPECT_EQ(0, configure(a, 0, 3));
	EXPECT_EQ(3, query(b, 0).value);
	EXPECT_EQ(0, configure(b, SKEL_CONFIGURE_ADD, 1));
	EXPECT_EQ(4, query(a, 0).value);
	close(a);
	close(b);
}
