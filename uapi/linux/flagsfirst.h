/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * flagsfirst: a name->value table behind /dev/flagsfirst, an ioctl interface
 * designed so that it never needs a "2" successor.
 *
 * Every operation takes a flags field from day one and rejects unknown bits,
 * takes a struct versioned by its size (the size travels in the ioctl
 * number, as in DRM), and can be asked what it supports (CHECK_FIELDS).
 *
 * ioctl numbers: type 'Y', numbers 0x00-0x1F; no user of 'Y' is listed in
 * Documentation/userspace-api/ioctl/ioctl-number.rst (6.1 and 6.12).
 */
#ifndef _UAPI_LINUX_FLAGSFIRST_H
#define _UAPI_LINUX_FLAGSFIRST_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define FLAGSFIRST_NAME_MAX	255	/* bytes in a name, without the NUL */
#define FLAGSFIRST_VALUE_MAX	65536	/* bytes in a value */

/*
 * Rules every extensible operation (SET, GET, DELETE, RENAME, WATCH)
 * follows, in this order, before anything changes:
 *
 *  1. _IOC_SIZE(cmd) is the caller's struct size (usize).  A known type and
 *     number with another direction, or an unknown number: ENOTTY.
 *  2. usize < ..._SIZE_VER0: EINVAL.  usize > PAGE_SIZE: E2BIG.
 *  3. A smaller struct is zero-extended; a bigger one is accepted only if
 *     every byte past the kernel's struct is zero, else E2BIG.  An
 *     unreadable struct: EFAULT.
 *  4. Unknown flag bits, CHECK_FIELDS with any other bit, conflicting
 *     flags, or a non-zero __reserved field: EINVAL.
 *  5. An operation that changes the table (SET, DELETE, RENAME,
 *     RENAME_LEGACY) on a file descriptor not opened for writing: EBADF, as
 *     write(2).  GET, WATCH and CHECK_FIELDS work on any open fd.
 *  6. Names: empty, ENOENT; longer than FLAGSFIRST_NAME_MAX, ENAMETOOLONG.
 *     A value longer than FLAGSFIRST_VALUE_MAX: E2BIG.  Bad pointer: EFAULT.
 *  7. Permission: EPERM (see the flags).  Validity always comes first: an
 *     unprivileged caller probing an unknown bit gets EINVAL, not EPERM;
 *     and nothing is allocated or copied for a caller who is refused.
 *  8. Limits (module parameters): the table is full (max_entries), or the
 *     memory its entries take would exceed max_bytes: ENOSPC.  The entry's
 *     owner has max_entries_per_uid entries already, or its entries would
 *     take more than max_bytes_per_uid: EDQUOT.  CAP_SYS_RESOURCE is exempt
 *     from the per-uid limits, and what it holds counts in no user's share.
 *     The kernel is out of memory: ENOMEM.
 *  9. The operation, atomic with respect to every other operation.
 *
 * Per-uid limits count per user, as the kernel's ucounts count inotify's
 * instances: a uid of the initial user namespace is charged for what it
 * creates itself and for what every uid of a user namespace it created
 * creates (through any depth of namespaces), so the subordinate uids of a
 * login or a rootless container share its one share.  A namespace root
 * created (a container runtime's uid range, systemd's PrivateUsers=) is one
 * user of its own, keyed by the uid its root maps to: its uids and the
 * namespaces they create share that share, not root's.  Entries and their
 * bytes are charged by the fsuid, watch fds by the euid.
 *
 * What a caller may wait for: an operation that changes the table waits
 * for the one change in progress, and the work done under the table's
 * lock is bounded: no memory reclaim, a reschedule point at every entry a
 * walk passes, and one load for each watcher whose queue is full (its
 * OVERFLOW record unread), whatever the number of watchers.  That wait is
 * killable: a fatal signal ends it with EINTR, which the dying caller
 * never sees, and nothing is changed.  GET never waits for a writer, only,
 * at most, for RENAME's or EXCHANGE's few stores; WATCH, and the close()
 * of a watch fd, wait for no writer.
 *
 * What the entries take (max_bytes, max_bytes_per_uid): every allocation
 * the table keeps, counted once as the allocator rounds it, against the
 * payer of the value it was made for: the user of the initial namespace
 * its SET was charged to (per-uid limits, above), who need not be the
 * entry's owner.  It stays counted while that value is in the table under
 * any name (RENAME and EXCHANGE move values without copying), so EXCHANGE
 * changes no count.  A value over about a page gets pages of its own, so
 * no allocation is more than a page bigger than it.
 *
 * Errors, all operations: ENOTTY, EINVAL, E2BIG, EFAULT, ENOMEM; EINTR for
 * SET, DELETE, RENAME and RENAME_LEGACY (a fatal signal while it waited
 * for the table).
 * SET: EBADF, ENOENT, ENAMETOOLONG, EEXIST, EPERM, ENOSPC, EDQUOT, ESTALE.
 * GET: ENOENT, ENAMETOOLONG, ERANGE.
 * DELETE: EBADF, ENOENT, ENAMETOOLONG, EPERM.
 * RENAME, RENAME_LEGACY: EBADF, ENOENT, ENAMETOOLONG, EEXIST, EPERM,
 * ENOSPC, EDQUOT.
 * WATCH: EMFILE (no file descriptor left, or max_watches_per_uid reached),
 * ENFILE.
 *
 * Discovery: when flags is exactly FLAGSFIRST_CHECK_FIELDS, an operation does
 * nothing but write back into the caller's struct: flags = every flag it
 * accepts (CHECK_FIELDS included), every other field it understands = all
 * ones, __reserved fields = 0, and the caller's bytes beyond the kernel's
 * struct = 0.  It returns 0.  Rules 1 and 2 still apply (and EFAULT); the
 * rest of the struct is not read.  The kernel's struct size is the offset of
 * the last byte that is not zero, rounded up to 8.
 *
 * ABI versions: 0, the first release; 1 added SET's expect_seq and
 * FLAGSFIRST_SET_IF_SEQ.  The module parameter abi_version makes a module
 * behave as an older release did, to test programs against it.
 *
 * The ..._FLAGS masks below are what this header knows.  A running kernel
 * may be older or newer: ask it with CHECK_FIELDS.
 */
