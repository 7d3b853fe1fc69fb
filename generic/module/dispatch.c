// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic core: the dispatcher, the rules every versioned
 * operation obeys.  It knows an interface only through the struct
 * ffst_iface it is given: its ops' sizes per ABI version, flags,
 * CHECK_FIELDS templates, predicates and handlers.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "dispatch.h"

/*
 * copy_struct_from_user() of what both sides know (@size bytes) into the
 * zeroed @args.  Every struct the dispatcher knows is a multiple of 8
 * bytes, and such a size is copied a u64 at a time in one user-access
 * window: counted in instructions under QEMU (-icount), on 6.12 in
 * 2026-12, copy_struct_from_user() (the memset() and hardened usercopy's
 * check of a stack object whose size the compiler already knows) costs
 * about 80 more a call, +11% on a call rejected for an unknown flag.  Any
 * other size, a caller's odd struct smaller than the kernel's, takes the
 * kernel's helper.
 */
static int ffst_args_from_user(union ffst_args *args,
			       const void __user *uarg, size_t size)
{
	const u64 __user *src = uarg;
	u64 *dst = args->words;	/* a pointer: no bounds check with uaccess on */
	size_t i;

	if (size % sizeof(u64))
		return copy_struct_from_user(args, sizeof(*args), uarg, size);
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
 * copy_struct_to_user() (6.13) for 6.1 and 6.12, which lack it (Kbuild
 * looks for it): what both sides know is written and the caller's bytes
 * beyond the kernel's struct are zeroed, less the report of dropped
 * trailing bytes, which no caller here wants.
 */
static int ffst_struct_to_user_slow(void __user *dst, size_t usize,
				    const void *src, size_t ksize)
{
#ifdef FFST_HAVE_COPY_STRUCT_TO_USER
	return copy_struct_to_user(dst, usize, src, ksize, NULL);
#else
	size_t size = min(ksize, usize);

	if (usize > ksize && clear_user(dst + size, usize - ksize))
		return -EFAULT;
	if (copy_to_user(dst, src, size))
		return -EFAULT;
	return 0;
#endif
}

/*
 * copy_struct_to_user() of @src (@ksize bytes, a multiple of 8) with
 * @flags as its first word, so that CHECK_FIELDS answers from a template
 * of the other fields.  A caller's struct that is a multiple of 8 bytes
 * is written a u64 at a time in one user-access window, as
 * ffst_args_from_user() reads it: counted the same way, the kernel's
 * helper costs about 150 more instructions a call, +10% on a small GET
 * and +29% on CHECK_FIELDS.  Any other size takes the kernel's helper.
 */
static int ffst_struct_to_user(void __user *dst, size_t usize, u64 flags,
			       const void *src, size_t ksize)
{
	size_t size = min(usize, ksize), i;
	u64 __user *udst = dst;
	const u64 *words = src;

	if (usize % sizeof(u64)) {
		/* usize >= 16 (every size_ver0), so the flags word is there */
		if (ffst_struct_to_user_slow(dst, usize, src, ksize))
			return -EFAULT;
		return put_user(flags, udst);
	}
	if (usize > ksize && clear_user(dst + ksize, usize - ksize))
		return -EFAULT;
	if (!user_write_access_begin(udst, size))
		return -EFAULT;
	unsafe_put_user(flags, &udst[0], efault);
	for (i = 1; i < size / sizeof(u64); i++)
		unsafe_put_user(words[i], &udst[i], efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

/* copy_struct_to_user() of a handler's struct, its flags first. */
int ffst_copy_struct_to_user(void __user *dst, size_t usize,
			     const void *src, size_t ksize)
{
	return ffst_struct_to_user(dst, usize, *(const u64 *)src, src, ksize);
}
EXPORT_SYMBOL_IF_KUNIT(ffst_copy_struct_to_user);

/*
 * Discovery with no side effect: only the caller's struct is written, with
 * @op's template of the fields and the flags @v accepts.
 */
static int ffst_check_fields(const struct ffst_iface *iface,
			     const struct ffst_op *op,
			     const struct ffst_op_abi *v,
			     void __user *uarg, size_t usize)
{
	return ffst_struct_to_user(uarg, usize, v->flags | iface->check_fields,
				   op->fields, v->ksize);
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
long ffst_dispatch(const struct ffst_iface *iface, struct file *file,
		   unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	unsigned int nr = _IOC_NR(cmd);
	const struct ffst_op_abi *v;
	const struct ffst_op *op;
	union ffst_args args = {};	/* past ksize too: fields of later ABIs */
	int err;

	/* The size bits are the caller's struct size: match the rest. */
	if (_IOC_TYPE(cmd) != iface->ioc_type ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE) ||
	    nr >= iface->nr_ops)
		return -ENOTTY;
	op = &iface->ops[array_index_nospec(nr, iface->nr_ops)];
	if (!op->handler)
		return -ENOTTY;
	/* an op keeps its last entry in the ABIs past it */
	v = &op->abi[min(*iface->abi_version, op->nr_abi - 1)];

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
	if (args.flags == iface->check_fields)
		return ffst_check_fields(iface, op, v, uarg, usize);
	if (usize > v->ksize) {
		err = check_zeroed_user(uarg + v->ksize, usize - v->ksize);
		if (err <= 0)
			return err ?: -E2BIG;
	}
	if (!ffst_args_valid(op, v, &args, usize))
		return -EINVAL;
	/* As write(2) on a file opened O_RDONLY, once the struct is valid. */
	if ((op->mutates || (args.flags & op->mutating_flags)) &&
	    !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	return op->handler(file, &args, uarg, usize);
}

/* One rule of ffst_iface_check(), with the op it is broken for. */
static bool ffst_op_broken(unsigned int nr, bool broken, const char *rule)
{
	if (broken)
		pr_err("op 0x%02x: %s\n", nr, rule);
	return broken;
}

/*
 * What FFST_OP() and FFST_ASSERT_LAYOUT() cannot see as they compile, at
 * load: an entry written without them, the ABI tables, the ABI in force
 * (FFST_ABI_UNSET: the latest any op has, written in).  Returns -EINVAL
 * with a message naming the op and the rule, so that a broken table
 * refuses to load instead of oopsing on its first call.
 */
int ffst_iface_check(const struct ffst_iface *iface)
{
	unsigned int nr, abi, nr_abi = 1;
	bool broken = false;

	for (nr = 0; nr < iface->nr_ops; nr++) {
		const struct ffst_op *op = &iface->ops[nr];
		size_t last = op->size_ver0;

		if (!op->handler && !op->fields && !op->abi && !op->size_ver0)
			continue;	/* a hole: ENOTTY */
		if (ffst_op_broken(nr, !op->handler, "no handler") ||
		    ffst_op_broken(nr, !op->fields, "no fields template") ||
		    ffst_op_broken(nr, !op->abi || !op->nr_abi, "no ABI table") ||
		    ffst_op_broken(nr, op->size_ver0 < sizeof(u64),
				   "no first size")) {
			broken = true;
			continue;
		}
		nr_abi = max(nr_abi, op->nr_abi);
		for (abi = 0; abi < op->nr_abi; abi++) {
			const struct ffst_op_abi *v = &op->abi[abi];

			broken |= ffst_op_broken(nr, v->ksize < last,
						 "a struct smaller than its first size or an older ABI's");
			broken |= ffst_op_broken(nr,
						 v->ksize > FFST_ARGS_SIZE ||
						 v->ksize % sizeof(u64),
						 "a struct size the dispatcher cannot hold");
			broken |= ffst_op_broken(nr, v->ksize > op->fields_size,
						 "a size bigger than its struct (its fields template)");
			broken |= ffst_op_broken(nr,
						 v->flags & iface->check_fields,
						 "CHECK_FIELDS among its own flags");
			last = v->ksize;
		}
		broken |= ffst_op_broken(nr, op->mutating_flags &
					 ~op->abi[op->nr_abi - 1].flags,
					 "a mutating flag it does not take");
	}
	if (broken)
		return -EINVAL;
	if (*iface->abi_version == FFST_ABI_UNSET)
		*iface->abi_version = nr_abi - 1;
	if (*iface->abi_version >= nr_abi) {
		pr_err("abi_version=%u: this module knows 0 to %u\n",
		       *iface->abi_version, nr_abi - 1);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ffst_iface_check);
