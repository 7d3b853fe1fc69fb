// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst: the accounting, all of it.  The table's limits (max_entries,
 * max_bytes) count everything; the per-user ones (max_entries_per_uid,
 * max_bytes_per_uid, max_watches_per_uid) count by payer (ffst_payer()),
 * and how long an entry's allocation stays charged is its reasons
 * (ffst_mem_use(), ffst_mem_leave(), ffst_mem_freed()), at the end.
 * The table serialises every call with its writers' lock, but for the
 * watch fds' count, which has a lock of its own: a watch fd is made and
 * closed without waiting for a writer.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

#include "flagsfirst.h"
#include "account.h"

/* What one payer has in the table.  It exists while either is non-zero. */
struct ffst_quota {
	struct hlist_node node;
	kuid_t uid;
	unsigned int entries;		/* max_entries_per_uid */
	size_t bytes;			/* max_bytes_per_uid */
};

/* How many watch fds one uid holds; it exists while that is non-zero. */
struct ffst_watch_count {
	struct hlist_node node;
	kuid_t uid;
	unsigned int watches;		/* max_watches_per_uid */
};

static struct {
	struct mutex *lock;		/* the caller's, held for every call */
	unsigned int nr_entries;	/* max_entries */
	size_t nr_bytes;		/* max_bytes */
	DECLARE_HASHTABLE(quotas, 6);	/* struct ffst_quota by uid */
	spinlock_t watch_lock;		/* held for a few stores */
	DECLARE_HASHTABLE(watches, 6);	/* watch_lock: ffst_watch_count */
} ffst_account;

void ffst_account_init(struct mutex *lock)
{
	ffst_account.lock = lock;
	hash_init(ffst_account.quotas);
	spin_lock_init(&ffst_account.watch_lock);
	hash_init(ffst_account.watches);
}

void ffst_account_destroy(void)
{
	struct ffst_quota *q;
	struct hlist_node *n;
	int bkt;

	hash_for_each_safe(ffst_account.quotas, bkt, n, q, node)
		kfree(q);
	/* Every watch fd gave its count back as it was closed. */
	WARN_ON(!hash_empty(ffst_account.watches));
}

/*
 * Whom the per-user limits charge for @uid acting in the caller's user
 * namespace, as the kernel's ucounts charge inotify's instances a user at
 * each level: in the initial namespace, @uid itself; in a namespace that
 * a user made (a login's subordinate uids, a rootless container), that
 * user, through every level below, so its namespaces share its one share
 * instead of multiplying it.  A namespace root made (systemd's
 * PrivateUsers=, a container runtime's uid range) is one user of its own,
 * keyed by the uid its root maps to: its uids, and the namespaces they
 * make, share that one share, which is neither root's nor another
 * container's.  The outermost level decides.
 *
 * A caller exempt from the per-user limits (CAP_SYS_RESOURCE) is charged
 * to FFST_EXEMPT, which no uid is and no limit binds: what it holds fills
 * nobody's share, not even its own uid's when that uid acts without it.
 */
kuid_t ffst_payer(kuid_t uid)
{
	struct user_namespace *ns;
	kuid_t payer = uid, root;

	if (ns_capable_noaudit(&init_user_ns, CAP_SYS_RESOURCE))
		return FFST_EXEMPT;
	for (ns = current_user_ns(); ns != &init_user_ns; ns = ns->parent) {
		if (!uid_eq(ns->owner, GLOBAL_ROOT_UID)) {
			payer = ns->owner;
			continue;
		}
		/* made by root: the namespace is one user, its root */
		root = make_kuid(ns, 0);
		if (uid_valid(root))
			payer = root;
	}
	return payer;
}

static struct ffst_quota *ffst_quota_find(kuid_t uid)
{
	struct ffst_quota *q;

	lockdep_assert_held(ffst_account.lock);
	hash_for_each_possible(ffst_account.quotas, q, node, __kuid_val(uid))
		if (uid_eq(q->uid, uid))
			return q;
	return NULL;
}

