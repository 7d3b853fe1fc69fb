/* SPDX-License-Identifier: GPL-2.0-only */
/* skel: its table of operations, and what its files share. */
#ifndef _SKEL_IOCTL_H
#define _SKEL_IOCTL_H

#include <linux/fs.h>
#include <linux/skel.h>

#include "dispatch.h"

/* ioctl numbers 0x00 to 0x0f; a number without a handler is ENOTTY */
#define SKEL_NR_OPS		16

extern unsigned int skel_abi_version;
extern const struct ffst_op skel_ops[SKEL_NR_OPS];
#if IS_ENABLED(CONFIG_KUNIT)
/* skel as it describes itself to the dispatcher, for KUnit */
extern const struct ffst_iface skel_iface;
#endif

int skel_ioctl_init(void);
long skel_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _SKEL_IOCTL_H */
