// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: the table of entries, its locking, permissions and limits. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <linux/vmalloc.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"

/*
 * What one payer (ffst_payer()) has in the table and how many watch fds it
 * holds, for the per-user limits.  It exists while any of the three is
 * non-zero.
 */
struct ffst_quota {
	struct hlist_node node;
	kuid_t uid;
	unsigned int entries;		/* max_entries_per_uid */
	unsigned int watches;		/* max_watches_per_uid */
	size_t bytes;			/* max_bytes_per_uid */
};

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
 * (no allocation under it may reclaim memory or wait, and every walk of
 * the table reschedules), so release paths, which must not fail, take it
 * plainly and never wait long either.
 */
struct ffst_table {
	struct mutex lock;		/* serialises writers */
	seqlock_t move_lock;		/* RENAME's and EXCHANGE's stores */
	struct rhashtable ht;		/* name -> entry */
	struct list_head entries;	/* lock */
	u64 seq;			/* lock: the last seq handed out */
	u32 gen;			/* the last DELETE_ALL made visible */
	unsigned int nr_entries;	/* lock */
	size_t nr_bytes;		/* lock: what the entries are charged */
	atomic_long_t nr_mem;		/* what the entries take in memory */
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

/*
 * name[] begins at its offset, inside the padding that rounds sizeof(struct
 * ffst_entry) up to 8 bytes: struct_size() would count those bytes again.
 * Both lengths are bounded (FLAGSFIRST_NAME_MAX, FLAGSFIRST_VALUE_MAX).
 */
static_assert(FLAGSFIRST_NAME_MAX <= U16_MAX);	/* ffst_entry.name_len */

static size_t ffst_entry_size(u32 name_len, u32 value_len)
{
	return offsetof(struct ffst_entry, name) + name_len + 1 + value_len;
}

/*
 * What an entry with a name of @name_len bytes and a value of @value_len
 * takes, with the allocators' rounding; *@apart says whether the value
 * gets pages of its own: when one kmalloc() of entry and value would round
 * up by more than a page (a 64 KiB value would take 128 KiB), so that no
 * allocation is more than a page bigger than what it holds.
 */
static size_t ffst_alloc_mem(u32 name_len, u32 value_len, bool *apart)
{
	size_t mem = kmalloc_size_roundup(ffst_entry_size(name_len, value_len));

	*apart = mem > (size_t)value_len + PAGE_SIZE;
	if (*apart)
		mem = kmalloc_size_roundup(ffst_entry_size(name_len, 0)) +
		      PAGE_ALIGN(value_len);
	return mem;
}

/* Worked out once, at allocation (struct ffst_value's @home_mem). */
static size_t ffst_entry_mem(const struct ffst_entry *e)
{
	return e->own.home_mem;
}

/*
 * An entry named @name holding a new value of @value_len bytes, its own,
 * which the caller fills: one reference for the table, one for @val.
 * Charged to the caller's memory cgroup, as everything it creates.
 */
struct ffst_entry *ffst_entry_alloc(const char *name, u32 name_len,
				    u32 value_len)
{
	struct ffst_entry *e;
	size_t mem;
	bool apart;

	mem = ffst_alloc_mem(name_len, value_len, &apart);
	e = kmalloc(ffst_entry_size(name_len, apart ? 0 : value_len),
		    GFP_KERNEL_ACCOUNT);
	if (!e)
		return NULL;
	e->own.data = (u8 *)e->name + name_len + 1;
	if (apart) {
		e->own.data = __vmalloc(value_len, GFP_KERNEL_ACCOUNT);
		if (!e->own.data) {
			kfree(e);
			return NULL;
		}
	}
	refcount_set(&e->ref, 2);
	e->seq = 0;
	e->doomed = 0;
	e->in_use = 0;
	e->own.owner = GLOBAL_ROOT_UID;
	e->own.payer = GLOBAL_ROOT_UID;
	e->own.attrs = 0;
	e->own.len = value_len;
	e->own.home_mem = mem;
	RCU_INIT_POINTER(e->val, &e->own);
	e->name_len = name_len;
	memcpy(e->name, name, name_len);
	e->name[name_len] = '\0';
	atomic_long_add(mem, &ffst_table.nr_mem);
	return e;
}

static void ffst_entry_kfree(struct ffst_entry *e)
{
	if (is_vmalloc_addr(e->own.data))
		vfree(e->own.data);
	kfree(e);
}

static void ffst_entry_free_rcu(struct rcu_head *rcu)
{
	ffst_entry_kfree(container_of(rcu, struct ffst_entry, rcu));
}

/* Frees an entry that was never published. */
void ffst_entry_free(struct ffst_entry *e)
{
	atomic_long_sub(ffst_entry_mem(e), &ffst_table.nr_mem);
	ffst_entry_kfree(e);
}

void ffst_entry_put(struct ffst_entry *e)
{
	if (!refcount_dec_and_test(&e->ref))
		return;
	atomic_long_sub(ffst_entry_mem(e), &ffst_table.nr_mem);
	/* ffst_table_destroy() waits for these callbacks (rcu_barrier()) */
	if (is_vmalloc_addr(e->own.data))
		call_rcu(&e->rcu, ffst_entry_free_rcu);
	else
		kfree_rcu(e, rcu);
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
 * Makes @e, a new entry allocated with no value of its own, take over
 * @val, with the reference on @val's home that went with it: RENAME moves
 * a value without a copy.  Its own allocation is counted against @val's
 * payer.
 */
static void ffst_entry_adopt(struct ffst_entry *e, struct ffst_value *val)
{
	RCU_INIT_POINTER(e->val, val);
	refcount_set(&e->ref, 1);	/* its own (empty) value is nobody's */
	e->own.owner = val->owner;
	e->own.payer = val->payer;
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

/*
 * Whom the per-user limits charge for @uid acting in the caller's user
 * namespace, as the kernel's ucounts charge inotify's instances: a uid of
 * the initial namespace, itself; a uid of any other, the uid of the
 * initial namespace that created its outermost namespace, through every
 * level.  Each level would count what the levels below it create, under
 * the same limits, so the initial namespace's level is the one that binds:
 * a login's subordinate uids share its shares instead of multiplying them.
 */
kuid_t ffst_payer(kuid_t uid)
{
	const struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns)
		return uid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
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

/*
 * @uid's record, made if it has none yet: from *@spare if the caller
 * brought one, else without waiting.  Nothing under the table's lock may
 * reclaim memory, or every writer would wait for the caller's memory
 * cgroup: NULL tells the caller to unlock, bring a spare
 * (ffst_quota_spare()) and try again, as xas_nomem() does.
 */
static struct ffst_quota *ffst_quota_get(kuid_t uid, struct ffst_quota **spare)
{
	struct ffst_quota *q = ffst_quota_find(uid);

	if (q)
		return q;
	q = *spare;
	*spare = NULL;
	if (!q)
		q = kzalloc(sizeof(*q), GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!q)
		return NULL;
	q->uid = uid;
	hash_add(ffst_table.quotas, &q->node, __kuid_val(uid));
	return q;
}

/* A record for ffst_quota_get(), allocated with no lock held. */
static int ffst_quota_spare(struct ffst_quota **spare)
{
	*spare = kzalloc(sizeof(**spare), GFP_KERNEL_ACCOUNT);
	return *spare ? 0 : -ENOMEM;
}

/* Frees @q once its uid has nothing left here. */
static void ffst_quota_release(struct ffst_quota *q)
{
	if (q->entries || q->watches || q->bytes)
		return;
	hash_del(&q->node);
	kfree(q);
}

/*
 * Rule 8 for a change that adds @table bytes to the table and @mine to the
 * share of @q's uid (either may be negative: shrinking is always allowed).
 * @q is NULL for a uid that has nothing here yet.
 */
static int ffst_bytes_check(ssize_t table, const struct ffst_quota *q,
			    ssize_t mine)
{
	if (table > 0 &&
	    ffst_table.nr_bytes + table > READ_ONCE(ffst_max_bytes))
		return -ENOSPC;
	if (mine > 0 &&
	    (q ? q->bytes : 0) + mine > READ_ONCE(ffst_max_bytes_per_uid) &&
	    !capable(CAP_SYS_RESOURCE))
		return -EDQUOT;
	return 0;
}

/*
 * The byte limits count an allocation once, against its entry's @own.payer,
 * for as long as it has a reason to be (struct ffst_entry's @in_use).  A
 * new entry starts with its @reasons; each ffst_mem_unuse() drops one, and
 * the charge goes with the last.
 */
static void ffst_mem_use(struct ffst_entry *e, struct ffst_quota *q,
			 unsigned int reasons)
{
	size_t mem = ffst_entry_mem(e);

	e->in_use = reasons;
	ffst_table.nr_bytes += mem;
	q->bytes += mem;
}

/* Returns the memory @e stops being charged, if that was its last reason. */
static size_t ffst_mem_unuse(struct ffst_entry *e)
{
	if (WARN_ON_ONCE(!e->in_use))	/* a reason dropped twice */
		return 0;
	return --e->in_use ? 0 : ffst_entry_mem(e);
}

/*
 * Gives back @mem of @e's charge: from @q if that is its payer's record,
 * else from the payer's own, which is released if that leaves it empty.
 * The caller releases @q.
 */
static void ffst_mem_uncharge(struct ffst_quota *q, const struct ffst_entry *e,
			      size_t mem)
{
	if (!mem)
		return;
	ffst_table.nr_bytes -= mem;
	if (!uid_eq(q->uid, e->own.payer)) {
		q = ffst_quota_find(e->own.payer);
		if (WARN_ON_ONCE(!q))
			return;
		q->bytes -= mem;
		ffst_quota_release(q);
		return;
	}
	q->bytes -= mem;
}

/*
 * @e leaves the table and, unless @v is NULL (RENAME keeps it), with it its
 * value @v: each loses the reason it gave its allocation (@e its own, @v
 * its home's).  @q is the record of @v's payer.
 */
static void ffst_mem_leave(struct ffst_quota *q, struct ffst_entry *e,
			   const struct ffst_value *v)
{
	ffst_mem_uncharge(q, e, ffst_mem_unuse(e));
	if (v) {
		struct ffst_entry *home = ffst_value_home(v);

		ffst_mem_uncharge(q, home, ffst_mem_unuse(home));
	}
}

/*
 * What ffst_mem_leave(@e, @v) would stop charging, for the limit checks
 * before a change: the total, and *@mine, the part charged to @uid.  Each
 * entry is looked at alone, so a change that takes two reasons from one
 * allocation (a RENAME over the entry it exchanged values with) is told
 * less than it frees: the checks may refuse it, never admit too much.
 */
static size_t ffst_mem_freed(const struct ffst_entry *e,
			     const struct ffst_value *v, kuid_t uid,
			     size_t *mine)
{
	const struct ffst_entry *home = v ? ffst_value_home(v) : NULL;
	unsigned int reasons = home == e ? 2 : 1;	/* that @e loses */
	size_t freed = 0;

	if (e->in_use == reasons) {
		freed += ffst_entry_mem(e);
		if (uid_eq(e->own.payer, uid))
			*mine += ffst_entry_mem(e);
	}
	if (home && home != e && home->in_use == 1) {
		freed += ffst_entry_mem(home);
		if (uid_eq(home->own.payer, uid))
			*mine += ffst_entry_mem(home);
	}
	return freed;
}

/* Takes @old, holding @val, out of the table and its accounting. */
static void ffst_account_remove(struct ffst_entry *old,
				const struct ffst_value *val)
{
	struct ffst_quota *q = ffst_quota_find(val->payer);

	ffst_table.nr_entries--;
	if (WARN_ON_ONCE(!q))
		return;
	q->entries--;
	ffst_mem_leave(q, old, val);
	ffst_quota_release(q);
}

/*
 * Creates @new; on success the table owns it.  -EAGAIN: unlock, bring a
 * spare record and try again (ffst_quota_get()).
 */
static int ffst_insert_locked(struct ffst_entry *new, struct ffst_quota **spare)
{
	size_t charge = ffst_entry_mem(new);
	kuid_t uid = new->own.payer;
	struct ffst_quota *q;
	int err;

	if (ffst_table.nr_entries >= READ_ONCE(ffst_max_entries))
		return -ENOSPC;
	q = ffst_quota_find(uid);
	err = ffst_bytes_check(charge, q, charge);
	if (err)
		return err;
	/* No entry yet is 0 entries: max_entries_per_uid=0 allows none. */
	if ((q ? q->entries : 0) >= READ_ONCE(ffst_max_entries_per_uid) &&
	    !capable(CAP_SYS_RESOURCE))
		return -EDQUOT;
	q = ffst_quota_get(uid, spare);
	if (!q)
		return -EAGAIN;

	new->seq = ffst_table.seq + 1;
	err = rhashtable_insert_fast(&ffst_table.ht, &new->node, ffst_ht_params);
	if (err) {
		ffst_quota_release(q);
		/* -EBUSY or -E2BIG from the hash table mean it cannot grow now */
		return -ENOMEM;
	}
	q->entries++;
	ffst_mem_use(new, q, 2);	/* in the table, and its value is */
	list_add_tail(&new->list, &ffst_table.entries);
	ffst_table.nr_entries++;
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
	size_t mem = ffst_entry_mem(new), freed, mine = 0;
	struct ffst_quota *q, *spare = NULL;
	struct ffst_entry *old;
	struct ffst_value *oldval;
	int err;

again:
	if (mutex_lock_killable(&ffst_table.lock)) {
		kfree(spare);
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
		err = ffst_quota_spare(&spare);
		if (err)
			return err;
		goto again;
	}

	oldval = ffst_val(old);
	new->own.owner = oldval->owner;
	new->own.payer = oldval->payer;
	freed = ffst_mem_freed(old, oldval, oldval->payer, &mine);
	q = ffst_quota_find(oldval->payer);
	err = ffst_bytes_check((ssize_t)(mem - freed), q, (ssize_t)(mem - mine));
	if (err)
		goto out_unlock;
	new->seq = ++ffst_table.seq;
	ffst_replace_locked(old, new);
	list_replace(&old->list, &new->list);
	/* @q holds the entry, so neither empties it */
	ffst_mem_use(new, q, 2);
	ffst_mem_leave(q, old, oldval);
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_SET, new->seq,
		    new->name, new->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);
	kfree(spare);
	ffst_entry_retire(old, oldval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	kfree(spare);
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
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_DELETE, ++ffst_table.seq,
		    old->name, old->name_len, NULL, 0);
	mutex_unlock(&ffst_table.lock);
	ffst_entry_retire(old, oldval);
	return 0;

out_unlock:
	mutex_unlock(&ffst_table.lock);
	return err;
}

/* Entries a walk of the table passes between two chances to reschedule. */
#define FFST_DELETE_BATCH	256

/*
 * Deletes every entry the caller may delete, as one change: a reader sees
 * the table before or after, never between.  The victims are marked with
 * a new generation under the lock (readers still see them), and one store
 * of that generation makes them all absent for readers at once; only
 * then are they unlinked, told to the watchers and freed, a batch at a
 * time with a chance to reschedule in between.  Nothing runs with
 * preemption off, so no reader waits for the length of the table, and
 * the walk reschedules by entries it passes, not by those it takes: a
 * caller who owns nothing still walks the whole table.  Returns how many
 * went.
 */
long ffst_table_delete_all(void)
{
	bool fowner = ns_capable_noaudit(&init_user_ns, CAP_FOWNER);
	kuid_t fsuid = current_fsuid();
	struct ffst_entry *e, *tmp;
	LIST_HEAD(doomed);
	long count = 0, scanned = 0;
	u32 gen;

	if (mutex_lock_killable(&ffst_table.lock))
		return -EINTR;
	gen = ffst_table.gen + 1 ?: 1;	/* 0 means "not doomed" */
	list_for_each_entry_safe(e, tmp, &ffst_table.entries, list) {
		const struct ffst_value *v = ffst_val(e);

		if (!(++scanned % FFST_DELETE_BATCH))
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
		ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_DELETE,
			    ++ffst_table.seq, e->name, e->name_len, NULL, 0);
		if (!(++count % FFST_DELETE_BATCH))
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
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_EXCHANGE, seq,
		    a->name, a->name_len, b->name, b->name_len);
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
	struct ffst_quota *q;
	int err = 0;

	ffst_entry_adopt(new, val);
	mem = ffst_entry_mem(new);
	freed = ffst_mem_freed(old, NULL, val->payer, &mine);
	if (target) {
		targetval = ffst_val(target);
		freed += ffst_mem_freed(target, targetval, val->payer, &mine);
	}
	q = ffst_quota_find(val->payer);
	err = ffst_bytes_check((ssize_t)(mem - freed), q, (ssize_t)(mem - mine));
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
	/* @q holds the moved value's entry, so neither empties it */
	ffst_mem_use(new, q, 1);	/* in the table; its value is not its own */
	ffst_mem_leave(q, old, NULL);
	if (target) {
		list_del(&target->list);
		ffst_account_remove(target, targetval);
	}
	ffst_notify(&ffst_table.watches, FLAGSFIRST_EVENT_RENAME, new->seq,
		    old->name, old->name_len, new->name, new->name_len);
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
 * Counts a new watch fd against @uid's max_watches_per_uid, before it is
 * made: EMFILE past it, as inotify_init1() past max_user_instances.
 */
int ffst_table_watch_charge(kuid_t uid)
{
	struct ffst_quota *q, *spare = NULL;
	int err = 0;

again:
	if (mutex_lock_killable(&ffst_table.lock)) {
		kfree(spare);
		return -EINTR;
	}
	q = ffst_quota_find(uid);
	if ((q ? q->watches : 0) >= READ_ONCE(ffst_max_watches_per_uid) &&
	    !capable(CAP_SYS_RESOURCE)) {
		err = -EMFILE;
		goto out_unlock;
	}
	q = ffst_quota_get(uid, &spare);
	if (!q) {
		mutex_unlock(&ffst_table.lock);
		err = ffst_quota_spare(&spare);
		if (err)
			return err;
		goto again;
	}
	q->watches++;
out_unlock:
	mutex_unlock(&ffst_table.lock);
	kfree(spare);
	return err;
}

/*
 * Publishes a watcher: from now on it is told of every change.  -EINTR
 * leaves it unpublished, for ffst_table_unwatch().
 */
int ffst_table_watch(struct list_head *watch)
{
	if (mutex_lock_killable(&ffst_table.lock))
		return -EINTR;
	list_add_tail(watch, &ffst_table.watches);
	mutex_unlock(&ffst_table.lock);
	return 0;
}

/*
 * Unpublishes a watcher (@watch is NULL for one never made, empty for one
 * never published) and gives back the charge ffst_table_watch_charge()
 * took.  A release path: it must not fail, so it waits for the lock
 * plainly.
 */
void ffst_table_unwatch(struct list_head *watch, kuid_t uid)
{
	struct ffst_quota *q;

	mutex_lock(&ffst_table.lock);
	if (watch)
		list_del_init(watch);
	q = ffst_quota_find(uid);
	if (!WARN_ON_ONCE(!q)) {
		q->watches--;
		ffst_quota_release(q);
	}
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
	/*
	 * bytes: what the limits count; allocated: what the entries' (and
	 * moved values' homes') allocations take; memory: that and the hash
	 * table's buckets; records: watch records queued on all fds
	 */
	seq_printf(m, "entries %u\nbytes %zu\nseq %llu\nuids %u\n",
		   ffst_table.nr_entries, ffst_table.nr_bytes, ffst_table.seq,
		   uids);
	seq_printf(m, "allocated %ld\nmemory %lu\nrecords %ld\n",
		   atomic_long_read(&ffst_table.nr_mem),
		   atomic_long_read(&ffst_table.nr_mem) + buckets * sizeof(void *),
		   ffst_watch_records());
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
	seqlock_init(&ffst_table.move_lock);
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
	list_for_each_entry_safe(e, tmp, &ffst_table.entries, list) {
		ffst_entry_retire(e, rcu_dereference_protected(e->val, true));
		cond_resched();
	}
	hash_for_each_safe(ffst_table.quotas, bkt, n, q, node)
		kfree(q);
	/* Big values are freed by a callback in this module: wait for them. */
	rcu_barrier();
}
