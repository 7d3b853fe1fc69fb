// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: its operations, as the dispatcher (dispatch.c) calls them. */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"
#include "dispatch.h"
#include "ioctl.h"

/*
 * Rule 6 for a name strncpy_from_user() copied: its length, or -EFAULT
 * (as @len has it), -ENAMETOOLONG, or -ENOENT for an empty one unless
 * @may_be_empty.
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

/*
 * Copies a NUL-terminated name into @buf (FLAGSFIRST_NAME_MAX + 1 bytes).
 * Returns its length, or -ENOENT for an empty one unless @may_be_empty.
 * Callers declare @buf __uninitialized: nothing past the NUL is ever read,
 * so CONFIG_INIT_STACK_ALL_ZERO need not clear 256 bytes on every call.
 */
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

VISIBLE_IF_KUNIT bool ffst_set_args_valid(const void *args, size_t usize)
{
	const struct flagsfirst_set *set = args;
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

static long ffst_set(struct file *file, struct flagsfirst_set *set,
		     void __user *uarg, size_t usize)
{
	char name[FLAGSFIRST_NAME_MAX + 1] __uninitialized;
	struct ffst_entry *e;
	int len, err;

	len = ffst_copy_name(name, set->name, false);
	if (len < 0)
		return len;
	if (set->value_len > FLAGSFIRST_VALUE_MAX)
		return -E2BIG;
	/*
	 * Permission before anything is allocated or copied (rules 6 to 8):
	 * a refused caller costs no 64 KiB allocation.  The value is still
	 * checked first, as rule 6 has it, by faulting it in: no buffer.
	 */
	if ((set->flags & FLAGSFIRST_SET_IMMUTABLE) &&
	    !capable(CAP_LINUX_IMMUTABLE)) {
		if (fault_in_readable(u64_to_user_ptr(set->value),
				      set->value_len))
			return -EFAULT;
		return -EPERM;
	}

	e = ffst_entry_alloc(name, len, set->value_len);
	if (!e)
		return -ENOMEM;
	err = -EFAULT;
	if (copy_from_user(e->own.data, u64_to_user_ptr(set->value),
			   set->value_len))
		goto err_free_entry;
	err = ffst_table_set(e, set->flags, set->expect_seq);
	if (err)
		goto err_free_entry;
	return 0;

err_free_entry:
	ffst_entry_free(e);
	return err;
}

FFST_HANDLER(ffst_set, struct flagsfirst_set)

static long ffst_get(struct file *file, struct flagsfirst_get *get,
		     void __user *uarg, size_t usize)
{
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
	if (ffst_copy_struct_to_user(uarg, usize, get, sizeof(*get)))
		return -EFAULT;
	return err;
}

FFST_HANDLER(ffst_get, struct flagsfirst_get)

static long ffst_delete(struct file *file, struct flagsfirst_delete *del,
			void __user *uarg, size_t usize)
{
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

FFST_HANDLER(ffst_delete, struct flagsfirst_delete)

VISIBLE_IF_KUNIT bool ffst_rename_args_valid(const void *args, size_t usize)
{
	const struct flagsfirst_rename *rename = args;
	u64 flags = rename->flags;

	return !((flags & FLAGSFIRST_RENAME_NOREPLACE) &&
		 (flags & FLAGSFIRST_RENAME_EXCHANGE));
}
EXPORT_SYMBOL_IF_KUNIT(ffst_rename_args_valid);

static long ffst_rename(struct file *file, struct flagsfirst_rename *rename,
			void __user *uarg, size_t usize)
{
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

FFST_HANDLER(ffst_rename, struct flagsfirst_rename)

/*
 * The mistake the other operations avoid: no flags, no size, no future.
 * Out of line, so that its stack frame is not built on every other call
 * through ffst_ioctl() (docs/benchmarks.md, "Sixth look").
 */
static noinline long ffst_rename_legacy(struct file *file, void __user *uarg)
{
	struct flagsfirst_rename_legacy legacy;
	struct flagsfirst_rename rename = {};

	if (copy_from_user(&legacy, uarg, sizeof(legacy)))
		return -EFAULT;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	rename.oldname = legacy.oldname;
	rename.newname = legacy.newname;
	return ffst_rename(file, &rename, NULL, 0);
}

VISIBLE_IF_KUNIT bool ffst_watch_args_valid(const void *args, size_t usize)
{
	const struct flagsfirst_watch *watch = args;
	u64 mask = watch->mask;

	return mask && !(mask & ~(u64)FLAGSFIRST_EVENT_ALL);
}
EXPORT_SYMBOL_IF_KUNIT(ffst_watch_args_valid);

static long ffst_watch(struct file *file, struct flagsfirst_watch *watch,
		       void __user *uarg, size_t usize)
{
	return ffst_watch_create(watch->mask, watch->flags);
}

FFST_HANDLER(ffst_watch, struct flagsfirst_watch)

static const struct flagsfirst_set ffst_set_fields = {
	.name = ~0ULL,
	.value = ~0ULL,
	.value_len = ~0U,
	.expect_seq = ~0ULL,
};

static const struct flagsfirst_get ffst_get_fields = {
	.name = ~0ULL,
	.value = ~0ULL,
	.value_len = ~0U,
	.attrs = ~0U,
	.seq = ~0ULL,
	.owner_uid = ~0U,
};

static const struct flagsfirst_delete ffst_delete_fields = {
	.name = ~0ULL,
};

static const struct flagsfirst_rename ffst_rename_fields = {
	.oldname = ~0ULL,
	.newname = ~0ULL,
};

static const struct flagsfirst_watch ffst_watch_fields = {
	.mask = ~0ULL,
};

/*
 * What each ABI version understands of SET: ABI 1 added expect_seq.  The
 * other ops have not changed since ABI 0, and have one entry each.
 */
static const struct ffst_op_abi ffst_set_abi[] = {
	[0] = { FLAGSFIRST_SET_SIZE_VER0,
		FLAGSFIRST_SET_NOREPLACE | FLAGSFIRST_SET_REPLACE |
		FLAGSFIRST_SET_IMMUTABLE },
	[1] = { FLAGSFIRST_SET_SIZE_VER1, FLAGSFIRST_SET_FLAGS },
};

/* Adding an operation is an entry here and a handler above. */
static const struct ffst_op ffst_ops[FFST_NR_OPS] = {
	FFST_OP(FLAGSFIRST_IOC_SET,
		FLAGSFIRST_SET_SIZE_VER0, ffst_set_abi, ffst_set_fields,
		true, 0, ffst_set_args_valid, ffst_set_op),
	FFST_OP(FLAGSFIRST_IOC_GET,
		FLAGSFIRST_GET_SIZE_VER0,
		FFST_ABI({ sizeof(struct flagsfirst_get), FLAGSFIRST_GET_FLAGS }),
		ffst_get_fields, false, 0, NULL, ffst_get_op),
	FFST_OP(FLAGSFIRST_IOC_DELETE,
		FLAGSFIRST_DELETE_SIZE_VER0,
		FFST_ABI({ sizeof(struct flagsfirst_delete), FLAGSFIRST_DELETE_FLAGS }),
		ffst_delete_fields, true, 0, NULL, ffst_delete_op),
	FFST_OP(FLAGSFIRST_IOC_RENAME,
		FLAGSFIRST_RENAME_SIZE_VER0,
		FFST_ABI({ sizeof(struct flagsfirst_rename), FLAGSFIRST_RENAME_FLAGS }),
		ffst_rename_fields, true, 0, ffst_rename_args_valid,
		ffst_rename_op),
	FFST_OP(FLAGSFIRST_IOC_WATCH,
		FLAGSFIRST_WATCH_SIZE_VER0,
		FFST_ABI({ sizeof(struct flagsfirst_watch), FLAGSFIRST_WATCH_FLAGS }),
		ffst_watch_fields, false, 0, ffst_watch_args_valid,
		ffst_watch_op),
};

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
FFST_ASSERT_LAYOUT(struct flagsfirst_set, flags, name, value, value_len,
		   __reserved, expect_seq);
FFST_ASSERT_LAYOUT(struct flagsfirst_get, flags, name, value, value_len,
		   attrs, seq, owner_uid, __reserved);
FFST_ASSERT_LAYOUT(struct flagsfirst_delete, flags, name);
FFST_ASSERT_LAYOUT(struct flagsfirst_rename, flags, oldname, newname);
FFST_ASSERT_LAYOUT(struct flagsfirst_watch, flags, mask);

/* flagsfirst, as it describes itself to the dispatcher (and to KUnit). */
VISIBLE_IF_KUNIT const struct ffst_iface ffst_iface = {
	.ioc_type = _IOC_TYPE(FLAGSFIRST_IOC_SET),
	.ops = ffst_ops,
	.nr_ops = ARRAY_SIZE(ffst_ops),
	.abi_version = &ffst_abi_version,
	.check_fields = FLAGSFIRST_CHECK_FIELDS,
};
EXPORT_SYMBOL_IF_KUNIT(ffst_iface);

/* At load, before the device exists: a table the dispatcher cannot use. */
int ffst_ioctl_init(void)
{
	return ffst_iface_check(&ffst_iface);
}

/*
 * RENAME_LEGACY is the one ioctl outside the discipline (no flags, no
 * size): it is answered here; every other goes to the dispatcher.
 */
long ffst_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd == FLAGSFIRST_IOC_RENAME_LEGACY)
		return ffst_rename_legacy(file, (void __user *)arg);
	return ffst_dispatch(&ffst_iface, file, cmd, arg);
}