/* Bit 63, valid on every extensible op: report, change nothing */
#define FLAGSFIRST_CHECK_FIELDS		0x8000000000000000ULL

/**
 * struct flagsfirst_set - argument of FLAGSFIRST_IOC_SET
 * @flags: FLAGSFIRST_SET_* flags, or FLAGSFIRST_CHECK_FIELDS
 * @name: pointer to the NUL-terminated name, 1..FLAGSFIRST_NAME_MAX bytes
 * @value: pointer to the value (may be 0 when @value_len is 0)
 * @value_len: bytes in the value, 0..FLAGSFIRST_VALUE_MAX
 * @__reserved: must be 0
 * @expect_seq: (ABI 1) with FLAGSFIRST_SET_IF_SEQ, the seq the entry must
 *	still have; must be 0 without it, so that 0 means "as before"
 *
 * Creates or replaces the entry @name.  A new entry is owned by the caller's
 * fsuid; replacing keeps the owner and needs the caller to be the owner or
 * to have CAP_FOWNER.  Errors: EEXIST (NOREPLACE and the name exists),
 * ENOENT (REPLACE or IF_SEQ and it does not), ESTALE (IF_SEQ and the seq
 * differs), EPERM (IMMUTABLE without CAP_LINUX_IMMUTABLE; the entry is
 * immutable; another uid's entry without CAP_FOWNER), ENOSPC, EDQUOT,
 * EBADF (an fd not opened for writing).
 * EINVAL also for IF_SEQ with NOREPLACE, IF_SEQ in a struct smaller than
 * FLAGSFIRST_SET_SIZE_VER1 (the flag gates the field and the size must
 * cover it, as clone3's CLONE_INTO_CGROUP), and a non-zero @expect_seq
 * without IF_SEQ.
 *
 * The struct is versioned by its size and only ever grows at the end; a
 * field added later is 0 to mean "behave as before".
 */
struct flagsfirst_set {
	__u64 flags;
	__u64 name;
	__u64 value;
	__u32 value_len;
	__u32 __reserved;
	__u64 expect_seq;
};

