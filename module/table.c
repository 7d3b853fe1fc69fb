// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: the table of entries, its locking, permissions and limits. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"

/* Entries a uid owns, for max_entries_per_uid. */
struct ffst_quota {
	struct hlist_node node;
	kuid_t uid;
	unsigned int count;
};

/*
 * Readers (GET) take no lock: they look an entry up under RCU, copy a small
 * value there and take a reference for a big one.  Writers serialise on
 * @lock and tell the watchers under it, so events queue in the order the
 * changes took effect.  A change that touches one entry is a single
 * pointer swap; one that touches several (RENAME, EXCHANGE, DELETE_ALL) is
 * also wrapped in @seqc, so that a reader never sees half of it: it
 * retries its lookup instead.
 */
struct ffst_table {
	struct mutex lock;		/* serialises writers */
	seqcount_mutex_t seqc;
	struct rhashtable ht;		/* name -> entry */
	struct list_head entries;	/* lock */
	u64 seq;			/* lock: the last seq handed out */
	unsigned int nr_entries;	/* lock */
	size_t nr_bytes;		/* lock: names and values */
	atomic_long_t nr_mem;		/* what the entries take in slab */
	DECLARE_HASHTABLE(quotas, 6);	/* lock: struct ffst_quota by uid */
	struct list_head watches;	/* lock: watchers (watch.c) */
};

static struct ffst_table ffst_table;

struct ffst_key {
	const char *name;
	u32 len;
};

static u32 ffst_key_hash(const void *data, u32 len, u32 seed)
{
	const struct ffst_key *key = data;

	return jhash(key->name, key->len, seed);
}

static u32 ffst_obj_hash(const void *data, u32 len, u32 seed)
{
	const struct ffst_entry *e = data;

	return jhash(e->name, e->name_len, seed);
}

static int ffst_obj_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct ffst_key *key = arg->key;
	const struct ffst_entry *e = obj;

	return e->name_len != key->len || memcmp(e->name, key->name, key->len);
}

static const struct rhashtable_params ffst_ht_params = {
	.head_offset = offsetof(struct ffst_entry, node),
	.hashfn = ffst_key_hash,
	.obj_hashfn = ffst_obj_hash,
	.obj_cmpfn = ffst_obj_cmp,
	.automatic_shrinking = true,
};

/* @e's value, for a writer (which holds the lock). */
static struct ffst_value *ffst_val(const struct ffst_entry *e)
{
	return rcu_dereference_protected(e->val,
					 lockdep_is_held(&ffst_table.lock));
}

/* What @e counts against max_bytes: its name and the value it holds. */
static size_t ffst_entry_bytes(const struct ffst_entry *e)
{
	return e->name_len + ffst_val(e)->len;
}

/*
 * name[] begins at its offset, inside the padding that rounds sizeof(struct
 * ffst_entry) up to 8 bytes: struct_size() would count those bytes again.
 * Both lengths are bounded (FLAGSFIRST_NAME_MAX, FLAGSFIRST_VALUE_MAX).
 */
static size_t ffst_entry_size(u32 name_len, u32 value_len)
{
	return offsetof(struct ffst_entry, name) + name_len + 1 + value_len;
}

/* What an entry really takes, kmalloc's rounding included. */
static size_t ffst_entry_mem(const struct ffst_entry *e)
{
	return kmalloc_size_roundup(ffst_entry_size(e->name_len, e->own.len));
}

/*
 * An entry named @name holding a new value of @value_len bytes, its own,
 * which the caller fills: one reference for the table, one for @val.
 */
struct ffst_entry *ffst_entry_alloc(const char *name, u32 name_len, u32 value_len)
{
	struct ffst_entry *e;

	e = kmalloc(ffst_entry_size(name_len, value_len), GFP_KERNEL_ACCOUNT);
	if (!e)
		return NULL;
	refcount_set(&e->ref, 2);
	e->seq = 0;
	e->own.owner = GLOBAL_ROOT_UID;
	e->own.attrs = 0;
	e->own.len = value_len;
	RCU_INIT_POINTER(e->val, &e->own);
	e->name_len = name_len;
	memcpy(e->name, name, name_len);
	e->name[name_len] = '\0';
	atomic_long_add(ffst_entry_mem(e), &ffst_table.nr_mem);
	return e;
}

/* Frees an entry that was never published. */
void ffst_entry_free(struct ffst_entry *e)
{
	atomic_long_sub(ffst_entry_mem(e), &ffst_table.nr_mem);
	kfree(e);
}

