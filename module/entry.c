// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst: an entry's allocation -- its size and its life (references,
 * RCU); how long the byte limits count it is account.c's.
 */

#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/flagsfirst.h>

#include "flagsfirst.h"
#include "account.h"

/* What the entries' allocations take, for the debugfs stats. */
static atomic_long_t ffst_nr_mem = ATOMIC_LONG_INIT(0);

long ffst_entry_allocated(void)
{
	return atomic_long_read(&ffst_nr_mem);
}

/*
 * name[] begins at its offset, inside the padding that rounds sizeof(struct
 * ffst_entry) up to 8 bytes: struct_size() would count those bytes again.
 * Both lengths are bounded (FLAGSFIRST_NAME_MAX, FLAGSFIRST_VALUE_MAX).
 */
static_assert(FLAGSFIRST_NAME_MAX <= U16_MAX);	/* ffst_entry.name_len */
static_assert(FLAGSFIRST_ATTR_IMMUTABLE <= U16_MAX);	/* ffst_value.attrs */
/*
 * ffst_value.home_units: the most an entry takes (a page of entry, name and
 * slack, and the biggest value's pages) in 8-byte units, and kmalloc()'s
 * smallest size a whole unit.
 */
static_assert((PAGE_SIZE + FLAGSFIRST_NAME_MAX + FLAGSFIRST_VALUE_MAX +
	       PAGE_SIZE) / FFST_MEM_UNIT <= U16_MAX);
static_assert(KMALLOC_MIN_SIZE % FFST_MEM_UNIT == 0);

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
	e->own.home_units = mem / FFST_MEM_UNIT;
	RCU_INIT_POINTER(e->val, &e->own);
	e->name_len = name_len;
	memcpy(e->name, name, name_len);
	e->name[name_len] = '\0';
	atomic_long_add(mem, &ffst_nr_mem);
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
	atomic_long_sub(ffst_entry_mem(e), &ffst_nr_mem);
	ffst_entry_kfree(e);
}

void ffst_entry_put(struct ffst_entry *e)
{
	if (!refcount_dec_and_test(&e->ref))
		return;
	atomic_long_sub(ffst_entry_mem(e), &ffst_nr_mem);
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
void ffst_entry_retire(struct ffst_entry *e, struct ffst_value *val)
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
void ffst_entry_adopt(struct ffst_entry *e, struct ffst_value *val)
{
	RCU_INIT_POINTER(e->val, val);
	refcount_set(&e->ref, 1);	/* its own (empty) value is nobody's */
	e->own.owner = val->owner;
	e->own.payer = val->payer;
}
