/* SPDX-License-Identifier: GPL-2.0-only */
/* flagsfirst: what the module's files share. */
#ifndef _FLAGSFIRST_H
#define _FLAGSFIRST_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/uidgid.h>

/*
 * What a name holds: a value with its owner and attributes.  It never
 * changes once published.  Its bytes live in the allocation of the entry
 * created with it (its home, see ff_value_home()), but it can move to
 * another entry: EXCHANGE swaps two entries' values, RENAME hands one to
 * the entry of the new name.  Neither allocates or copies.
 */
struct ff_value {
	kuid_t owner;
	u32 attrs;			/* FLAGSFIRST_ATTR_* */
	u32 len;
};

/*
 * A name in the table and the value it holds.  Changing a value publishes
 * a new entry in its place, so an RCU reader that found an entry sees a
 * consistent one without a lock; only EXCHANGE changes an entry in place
 * (@val and @seq), inside the table's seqcount, which sends a reader that
 * overlapped it round again.
 *
 * @ref keeps the allocation, and with it @own's bytes: one for being in
 * the table, one for each entry whose @val is @own (itself, or another
 * after EXCHANGE or RENAME), one per reader holding the value.
 */
struct ff_entry {
	struct rhash_head node;		/* in ff_table.ht */
	struct list_head list;		/* in ff_table.entries */
	struct rcu_head rcu;
	u64 seq;
	struct ff_value __rcu *val;	/* &own, or another entry's own */
	refcount_t ref;
	u32 name_len;
	struct ff_value own;		/* len 0 if the entry never had a value */
	char name[];			/* name_len bytes and a NUL, then own's bytes */
};

/* The entry whose allocation holds @v's bytes. */
static inline struct ff_entry *ff_value_home(const struct ff_value *v)
{
	return container_of(v, struct ff_entry, own);
}

/* The bytes of @e's own value. */
static inline u8 *ff_entry_value(struct ff_entry *e)
{
	return (u8 *)e->name + e->name_len + 1;
}

/* ABI versions (uapi header); abi_version picks one at load */
#define FF_ABI_LATEST	1
/* SET's flags as ABI 0 released them, before FLAGSFIRST_SET_IF_SEQ */
#define FF_SET_FLAGS_ABI0	(FLAGSFIRST_SET_NOREPLACE | \
				 FLAGSFIRST_SET_REPLACE | \
				 FLAGSFIRST_SET_IMMUTABLE)

/* GET copies values up to this size on the stack, without a reference */
#define FF_SMALL_VALUE	64

/*
 * What ff_table_read() saw of an entry.  The value is in the caller's
 * small buffer, or is @ref's own (a reference to put), or was not wanted
 * (a size query, or a buffer too small).
 */
struct ff_view {
	u64 seq;
	kuid_t owner;
	u32 attrs;
	u32 value_len;
	struct ff_entry *ref;
	bool copied;
};

/* module parameters (main.c) */
extern unsigned int ff_abi_version;
extern unsigned int ff_max_entries;
extern unsigned long ff_max_bytes;
extern unsigned int ff_max_entries_per_uid;
extern unsigned int ff_max_queued_events;

/* table.c */
int ff_table_init(void);
void ff_table_destroy(void);
struct ff_entry *ff_entry_alloc(const char *name, u32 name_len, u32 value_len);
void ff_entry_free(struct ff_entry *e);
void ff_entry_put(struct ff_entry *e);
int ff_table_read(const char *name, u32 name_len, u32 want, u8 *small,
		  struct ff_view *view);
int ff_table_set(struct ff_entry *new, u64 flags, u64 expect_seq);
int ff_table_delete(const char *name, u32 name_len);
long ff_table_delete_all(void);
int ff_table_rename(const char *oldname, u32 oldlen,
		    const char *newname, u32 newlen, u64 flags);
void ff_table_debugfs(struct dentry *dir);
void ff_table_watch(struct list_head *watch);
void ff_table_unwatch(struct list_head *watch);

/* watch.c */
int ff_watch_create(u64 mask, u64 flags);
void ff_notify(struct list_head *watches, u16 type, u64 seq,
	       const char *name, u32 name_len,
	       const char *newname, u32 newname_len);

/* ioctl.c */
long ff_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _FLAGSFIRST_H */