void ffst_entry_put(struct ffst_entry *e)
{
	if (refcount_dec_and_test(&e->ref)) {
		atomic_long_sub(ffst_entry_mem(e), &ffst_table.nr_mem);
		kfree_rcu(e, rcu);
	}
}

/*
 * Lets go of @e once it is out of the table: its table reference and the
 * one it holds on its value's home.
 */
static void ffst_entry_retire(struct ffst_entry *e, struct ffst_value *val)
{
	struct ffst_entry *home = ffst_value_home(val);

	ffst_entry_put(e);
	ffst_entry_put(home);
}

/*
 * A new entry named @name that takes over @val, with the reference on
 * @val's home that went with it: RENAME moves a value without a copy.
 */
static struct ffst_entry *ffst_entry_adopt(const char *name, u32 name_len,
				       struct ffst_value *val)
{
	struct ffst_entry *e;

	e = ffst_entry_alloc(name, name_len, 0);
	if (!e)
		return NULL;
	RCU_INIT_POINTER(e->val, val);
	refcount_set(&e->ref, 1);	/* its own (empty) value is nobody's */
	return e;
}

static struct ffst_entry *ffst_lookup_locked(const char *name, u32 name_len)
{
	struct ffst_key key = { .name = name, .len = name_len };

	lockdep_assert_held(&ffst_table.lock);
	return rhashtable_lookup_fast(&ffst_table.ht, &key, ffst_ht_params);
}

/* Puts @new where @old is; cannot fail, as @old is in the table. */
static void ffst_replace_locked(struct ffst_entry *old, struct ffst_entry *new)
{
	lockdep_assert_held(&ffst_table.lock);
	WARN_ON_ONCE(rhashtable_replace_fast(&ffst_table.ht, &old->node,
					     &new->node, ffst_ht_params));
}

/*
 * Reads the entry @name as one consistent snapshot, with no lock: under RCU,
 * retrying if a change of several entries was in flight, or if the entry
 * was replaced before a reference could be taken on it.  A value the
 * caller wants (@want is its buffer size) is copied into @small when it
 * fits (FFST_SMALL_VALUE bytes), else the caller gets a reference.  Returns
 * 0 or -ENOENT.
 */
int ffst_table_read(const char *name, u32 name_len, u32 want, u8 *small,
		  struct ffst_view *view)
{
	struct ffst_key key = { .name = name, .len = name_len };
	const struct ffst_value *v = NULL;
	struct ffst_entry *e, *home = NULL;
	unsigned int seq;

	rcu_read_lock();
	for (;;) {
		seq = read_seqcount_begin(&ffst_table.seqc);
		e = rhashtable_lookup(&ffst_table.ht, &key, ffst_ht_params);
		view->ref = NULL;
		view->copied = false;
		if (e) {
			v = rcu_dereference(e->val);
			home = ffst_value_home(v);
			view->seq = READ_ONCE(e->seq);
			view->owner = v->owner;
			view->attrs = v->attrs;
			view->value_len = v->len;
		}
		if (e && want && want >= v->len) {
			if (v->len <= FFST_SMALL_VALUE) {
				memcpy(small, ffst_entry_value(home), v->len);
				view->copied = true;
			} else if (refcount_inc_not_zero(&home->ref)) {
				view->ref = home;
			} else {
				/* replaced or deleted since the lookup: again */
				continue;
			}
		}
		if (!read_seqcount_retry(&ffst_table.seqc, seq))
			break;
		if (view->ref)
			ffst_entry_put(view->ref);
	}
	rcu_read_unlock();
	return e ? 0 : -ENOENT;
}

/* Immutable entries are EPERM even for root, as with chattr +i. */
static int ffst_may_modify(const struct ffst_entry *e)
{
	const struct ffst_value *v = ffst_val(e);

	if (v->attrs & FLAGSFIRST_ATTR_IMMUTABLE)
		return -EPERM;
	if (uid_eq(v->owner, current_fsuid()) || capable(CAP_FOWNER))
		return 0;
	return -EPERM;
}

static struct ffst_quota *ffst_quota_find(kuid_t uid)
{
	struct ffst_quota *q;

	lockdep_assert_held(&ffst_table.lock);
	hash_for_each_possible(ffst_table.quotas, q, node, __kuid_val(uid))
		if (uid_eq(q->uid, uid))
			return q;
	return NULL;
}