#define FLAGSFIRST_SET_SIZE_VER0	32	/* sizeof first published struct */
#define FLAGSFIRST_SET_SIZE_VER1	40	/* add: expect_seq */

/* SET flags */
#define FLAGSFIRST_SET_NOREPLACE	0x01ULL		/* fail EEXIST if the name exists */
#define FLAGSFIRST_SET_REPLACE		0x02ULL		/* fail ENOENT if it does not */
#define FLAGSFIRST_SET_IMMUTABLE	0x04ULL		/* frozen; CAP_LINUX_IMMUTABLE */
#define FLAGSFIRST_SET_IF_SEQ		0x08ULL		/* ABI 1: compare-and-set */
#define FLAGSFIRST_SET_FLAGS		(FLAGSFIRST_SET_NOREPLACE | \
					 FLAGSFIRST_SET_REPLACE | \
					 FLAGSFIRST_SET_IMMUTABLE | \
					 FLAGSFIRST_SET_IF_SEQ)

/**
 * struct flagsfirst_get - argument of FLAGSFIRST_IOC_GET
 * @flags: must be 0 (no flag is defined yet), or FLAGSFIRST_CHECK_FIELDS
 * @name: pointer to the NUL-terminated name
 * @value: pointer to the caller's buffer
 * @value_len: in: size of the buffer; out: size of the value.  In 0 asks for
 *	the size only.  A buffer too small fails with ERANGE and still reports
 *	the size here (the getxattr convention).
 * @attrs: out: FLAGSFIRST_ATTR_* bits of the entry
 * @seq: out: the table's change counter when the entry was last modified;
 *	it strictly increases for an entry and orders changes across entries
 * @owner_uid: out: the owner's uid, as seen from the caller's user namespace
 * @__reserved: must be 0 on input; written as 0
 *
 * Every output field is written on success and on ERANGE; on ERANGE the
 * value buffer is left untouched.  Errors: ENOENT, ERANGE.
 *
 * The struct is versioned by its size and only ever grows at the end; a
 * field added later is 0 to mean "behave as before".
 */
struct flagsfirst_get {
	__u64 flags;
	__u64 name;
	__u64 value;
	__u32 value_len;
	__u32 attrs;
	__u64 seq;
	__u32 owner_uid;
	__u32 __reserved;
};

#define FLAGSFIRST_GET_SIZE_VER0	48	/* sizeof first published struct */

/* GET flags: none yet; the field is there so that none needs a GET2 */
#define FLAGSFIRST_GET_FLAGS		0ULL

/* Entry attributes, reported by GET */
#define FLAGSFIRST_ATTR_IMMUTABLE	0x01U		/* set with FLAGSFIRST_SET_IMMUTABLE */

/**
 * struct flagsfirst_delete - argument of FLAGSFIRST_IOC_DELETE
 * @flags: FLAGSFIRST_DELETE_* flags, or FLAGSFIRST_CHECK_FIELDS
 * @name: pointer to the NUL-terminated name; the empty string with
 *	FLAGSFIRST_DELETE_ALL and only then
 *
 * Deletes the entry @name (returns 0), or with FLAGSFIRST_DELETE_ALL every
 * entry the caller may delete (returns how many).  Errors: ENOENT (no such
 * entry; an empty name without DELETE_ALL), EINVAL (DELETE_ALL with a
 * non-empty name), EPERM (immutable, or another uid's without CAP_FOWNER),
 * EBADF (an fd not opened for writing).  DELETE_ALL is one change: a
 * reader sees every entry it takes before it, or none after it.
 *
 * The struct is versioned by its size and only ever grows at the end; a
 * field added later is 0 to mean "behave as before".
 */
struct flagsfirst_delete {
	__u64 flags;
	__u64 name;
};

#define FLAGSFIRST_DELETE_SIZE_VER0	16	/* sizeof first published struct */

/* DELETE flags */
#define FLAGSFIRST_DELETE_ALL		0x01ULL		/* explicit intent: "" means all */
#define FLAGSFIRST_DELETE_FLAGS		FLAGSFIRST_DELETE_ALL

