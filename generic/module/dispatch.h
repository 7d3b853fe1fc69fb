/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The generic core: the rules every versioned operation obeys, for
 * an interface that describes itself in a struct ffst_iface.  It includes
 * nothing of the interface and names none of its symbols; the interface
 * calls it, never the reverse.
 */
#ifndef _FFST_DISPATCH_H
#define _FFST_DISPATCH_H

#include <kunit/visibility.h>
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* The biggest struct an op may have: the dispatcher's buffer. */
#define FFST_ARGS_SIZE	64

/*
 * The caller's struct as the dispatcher copies it in, flags first: room
 * for any op's struct.  A handler reads its own struct through the pointer
 * it is given.
 */
union ffst_args {
	u64 flags;
	u64 words[FFST_ARGS_SIZE / sizeof(u64)];
};

/* What an op understands in one ABI version. */
struct ffst_op_abi {
	size_t ksize;
	u64 flags;
};

/**
 * struct ffst_op - one extensible operation, as the dispatcher sees it
 * @size_ver0: the first published size; smaller is EINVAL
 * @abi: per ABI version from 0 (struct ffst_iface's @abi_version), the
 *	size of the struct the module understands and the flags it accepts
 *	(CHECK_FIELDS aside): @nr_abi of them.  An op keeps its last entry
 *	in the ABIs past it, so only an op that changes gets a new one.
 * @nr_abi: how many entries @abi has
 * @fields: the CHECK_FIELDS answer (flags aside), the op's own struct with
 *	all ones in every field the module understands and 0 in every
 *	__reserved field.  The dispatcher also rejects a non-zero byte
 *	wherever it is 0, so the two cannot drift.
 * @fields_size: the size of @fields, the op's struct: no ABI's size may be
 *	bigger (CHECK_FIELDS copies that many bytes of it)
 * @mutates: changes state, so needs an fd opened for writing (EBADF)
 * @mutating_flags: for an op that does not, the flags that make a call
 *	of it change state (QUERY's RESET), and so need one too
 * @args_valid: flag combinations and field rules on the op's struct, or
 *	NULL if none
 * @handler: the operation on @file, called once every generic rule has
 *	passed, with the caller's struct (@uarg, @usize bytes) copied in @args
 *	(the op's own struct, zero-extended to the module's size); written as
 *	a function of that struct and made an entry by FFST_HANDLER()
 *
 * Write an entry with FFST_OP(), which checks it as it compiles.
 */
struct ffst_op {
	size_t size_ver0;
	const struct ffst_op_abi *abi;
	unsigned int nr_abi;
	const void *fields;
	size_t fields_size;
	bool mutates;
	u64 mutating_flags;
	bool (*args_valid)(const void *args, size_t usize);
	long (*handler)(struct file *file, void *args, void __user *uarg,
			size_t usize);
};

/**
 * struct ffst_iface - an interface, as it describes itself to the core
 * @ioc_type: the type byte of its ioctl numbers
 * @ops: its operations, by ioctl number; a hole has no handler (ENOTTY)
 * @nr_ops: how many numbers @ops covers
 * @abi_version: the ABI version in force, 0 to the most entries an op's
 *	@abi has, less one; FFST_ABI_UNSET at load means the latest, which
 *	ffst_iface_check() writes in.  Fixed once the interface is in use.
 * @check_fields: the flag bit that asks an op what it supports
 */
struct ffst_iface {
	unsigned int ioc_type;
	const struct ffst_op *ops;
	unsigned int nr_ops;
	unsigned int *abi_version;
	u64 check_fields;
};

/*
 * A condition checked as the expression is compiled, with its message.
 * __static_assert(), not static_assert(): the latter also turns the whole
 * expanded condition into a string, which sparse cannot take.
 */
#define __FFST_CHECK(cond, msg)						\
	(0 * sizeof(struct { __static_assert(cond, msg); int __checked; }))