static void ffst_quota_uncharge(kuid_t uid)
{
	struct ffst_quota *q = ffst_quota_find(uid);

	if (WARN_ON_ONCE(!q))
		return;
	if (--q->count == 0) {
		hash_del(&q->node);
		kfree(q);
	}
}

/* Takes @old out of the table's accounting; the caller unpublishes it. */
static void ffst_account_remove(struct ffst_entry *old)
{
	list_del(&old->list);
	ffst_table.nr_entries--;
	ffst_table.nr_bytes -= ffst_entry_bytes(old);
	ffst_quota_uncharge(ffst_val(old)->owner);
}

/*
 * @new replaces @old: same owner, so only the bytes change.  The caller
 * swaps them in the hash table.
 */
static void ffst_account_replace(struct ffst_entry *old, struct ffst_entry *new)
{
	list_replace(&old->list, &new->list);
	ffst_table.nr_bytes += ffst_entry_bytes(new);
	ffst_table.nr_bytes -= ffst_entry_bytes(old);
}

static bool ffst_bytes_fit(size_t add, size_t sub)
{
	return ffst_table.nr_bytes - sub + add <= READ_ONCE(ffst_max_bytes);
}

/* Creates @new; on success the table owns it. */
static int ffst_insert_locked(struct ffst_entry *new)
{
	struct ffst_quota *q, *new_q = NULL;
	int err;

	if (ffst_table.nr_entries >= READ_ONCE(ffst_max_entries))
		return -ENOSPC;
	if (!ffst_bytes_fit(ffst_entry_bytes(new), 0))
		return -ENOSPC;
	q = ffst_quota_find(new->own.owner);
	if (q && q->count >= READ_ONCE(ffst_max_entries_per_uid) &&
	    !capable(CAP_SYS_RESOURCE))
		return -EDQUOT;
	if (!q) {
		new_q = kzalloc(sizeof(*new_q), GFP_KERNEL_ACCOUNT);
		if (!new_q)
			return -ENOMEM;
		new_q->uid = new->own.owner;
		q = new_q;
	}

	new->seq = ffst_table.seq + 1;
	err = rhashtable_insert_fast(&ffst_table.ht, &new->node, ffst_ht_params);
	if (err) {
		kfree(new_q);
		/* -EBUSY or -E2BIG from the hash table mean it cannot grow now */
		return -ENOMEM;
	}
	if (new_q)
		hash_add(ffst_table.quotas, &new_q->node, __kuid_val(new_q->uid));
	q->count++;
	list_add_tail(&new->list, &ffst_table.entries);
	ffst_table.nr_entries++;
	ffst_table.nr_bytes += ffst_entry_bytes(new);
	ffst_table.seq++;
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_SET, new->seq,
		  new->name, new->name_len, NULL, 0);
	return 0;
}

/*
 * Publishes @new (name and value filled in) under its name.  @flags were
 * validated by the caller, CAP_LINUX_IMMUTABLE included; with IF_SEQ the
 * entry must exist with seq @expect_seq (a compare-and-set).  On success the
 * table owns @new; on failure the caller still does.
 */
int ffst_table_set(struct ffst_entry *new, u64 flags, u64 expect_seq)
{
	struct ffst_entry *old;
	struct ffst_value *oldval;
	int err;

	mutex_lock(&ffst_table.lock);
	old = ffst_lookup_locked(new->name, new->name_len);
	err = -EEXIST;
	if (old && (flags & FLAGSFIRST_SET_NOREPLACE))
		goto out_unlock;
	err = -ENOENT;
	if (!old && (flags & (FLAGSFIRST_SET_REPLACE | FLAGSFIRST_SET_IF_SEQ)))
		goto out_unlock;
	err = -ESTALE;
	if (old && (flags & FLAGSFIRST_SET_IF_SEQ) && old->seq != expect_seq)
		goto out_unlock;
	if (old) {
		err = ffst_may_modify(old);
		if (err)
			goto out_unlock;
	}

	if (flags & FLAGSFIRST_SET_IMMUTABLE)
		new->own.attrs |= FLAGSFIRST_ATTR_IMMUTABLE;

	if (!old) {
		new->own.owner = current_fsuid();
		err = ffst_insert_locked(new);
		goto out_unlock;
	}

	err = -ENOSPC;
	if (!ffst_bytes_fit(ffst_entry_bytes(new), ffst_entry_bytes(old)))
		goto out_unlock;
	oldval = ffst_val(old);
	new->own.owner = oldval->owner;
	new->seq = ++ffst_table.seq;
	ffst_replace_locked(old, new);
	ffst_account_replace(old, new);
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_SET, new->seq,
		  new->name, new->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);
	ffst_entry_retire(old, oldval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	return err;
}

