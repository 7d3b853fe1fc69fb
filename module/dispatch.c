// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst: the dispatcher, the rules every versioned operation obeys.
 * It knows the operations only through ffst_ops[] (ioctl.c): their sizes
 * per ABI version, flags, CHECK_FIELDS templates, predicates and handlers.
 *
 * ioctl.c includes this file rather than linking it, as
 * kernel/sched/build_policy.c builds its parts.  The time difference under
 * TCG that once argued for it was where code lands in QEMU's jump cache
 * (docs/benchmarks.md, Seventh look), not the code.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>

#include "dispatch.h"

/*
 * The caller's struct crosses the boundary on every call, so it is copied
 * a u64 at a time in one user-access window: every struct size the module
 * knows is a multiple of 8, and the destination is a union whose size the
 * compiler knows, so copy_from_user()'s run-time object-size check
 * (hardened usercopy) buys nothing here.  A size that is not a multiple of
 * 8 (a caller's struct may be any size) takes copy_from_user().
 */
static int ffst_args_from_user(union ffst_args *args,
			       const void __user *uarg, size_t size)
{
	const u64 __user *src = uarg;
	u64 *dst = (u64 *)args;
	size_t i;

	if (size % sizeof(u64))
		return copy_from_user(args, uarg, size) ? -EFAULT : 0;
	if (!user_read_access_begin(src, size))
		return -EFAULT;
	for (i = 0; i < size / sizeof(u64); i++)
		unsafe_get_user(dst[i], &src[i], efault);
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/*
 * copy_struct_to_user() only arrived in 6.13: write what both sides know
 * and zero the caller's bytes beyond the kernel's struct.  A u64 at a time,
 * as ffst_args_from_user(); the first word is @flags, so that CHECK_FIELDS
 * can answer with a template of the other fields.
 */
int ffst_args_to_user(void __user *uarg, size_t usize, u64 flags,
		      const void *args, size_t ksize)
{
	size_t size = min(usize, ksize), i;
	const u64 *src = args;
	u64 __user *dst = uarg;

	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	if (size % sizeof(u64)) {
		/* usize >= 16 (every size_ver0), so the flags word is there */
		if (copy_to_user(uarg, args, size))
			return -EFAULT;
		return put_user(flags, dst);
	}
	if (!user_write_access_begin(dst, size))
		return -EFAULT;
	unsafe_put_user(flags, &dst[0], efault);
	for (i = 1; i < size / sizeof(u64); i++)
		unsafe_put_user(src[i], &dst[i], efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

/* The flags word of @op's CHECK_FIELDS answer, as ABI @v has it. */
VISIBLE_IF_KUNIT u64 ffst_fields_flags(const struct ffst_op_abi *v)
{
	return v->flags | FLAGSFIRST_CHECK_FIELDS;
}
EXPORT_SYMBOL_IF_KUNIT(ffst_fields_flags);

/*
 * Discovery with no side effect: only the caller's struct is written, with
 * @op's template of the fields and the flags @v accepts.
 */
static int ffst_check_fields(const struct ffst_op *op,
			     const struct ffst_op_abi *v,
			     void __user *uarg, size_t usize)
{
	return ffst_args_to_user(uarg, usize, ffst_fields_flags(v), op->fields,
				 v->ksize);
}

/*
 * A bit the module does not understand (a __reserved field) must be 0.
 * Word by word: every kernel struct is a multiple of 8 bytes.
 */
VISIBLE_IF_KUNIT bool ffst_reserved_clear(const struct ffst_op *op,
					  size_t ksize, const void *args)
{
	const u64 *known = op->fields;
	const u64 *arg = args;
	size_t i;

	for (i = 1; i < ksize / sizeof(u64); i++)
		if (arg[i] & ~known[i])
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ffst_reserved_clear);

/* Rule 2: the caller's struct size, before anything is read. */
VISIBLE_IF_KUNIT int ffst_usize_check(const struct ffst_op *op, size_t usize)
{
	if (usize < op->size_ver0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ffst_usize_check);

/*
 * Rule 4, once the struct is copied: unknown bits (CHECK_FIELDS mixed with
 * others among them), the op's own flag and field rules, reserved fields.
 */
VISIBLE_IF_KUNIT bool ffst_args_valid(const struct ffst_op *op,
				      const struct ffst_op_abi *v,
				      const void *args, size_t usize)
{
	const u64 *flags = args;	/* every struct starts with them */

	if (*flags & ~v->flags)
		return false;
	if (op->args_valid && !op->args_valid(args, usize))
		return false;
	return ffst_reserved_clear(op, v->ksize, args);
}
EXPORT_SYMBOL_IF_KUNIT(ffst_args_valid);

/*
 * The ioctl entry point of every versioned operation: the rules of the
 * uapi header, in its order, then the op's handler.  Anything that is not
 * one of them (another type, direction or number) is ENOTTY.
 */
long ffst_dispatch(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	unsigned int nr = _IOC_NR(cmd);
	const struct ffst_op_abi *v;
	const struct ffst_op *op;
	union ffst_args args = {};	/* past ksize too: fields of later ABIs */
	int err;

	/* The size bits are the caller's struct size: match the rest. */
	if (_IOC_TYPE(cmd) != FFST_IOC_TYPE ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE) ||
	    nr >= FFST_NR_OPS)
		return -ENOTTY;
	op = &ffst_ops[array_index_nospec(nr, FFST_NR_OPS)];
	if (!op->handler)
		return -ENOTTY;
	v = &op->abi[ffst_abi_version];

	err = ffst_usize_check(op, usize);
	if (err)
		return err;

	/*
	 * copy_struct_from_user(), in two steps so that CHECK_FIELDS is
	 * answered without reading the caller's tail: what both sides know
	 * (zero-extended, args being zeroed), then the tail must be zero.
	 */
	err = ffst_args_from_user(&args, uarg, min(usize, v->ksize));
	if (err)
		return err;
	if (args.flags == FLAGSFIRST_CHECK_FIELDS)
		return ffst_check_fields(op, v, uarg, usize);
	if (usize > v->ksize) {
		err = check_zeroed_user(uarg + v->ksize, usize - v->ksize);
		if (err <= 0)
			return err ?: -E2BIG;
	}
	if (!ffst_args_valid(op, v, &args, usize))
		return -EINVAL;
	/* As write(2) on a file opened O_RDONLY, once the struct is valid. */
	if (op->mutates && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	return op->handler(file, &args, uarg, usize);
}
