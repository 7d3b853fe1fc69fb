// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst: the table of entries, its locking and permissions.  The
 * accounting is account.c's, an entry's allocation entry.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"
#include "account.h"

/*
 * Readers (GET) take no lock: they look an entry up under RCU, copy a small
 * value there and take a reference for a big one.  Writers serialise on
 * @lock and tell the watchers under it, so events queue in the order the
 * changes took effect.  A change that touches one entry is a single
 * pointer swap; RENAME and EXCHANGE, which touch two, also take
 * @move_lock around their few stores, so that a reader never sees half of
 * one: it retries its lookup instead.  A reader waits, if ever, for that
 * one short section (on PREEMPT_RT it sleeps on @move_lock's spinlock,
 * boosting the writer), never for @lock and the writers queued on it:
 * dcache's rename_lock is the model.  DELETE_ALL, which touches any
 * number, marks its victims with a new generation and then makes them all
 * absent with one store to @gen; it unlinks and frees them afterwards,
 * preemptibly.
 *
 * A caller waits for @lock killably: the work done under it is bounded
 * (no allocation under it may reclaim memory or wait, every walk of the
 * table reschedules at each entry, and a watcher whose queue is full
 * costs one load), and release paths do not take it at all: a watch fd
 * leaves @watches under @watch_lock, which is held for a few stores.
 */
struct ffst_table {
	struct mutex lock;		/* serialises writers */
	seqlock_t move_lock;		/* RENAME's and EXCHANGE's stores */
	struct rhashtable ht;		/* name -> entry */
	struct list_head entries;	/* lock */
	u64 seq;			/* lock: the last seq handed out */
	u32 gen;			/* the last DELETE_ALL made visible */
	spinlock_t watch_lock;		/* adds to and takes from @watches */
	struct list_head watches;	/* RCU: watchers, for @notify */
	ffst_notify_fn *notify;		/* tells them of a change */
};

static struct ffst_table ffst_table;

/* Tells the watchers, if any, of a change; under the lock. */
static void ffst_table_notify(u16 type, u64 seq, const char *name,
			      u32 name_len, const char *newname,
			      u32 newname_len)
{
	lockdep_assert_held(&ffst_table.lock);
	if (!list_empty(&ffst_table.watches))
		ffst_table.notify(&ffst_table.watches, type, seq, name,
				  name_len, newname, newname_len);
}

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
 * Whether @e is gone for a reader that began when DELETE_ALL generation
 * @gen was the last made visible.  A victim of a later DELETE_ALL is still
 * there for it: that one had not happened yet.
 */
static bool ffst_doomed(const struct ffst_entry *e, u32 gen)
{
	u32 doomed = READ_ONCE(e->doomed);

	return doomed && (s32)(gen - doomed) >= 0;
}

/*
 * Reads the entry @name as one consistent snapshot, with no lock: under RCU,
 * retrying if a RENAME or EXCHANGE was in flight, or if the entry was
 * replaced before a reference could be taken on it.  A value the caller
 * wants (@want is its buffer size) is copied into @small when it fits
 * (FFST_SMALL_VALUE bytes), else the caller gets a reference.  Returns 0
 * or -ENOENT.
 *
 * Each attempt begins its seqlock read section before rcu_read_lock():
 * on PREEMPT_RT a reader that finds a writer inside takes @move_lock's
 * spinlock, a sleeping lock there, to wait for it.  Elsewhere it spins,
 * and no write section is longer than a few stores.
 */
int ffst_table_read(const char *name, u32 name_len, u32 want, u8 *small,
		    struct ffst_view *view)
{
	struct ffst_key key = { .name = name, .len = name_len };
	const struct ffst_value *v = NULL;
	struct ffst_entry *e, *home = NULL;
	unsigned int seq;
	u32 gen;

	for (;;) {
		seq = read_seqbegin(&ffst_table.move_lock);
		rcu_read_lock();
		/* Before the lookup: pairs with ffst_table_delete_all() */
		gen = smp_load_acquire(&ffst_table.gen);
		e = rhashtable_lookup(&ffst_table.ht, &key, ffst_ht_params);
		if (e && ffst_doomed(e, gen))
			e = NULL;
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
				memcpy(small, v->data, v->len);
				view->copied = true;
			} else if (refcount_inc_not_zero(&home->ref)) {
				view->ref = home;
			} else {
				/* replaced or deleted since the lookup: again */
				rcu_read_unlock();
				continue;
			}
		}
		rcu_read_unlock();
		if (!read_seqretry(&ffst_table.move_lock, seq))
			break;
		if (view->ref)
			ffst_entry_put(view->ref);
	}
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