int ffst_table_delete(const char *name, u32 name_len)
{
	struct ffst_entry *old;
	struct ffst_value *oldval;
	int err;

	mutex_lock(&ffst_table.lock);
	old = ffst_lookup_locked(name, name_len);
	err = -ENOENT;
	if (!old)
		goto out_unlock;
	err = ffst_may_modify(old);
	if (err)
		goto out_unlock;
	oldval = ffst_val(old);
	rhashtable_remove_fast(&ffst_table.ht, &old->node, ffst_ht_params);
	ffst_account_remove(old);
	/* A deletion takes a seq too, to order it among the changes. */
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_DELETE, ++ffst_table.seq,
		  old->name, old->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);
	ffst_entry_retire(old, oldval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	return err;
}

/*
 * Deletes every entry the caller may delete, as one change: a reader sees
 * the table before or after, never between.  Returns how many went.
 */
long ffst_table_delete_all(void)
{
	struct ffst_entry *e, *tmp;
	LIST_HEAD(doomed);
	long count = 0;

	mutex_lock(&ffst_table.lock);
	write_seqcount_begin(&ffst_table.seqc);
	list_for_each_entry_safe(e, tmp, &ffst_table.entries, list) {
		const struct ffst_value *v = ffst_val(e);

		if (v->attrs & FLAGSFIRST_ATTR_IMMUTABLE)
			continue;
		if (!uid_eq(v->owner, current_fsuid()) &&
		    !ns_capable_noaudit(&init_user_ns, CAP_FOWNER))
			continue;
		rhashtable_remove_fast(&ffst_table.ht, &e->node, ffst_ht_params);
		ffst_account_remove(e);
		list_add(&e->list, &doomed);
		count++;
	}
	write_seqcount_end(&ffst_table.seqc);
	/* Outside the seqcount section: queueing allocates. */
	list_for_each_entry_reverse(e, &doomed, list)
		ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_DELETE,
			  ++ffst_table.seq, e->name, e->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);

	/* Out of the table, so no writer changes their values any more. */
	list_for_each_entry_safe(e, tmp, &doomed, list)
		ffst_entry_retire(e, rcu_dereference_protected(e->val, true));
	return count;
}

/*
 * Swaps two entries' values (owners and attributes go with them); the
 * names stay and both take one new seq.  Nothing is allocated or copied,
 * so it cannot fail; a reader that overlaps it sees the seqcount move and
 * looks again.
 */
static void ffst_exchange_locked(struct ffst_entry *a, struct ffst_entry *b)
{
	struct ffst_value *va = ffst_val(a), *vb = ffst_val(b);
	u64 seq = ++ffst_table.seq;

	write_seqcount_begin(&ffst_table.seqc);
	rcu_assign_pointer(a->val, vb);
	rcu_assign_pointer(b->val, va);
	WRITE_ONCE(a->seq, seq);
	WRITE_ONCE(b->seq, seq);
	write_seqcount_end(&ffst_table.seqc);
	/* The bytes of names and values, and the owners' counts, are as before. */
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_EXCHANGE, seq,
		  a->name, a->name_len, b->name, b->name_len);
}

/*
 * Moves @old's value to a new entry named @newname, replacing @target if
 * there is one.  The value is not copied: the new entry takes it over.
 */
static int ffst_move_locked(struct ffst_entry *old, struct ffst_entry *target,
			  const char *newname, u32 newlen)
{
	size_t sub = ffst_entry_bytes(old) + (target ? ffst_entry_bytes(target) : 0);
	struct ffst_value *val = ffst_val(old);
	struct ffst_entry *new;
	int err = 0;

	if (!ffst_bytes_fit(newlen + val->len, sub))
		return -ENOSPC;
	new = ffst_entry_adopt(newname, newlen, val);
	if (!new)
		return -ENOMEM;
	new->seq = ffst_table.seq + 1;

	write_seqcount_begin(&ffst_table.seqc);
	if (target)
		ffst_replace_locked(target, new);
	else
		err = rhashtable_insert_fast(&ffst_table.ht, &new->node,
					     ffst_ht_params);
	if (!err)
		rhashtable_remove_fast(&ffst_table.ht, &old->node, ffst_ht_params);
	write_seqcount_end(&ffst_table.seqc);
	if (err) {
		ffst_entry_free(new);
		return -ENOMEM;
	}

	ffst_table.seq++;
	ffst_account_replace(old, new);
	if (target)
		ffst_account_remove(target);
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_RENAME, new->seq,
		  old->name, old->name_len, new->name, new->name_len);
	return 0;
}

