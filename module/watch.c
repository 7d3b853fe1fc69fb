// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: watch fds, their event queues, read() and poll(). */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"
#include "account.h"

struct ffst_event {
	struct list_head node;
	struct flagsfirst_event hdr;
	char names[];	/* name, NUL, [newname, NUL], zeros up to hdr.size */
};

/* An OVERFLOW record: a header and an empty name. */
#define FFST_OVERFLOW_SIZE ALIGN(sizeof(struct flagsfirst_event) + 1, 8)

/*
 * A watcher.  The table publishes it on an RCU list (@node) and takes it
 * off without waiting for a writer; it is freed a grace period later
 * (@rcu), when no writer can be telling it of a change any more.  @lock
 * protects the queue.  Events are queued under the table's lock, so their
 * order is the order the changes took effect.  Only a reader takes records
 * off the queue, one reader at a time (@read_lock), and only once a record
 * has reached user space: writers add at the tail, so the head stays put
 * while the reader copies it.
 *
 * A full queue costs a writer one load and nothing else: @overflow_queued
 * is read without @lock (ffst_notify()), so no lock, no allocation and no
 * wakeup for it until its reader has read the OVERFLOW record.
 *
 * Records are charged to @memcg, the memory cgroup of the task that made
 * the watch, as inotify charges its listener: whoever asks to be told
 * pays for what it has not read yet, not the writer who caused it, in
 * bytes and in time: they are allocated without reclaim, so a watcher
 * whose cgroup is full costs a writer a failed charge, and itself an
 * OVERFLOW record.
 */
struct ffst_watch {
	struct list_head node;		/* in the table's list of watchers */
	struct rcu_head rcu;		/* frees it once unpublished */
	u64 mask;
	kuid_t uid;			/* charged for the fd: max_watches_per_uid */
	struct mem_cgroup *memcg;
	spinlock_t lock;		/* the queue below */
	struct list_head events;	/* lock */
	/* Written under @lock, read without it too (ffst_notify()): */
	unsigned int nr_events;		/* not counting @overflow */
	bool overflow_queued;		/* @overflow is on @events */
	struct ffst_event *overflow;	/* preallocated: never fails to queue */
	struct mutex read_lock;		/* one reader at a time keeps order */
	wait_queue_head_t wait;
};

/* Records queued on every watch fd, for the debugfs stats. */
static atomic_long_t ffst_nr_records = ATOMIC_LONG_INIT(0);

long ffst_watch_records(void)
{
	return atomic_long_read(&ffst_nr_records);
}

/*
 * A zeroed record of @size bytes (header, names and padding), charged to
 * the current memory cgroup (set_active_memcg()).
 */
static struct ffst_event *ffst_event_alloc(u32 size, gfp_t gfp)
{
	struct ffst_event *ev;

	ev = kzalloc(offsetof(struct ffst_event, hdr) + size, gfp);
	if (ev) {
		ev->hdr.size = size;
		ev->hdr.hdr_size = sizeof(ev->hdr);
	}
	return ev;
}

static void ffst_watch_queue_overflow(struct ffst_watch *w, u64 seq)
{
	lockdep_assert_held(&w->lock);
	if (w->overflow_queued)
		return;
	w->overflow->hdr.seq = seq;
	list_add_tail(&w->overflow->node, &w->events);
	WRITE_ONCE(w->overflow_queued, true);
}

static void ffst_watch_queue(struct ffst_watch *w, u16 type, u64 seq,
			     const char *name, u32 name_len,
			     const char *newname, u32 newname_len)
{
	size_t names = name_len + 1 + (newname ? newname_len + 1 : 0);
	u32 size = ALIGN(sizeof(struct flagsfirst_event) + names, 8);
	struct ffst_event *ev = NULL;
	bool room;

	/*
	 * Decided once, before the allocation and without @lock: writers are
	 * serialised by the table's lock and the reader only ever makes room,
	 * so a queue that has room now still has it below (and room that a
	 * reader is making as we look is room made after this change: its
	 * read() has not returned).  Once full, it stays full until the
	 * OVERFLOW record is read: nothing is queued after the gap.
	 */
	room = READ_ONCE(w->nr_events) < READ_ONCE(ffst_max_queued_events) &&
	       !READ_ONCE(w->overflow_queued);
	/*
	 * Under the table's lock, which every writer waits for: no reclaim,
	 * no OOM killer, no retry.  inotify's __GFP_RETRY_MAYFAIL would make
	 * a writer reclaim in the watcher's full cgroup, 16 rounds a record,
	 * while every other writer waits; a watcher whose cgroup is full
	 * gets an OVERFLOW record instead.
	 */
	if (room) {
		struct mem_cgroup *old = set_active_memcg(w->memcg);

		ev = ffst_event_alloc(size, GFP_NOWAIT | __GFP_ACCOUNT |
					    __GFP_NOWARN);
		set_active_memcg(old);
	}
	if (ev) {
		ev->hdr.type = type;
		ev->hdr.seq = seq;
		ev->hdr.name_len = name_len;
		memcpy(ev->names, name, name_len);
		if (newname) {
			ev->hdr.newname_len = newname_len;
			memcpy(ev->names + name_len + 1, newname, newname_len);
		}
	}

	spin_lock(&w->lock);
	if (ev) {
		list_add_tail(&ev->node, &w->events);
		WRITE_ONCE(w->nr_events, w->nr_events + 1);
		atomic_long_inc(&ffst_nr_records);
	} else {
		/* A full queue, or no memory: the reader must know it lost one. */
		ffst_watch_queue_overflow(w, seq);
	}
	spin_unlock(&w->lock);
	/* Pairs with the waiter's barrier (set_current_state(), poll_wait()) */
	if (wq_has_sleeper(&w->wait))
		wake_up_interruptible_poll(&w->wait, EPOLLIN | EPOLLRDNORM);
}

