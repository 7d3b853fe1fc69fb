/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst: the accounting -- what the table holds in all, what each
 * payer has in it, and how long an entry's allocation stays charged.  The
 * table calls it, under the lock it names to ffst_account_init(), with a
 * payer and a number of bytes (ffst_account_*()) or an entry
 * (ffst_mem_*()); the watch fds' count has a lock of its own.
 */
#ifndef _FLAGSFIRST_ACCOUNT_H
#define _FLAGSFIRST_ACCOUNT_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct ffst_quota;

/* The payer of an exempt caller (CAP_SYS_RESOURCE): see ffst_payer(). */
#define FFST_EXEMPT	INVALID_UID

void ffst_account_init(struct mutex *lock);
void ffst_account_destroy(void);
kuid_t ffst_payer(kuid_t uid);

/* Checks: 0, -ENOSPC (the table's limits) or -EDQUOT (the payer's). */
int ffst_account_may_create(kuid_t payer, size_t mem);
int ffst_account_may_grow(kuid_t payer, ssize_t table, ssize_t mine);

/* Changes.  -EAGAIN: unlock, ffst_account_spare(), lock and try again. */
int ffst_account_add_entry(kuid_t payer, struct ffst_quota **spare);
void ffst_account_del_entry(kuid_t payer);
void ffst_account_charge(kuid_t payer, size_t mem);
void ffst_account_uncharge(kuid_t payer, size_t mem);
/* Watch fds, under a lock of their own: any context that may sleep. */
int ffst_account_add_watch(kuid_t uid);
void ffst_account_del_watch(kuid_t uid);
int ffst_account_spare(struct ffst_quota **spare);
void ffst_account_spare_free(struct ffst_quota *spare);

/* For the debugfs stats. */
struct ffst_account_stats {
	unsigned int entries;
	size_t bytes;
	unsigned int uids;
};

void ffst_account_stats(struct ffst_account_stats *s);

/* An entry's allocation: charged while it has a reason to be. */
struct ffst_entry;
struct ffst_value;
void ffst_mem_use(struct ffst_entry *e, unsigned int reasons);
void ffst_mem_leave(struct ffst_entry *e, const struct ffst_value *v);
size_t ffst_mem_freed(const struct ffst_entry *e,
		      const struct ffst_value *v, kuid_t uid, size_t *mine);

#endif /* _FLAGSFIRST_ACCOUNT_H */