int ffst_table_rename(const char *oldname, u32 oldlen,
		    const char *newname, u32 newlen, u64 flags)
{
	struct ffst_value *targetval = NULL;
	struct ffst_entry *old, *target;
	int err;

	mutex_lock(&ffst_table.lock);
	old = ffst_lookup_locked(oldname, oldlen);
	target = ffst_lookup_locked(newname, newlen);
	err = -ENOENT;
	if (!old || (!target && (flags & FLAGSFIRST_RENAME_EXCHANGE)))
		goto out_unlock;
	err = -EEXIST;
	if (target && (flags & FLAGSFIRST_RENAME_NOREPLACE))
		goto out_unlock;
	/* As rename(2): onto itself succeeds before any permission check. */
	err = 0;
	if (old == target)
		goto out_unlock;
	err = ffst_may_modify(old);
	if (!err && target)
		err = ffst_may_modify(target);
	if (err)
		goto out_unlock;

	if (flags & FLAGSFIRST_RENAME_EXCHANGE) {
		ffst_exchange_locked(old, target);
		goto out_unlock;
	}
	if (target)
		targetval = ffst_val(target);
	err = ffst_move_locked(old, target, newname, newlen);
	mutex_unlock(&ffst_table.lock);
	if (!err) {
		/* @old's value went to the new entry, with its reference */
		ffst_entry_put(old);
		if (target)
			ffst_entry_retire(target, targetval);
	}
	return err;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	return err;
}

void ffst_table_watch(struct list_head *watch)
{
	mutex_lock(&ffst_table.lock);
	list_add_tail(watch, &ffst_table.watches);
	mutex_unlock(&ffst_table.lock);
}

void ffst_table_unwatch(struct list_head *watch)
{
	mutex_lock(&ffst_table.lock);
	list_del(watch);
	mutex_unlock(&ffst_table.lock);
}

/* The table's own accounting, for tests that check it against the table. */
static int ffst_stats_show(struct seq_file *m, void *unused)
{
	unsigned int bkt, uids = 0, buckets;
	struct ffst_quota *q;

	mutex_lock(&ffst_table.lock);
	hash_for_each(ffst_table.quotas, bkt, q, node)
		uids++;
	rcu_read_lock();
	buckets = rcu_dereference(ffst_table.ht.tbl)->size;
	rcu_read_unlock();
	/* memory: the entries' slab objects and the hash table's buckets */
	seq_printf(m, "entries %u\nbytes %zu\nseq %llu\nuids %u\nmemory %lu\n",
		   ffst_table.nr_entries, ffst_table.nr_bytes, ffst_table.seq, uids,
		   atomic_long_read(&ffst_table.nr_mem) + buckets * sizeof(void *));
	mutex_unlock(&ffst_table.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ffst_stats);

void ffst_table_debugfs(struct dentry *dir)
{
	debugfs_create_file("stats", 0444, dir, NULL, &ffst_stats_fops);
}

int ffst_table_init(void)
{
	mutex_init(&ffst_table.lock);
	seqcount_mutex_init(&ffst_table.seqc, &ffst_table.lock);
	INIT_LIST_HEAD(&ffst_table.entries);
	INIT_LIST_HEAD(&ffst_table.watches);
	hash_init(ffst_table.quotas);
	return rhashtable_init(&ffst_table.ht, &ffst_ht_params);
}

/* No file is open any more, so nothing can reach the table. */
void ffst_table_destroy(void)
{
	struct ffst_entry *e, *tmp;
	struct ffst_quota *q;
	struct hlist_node *n;
	int bkt;

	rhashtable_destroy(&ffst_table.ht);
	list_for_each_entry_safe(e, tmp, &ffst_table.entries, list)
		ffst_entry_retire(e, rcu_dereference_protected(e->val, true));
	hash_for_each_safe(ffst_table.quotas, bkt, n, q, node)
		kfree(q);
	/* kfree_rcu() callbacks need no module code: no rcu_barrier() */
}