/**
 * struct flagsfirst_rename - argument of FLAGSFIRST_IOC_RENAME
 * @flags: FLAGSFIRST_RENAME_* flags, or FLAGSFIRST_CHECK_FIELDS
 * @oldname: pointer to the NUL-terminated name of an existing entry
 * @newname: pointer to the NUL-terminated new name
 *
 * Moves the entry @oldname to @newname, replacing an entry already there.
 * The moved entry keeps its value, owner and attributes and gets a new seq.
 * Renaming an entry onto itself succeeds and changes nothing.  Errors:
 * ENOENT, EEXIST (NOREPLACE and @newname exists, even when it is @oldname),
 * EPERM (either entry immutable, or another uid's without CAP_FOWNER),
 * ENOSPC, EDQUOT (the new entry would pass max_bytes or the owner's
 * max_bytes_per_uid: a moved value keeps the memory it lives in),
 * EBADF (an fd not opened for writing).
 *
 * The struct is versioned by its size and only ever grows at the end; a
 * field added later is 0 to mean "behave as before".
 */
struct flagsfirst_rename {
	__u64 flags;
	__u64 oldname;
	__u64 newname;
};

#define FLAGSFIRST_RENAME_SIZE_VER0	24	/* sizeof first published struct */

/* RENAME flags */
#define FLAGSFIRST_RENAME_NOREPLACE	0x01ULL		/* fail EEXIST if newname exists */
#define FLAGSFIRST_RENAME_EXCHANGE	0x02ULL		/* atomically swap two entries */
#define FLAGSFIRST_RENAME_FLAGS		(FLAGSFIRST_RENAME_NOREPLACE | \
					 FLAGSFIRST_RENAME_EXCHANGE)

/**
 * struct flagsfirst_rename_legacy - argument of FLAGSFIRST_IOC_RENAME_LEGACY
 * @oldname: pointer to the NUL-terminated name of an existing entry
 * @newname: pointer to the NUL-terminated new name
 *
 * The cautionary example, kept to be looked at, not copied: rename(2) as it
 * was in 1983, with no flags and a fixed size.  It is RENAME with flags 0
 * and always replaces.  It cannot be asked not to replace, cannot swap, can
 * never be extended (another size is another ioctl number: ENOTTY), and
 * cannot be probed.  Errors are those of RENAME; EBADF comes after EFAULT.
 */
struct flagsfirst_rename_legacy {
	__u64 oldname;
	__u64 newname;
};

/**
 * struct flagsfirst_watch - argument of FLAGSFIRST_IOC_WATCH
 * @flags: FLAGSFIRST_WATCH_* flags, or FLAGSFIRST_CHECK_FIELDS
 * @mask: FLAGSFIRST_EVENT_* bits to receive; at least one, no unknown bit
 *
 * Returns a new file descriptor that reads the table's changes as
 * struct flagsfirst_event records.  Like epoll_create1(), eventfd2(),
 * pipe2() and every fd-creating call since 2.6.27, it takes its own
 * close-on-exec flag, so that a thread that fork()s and execve()s at the
 * wrong moment cannot leak it: setting FD_CLOEXEC afterwards with fcntl()
 * is a race.  The fd holds a reference on the module while it is open.
 * The records it queues are charged to the memory cgroup of the task that
 * called WATCH, as inotify charges its listener, not to the writers.
 * Errors: EINVAL (mask empty or with an unknown bit), EMFILE (no file
 * descriptor left, or the caller's euid holds max_watches_per_uid watch
 * fds already, with its user namespaces' uids; CAP_SYS_RESOURCE is exempt),
 * ENFILE, ENOMEM.
 *
 * The struct is versioned by its size and only ever grows at the end; a
 * field added later is 0 to mean "behave as before".
 */
struct flagsfirst_watch {
	__u64 flags;
	__u64 mask;
};

#define FLAGSFIRST_WATCH_SIZE_VER0	16	/* sizeof first published struct */

/* WATCH flags: their own values, not O_CLOEXEC's or O_NONBLOCK's */
#define FLAGSFIRST_WATCH_CLOEXEC	0x01ULL		/* FD_CLOEXEC on the new fd */
#define FLAGSFIRST_WATCH_NONBLOCK	0x02ULL		/* O_NONBLOCK on the new fd */
#define FLAGSFIRST_WATCH_FLAGS		(FLAGSFIRST_WATCH_CLOEXEC | \
					 FLAGSFIRST_WATCH_NONBLOCK)

