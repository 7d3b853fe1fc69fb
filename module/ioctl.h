/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst: what the dispatcher (dispatch.h) needs to know of this
 * interface's operations, and their predicates for KUnit.
 */
#ifndef _FLAGSFIRST_IOCTL_H
#define _FLAGSFIRST_IOCTL_H

#include <linux/flagsfirst.h>

#include "flagsfirst.h"

/* The biggest struct an op may have (GET: 48); see FFST_ASSERT_LAYOUT(). */
#define FFST_ARGS_SIZE		64

/* ioctl numbers 0x00 (SET) to 0x05 (WATCH); a hole has no handler */
#define FFST_NR_OPS		6
#define FFST_IOC_TYPE		_IOC_TYPE(FLAGSFIRST_IOC_SET)

#if IS_ENABLED(CONFIG_KUNIT)
int ffst_name_len_check(long len, bool may_be_empty);
bool ffst_set_args_valid(const void *args, size_t usize);
bool ffst_rename_args_valid(const void *args, size_t usize);
bool ffst_watch_args_valid(const void *args, size_t usize);
#endif

#endif /* _FLAGSFIRST_IOCTL_H */