/*
 * Whether type @T is a fixed-size integer (__u8 to __u64, __s8 to __s64),
 * whose size is the same on 32- and 64-bit: not long, a pointer, an enum,
 * a bool or an array.
 */
#define __FFST_FIXED_T(T)						\
	(__builtin_types_compatible_p(T, __u64) ||			\
	 __builtin_types_compatible_p(T, __s64) ||			\
	 __builtin_types_compatible_p(T, __u32) ||			\
	 __builtin_types_compatible_p(T, __s32) ||			\
	 __builtin_types_compatible_p(T, __u16) ||			\
	 __builtin_types_compatible_p(T, __s16) ||			\
	 __builtin_types_compatible_p(T, __u8) ||			\
	 __builtin_types_compatible_p(T, __s8))

/*
 * The layout rules the dispatcher relies on, for an op's struct @type
 * whose fields are listed, every one, in order (12 at most, as many as
 * COUNT_ARGS() counts): flags first; fixed-size integer fields, each
 * starting where the one before it ends and the last ending the struct (no
 * hole, no tail padding), which makes the layout the same on 32- and
 * 64-bit, so compat_ptr_ioctl() is enough; a multiple of 8 bytes; and room
 * for it in union ffst_args.  Each rule fails the build with its own
 * message, which names the field that breaks it.  (The field names are
 * the variable arguments of these macros, and the struct is @type, which
 * checkpatch expects to see more than once.)
 */