/* Takes @old, holding @val, out of the table and its accounting. */
static void ffst_account_remove(struct ffst_entry *old,
				const struct ffst_value *val)
{
	ffst_account_del_entry(val->payer);
	ffst_mem_leave(old, val);
}

/*
 * Creates @new; on success the table owns it.  -EAGAIN: unlock, bring a
 * spare record and try again (ffst_account_add_entry()).
 */
static int ffst_insert_locked(struct ffst_entry *new, struct ffst_quota **spare)
{
	kuid_t payer = new->own.payer;
	int err;

	err = ffst_account_may_create(payer, ffst_entry_mem(new));
	if (err)
		return err;
	err = ffst_account_add_entry(payer, spare);
	if (err)
		return err;

	new->seq = ffst_table.seq + 1;
	err = rhashtable_insert_fast(&ffst_table.ht, &new->node, ffst_ht_params);
	if (err) {
		ffst_account_del_entry(payer);
		/* -EBUSY or -E2BIG from the hash table mean it cannot grow now */
		return -ENOMEM;
	}
	ffst_mem_use(new, 2);	/* in the table, and its value is */
	list_add_tail(&new->list, &ffst_table.entries);
	ffst_table.seq++;
	ffst_table_notify(FLAGSFIRST_EVENT_SET, new->seq, new->name,
			  new->name_len, NULL, 0);
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
	size_t mem = ffst_entry_mem(new), freed, mine = 0;
	struct ffst_quota *spare = NULL;
	struct ffst_entry *old;
	struct ffst_value *oldval;
	int err;

again:
	if (mutex_lock_killable(&ffst_table.lock)) {
		ffst_account_spare_free(spare);
		return -EINTR;
	}
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
		new->own.payer = ffst_payer(new->own.owner);
		err = ffst_insert_locked(new, &spare);
		if (err != -EAGAIN)
			goto out_unlock;
		mutex_unlock(&ffst_table.lock);
		err = ffst_account_spare(&spare);
		if (err)
			return err;
		goto again;
	}

	oldval = ffst_val(old);
	new->own.owner = oldval->owner;
	new->own.payer = oldval->payer;
	freed = ffst_mem_freed(old, oldval, oldval->payer, &mine);
	err = ffst_account_may_grow(oldval->payer, (ssize_t)(mem - freed),
				    (ssize_t)(mem - mine));
	if (err)
		goto out_unlock;
	new->seq = ++ffst_table.seq;
	ffst_replace_locked(old, new);
	list_replace(&old->list, &new->list);
	/* charged before the old one is uncharged: the payer's record stays */
	ffst_mem_use(new, 2);
	ffst_mem_leave(old, oldval);
	ffst_table_notify(FLAGSFIRST_EVENT_SET, new->seq, new->name,
			  new->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);
	ffst_account_spare_free(spare);
	ffst_entry_retire(old, oldval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	ffst_account_spare_free(spare);
	return err;
}

