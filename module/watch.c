// SPDX-License-Identifier: GPL-2.0-only
/* flagsfirst: watch fds, their event queues, read() and poll(). */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"

struct ffst_event {
	struct list_head node;
	struct flagsfirst_event hdr;
	char names[];	/* name, NUL, [newname, NUL], zeros up to hdr.size */
};

/* An OVERFLOW record: a header and an empty name. */
#define FFST_OVERFLOW_SIZE ALIGN(sizeof(struct flagsfirst_event) + 1, 8)

/*
 * A watcher.  The table's lock protects @node and @mask; @lock protects the
 * queue.  Events are queued under the table's lock, so their order is the
 * order the changes took effect.
 */
struct ffst_watch {
	struct list_head node;		/* in the table's list of watchers */
	u64 mask;
	spinlock_t lock;		/* the queue below */
	struct list_head events;	/* lock */
	unsigned int nr_events;		/* lock: not counting @overflow */
	bool overflow_queued;		/* lock: @overflow is on @events */
	struct ffst_event *overflow;	/* preallocated: never fails to queue */
	struct mutex read_lock;		/* one reader at a time keeps order */
	wait_queue_head_t wait;
};

/* A zeroed record of @size bytes (header, names and padding). */
static struct ffst_event *ffst_event_alloc(u32 size)
{
	struct ffst_event *ev;

	ev = kzalloc(offsetof(struct ffst_event, hdr) + size,
		     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
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
	w->overflow_queued = true;
}

static void ffst_watch_queue(struct ffst_watch *w, u16 type, u64 seq,
			   const char *name, u32 name_len,
			   const char *newname, u32 newname_len)
{
	size_t names = name_len + 1 + (newname ? newname_len + 1 : 0);
	u32 size = ALIGN(sizeof(struct flagsfirst_event) + names, 8);
	struct ffst_event *ev = NULL;

	/* Once full, stay full until read: nothing after the gap is queued. */
	if (READ_ONCE(w->nr_events) < READ_ONCE(ffst_max_queued_events) &&
	    !READ_ONCE(w->overflow_queued))
		ev = ffst_event_alloc(size);
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
	if (ev && w->nr_events < READ_ONCE(ffst_max_queued_events) &&
	    !w->overflow_queued) {
		list_add_tail(&ev->node, &w->events);
		w->nr_events++;
		ev = NULL;
	} else {
		/* A full queue, or no memory: the reader must know it lost one. */
		ffst_watch_queue_overflow(w, seq);
	}
	spin_unlock(&w->lock);
	kfree(ev);
	wake_up_interruptible_poll(&w->wait, EPOLLIN | EPOLLRDNORM);
}

/* Tells every watcher whose mask has @type; called with the table's lock. */
void ffst_notify(struct list_head *watches, u16 type, u64 seq,
	       const char *name, u32 name_len,
	       const char *newname, u32 newname_len)
{
	struct ffst_watch *w;

	list_for_each_entry(w, watches, node)
		if (w->mask & type)
			ffst_watch_queue(w, type, seq, name, name_len,
				       newname, newname_len);
}

/* The next record, taken off the queue, or NULL if it is empty. */
static struct ffst_event *ffst_watch_next(struct ffst_watch *w, size_t room,
				      bool *too_big)
{
	struct ffst_event *ev;

	spin_lock(&w->lock);
	ev = list_first_entry_or_null(&w->events, struct ffst_event, node);
	if (ev && ev->hdr.size > room) {
		*too_big = true;
		ev = NULL;
	}
	if (ev) {
		list_del(&ev->node);
		if (ev == w->overflow)
			w->overflow_queued = false;
		else
			w->nr_events--;
	}
	spin_unlock(&w->lock);
	return ev;
}

/* Puts @ev back at the head after a failed copy: nothing is lost. */
static void ffst_watch_unget(struct ffst_watch *w, struct ffst_event *ev)
{
	spin_lock(&w->lock);
	list_add(&ev->node, &w->events);
	if (ev == w->overflow)
		w->overflow_queued = true;
	else
		w->nr_events++;
	spin_unlock(&w->lock);
}

static bool ffst_watch_ready(struct ffst_watch *w)
{
	bool ready;

	spin_lock(&w->lock);
	ready = !list_empty(&w->events);
	spin_unlock(&w->lock);
	return ready;
}

static ssize_t ffst_watch_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct ffst_watch *w = file->private_data;
	struct ffst_event *ev;
	bool too_big = false;
	ssize_t copied = 0;
	int err;

	if (mutex_lock_interruptible(&w->read_lock))
		return -ERESTARTSYS;
	while (!ffst_watch_ready(w)) {
		err = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			goto out_unlock;
		err = wait_event_interruptible(w->wait, ffst_watch_ready(w));
		if (err)
			goto out_unlock;
	}

	while ((ev = ffst_watch_next(w, count - copied, &too_big))) {
		if (copy_to_user(buf + copied, &ev->hdr, ev->hdr.size)) {
			ffst_watch_unget(w, ev);
			err = -EFAULT;
			goto out_unlock;
		}
		copied += ev->hdr.size;
		if (ev != w->overflow)
			kfree(ev);
	}
	/* Whole records only: a buffer too small for the first is EINVAL. */
	err = too_big ? -EINVAL : 0;

out_unlock:
	mutex_unlock(&w->read_lock);
	return copied ? copied : err;
}

static __poll_t ffst_watch_poll(struct file *file, poll_table *pt)
{
	struct ffst_watch *w = file->private_data;

	poll_wait(file, &w->wait, pt);
	return ffst_watch_ready(w) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int ffst_watch_release(struct inode *inode, struct file *file)
{
	struct ffst_watch *w = file->private_data;
	struct ffst_event *ev, *tmp;

	ffst_table_unwatch(&w->node);
	list_for_each_entry_safe(ev, tmp, &w->events, node)
		if (ev != w->overflow)
			kfree(ev);
	kfree(w->overflow);
	kfree(w);
	return 0;
}

static const struct file_operations ffst_watch_fops = {
	.owner = THIS_MODULE,
	.read = ffst_watch_read,
	.poll = ffst_watch_poll,
	.release = ffst_watch_release,
	.llseek = noop_llseek,
};

/* Returns a new fd watching @mask, or an errno. */
int ffst_watch_create(u64 mask, u64 flags)
{
	int fd, fflags = O_RDONLY;
	struct ffst_watch *w;

	if (flags & FLAGSFIRST_WATCH_CLOEXEC)
		fflags |= O_CLOEXEC;
	if (flags & FLAGSFIRST_WATCH_NONBLOCK)
		fflags |= O_NONBLOCK;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;
	w->overflow = ffst_event_alloc(FFST_OVERFLOW_SIZE);
	if (!w->overflow) {
		kfree(w);
		return -ENOMEM;
	}
	w->mask = mask;
	spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->events);
	mutex_init(&w->read_lock);
	init_waitqueue_head(&w->wait);
	w->overflow->hdr.type = FLAGSFIRST_EVENT_OVERFLOW;

	/* Watching before the fd exists only queues events nobody reads yet. */
	ffst_table_watch(&w->node);
	fd = anon_inode_getfd("[flagsfirst-watch]", &ffst_watch_fops, w, fflags);
	if (fd < 0) {
		ffst_table_unwatch(&w->node);
		kfree(w->overflow);
		kfree(w);
	}
	return fd;
}
