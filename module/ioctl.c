// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: the table of operations and the rules every one of them obeys. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"
#include "ioctl.h"

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
static int ffst_args_to_user(void __user *uarg, size_t usize, u64 flags,
			     const union ffst_args *args, size_t ksize)
{
	size_t size = min(usize, ksize), i;
	const u64 *src = (const u64 *)args;
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

/*
 * Copies a NUL-terminated name into @buf (FLAGSFIRST_NAME_MAX + 1 bytes).
 * Returns its length, or -ENOENT for an empty one unless @may_be_empty.
 * Callers declare @buf __uninitialized: nothing past the NUL is ever read,
 * so CONFIG_INIT_STACK_ALL_ZERO need not clear 256 bytes on every call.
 */
VISIBLE_IF_KUNIT int ffst_name_len_check(long len, bool may_be_empty)
{
	if (len < 0)
		return len;
	if (len > FLAGSFIRST_NAME_MAX)
		return -ENAMETOOLONG;
	if (len == 0 && !may_be_empty)
		return -ENOENT;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(ffst_name_len_check);

static int ffst_copy_name(char *buf, __u64 uname, bool may_be_empty)
{
	long len;

	len = strncpy_from_user(buf, u64_to_user_ptr(uname),
				FLAGSFIRST_NAME_MAX + 1);
	return ffst_name_len_check(len, may_be_empty);
}

/* A value GET copied to its stack buffer, in one user-access window. */
static int ffst_small_to_user(void __user *ubuf, const u8 *small, u32 len)
{
	if (!user_write_access_begin(ubuf, len))
		return -EFAULT;
	unsafe_copy_to_user(ubuf, small, len, efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

VISIBLE_IF_KUNIT bool ffst_set_args_valid(const union ffst_args *args, size_t usize)
{
	const struct flagsfirst_set *set = &args->set;
	bool if_seq = set->flags & FLAGSFIRST_SET_IF_SEQ;

	if ((set->flags & FLAGSFIRST_SET_NOREPLACE) &&
	    (set->flags & (FLAGSFIRST_SET_REPLACE | FLAGSFIRST_SET_IF_SEQ)))
		return false;
	/* The flag gates the field and the size must cover it (clone3). */
	if (if_seq && usize < FLAGSFIRST_SET_SIZE_VER1)
		return false;
	/* Zero means "as before": a seq without the flag is a mistake. */
	return if_seq || !set->expect_seq;
}
EXPORT_SYMBOL_IF_KUNIT(ffst_set_args_valid);

static long ffst_set(union ffst_args *args, void __user *uarg, size_t usize)
{
	const struct flagsfirst_set *set = &args->set;
	char name[FLAGSFIRST_NAME_MAX + 1] __uninitialized;
	struct ffst_entry *e;
	int len, err;

	len = ffst_copy_name(name, set->name, false);
	if (len < 0)
		return len;
	if (set->value_len > FLAGSFIRST_VALUE_MAX)
		return -E2BIG;

	e = ffst_entry_alloc(name, len, set->value_len);
	if (!e)
		return -ENOMEM;
	err = -EFAULT;
	if (copy_from_user(e->own.data, u64_to_user_ptr(set->value),
			   set->value_len))
		goto err_free_entry;
	err = -EPERM;
	if ((set->flags & FLAGSFIRST_SET_IMMUTABLE) &&
	    !capable(CAP_LINUX_IMMUTABLE))
		goto err_free_entry;
	err = ffst_table_set(e, set->flags, set->expect_seq);
	if (err)
		goto err_free_entry;
	return 0;

err_free_entry:
	ffst_entry_free(e);
	return err;
}

static long ffst_get(union ffst_args *args, void __user *uarg, size_t usize)
{
	struct flagsfirst_get *get = &args->get;
	char name[FLAGSFIRST_NAME_MAX + 1] __uninitialized;
	void __user *ubuf = u64_to_user_ptr(get->value);
	u8 small[FFST_SMALL_VALUE] __uninitialized;	/* up to view.value_len */
	struct ffst_view view;
	int len, err;

	len = ffst_copy_name(name, get->name, false);
	if (len < 0)
		return len;
	err = ffst_table_read(name, len, get->value_len, small, &view);
	if (err)
		return err;

	/* A buffer size of 0 asks for the size only (getxattr). */
	if (get->value_len && get->value_len < view.value_len)
		err = -ERANGE;
	else if (view.copied)
		err = ffst_small_to_user(ubuf, small, view.value_len);
	else if (view.ref && copy_to_user(ubuf, view.ref->own.data,
					  view.value_len))
		err = -EFAULT;
	if (view.ref)
		ffst_entry_put(view.ref);
	if (err == -EFAULT)
		return err;

	get->value_len = view.value_len;
	get->attrs = view.attrs;
	get->seq = view.seq;
	get->owner_uid = from_kuid_munged(current_user_ns(), view.owner);
	get->__reserved = 0;
	if (ffst_args_to_user(uarg, usize, get->flags, args, sizeof(*get)))
		return -EFAULT;
	return err;
}

static long ffst_delete(union ffst_args *args, void __user *uarg, size_t usize)
{
	const struct flagsfirst_delete *del = &args->del;
	bool all = del->flags & FLAGSFIRST_DELETE_ALL;
	char name[FLAGSFIRST_NAME_MAX + 1] __uninitialized;
	int len;

	len = ffst_copy_name(name, del->name, all);
	if (len < 0)
		return len;
	/* Explicit intent, as AT_EMPTY_PATH: "" means all only with the flag. */
	if (all)
		return len ? -EINVAL : ffst_table_delete_all();
	return ffst_table_delete(name, len);
}

VISIBLE_IF_KUNIT bool ffst_rename_args_valid(const union ffst_args *args, size_t usize)
{
	u64 flags = args->rename.flags;

	return !((flags & FLAGSFIRST_RENAME_NOREPLACE) &&
		 (flags & FLAGSFIRST_RENAME_EXCHANGE));
}
EXPORT_SYMBOL_IF_KUNIT(ffst_rename_args_valid);

static long ffst_rename(union ffst_args *args, void __user *uarg, size_t usize)
{
	const struct flagsfirst_rename *rename = &args->rename;
	char oldname[FLAGSFIRST_NAME_MAX + 1] __uninitialized;
	char newname[FLAGSFIRST_NAME_MAX + 1] __uninitialized;
	int oldlen, newlen;

	oldlen = ffst_copy_name(oldname, rename->oldname, false);
	if (oldlen < 0)
		return oldlen;
	newlen = ffst_copy_name(newname, rename->newname, false);
	if (newlen < 0)
		return newlen;
	return ffst_table_rename(oldname, oldlen, newname, newlen,
			       rename->flags);
}

/* The mistake the other operations avoid: no flags, no size, no future. */
static long ffst_rename_legacy(struct file *file, void __user *uarg)
{
	struct flagsfirst_rename_legacy legacy;
	union ffst_args args = {};

	if (copy_from_user(&legacy, uarg, sizeof(legacy)))
		return -EFAULT;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	args.rename.oldname = legacy.oldname;
	args.rename.newname = legacy.newname;
	return ffst_rename(&args, NULL, 0);
}

VISIBLE_IF_KUNIT bool ffst_watch_args_valid(const union ffst_args *args, size_t usize)
{
	u64 mask = args->watch.mask;

	return mask && !(mask & ~(u64)FLAGSFIRST_EVENT_ALL);
}
EXPORT_SYMBOL_IF_KUNIT(ffst_watch_args_valid);

static long ffst_watch(union ffst_args *args, void __user *uarg, size_t usize)
{
	return ffst_watch_create(args->watch.mask, args->watch.flags);
}

static const union ffst_args ffst_set_fields = {
	.set = {
		.name = ~0ULL,
		.value = ~0ULL,
		.value_len = ~0U,
		.expect_seq = ~0ULL,
	},
};

static const union ffst_args ffst_get_fields = {
	.get = {
		.name = ~0ULL,
		.value = ~0ULL,
		.value_len = ~0U,
		.attrs = ~0U,
		.seq = ~0ULL,
		.owner_uid = ~0U,
	},
};

static const union ffst_args ffst_delete_fields = {
	.del = {
		.name = ~0ULL,
	},
};

static const union ffst_args ffst_rename_fields = {
	.rename = {
		.oldname = ~0ULL,
		.newname = ~0ULL,
	},
};

static const union ffst_args ffst_watch_fields = {
	.watch = {
		.mask = ~0ULL,
	},
};

/* Adding an operation is an entry here and a handler above. */
VISIBLE_IF_KUNIT const struct ffst_op ffst_ops[FFST_NR_OPS] = {
	[_IOC_NR(FLAGSFIRST_IOC_SET)] = {
		.size_ver0 = FLAGSFIRST_SET_SIZE_VER0,
		.abi = {
			[0] = { FLAGSFIRST_SET_SIZE_VER0, FFST_SET_FLAGS_ABI0 },
			[1] = { FLAGSFIRST_SET_SIZE_VER1, FLAGSFIRST_SET_FLAGS },
		},
		.fields = &ffst_set_fields,
		.mutates = true,
		.args_valid = ffst_set_args_valid,
		.handler = ffst_set,
	},
	[_IOC_NR(FLAGSFIRST_IOC_GET)] = {
		.size_ver0 = FLAGSFIRST_GET_SIZE_VER0,
		.abi = FFST_EVERY_ABI(sizeof(struct flagsfirst_get),
				    FLAGSFIRST_GET_FLAGS),
		.fields = &ffst_get_fields,
		.handler = ffst_get,
	},
	[_IOC_NR(FLAGSFIRST_IOC_DELETE)] = {
		.size_ver0 = FLAGSFIRST_DELETE_SIZE_VER0,
		.abi = FFST_EVERY_ABI(sizeof(struct flagsfirst_delete),
				    FLAGSFIRST_DELETE_FLAGS),
		.fields = &ffst_delete_fields,
		.mutates = true,
		.handler = ffst_delete,
	},
	[_IOC_NR(FLAGSFIRST_IOC_RENAME)] = {
		.size_ver0 = FLAGSFIRST_RENAME_SIZE_VER0,
		.abi = FFST_EVERY_ABI(sizeof(struct flagsfirst_rename),
				    FLAGSFIRST_RENAME_FLAGS),
		.fields = &ffst_rename_fields,
		.mutates = true,
		.args_valid = ffst_rename_args_valid,
		.handler = ffst_rename,
	},
	[_IOC_NR(FLAGSFIRST_IOC_WATCH)] = {
		.size_ver0 = FLAGSFIRST_WATCH_SIZE_VER0,
		.abi = FFST_EVERY_ABI(sizeof(struct flagsfirst_watch),
				    FLAGSFIRST_WATCH_FLAGS),
		.fields = &ffst_watch_fields,
		.args_valid = ffst_watch_args_valid,
		.handler = ffst_watch,
	},
};
EXPORT_SYMBOL_IF_KUNIT(ffst_ops);

/* Every published size, and the layout rules the dispatcher relies on. */
static_assert(offsetofend(struct flagsfirst_set, __reserved) ==
	      FLAGSFIRST_SET_SIZE_VER0);
static_assert(offsetofend(struct flagsfirst_set, expect_seq) ==
	      FLAGSFIRST_SET_SIZE_VER1);
static_assert(offsetofend(struct flagsfirst_get, __reserved) ==
	      FLAGSFIRST_GET_SIZE_VER0);
static_assert(offsetofend(struct flagsfirst_delete, name) ==
	      FLAGSFIRST_DELETE_SIZE_VER0);
static_assert(offsetofend(struct flagsfirst_rename, newname) ==
	      FLAGSFIRST_RENAME_SIZE_VER0);
static_assert(offsetofend(struct flagsfirst_watch, mask) ==
	      FLAGSFIRST_WATCH_SIZE_VER0);
static_assert(offsetofend(struct flagsfirst_event, newname_len) ==
	      FLAGSFIRST_EVENT_HDR_SIZE_VER0);
static_assert(sizeof(struct flagsfirst_rename_legacy) == 16);
/* The dispatcher reads flags at offset 0 of every struct. */
static_assert(offsetof(struct flagsfirst_set, flags) == 0);
static_assert(offsetof(struct flagsfirst_get, flags) == 0);
static_assert(offsetof(struct flagsfirst_delete, flags) == 0);
static_assert(offsetof(struct flagsfirst_rename, flags) == 0);
static_assert(offsetof(struct flagsfirst_watch, flags) == 0);
/* Same layout on 32- and 64-bit: compat_ptr_ioctl() is enough. */
static_assert(sizeof(union ffst_args) % sizeof(__u64) == 0);

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
					  size_t ksize,
					  const union ffst_args *args)
{
	const u64 *known = (const u64 *)op->fields;
	const u64 *arg = (const u64 *)args;
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
				      const union ffst_args *args, size_t usize)
{
	if (args->flags & ~v->flags)
		return false;
	if (op->args_valid && !op->args_valid(args, usize))
		return false;
	return ffst_reserved_clear(op, v->ksize, args);
}
EXPORT_SYMBOL_IF_KUNIT(ffst_args_valid);

long ffst_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	unsigned int nr = _IOC_NR(cmd);
	const struct ffst_op_abi *v;
	const struct ffst_op *op;
	union ffst_args args = {};	/* past ksize too: fields of later ABIs */
	int err;

	if (cmd == FLAGSFIRST_IOC_RENAME_LEGACY)
		return ffst_rename_legacy(file, uarg);

	/* The size bits are the caller's struct size: match the rest. */
	if (_IOC_TYPE(cmd) != _IOC_TYPE(FLAGSFIRST_IOC_SET) ||
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

	return op->handler(&args, uarg, usize);
}

