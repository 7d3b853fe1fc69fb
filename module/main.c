// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: the misc device, its module parameters, load and unload. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "flagsfirst.h"

unsigned int ff_abi_version = FF_ABI_LATEST;
module_param_named(abi_version, ff_abi_version, uint, 0444);
MODULE_PARM_DESC(abi_version,
		 "Behave as this ABI release did (0 or 1, the default), read at load");

unsigned int ff_max_entries = 1U << 20;
module_param_named(max_entries, ff_max_entries, uint, 0644);
MODULE_PARM_DESC(max_entries,
		 "Entries in the table at most; more fail with ENOSPC");

unsigned long ff_max_bytes = 64UL << 20;
module_param_named(max_bytes, ff_max_bytes, ulong, 0644);
MODULE_PARM_DESC(max_bytes,
		 "Bytes of names and values at most; more fail with ENOSPC");

unsigned int ff_max_entries_per_uid = 1U << 16;
module_param_named(max_entries_per_uid, ff_max_entries_per_uid, uint, 0644);
MODULE_PARM_DESC(max_entries_per_uid,
		 "Entries one uid may own; more fail with EDQUOT unless CAP_SYS_RESOURCE");

unsigned int ff_max_queued_events = 1024;
module_param_named(max_queued_events, ff_max_queued_events, uint, 0644);
MODULE_PARM_DESC(max_queued_events,
		 "Records a watch fd queues at most; then one OVERFLOW record");

static const struct file_operations ff_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = ff_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ff_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "flagsfirst",
	.fops = &ff_fops,
	.mode = 0666,
};

static struct dentry *ff_debugfs;

static int __init ff_init(void)
{
	int err;

	if (ff_abi_version > FF_ABI_LATEST) {
		pr_err("abi_version=%u: this module knows 0 to %u\n",
		       ff_abi_version, FF_ABI_LATEST);
		return -EINVAL;
	}
	err = ff_table_init();
	if (err)
		return err;
	err = misc_register(&ff_misc);
	if (err) {
		ff_table_destroy();
		return err;
	}
	/* debugfs is optional: errors there are not ours to report */
	ff_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ff_table_debugfs(ff_debugfs);
	return 0;
}

static void __exit ff_exit(void)
{
	debugfs_remove_recursive(ff_debugfs);
	misc_deregister(&ff_misc);
	ff_table_destroy();
}

module_init(ff_init);
module_exit(ff_exit);

MODULE_DESCRIPTION("A name->value table whose ioctls are designed flags-first");
MODULE_AUTHOR("The flagsfirst developers");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
