// SPDX-License-Identifier: GPL-2.0-only
/* skel: its operations, as the dispatcher (dispatch.c) calls them. */

#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>

#include "ioctl.h"

/*
 * The device's one counter, which every open file sees: what one run of
 * the client sets, the next one reads.
 */
static struct {
	struct mutex lock;	/* guards both */
	u64 value;
	u64 changes;
} skel_state = {
	.lock = __MUTEX_INITIALIZER(skel_state.lock),
};

static bool skel_configure_valid(const void *args, size_t usize)
{
	const struct skel_configure *c = args;
	u64 flags = c->flags;

	return !((flags & SKEL_CONFIGURE_ADD) &&
		 (flags & SKEL_CONFIGURE_SUB));
}

static long skel_configure(struct file *file,
			   struct skel_configure *c,
			   void __user *uarg, size_t usize)
{
	typeof(skel_state) *st = &skel_state;
	long err = 0;
	u64 value;

	mutex_lock(&st->lock);
	value = c->value;
	if ((c->flags & SKEL_CONFIGURE_ADD) &&
	    check_add_overflow(st->value, c->value, &value))
		err = -EOVERFLOW;
	else if ((c->flags & SKEL_CONFIGURE_SUB) &&
		 check_sub_overflow(st->value, c->value, &value))
		err = -ERANGE;
	if (!err) {
		st->value = value;
		st->changes++;
	}
	mutex_unlock(&st->lock);
	return err;
}

FFST_HANDLER(skel_configure, struct skel_configure)

/*
 * CHECK_FIELDS's answer; the struct's size and flags in each ABI release
 * (growing it: a row); the layout the dispatcher relies on (each
 * _SIZE_VER<n> of the header is checked against offsetofend() of its
 * field whenever the suite's and the client's tables are made)
 */
static const struct skel_configure skel_configure_fields = {
	.value = ~0ULL,
};

static const struct ffst_op_abi skel_configure_abi[] = {
	{ SKEL_CONFIGURE_SIZE_VER0, SKEL_CONFIGURE_FLAGS },
};

FFST_ASSERT_LAYOUT(struct skel_configure, flags, __reserved, value);

static long skel_query(struct file *file, struct skel_query *q,
		       void __user *uarg, size_t usize)
{
	typeof(skel_state) *st = &skel_state;

	mutex_lock(&st->lock);
	q->value = st->value;
	q->changes = st->changes;
	if (q->flags & SKEL_QUERY_RESET)
		st->changes = 0;
	mutex_unlock(&st->lock);
	if (ffst_copy_struct_to_user(uarg, usize, q, sizeof(*q)))
		return -EFAULT;
	return 0;
}

FFST_HANDLER(skel_query, struct skel_query)

static const struct skel_query skel_query_fields = {
	.value = ~0ULL,
	.changes = ~0ULL,
};

static const struct ffst_op_abi skel_query_abi[] = {
	{ SKEL_QUERY_SIZE_VER0, SKEL_QUERY_FLAGS },
};

FFST_ASSERT_LAYOUT(struct skel_query, flags, value, changes);

/* Adding an operation is a block above and an entry here. */
const struct ffst_op skel_ops[SKEL_NR_OPS] = {
	FFST_OP(SKEL_IOC_CONFIGURE, SKEL_CONFIGURE_SIZE_VER0,
		skel_configure_abi, skel_configure_fields, true, 0,
		skel_configure_valid, skel_configure_op),
	FFST_OP(SKEL_IOC_QUERY, SKEL_QUERY_SIZE_VER0, skel_query_abi,
		skel_query_fields, false, SKEL_QUERY_RESET, NULL,
		skel_query_op),
};

/* skel, as it describes itself to the dispatcher (and to KUnit). */
VISIBLE_IF_KUNIT const struct ffst_iface skel_iface = {
	.ioc_type = _IOC_TYPE(SKEL_IOC_CONFIGURE),
	.ops = skel_ops,
	.nr_ops = ARRAY_SIZE(skel_ops),
	.abi_version = &skel_abi_version,
	.check_fields = SKEL_CHECK_FIELDS,
};
EXPORT_SYMBOL_IF_KUNIT(skel_iface);

/* At load, before the device exists: a table the dispatcher cannot use. */
int skel_ioctl_init(void)
{
	return ffst_iface_check(&skel_iface);
}

long skel_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return ffst_dispatch(&skel_iface, file, cmd, arg);
}