/*
 * Tells every watcher whose mask has @type; called with the table's lock,
 * so writers come one at a time and in seq order.  A watcher whose queue
 * holds its OVERFLOW record is passed over with one load: nothing would be
 * queued for it until that record is read, and whichever of the two comes
 * first, the reader's clearing or this load, the outcome is one the rules
 * allow (the reader's read() had not returned yet).
 */
void ffst_notify(struct list_head *watches, u16 type, u64 seq,
		 const char *name, u32 name_len,
		 const char *newname, u32 newname_len)
{
	struct ffst_watch *w;

	rcu_read_lock();
	list_for_each_entry_rcu(w, watches, node) {
		if (!(w->mask & type) || READ_ONCE(w->overflow_queued))
			continue;
		ffst_watch_queue(w, type, seq, name, name_len, newname,
				 newname_len);
	}
	rcu_read_unlock();
}

/*
 * The record at the head of the queue, left there, or NULL if the queue is
 * empty or @room cannot hold it (then *@too_big).  Only the reader, who
 * holds @read_lock, takes records off, so it stays the head.
 */
static struct ffst_event *ffst_watch_peek(struct ffst_watch *w, size_t room,
					  bool *too_big)
{
	struct ffst_event *ev;

	lockdep_assert_held(&w->read_lock);
	spin_lock(&w->lock);
	ev = list_first_entry_or_null(&w->events, struct ffst_event, node);
	if (ev && ev->hdr.size > room) {
		*too_big = true;
		ev = NULL;
	}
	spin_unlock(&w->lock);
	return ev;
}

/* Takes @ev, the head, off the queue once it has reached user space. */
static void ffst_watch_consume(struct ffst_watch *w, struct ffst_event *ev)
{
	bool overflow = ev == w->overflow;

	spin_lock(&w->lock);
	list_del(&ev->node);
	if (overflow) {
		WRITE_ONCE(w->overflow_queued, false);
	} else {
		WRITE_ONCE(w->nr_events, w->nr_events - 1);
		atomic_long_dec(&ffst_nr_records);
	}
	spin_unlock(&w->lock);
	if (!overflow)
		kfree(ev);
}

static bool ffst_watch_ready(struct ffst_watch *w)
{
	bool ready;

	spin_lock(&w->lock);
	ready = !list_empty(&w->events);
	spin_unlock(&w->lock);
	return ready;
}

/*
 * Takes @read_lock with a record queued.  A blocking reader waits for one
 * without the lock, so that a non-blocking reader never waits behind it:
 * that one gets EAGAIN if the queue is empty or another reader is at it.
 */
static int ffst_watch_lock_ready(struct ffst_watch *w, bool nonblock)
{
	int err;

	for (;;) {
		if (nonblock) {
			if (!mutex_trylock(&w->read_lock))
				return -EAGAIN;
		} else if (mutex_lock_interruptible(&w->read_lock)) {
			return -ERESTARTSYS;
		}
		if (ffst_watch_ready(w))
			return 0;
		mutex_unlock(&w->read_lock);
		if (nonblock)
			return -EAGAIN;
		err = wait_event_interruptible(w->wait, ffst_watch_ready(w));
		if (err)
			return err;
	}
}

static ssize_t ffst_watch_read(struct file *file, char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct ffst_watch *w = file->private_data;
	struct ffst_event *ev;
	bool too_big = false;
	ssize_t copied = 0;
	int err;

	err = ffst_watch_lock_ready(w, file->f_flags & O_NONBLOCK);
	if (err)
		return err;
	while ((ev = ffst_watch_peek(w, count - copied, &too_big))) {
		/* A fault leaves the record queued: nothing is lost. */
		if (copy_to_user(buf + copied, &ev->hdr, ev->hdr.size)) {
			err = -EFAULT;
			break;
		}
		copied += ev->hdr.size;
		ffst_watch_consume(w, ev);
	}
	/* Whole records only: a buffer too small for the first is EINVAL. */
	if (too_big)
		err = -EINVAL;
	mutex_unlock(&w->read_lock);
	return copied ? copied : err;
}