/*
 * @uid's record, made if it has none yet: from *@spare if the caller
 * brought one, else without waiting.  Nothing under the table's lock may
 * reclaim memory, or every writer would wait for the caller's memory
 * cgroup: NULL tells the caller to unlock, bring a spare
 * (ffst_account_spare()) and try again, as xas_nomem() does.
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
	hash_add(ffst_account.quotas, &q->node, __kuid_val(uid));
	return q;
}

/* A record for ffst_quota_get(), allocated with no lock held. */
int ffst_account_spare(struct ffst_quota **spare)
{
	*spare = kzalloc(sizeof(**spare), GFP_KERNEL_ACCOUNT);
	return *spare ? 0 : -ENOMEM;
}

void ffst_account_spare_free(struct ffst_quota *spare)
{
	kfree(spare);
}

/* Frees @q once its uid has nothing left here. */
static void ffst_quota_release(struct ffst_quota *q)
{
	if (q->entries || q->bytes)
		return;
	hash_del(&q->node);
	kfree(q);
}

/* Rule 8 for a new entry of @mem bytes, and the entry limits. */
int ffst_account_may_create(kuid_t payer, size_t mem)
{
	const struct ffst_quota *q;
	int err;

	lockdep_assert_held(ffst_account.lock);
	if (ffst_account.nr_entries >= READ_ONCE(ffst_max_entries))
		return -ENOSPC;
	err = ffst_account_may_grow(payer, mem, mem);
	if (err)
		return err;
	q = ffst_quota_find(payer);
	/* No record yet is 0 entries: max_entries_per_uid=0 allows none. */
	if ((q ? q->entries : 0) >= READ_ONCE(ffst_max_entries_per_uid) &&
	    !uid_eq(payer, FFST_EXEMPT))
		return -EDQUOT;
	return 0;
}

/*
 * Rule 8 for a change that adds @table bytes to the table and @mine to
 * @payer's share (either may be negative: shrinking is always allowed).
 */
int ffst_account_may_grow(kuid_t payer, ssize_t table, ssize_t mine)
{
	const struct ffst_quota *q = ffst_quota_find(payer);

	if (table > 0 &&
	    ffst_account.nr_bytes + table > READ_ONCE(ffst_max_bytes))
		return -ENOSPC;
	if (mine > 0 &&
	    (q ? q->bytes : 0) + mine > READ_ONCE(ffst_max_bytes_per_uid) &&
	    !uid_eq(payer, FFST_EXEMPT))
		return -EDQUOT;
	return 0;
}

/* Counts an entry, once ffst_account_may_create() allowed it. */
int ffst_account_add_entry(kuid_t payer, struct ffst_quota **spare)
{
	struct ffst_quota *q = ffst_quota_get(payer, spare);

	if (!q)
		return -EAGAIN;
	q->entries++;
	ffst_account.nr_entries++;
	return 0;
}

/* A record that must exist: the caller counted something against it. */
static struct ffst_quota *ffst_quota_held(kuid_t uid)
{
	struct ffst_quota *q = ffst_quota_find(uid);

	WARN_ON_ONCE(!q);
	return q;
}

void ffst_account_del_entry(kuid_t payer)
{
	struct ffst_quota *q = ffst_quota_held(payer);

	ffst_account.nr_entries--;
	if (!q)
		return;
	q->entries--;
	ffst_quota_release(q);
}

/* Bytes, for an entry ffst_account_add_entry() counted, so a record exists. */
void ffst_account_charge(kuid_t payer, size_t mem)
{
	struct ffst_quota *q = ffst_quota_held(payer);

	ffst_account.nr_bytes += mem;
	if (q)
		q->bytes += mem;
}

void ffst_account_uncharge(kuid_t payer, size_t mem)
{
	struct ffst_quota *q;

	if (!mem)
		return;
	q = ffst_quota_held(payer);
	ffst_account.nr_bytes -= mem;
	if (!q)
		return;
	q->bytes -= mem;
	ffst_quota_release(q);
}

static struct ffst_watch_count *ffst_watch_count_find(kuid_t uid)
{
	struct ffst_watch_count *c;

