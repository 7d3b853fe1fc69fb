/* SPDX-License-Identifier: GPL-2.0-only */
/* flagsfirst: its table of operations and their predicates, for KUnit. */
#ifndef _FLAGSFIRST_IOCTL_H
#define _FLAGSFIRST_IOCTL_H

#include <linux/flagsfirst.h>

#include "dispatch.h"
#include "flagsfirst.h"

/* ioctl numbers 0x00 (SET) to 0x05 (WATCH); a hole has no handler */
#define FFST_NR_OPS		6

#if IS_ENABLED(CONFIG_KUNIT)
/* flagsfirst as it describes itself to the dispatcher, for KUnit */
extern const struct ffst_iface ffst_iface;
int ffst_name_len_check(long len, bool may_be_empty);
bool ffst_set_args_valid(const void *args, size_t usize);
bool ffst_rename_args_valid(const void *args, size_t usize);
bool ffst_watch_args_valid(const void *args, size_t usize);
#endif

#endif /* _FLAGSFIRST_IOCTL_H */
