// SPDX-License-Identifier: GPL-2.0-only
/* skel: the device, its parameter, load and unload. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/miscdevice.h>
#include <linux/module.h>

#include "ioctl.h"

/* The latest ABI unless told: the ops' tables say which it is (ioctl.c). */
unsigned int skel_abi_version = FFST_ABI_UNSET;
module_param_named(abi_version, skel_abi_version, uint, 0444);
MODULE_PARM_DESC(abi_version,
		 "Behave as this ABI release did (default: the latest), read at load");

static const struct file_operations skel_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = skel_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice skel_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "skel",
	.fops = &skel_fops,
	.mode = 0666,
};

static int __init skel_init(void)
{
	int err = skel_ioctl_init();

	if (err)
		return err;
	return misc_register(&skel_misc);
}

static void __exit skel_exit(void)
{
	misc_deregister(&skel_misc);
}

module_init(skel_init);
module_exit(skel_exit);

MODULE_DESCRIPTION("skel: a kernel interface designed flags first");
MODULE_LICENSE("GPL");