int ffst_table_delete(const char *name, u32 name_len)
{
	struct ffst_entry *old;
	struct ffst_value *oldval;
	int err;

	if (mutex_lock_killable(&ffst_table.lock))
		return -EINTR;
	old = ffst_lookup_locked(name, name_len);
	err = -ENOENT;
	if (!old)
		goto out_unlock;
	err = ffst_may_modify(old);
	if (err)
		goto out_unlock;
	oldval = ffst_val(old);
	rhashtable_remove_fast(&ffst_table.ht, &old->node, ffst_ht_params);
	list_del(&old->list);
	ffst_account_remove(old, oldval);
	/* A deletion takes a seq too, to order it among the changes. */
	ffst_table_notify(FLAGSFIRST_EVENT_DELETE, ++ffst_table.seq, old->name,
			  old->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);
	ffst_entry_retire(old, oldval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	return err;
}

/*
 * Deletes every entry the caller may delete, as one change: a reader sees
 * the table before or after, never between.  The victims are marked with
 * a new generation under the lock (readers still see them), and one store
 * of that generation makes them all absent for readers at once; only
 * then are they unlinked, told to the watchers and freed, with a chance
 * to reschedule after each.  Nothing runs with preemption off, so no
 * reader waits for the length of the table, and the walk reschedules by
 * entries it passes, not by those it takes: a caller who owns nothing
 * still walks the whole table.  Returns how many went.
 */
long ffst_table_delete_all(void)
{
	bool fowner = ns_capable_noaudit(&init_user_ns, CAP_FOWNER);
	kuid_t fsuid = current_fsuid();
	struct ffst_entry *e, *tmp;
	LIST_HEAD(doomed);
	long count = 0;
	u32 gen;

	if (mutex_lock_killable(&ffst_table.lock))
		return -EINTR;
	gen = ffst_table.gen + 1 ?: 1;	/* 0 means "not doomed" */
	list_for_each_entry_safe(e, tmp, &ffst_table.entries, list) {
		const struct ffst_value *v = ffst_val(e);

		cond_resched();
		if (v->attrs & FLAGSFIRST_ATTR_IMMUTABLE)
			continue;
		if (!uid_eq(v->owner, fsuid) && !fowner)
			continue;
		WRITE_ONCE(e->doomed, gen);
		list_move_tail(&e->list, &doomed);
		count++;
	}
	if (!count)
		goto out_unlock;
	/* Pairs with ffst_table_read(): every mark is seen with the store. */
	smp_store_release(&ffst_table.gen, gen);

	count = 0;
	list_for_each_entry(e, &doomed, list) {
		rhashtable_remove_fast(&ffst_table.ht, &e->node, ffst_ht_params);
		ffst_account_remove(e, ffst_val(e));
		ffst_table_notify(FLAGSFIRST_EVENT_DELETE, ++ffst_table.seq,
				  e->name, e->name_len, NULL, 0);
		count++;
		cond_resched();
	}
out_unlock:
	mutex_unlock(&ffst_table.lock);

	/* Out of the table, so no writer changes their values any more. */
	list_for_each_entry_safe(e, tmp, &doomed, list) {
		ffst_entry_retire(e, rcu_dereference_protected(e->val, true));
		cond_resched();
	}
	return count;
}

/*
 * Swaps two entries' values (owners and attributes go with them); the
 * names stay and both take one new seq.  Nothing is allocated, copied or
 * charged anew: both entries stay in the table and both values too, so
 * every allocation keeps its reasons (ffst_mem_use()).  A reader that
 * overlaps it sees the seqcount move and looks again.
 */
static void ffst_exchange_locked(struct ffst_entry *a, struct ffst_entry *b)
{
	struct ffst_value *va = ffst_val(a), *vb = ffst_val(b);
	u64 seq = ++ffst_table.seq;

	write_seqlock(&ffst_table.move_lock);
	rcu_assign_pointer(a->val, vb);
	rcu_assign_pointer(b->val, va);
	WRITE_ONCE(a->seq, seq);
	WRITE_ONCE(b->seq, seq);
	write_sequnlock(&ffst_table.move_lock);
	ffst_table_notify(FLAGSFIRST_EVENT_EXCHANGE, seq, a->name, a->name_len,
			  b->name, b->name_len);
}

/*
 * Moves @old's value to @new, an entry allocated for the new name with no
 * value of its own, replacing @target if there is one.  The value is not
 * copied: @new takes it over, and only @new's own allocation is charged
 * (to the value's payer); @old's stays charged while the value lives in
 * it.  On success the table owns @new; on failure the caller still does.
 */
static int ffst_move_locked(struct ffst_entry *old, struct ffst_entry *target,
			    struct ffst_entry *new)
{
	struct ffst_value *val = ffst_val(old), *targetval = NULL;
	size_t mem, freed, mine = 0;
	int err = 0;

	ffst_entry_adopt(new, val);
	mem = ffst_entry_mem(new);
	freed = ffst_mem_freed(old, NULL, val->payer, &mine);
	if (target) {
		targetval = ffst_val(target);
		freed += ffst_mem_freed(target, targetval, val->payer, &mine);
	}
	err = ffst_account_may_grow(val->payer, (ssize_t)(mem - freed),
				    (ssize_t)(mem - mine));
	if (err)
		return err;
	new->seq = ffst_table.seq + 1;

	write_seqlock(&ffst_table.move_lock);
	if (target)
		ffst_replace_locked(target, new);
	else
		err = rhashtable_insert_fast(&ffst_table.ht, &new->node,
					     ffst_ht_params);
	if (!err)
		rhashtable_remove_fast(&ffst_table.ht, &old->node, ffst_ht_params);
	write_sequnlock(&ffst_table.move_lock);
	if (err)
		return -ENOMEM;

	ffst_table.seq++;
	list_replace(&old->list, &new->list);
	/* charged before @old is uncharged: the payer's record stays */
	ffst_mem_use(new, 1);	/* in the table; its value is not its own */
	ffst_mem_leave(old, NULL);
	if (target) {
		list_del(&target->list);
		ffst_account_remove(target, targetval);
	}
	ffst_table_notify(FLAGSFIRST_EVENT_RENAME, new->seq, old->name,
			  old->name_len, new->name, new->name_len);
	return 0;
}

int ffst_table_rename(const char *oldname, u32 oldlen,
		      const char *newname, u32 newlen, u64 flags)
{
	struct ffst_entry *old, *target, *new = NULL;
	struct ffst_value *targetval = NULL;
	int err;

	/*
	 * The entry a move needs, allocated before the lock: an allocation
	 * under it could reclaim in the caller's memory cgroup while every
	 * other writer waits.  EXCHANGE allocates nothing.
	 */
	if (!(flags & FLAGSFIRST_RENAME_EXCHANGE)) {
		new = ffst_entry_alloc(newname, newlen, 0);
		if (!new)
			return -ENOMEM;
	}
	if (mutex_lock_killable(&ffst_table.lock)) {
		err = -EINTR;
		goto out_free_new;
	}
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
	err = ffst_move_locked(old, target, new);
	mutex_unlock(&ffst_table.lock);
	if (err)
		goto out_free_new;
	/* @old's value went to the new entry, with its reference */
	ffst_entry_put(old);
	if (target)
		ffst_entry_retire(target, targetval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
out_free_new:
	if (new)
		ffst_entry_free(new);
	return err;
}

/*
 * Publishes a watcher: from the next change on, it is told of every one.
 * It waits for no writer: a change being told now may pass it or not.
 */
void ffst_table_watch(struct list_head *watch)
{
	spin_lock(&ffst_table.watch_lock);
	list_add_tail_rcu(watch, &ffst_table.watches);
	spin_unlock(&ffst_table.watch_lock);
}

/*
 * Unpublishes a watcher, from a release path, without waiting for a writer:
 * one may still be telling it of a change until a grace period has passed,
 * so the caller frees it only then (call_rcu()).
 */
void ffst_table_unwatch(struct list_head *watch)
{
	spin_lock(&ffst_table.watch_lock);
	list_del_rcu(watch);
	spin_unlock(&ffst_table.watch_lock);
}

/* For the debugfs stats, which tests check against the table. */
void ffst_table_stats(struct ffst_table_stats *s)
{
	struct ffst_account_stats acct;
	unsigned int buckets;

	mutex_lock(&ffst_table.lock);
	ffst_account_stats(&acct);
	s->entries = acct.entries;
	s->bytes = acct.bytes;
	s->uids = acct.uids;
	s->seq = ffst_table.seq;
	rcu_read_lock();
	buckets = rcu_dereference(ffst_table.ht.tbl)->size;
	rcu_read_unlock();
	s->allocated = ffst_entry_allocated();
	s->memory = s->allocated + buckets * sizeof(void *);
	mutex_unlock(&ffst_table.lock);
}

int ffst_table_init(ffst_notify_fn *notify)
{
	mutex_init(&ffst_table.lock);
	seqlock_init(&ffst_table.move_lock);
	INIT_LIST_HEAD(&ffst_table.entries);
	spin_lock_init(&ffst_table.watch_lock);
	INIT_LIST_HEAD(&ffst_table.watches);
	ffst_table.notify = notify;
	ffst_account_init(&ffst_table.lock);
	return rhashtable_init(&ffst_table.ht, &ffst_ht_params);
}

/* No file is open any more, so nothing can reach the table. */
void ffst_table_destroy(void)
{
	struct ffst_entry *e, *tmp;

	rhashtable_destroy(&ffst_table.ht);
	list_for_each_entry_safe(e, tmp, &ffst_table.entries, list) {
		ffst_entry_retire(e, rcu_dereference_protected(e->val, true));
		cond_resched();
	}
	ffst_account_destroy();
	/* Big values are freed by a callback in this module: wait for them. */
	rcu_barrier();
}