static __poll_t ffst_watch_poll(struct file *file, poll_table *pt)
{
	struct ffst_watch *w = file->private_data;

	poll_wait(file, &w->wait, pt);
	return ffst_watch_ready(w) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Frees every record queued now, at close(): their memory goes back to the
 * watcher's cgroup at once.  A writer that found the watcher on the list
 * before it left may still queue one until the grace period ends;
 * ffst_watch_free() takes those.
 */
static void ffst_watch_drain(struct ffst_watch *w)
{
	struct ffst_event *ev, *tmp;
	LIST_HEAD(records);
	long n = 0;

	spin_lock(&w->lock);
	list_splice_init(&w->events, &records);
	WRITE_ONCE(w->nr_events, 0);
	WRITE_ONCE(w->overflow_queued, false);
	spin_unlock(&w->lock);
	list_for_each_entry_safe(ev, tmp, &records, node) {
		if (ev == w->overflow)
			continue;
		kfree(ev);
		n++;
	}
	atomic_long_sub(n, &ffst_nr_records);
}

/* Frees a watcher that was never published, or a grace period after. */
static void ffst_watch_free(struct ffst_watch *w)
{
	struct ffst_event *ev, *tmp;
	long records = 0;

	list_for_each_entry_safe(ev, tmp, &w->events, node) {
		if (ev == w->overflow)
			continue;
		kfree(ev);
		records++;
	}
	atomic_long_sub(records, &ffst_nr_records);
	mem_cgroup_put(w->memcg);
	kfree(w->overflow);
	kfree(w);
}

static void ffst_watch_free_rcu(struct rcu_head *rcu)
{
	ffst_watch_free(container_of(rcu, struct ffst_watch, rcu));
}

/*
 * Waits for nobody: the watcher leaves the table's list under a spinlock
 * no writer holds for more than a few stores, its charge and its records
 * go back, and a writer that is telling it of a change now may go on doing
 * so until the grace period ends, after which it is freed
 * (ffst_table_destroy()'s rcu_barrier() waits for that before the module
 * goes).
 */
static int ffst_watch_release(struct inode *inode, struct file *file)
{
	struct ffst_watch *w = file->private_data;

	ffst_table_unwatch(&w->node);
	ffst_account_del_watch(w->uid);
	ffst_watch_drain(w);
	call_rcu(&w->rcu, ffst_watch_free_rcu);
	return 0;
}

static const struct file_operations ffst_watch_fops = {
	.owner = THIS_MODULE,
	.read = ffst_watch_read,
	.poll = ffst_watch_poll,
	.release = ffst_watch_release,
	.llseek = noop_llseek,
};

/*
 * Returns a new fd watching @mask, or an errno.  In the order that cannot
 * leak (ntsync_obj_get_fd()): charge the uid, reserve the fd, make the
 * file, and only then publish the watcher and install the fd, once
 * nothing can fail any more.  Nothing here waits for the table's writers.
 */
int ffst_watch_create(u64 mask, u64 flags)
{
	kuid_t uid = ffst_payer(current_euid());
	int fd, err, fflags = O_RDONLY;
	struct ffst_watch *w;
	struct file *file;

	if (flags & FLAGSFIRST_WATCH_CLOEXEC)
		fflags |= O_CLOEXEC;
	if (flags & FLAGSFIRST_WATCH_NONBLOCK)
		fflags |= O_NONBLOCK;

	err = ffst_account_add_watch(uid);
	if (err)
		return err;
	err = -ENOMEM;
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		goto err_uncharge;
	INIT_LIST_HEAD(&w->node);
	w->mask = mask;
	w->uid = uid;
	spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->events);
	mutex_init(&w->read_lock);
	init_waitqueue_head(&w->wait);
	w->overflow = ffst_event_alloc(FFST_OVERFLOW_SIZE, GFP_KERNEL_ACCOUNT);
	if (!w->overflow)
		goto err_free;
	w->overflow->hdr.type = FLAGSFIRST_EVENT_OVERFLOW;
	w->memcg = get_mem_cgroup_from_mm(current->mm);

	fd = get_unused_fd_flags(fflags & O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_free;
	}
	file = anon_inode_getfile("[flagsfirst-watch]", &ffst_watch_fops, w,
				  fflags & (O_ACCMODE | O_NONBLOCK));
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto err_put_fd;
	}
	ffst_table_watch(&w->node);
	fd_install(fd, file);
	return fd;

err_put_fd:
	put_unused_fd(fd);
err_free:
	ffst_watch_free(w);
err_uncharge:
	ffst_account_del_watch(uid);
	return err;
}