/* Event types: bits of struct flagsfirst_watch.mask, values of .type */
#define FLAGSFIRST_EVENT_SET		0x01	/* SET created or replaced name */
#define FLAGSFIRST_EVENT_DELETE		0x02	/* DELETE (or DELETE_ALL) removed name */
#define FLAGSFIRST_EVENT_RENAME		0x04	/* RENAME moved name to newname */
#define FLAGSFIRST_EVENT_EXCHANGE	0x08	/* RENAME_EXCHANGE swapped two */
#define FLAGSFIRST_EVENT_ALL		(FLAGSFIRST_EVENT_SET | \
					 FLAGSFIRST_EVENT_DELETE | \
					 FLAGSFIRST_EVENT_RENAME | \
					 FLAGSFIRST_EVENT_EXCHANGE)
/* Never in a mask: events were dropped from a full queue after this one */
#define FLAGSFIRST_EVENT_OVERFLOW	0x80

/**
 * struct flagsfirst_event - one record read() from a watch fd
 * @size: bytes in the whole record, a multiple of 8; step by it
 * @hdr_size: bytes in this header; the names start here
 * @type: one FLAGSFIRST_EVENT_* value
 * @seq: the change's place in the table's order (strictly increasing from
 *	record to record); for SET and RENAME the entry's new seq, for
 *	EXCHANGE both entries' new seq, for DELETE the seq the deletion took.
 *	For OVERFLOW: the seq of the first change that was dropped.
 * @name_len: bytes in the name, without its NUL (0: OVERFLOW's name is "")
 * @newname_len: bytes in the new name for RENAME and EXCHANGE, else 0
 *
 * At @hdr_size: the name and a NUL, then for RENAME and EXCHANGE the new
 * name and a NUL, then zero padding up to @size.  read() returns whole
 * records only, as many as fit; a buffer too small for the next one fails
 * with EINVAL.  A record leaves the queue only once it has reached the
 * caller: a read that faults (EFAULT, or a short count of the records
 * before the fault) loses nothing.  A non-blocking read never waits for
 * another reader: it fails with EAGAIN while one is at the queue.
 * Records come in the order the changes took effect.  A
 * queue holds at most max_queued_events records (module parameter):
 * further changes are dropped, keeping the oldest, and one OVERFLOW record
 * is queued after the last kept, as inotify's IN_Q_OVERFLOW.  Nothing more
 * is queued until that OVERFLOW record has been read, even once reads have
 * made room: every change from its seq until it was read is lost.  read() on an
 * empty queue blocks (interruptibly) or, with O_NONBLOCK, fails EAGAIN.
 * poll(), select() and epoll report EPOLLIN when a record is queued.
 *
 * Later releases may append header fields: readers must use @hdr_size and
 * @size, never sizeof(struct flagsfirst_event).
 */
struct flagsfirst_event {
	__u32 size;
	__u16 hdr_size;
	__u16 type;
	__u64 seq;
	__u32 name_len;
	__u32 newname_len;
};

#define FLAGSFIRST_EVENT_HDR_SIZE_VER0	24	/* sizeof first published header */

#define FLAGSFIRST_IOC_SET		_IOWR('Y', 0x00, struct flagsfirst_set)
#define FLAGSFIRST_IOC_GET		_IOWR('Y', 0x01, struct flagsfirst_get)
#define FLAGSFIRST_IOC_DELETE		_IOWR('Y', 0x02, struct flagsfirst_delete)
#define FLAGSFIRST_IOC_RENAME		_IOWR('Y', 0x03, struct flagsfirst_rename)
#define FLAGSFIRST_IOC_RENAME_LEGACY	\
	_IOW('Y', 0x04, struct flagsfirst_rename_legacy)
#define FLAGSFIRST_IOC_WATCH		_IOWR('Y', 0x05, struct flagsfirst_watch)

#endif /* _UAPI_LINUX_FLAGSFIRST_H */