#define FFST_ASSERT_LAYOUT(type, ...)					\
	__static_assert(__FFST_FIRST(type, __VA_ARGS__) +		\
			__FFST_FIELDS(type, __VA_ARGS__) +		\
			__FFST_WORDS(type) + __FFST_FITS(type) == 0,	\
			#type ": its layout")

/* FFST_ASSERT_LAYOUT()'s rules, each for struct @type. */
#define __FFST_HEAD(a, ...)	a
#define __FFST_FIRST(type, ...)						\
	(__FFST_CHECK(offsetof(type, flags) == 0 &&			\
		      __builtin_types_compatible_p(typeof_member(type, flags), __u64), \
		      #type ": flags, a __u64, must come first") +	\
	 __FFST_CHECK(offsetof(type, __FFST_HEAD(__VA_ARGS__)) == 0,	\
		      #type ": list the fields from the first, flags"))
/* The field named by the variable argument, where field @prev ends. */
#define __FFST_FIELD(type, prev, ...)					\
	(__FFST_CHECK(__FFST_FIXED_T(typeof_member(type, __VA_ARGS__)),	\
		      #type ": field " #__VA_ARGS__ " is not __u8..__u64, __s8..__s64") + \
	 __FFST_CHECK(offsetof(type, __VA_ARGS__) == offsetofend(type, prev), \
		      #type ": a hole, or a field not listed, before " #__VA_ARGS__ \
		      " (at offsetofend(" #prev ")?)"))
/* __FFST_FIELD() of the field the macro call names, expanded first. */
#define __FFST_FIELD_OF(type, prev, ...)				\
	__FFST_FIELD(type, prev, __VA_ARGS__)
/* The last field ends the struct. */
#define __FFST_LAST(type, ...)						\
	__FFST_CHECK(offsetofend(type, __VA_ARGS__) == sizeof(type),	\
		     #type ": tail padding, or a field not listed, after " #__VA_ARGS__)
#define __FFST_FIELDS1(type, ...)	__FFST_LAST(type, __VA_ARGS__)
#define __FFST_FIELDS2(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS1(type, __VA_ARGS__))
#define __FFST_FIELDS3(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS2(type, __VA_ARGS__))
#define __FFST_FIELDS4(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS3(type, __VA_ARGS__))
#define __FFST_FIELDS5(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS4(type, __VA_ARGS__))
#define __FFST_FIELDS6(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS5(type, __VA_ARGS__))
#define __FFST_FIELDS7(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS6(type, __VA_ARGS__))
#define __FFST_FIELDS8(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS7(type, __VA_ARGS__))
#define __FFST_FIELDS9(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS8(type, __VA_ARGS__))
#define __FFST_FIELDS10(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS9(type, __VA_ARGS__))
#define __FFST_FIELDS11(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS10(type, __VA_ARGS__))
#define __FFST_FIELDS12(type, p, ...)					\
	(__FFST_FIELD_OF(type, p, __FFST_HEAD(__VA_ARGS__)) +		\
	 __FFST_FIELDS11(type, __VA_ARGS__))
#define __FFST_FIELDS(type, ...)					\
	CONCATENATE(__FFST_FIELDS, COUNT_ARGS(__VA_ARGS__))(type, __VA_ARGS__)
#define __FFST_WORDS(type)						\
	__FFST_CHECK(sizeof(type) % sizeof(u64) == 0,			\
		     #type ": not a multiple of 8 bytes")
#define __FFST_FITS(type)						\
	__FFST_CHECK(sizeof(type) <= FFST_ARGS_SIZE,			\
		     #type ": bigger than the dispatcher buffer")

/*
 * The entry of op @ioc (the ioctl's name) in a table of struct ffst_op:
 * every member is an argument, so none can be left out; one given as 0 or
 * NULL makes ffst_iface_check() refuse the table at load, naming the op.
 * @abi_ is the op's array of struct ffst_op_abi (an array, not a pointer:
 * its length is taken, and a pointer's is 0, which the check at load
 * refuses); @tpl is the CHECK_FIELDS template, the object itself (its
 * size is taken too); @valid may be NULL.
 */
#define FFST_OP(ioc, ver0, abi_, tpl, mut, mut_flags, valid, fn)		\
	[_IOC_NR(ioc)] = {						\
		.size_ver0 = (ver0),					\
		.abi = (abi_),						\
		.nr_abi = sizeof(abi_) / sizeof(struct ffst_op_abi),	\
		.fields = &(tpl),					\
		.fields_size = sizeof(tpl),				\
		.mutates = (mut),					\
		.mutating_flags = (mut_flags),				\
		.args_valid = (valid),					\
		.handler = (fn),					\
	}

/*
 * Defines @fn_op, the table's handler for @fn, which takes its op's own
 * struct: "static long fn(struct file *, @type *, void __user *, size_t)".
 * A handler of another struct fails the build (incompatible pointer
 * types); @fn_op hands it the dispatcher's copy, and the compiler makes
 * the two one function.
 */
#define FFST_HANDLER(fn, type)						\
static long fn##_op(struct file *file, void *args, void __user *uarg,	\
		    size_t usize)					\
{									\
	return fn(file, (type *)args, uarg, usize);			\
}

/*
 * An op's ABI entries in place, from ABI 0: "{ size, flags }" each, the
 * last kept in the ABIs past it.
 */
#define FFST_ABI(...)	((const struct ffst_op_abi[]) { __VA_ARGS__ })

/* struct ffst_iface's @abi_version at load: the latest the ops have. */
#define FFST_ABI_UNSET	UINT_MAX

int ffst_iface_check(const struct ffst_iface *iface);
long ffst_dispatch(const struct ffst_iface *iface, struct file *file,
		   unsigned int cmd, unsigned long arg);
int ffst_copy_struct_to_user(void __user *dst, size_t usize,
			     const void *src, size_t ksize);

/*
 * The dispatcher's pure helpers are static (VISIBLE_IF_KUNIT) unless the
 * kernel has KUnit, when they are exported for the KUnit module alone
 * (EXPORT_SYMBOL_IF_KUNIT(), namespace EXPORTED_FOR_KUNIT_TESTING).
 */
#if IS_ENABLED(CONFIG_KUNIT)
bool ffst_reserved_clear(const struct ffst_op *op, size_t ksize,
			 const void *args);
int ffst_usize_check(const struct ffst_op *op, size_t usize);
bool ffst_args_valid(const struct ffst_op *op, const struct ffst_op_abi *v,
		     const void *args, size_t usize);
#endif

#endif /* _FFST_DISPATCH_H */
