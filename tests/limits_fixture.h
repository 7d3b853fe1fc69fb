/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst selftests: FIXTURE(limits), for the topics whose tests change
 * module parameters (limits, users, waits).  It empties the table before
 * a test and puts the parameters back after it.  Include it after
 * kselftest_harness.h and helpers.h, in a file that has TEST_F(limits, ...).
 */
#ifndef FLAGSFIRST_TEST_LIMITS_FIXTURE_H
#define FLAGSFIRST_TEST_LIMITS_FIXTURE_H

FIXTURE(limits) {
	int fd;
	char max_entries[32], max_bytes[32], per_uid[32];
	char bytes_per_uid[32], watches_per_uid[32];
};

FIXTURE_SETUP(limits)
{
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	if (!is_root())
		SKIP(return, "needs root to write module parameters");
	read_param("max_entries", self->max_entries, sizeof(self->max_entries));
	read_param("max_bytes", self->max_bytes, sizeof(self->max_bytes));
	read_param("max_entries_per_uid", self->per_uid, sizeof(self->per_uid));
	read_param("max_bytes_per_uid", self->bytes_per_uid,
		   sizeof(self->bytes_per_uid));
	read_param("max_watches_per_uid", self->watches_per_uid,
		   sizeof(self->watches_per_uid));
	del(self->fd, "", FLAGSFIRST_DELETE_ALL);
}

FIXTURE_TEARDOWN(limits)
{
	if (is_root()) {
		del(self->fd, "", FLAGSFIRST_DELETE_ALL);
		write_param("max_entries", self->max_entries);
		write_param("max_bytes", self->max_bytes);
		write_param("max_entries_per_uid", self->per_uid);
		write_param("max_bytes_per_uid", self->bytes_per_uid);
		write_param("max_watches_per_uid", self->watches_per_uid);
	}
	close(self->fd);
}

#endif /* FLAGSFIRST_TEST_LIMITS_FIXTURE_H */
