/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst: the dispatcher's view of an operation.  The interface gives
 * it (ioctl.h) FFST_ARGS_SIZE, FFST_NR_OPS, FFST_IOC_TYPE, FFST_ABI_LATEST
 * and, from its uapi header, FLAGSFIRST_CHECK_FIELDS; it defines ffst_ops[]
 * and ffst_abi_version.
 */
#ifndef _FLAGSFIRST_DISPATCH_H
#define _FLAGSFIRST_DISPATCH_H

#include <kunit/visibility.h>
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "ioctl.h"

/*
 * The caller's struct as the dispatcher copies it in, flags first: room
 * for any op's struct of up to FFST_ARGS_SIZE bytes.  A handler reads its
 * own struct through the pointer it is given.
 */
union ffst_args {
	u64 flags;
	u64 words[FFST_ARGS_SIZE / sizeof(u64)];
};

/* What an op understands in one ABI version. */
struct ffst_op_abi {
	size_t ksize;
	u64 flags;
};

/* An op that has not changed since ABI 0. */
#define FFST_EVERY_ABI(size, valid) \
	{ [0 ... FFST_ABI_LATEST] = { (size), (valid) } }

/*
 * The layout rules the dispatcher relies on, for an op's struct @type:
 * flags first, a multiple of 8 bytes (the same on 32- and 64-bit, so
 * compat_ptr_ioctl() is enough), and room for it in union ffst_args.
 */
#define FFST_ASSERT_LAYOUT(type)					\
	static_assert(offsetof(type, flags) == 0 &&			\
		      sizeof(type) % sizeof(u64) == 0 &&		\
		      sizeof(type) <= FFST_ARGS_SIZE)

/**
 * struct ffst_op - one extensible operation, as the dispatcher sees it
 * @size_ver0: the first published size; smaller is EINVAL
 * @abi: per ABI version (module parameter abi_version), the size of the
 *	struct the module understands and the flags it accepts (CHECK_FIELDS
 *	aside)
 * @fields: the CHECK_FIELDS answer (flags aside), the op's own struct with
 *	all ones in every field the module understands and 0 in every
 *	__reserved field.  The dispatcher also rejects a non-zero byte
 *	wherever it is 0, so the two cannot drift.
 * @mutates: changes state, so needs an fd opened for writing (EBADF)
 * @args_valid: flag combinations and field rules on the op's struct, or
 *	NULL if none
 * @handler: the operation on @file, called once every generic rule has
 *	passed, with the caller's struct (@uarg, @usize bytes) copied in @args
 *	(the op's own struct, zero-extended to the module's size)
 */
struct ffst_op {
	size_t size_ver0;
	struct ffst_op_abi abi[FFST_ABI_LATEST + 1];
	const void *fields;
	bool mutates;
	bool (*args_valid)(const void *args, size_t usize);
	long (*handler)(struct file *file, void *args, void __user *uarg,
			size_t usize);
};

/* The interface's operations, by ioctl number; a hole has no handler. */
extern const struct ffst_op ffst_ops[FFST_NR_OPS];
extern unsigned int ffst_abi_version;

long ffst_dispatch(struct file *file, unsigned int cmd, unsigned long arg);
int ffst_args_to_user(void __user *uarg, size_t usize, u64 flags,
		      const void *args, size_t ksize);

/*
 * The dispatcher's pure helpers are static (VISIBLE_IF_KUNIT) unless the
 * kernel has KUnit, when they are exported for the KUnit module alone
 * (EXPORT_SYMBOL_IF_KUNIT(), namespace EXPORTED_FOR_KUNIT_TESTING).
 */
#if IS_ENABLED(CONFIG_KUNIT)
u64 ffst_fields_flags(const struct ffst_op_abi *v);
bool ffst_reserved_clear(const struct ffst_op *op, size_t ksize,
			 const void *args);
int ffst_usize_check(const struct ffst_op *op, size_t usize);
bool ffst_args_valid(const struct ffst_op *op, const struct ffst_op_abi *v,
		     const void *args, size_t usize);
#endif

#endif /* _FLAGSFIRST_DISPATCH_H */
