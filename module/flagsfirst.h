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
 * changes once published.  Its bytes live in, or hang off, the allocation
 * of the entry created with it (its home, see ffst_value_home()), but it
 * can move to another entry: EXCHANGE swaps two entries' values, RENAME
 * hands one to the entry of the new name.  Neither allocates or copies.
 */
#define FFST_MEM_UNIT	8	/* struct ffst_value's @home_units */

struct ffst_value {
	kuid_t owner;
	/*
	 * Whom the per-user limits charge for it: @owner, or for an owner in
	 * a user namespace, the uid of the initial namespace that owns that
	 * namespace (ffst_payer()).
	 */
	kuid_t payer;
	u16 attrs;			/* FLAGSFIRST_ATTR_* */
	/*
	 * What the home's allocations take, with the allocators' rounding,
	 * worked out once when it is allocated: the byte limits count it
	 * when the entry comes and goes, on SET's and RENAME's fast paths.
	 * In 8-byte units (FFST_MEM_UNIT; kmalloc rounds to them, vmalloc to
	 * pages), so that the struct has no padding: with @payer, a u32 here
	 * made an entry of a 16-byte name and a 32-byte value 133 bytes,
	 * kmalloc-192, 64 bytes more than the 125 of kmalloc-128.
	 */
	u16 home_units;
	u32 len;
	/*
	 * After the home's name, or, for a value that would make one kmalloc()
	 * round up by more than a page, pages of its own (vmalloc).
	 */
	u8 *data;
};

/*
 * A name in the table and the value it holds.  Changing a value publishes
 * a new entry in its place, so an RCU reader that found an entry sees a
 * consistent one without a lock; only EXCHANGE changes an entry in place
 * (@val and @seq), inside the table's seqcount, which sends a reader that
 * overlapped it round again, and DELETE_ALL marks its victims (@doomed)
 * before one store makes them all absent at once.
 *
 * @ref keeps the allocation, and with it @own's bytes: one for being in
 * the table, one for each entry whose @val is @own (itself, or another
 * after EXCHANGE or RENAME), one per reader holding the value.
 *
 * @in_use says why the byte limits count the allocation: one for being in
 * the table, one while @own is the value of an entry in the table.  It is
 * counted, once, against @own.payer (for an entry RENAME made to hold a
 * moved value, the payer of that value) from the first to the last.
 * EXCHANGE changes neither, so it moves no charge.
 */
struct ffst_entry {
	struct rhash_head node;		/* in ffst_table.ht */
	union {
		struct list_head list;	/* while in the table: its entries */
		struct rcu_head rcu;	/* once out of it and unreferenced */
	};
	u64 seq;
	struct ffst_value __rcu *val;	/* &own, or another entry's own */
	refcount_t ref;
	u32 doomed;			/* the DELETE_ALL that takes it, or 0 */
	struct ffst_value own;		/* len 0 if the entry never had a value */
	u16 in_use;			/* table lock */
	u16 name_len;
	char name[];			/* name_len bytes and a NUL, then own's bytes */
};

/* What @e's allocation takes (struct ffst_value's @home_units). */
static inline size_t ffst_entry_mem(const struct ffst_entry *e)
{
	return (size_t)e->own.home_units * FFST_MEM_UNIT;
}

/* The entry whose allocation holds @v's bytes. */
static inline struct ffst_entry *ffst_value_home(const struct ffst_value *v)
{
	return container_of(v, struct ffst_entry, own);
}

/* GET copies values up to this size on the stack, without a reference */
#define FFST_SMALL_VALUE	64

/*
 * What ffst_table_read() saw of an entry.  The value is in the caller's
 * small buffer, or is @ref's own (a reference to put), or was not wanted
 * (a size query, or a buffer too small).
 */
struct ffst_view {
	u64 seq;
	kuid_t owner;
	u32 attrs;
	u32 value_len;
	struct ffst_entry *ref;
	bool copied;
};

/* module parameters (main.c) */
extern unsigned int ffst_abi_version;
extern unsigned int ffst_max_entries;
extern unsigned long ffst_max_bytes;
extern unsigned int ffst_max_entries_per_uid;
extern unsigned long ffst_max_bytes_per_uid;
extern unsigned int ffst_max_watches_per_uid;
extern unsigned int ffst_max_queued_events;

/* entry.c */
struct ffst_entry *ffst_entry_alloc(const char *name, u32 name_len,
				    u32 value_len);
void ffst_entry_free(struct ffst_entry *e);
void ffst_entry_put(struct ffst_entry *e);
void ffst_entry_retire(struct ffst_entry *e, struct ffst_value *val);
void ffst_entry_adopt(struct ffst_entry *e, struct ffst_value *val);
long ffst_entry_allocated(void);

/*
 * table.c.  It tells one listener of its changes, set at init: watch.c's
 * ffst_notify(), given the list of the watchers published with
 * ffst_table_watch(), under the table's lock; the list is RCU's, as
 * ffst_table_unwatch() takes a watcher off without that lock.  The table
 * knows nothing else of watchers.
 */
typedef void ffst_notify_fn(struct list_head *watchers, u16 type, u64 seq,
			    const char *name, u32 name_len,
			    const char *newname, u32 newname_len);

int ffst_table_init(ffst_notify_fn *notify);
void ffst_table_destroy(void);
int ffst_table_read(const char *name, u32 name_len, u32 want, u8 *small,
		    struct ffst_view *view);
int ffst_table_set(struct ffst_entry *new, u64 flags, u64 expect_seq);
int ffst_table_delete(const char *name, u32 name_len);
long ffst_table_delete_all(void);
int ffst_table_rename(const char *oldname, u32 oldlen,
		      const char *newname, u32 newlen, u64 flags);
void ffst_table_watch(struct list_head *watch);
void ffst_table_unwatch(struct list_head *watch);

/* What the debugfs stats show of the table (main.c). */
struct ffst_table_stats {
	unsigned int entries;
	size_t bytes;
	u64 seq;
	unsigned int uids;
	long allocated;
	unsigned long memory;
};

void ffst_table_stats(struct ffst_table_stats *s);

/* watch.c */
int ffst_watch_create(u64 mask, u64 flags);
ffst_notify_fn ffst_notify;
long ffst_watch_records(void);

/* ioctl.c */
int ffst_ioctl_init(void);
long ffst_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _FLAGSFIRST_H */
