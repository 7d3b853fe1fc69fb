// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: the misc device, its module parameters, load and unload. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "dispatch.h"
#include "flagsfirst.h"

/* The latest ABI unless told: the ops' tables say which it is (ioctl.c). */
unsigned int ffst_abi_version = FFST_ABI_UNSET;
module_param_named(abi_version, ffst_abi_version, uint, 0444);
MODULE_PARM_DESC(abi_version,
		 "Behave as this ABI release did (0 or 1, the default), read at load");

/*
 * The counting limits take 0 to INT_MAX, as inotify's sysctls do, and
 * refuse anything else with EINVAL (at load, or written to sysfs): the
 * hash table holds at most 2^31 entries, so a larger max_entries would
 * be a promise the module could not keep.  The byte limits take any
 * unsigned long: the module can honour each.
 */
static int ffst_param_set_count(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, INT_MAX);
}

static const struct kernel_param_ops ffst_param_count_ops = {
	.set = ffst_param_set_count,
	.get = param_get_uint,
};

unsigned int ffst_max_entries = 1U << 20;
module_param_cb(max_entries, &ffst_param_count_ops, &ffst_max_entries, 0644);
__MODULE_PARM_TYPE(max_entries, "uint");
MODULE_PARM_DESC(max_entries,
		 "Entries in the table at most (0 to 2147483647); more fail with ENOSPC");

unsigned long ffst_max_bytes = 64UL << 20;
module_param_named(max_bytes, ffst_max_bytes, ulong, 0644);
MODULE_PARM_DESC(max_bytes,
		 "Bytes the entries may take in memory; more fail with ENOSPC");

unsigned int ffst_max_entries_per_uid = 1U << 16;
module_param_cb(max_entries_per_uid, &ffst_param_count_ops, &ffst_max_entries_per_uid, 0644);
__MODULE_PARM_TYPE(max_entries_per_uid, "uint");
MODULE_PARM_DESC(max_entries_per_uid,
		 "Entries one user and its user namespaces may own (0 to 2147483647); more fail with EDQUOT unless CAP_SYS_RESOURCE");

unsigned long ffst_max_bytes_per_uid = 4UL << 20;
module_param_named(max_bytes_per_uid, ffst_max_bytes_per_uid, ulong, 0644);
MODULE_PARM_DESC(max_bytes_per_uid,
		 "Bytes one user's entries and its user namespaces' may take; more fail with EDQUOT unless CAP_SYS_RESOURCE");

unsigned int ffst_max_watches_per_uid = 128;
module_param_cb(max_watches_per_uid, &ffst_param_count_ops, &ffst_max_watches_per_uid, 0644);
__MODULE_PARM_TYPE(max_watches_per_uid, "uint");
MODULE_PARM_DESC(max_watches_per_uid,
		 "Watch fds one user and its user namespaces may hold (0 to 2147483647); more fail with EMFILE unless CAP_SYS_RESOURCE");

unsigned int ffst_max_queued_events = 1024;
module_param_cb(max_queued_events, &ffst_param_count_ops, &ffst_max_queued_events, 0644);
__MODULE_PARM_TYPE(max_queued_events, "uint");
MODULE_PARM_DESC(max_queued_events,
		 "Records a watch fd queues at most (0 to 2147483647); then one OVERFLOW record");

static const struct file_operations ffst_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = ffst_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ffst_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "flagsfirst",
	.fops = &ffst_fops,
	.mode = 0666,
};

static struct dentry *ffst_debugfs;

/*
 * The table's accounting, for tests that check it against the table.
 * bytes: what the limits count; allocated: what the entries' (and moved
 * values' homes') allocations take; memory: that and the hash table's
 * buckets; records: watch records queued on all fds.
 */
static int ffst_stats_show(struct seq_file *m, void *unused)
{
	struct ffst_table_stats s;

	ffst_table_stats(&s);
	seq_printf(m, "entries %u\nbytes %zu\nseq %llu\nuids %u\n",
		   s.entries, s.bytes, s.seq, s.uids);
	seq_printf(m, "allocated %ld\nmemory %lu\nrecords %ld\n",
		   s.allocated, s.memory, ffst_watch_records());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ffst_stats);

static int __init ffst_init(void)
{
	int err;

	err = ffst_ioctl_init();
	if (err)
		return err;
	err = ffst_table_init(ffst_notify);
	if (err)
		return err;
	err = misc_register(&ffst_misc);
	if (err) {
		ffst_table_destroy();
		return err;
	}
	/* debugfs is optional: errors there are not ours to report */
	ffst_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, ffst_debugfs, NULL, &ffst_stats_fops);
	return 0;
}

static void __exit ffst_exit(void)
{
	debugfs_remove_recursive(ffst_debugfs);
	misc_deregister(&ffst_misc);
	ffst_table_destroy();
}

module_init(ffst_init);
module_exit(ffst_exit);

MODULE_DESCRIPTION("A name->value table whose ioctls are designed flags-first");
MODULE_AUTHOR("The flagsfirst developers");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