	lockdep_assert_held(&ffst_account.watch_lock);
	hash_for_each_possible(ffst_account.watches, c, node, __kuid_val(uid))
		if (uid_eq(c->uid, uid))
			return c;
	return NULL;
}

/*
 * Counts a new watch fd against @uid's max_watches_per_uid, before it is
 * made: EMFILE past it, as inotify_init1() past max_user_instances.  The
 * record is allocated, for a uid that has none, with the lock dropped.
 */
int ffst_account_add_watch(kuid_t uid)
{
	struct ffst_watch_count *c, *new = NULL;

	spin_lock(&ffst_account.watch_lock);
	for (;;) {
		c = ffst_watch_count_find(uid);
		if ((c ? c->watches : 0) >= READ_ONCE(ffst_max_watches_per_uid) &&
		    !uid_eq(uid, FFST_EXEMPT)) {
			spin_unlock(&ffst_account.watch_lock);
			kfree(new);
			return -EMFILE;
		}
		if (c || new)
			break;
		spin_unlock(&ffst_account.watch_lock);
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return -ENOMEM;
		spin_lock(&ffst_account.watch_lock);
	}
	if (!c) {
		c = new;
		new = NULL;
		c->uid = uid;
		hash_add(ffst_account.watches, &c->node, __kuid_val(uid));
	}
	c->watches++;
	spin_unlock(&ffst_account.watch_lock);
	kfree(new);
	return 0;
}

void ffst_account_del_watch(kuid_t uid)
{
	struct ffst_watch_count *c;

	spin_lock(&ffst_account.watch_lock);
	c = ffst_watch_count_find(uid);
	if (WARN_ON_ONCE(!c)) {
		spin_unlock(&ffst_account.watch_lock);
		return;
	}
	if (--c->watches) {
		spin_unlock(&ffst_account.watch_lock);
		return;
	}
	hash_del(&c->node);
	spin_unlock(&ffst_account.watch_lock);
	kfree(c);
}

void ffst_account_stats(struct ffst_account_stats *s)
{
	struct ffst_quota *q;
	unsigned int bkt;

	lockdep_assert_held(ffst_account.lock);
	s->entries = ffst_account.nr_entries;
	s->bytes = ffst_account.nr_bytes;
	s->uids = 0;
	hash_for_each(ffst_account.quotas, bkt, q, node)
		s->uids++;
}

/*
 * The byte limits count an allocation once, against its entry's @own.payer,
 * for as long as it has a reason to be (struct ffst_entry's @in_use).  A
 * new entry starts with its @reasons; each ffst_mem_unuse() drops one, and
 * the charge goes with the last.
 */
void ffst_mem_use(struct ffst_entry *e, unsigned int reasons)
{
	e->in_use = reasons;
	ffst_account_charge(e->own.payer, ffst_entry_mem(e));
}

/* Returns the memory @e stops being charged, if that was its last reason. */
static size_t ffst_mem_unuse(struct ffst_entry *e)
{
	if (WARN_ON_ONCE(!e->in_use))	/* a reason dropped twice */
		return 0;
	return --e->in_use ? 0 : ffst_entry_mem(e);
}

/*
 * @e leaves the table and, unless @v is NULL (RENAME keeps it), with it its
 * value @v: each loses the reason it gave its allocation (@e its own, @v
 * its home's), and an allocation left with none is no longer charged.
 */
void ffst_mem_leave(struct ffst_entry *e, const struct ffst_value *v)
{
	ffst_account_uncharge(e->own.payer, ffst_mem_unuse(e));
	if (v) {
		struct ffst_entry *home = ffst_value_home(v);

		ffst_account_uncharge(home->own.payer, ffst_mem_unuse(home));
	}
}

/*
 * What ffst_mem_leave(@e, @v) would stop charging, for the limit checks
 * before a change: the total, and *@mine, the part charged to @uid.  Each
 * entry is looked at alone, so a change that takes two reasons from one
 * allocation (a RENAME over the entry it exchanged values with) is told
 * less than it frees: the checks may refuse it, never admit too much.
 */
size_t ffst_mem_freed(const struct ffst_entry *e, const struct ffst_value *v,
		      kuid_t uid, size_t *mine)
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
