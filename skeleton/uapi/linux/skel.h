/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * skel: an example kernel interface whose ioctls are designed flags first.
 *
 * Every operation takes a struct that starts with a 64-bit flags field,
 * is versioned by its size (the size bits of the ioctl number) and only
 * ever grows at the end; a field added later is 0 to mean "behave as
 * before".  The rules, in the order they are checked:
 *  1. Another ioctl type, direction or number: ENOTTY.
 *  2. A struct smaller than the op's SIZE_VER0: EINVAL; bigger than a
 *     page: E2BIG.
 *  3. Bytes past what the module knows must be zero (E2BIG), except with
 *     SKEL_CHECK_FIELDS.  A bad pointer: EFAULT.
 *  4. Unknown flag bits, CHECK_FIELDS with any other bit, conflicting
 *     flags, a non-zero __reserved field: EINVAL.
 *  5. An op that changes state, or a flag that makes it (QUERY's RESET), on
 *     an fd not opened for writing: EBADF.
 *  6. The operation's own errors.
 *
 * Discovery: when flags is exactly SKEL_CHECK_FIELDS, an operation does
 * nothing and writes back its struct with flags = the flags it accepts
 * (CHECK_FIELDS included), every field it understands = all ones and every
 * __reserved field and byte past its struct = 0.
 *
 * The state is the device's: one counter, and how often it changed, that
 * every open file sees.
 */
#ifndef _UAPI_LINUX_SKEL_H
#define _UAPI_LINUX_SKEL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SKEL_CHECK_FIELDS		0x8000000000000000ULL

/**
 * struct skel_configure - SKEL_IOC_CONFIGURE: change the counter
 * @flags: SKEL_CONFIGURE_* flags, or SKEL_CHECK_FIELDS
 * @__reserved: must be 0 (room for a field; CHECK_FIELDS's answer ends at
 *	the last field it understands, so a struct does not end with one)
 * @value: the new value; with ADD or SUB, the amount
 *
 * Errors: EOVERFLOW (ADD past U64_MAX), ERANGE (SUB below 0), EBADF (an fd
 * not opened for writing), and the rules above.
 */
struct skel_configure {
	__u64 flags;
	__u64 __reserved;
	__u64 value;
};

#define SKEL_CONFIGURE_ADD		0x01ULL	/* add @value to the counter */
#define SKEL_CONFIGURE_SUB		0x02ULL	/* subtract it; with ADD: EINVAL */
#define SKEL_CONFIGURE_FLAGS		(SKEL_CONFIGURE_ADD | \
					 SKEL_CONFIGURE_SUB)
#define SKEL_CONFIGURE_SIZE_VER0	24	/* first published size */

/**
 * struct skel_query - SKEL_IOC_QUERY: read the counter
 * @flags: SKEL_QUERY_* flags, or SKEL_CHECK_FIELDS
 * @value: out: the counter
 * @changes: out: how many CONFIGUREs changed it
 *
 * Writes back the fields the caller's struct has room for and zeroes its
 * bytes past the kernel's struct (copy_struct_to_user()).  Works on any
 * open fd; with RESET, which changes state, on one opened for writing.
 *
 * Errors: EBADF (RESET on an fd not opened for writing), and the rules
 * above.
 */
struct skel_query {
	__u64 flags;
	__u64 value;
	__u64 changes;
};

#define SKEL_QUERY_RESET		0x01ULL	/* and set @changes back to 0 */
#define SKEL_QUERY_FLAGS		SKEL_QUERY_RESET
#define SKEL_QUERY_SIZE_VER0		24	/* first published size */

/* Pick a free range in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define SKEL_IOC_CONFIGURE	_IOWR('Y', 0x00, struct skel_configure)
#define SKEL_IOC_QUERY		_IOWR('Y', 0x01, struct skel_query)

#endif /* _UAPI_LINUX_SKEL_H */
