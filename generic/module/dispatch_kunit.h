/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The generic core's KUnit suite, run on an interface's own table of
 * operations: the rules dispatch.c applies, checked on every op of the
 * interface, and the tables ffst_iface_check() must refuse at load.  The
 * interface's KUnit module links dispatch_kunit.c, points
 * ffst_kunit_iface at its struct ffst_iface (which its driver exports
 * with EXPORT_SYMBOL_IF_KUNIT()) and lists ffst_dispatch_test_suite
 * among its suites.
 */
#ifndef _FFST_DISPATCH_KUNIT_H
#define _FFST_DISPATCH_KUNIT_H

#include <kunit/test.h>

#include "dispatch.h"

extern const struct ffst_iface *const ffst_kunit_iface;
extern struct kunit_suite ffst_dispatch_test_suite;

#endif /* _FFST_DISPATCH_KUNIT_H */
