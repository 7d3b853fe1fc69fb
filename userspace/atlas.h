/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst survey, the atlas: the rows of its three parts and what the
 * probes share.  userspace/survey.c runs them and prints the table.
 */
#ifndef FLAGSFIRST_ATLAS_H
#define FLAGSFIRST_ATLAS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* What a row measures, and so which words its verdict uses */
enum row_kind {
	/* one unknown bit: rejects, ignores, unproven, absent, off, denied, noflags */
	FLAGS,
	SIZE_IN,	/* a size rule of a struct the kernel reads: rejects, accepts */
	SIZE_OUT,	/* a size rule of a struct the kernel writes: what it did */
	DISCOVER,	/* a way to ask what the kernel supports: tells, or how it failed */
};

/* The part of the atlas each kind is printed in */
#define NR_PARTS	3

struct row {
	const char *name;
	enum row_kind kind;
	/*
	 * The release that added the call (or the rule); "A-B" when it came
	 * in a release from A to B and no source at hand says which (a call
	 * newer than 6.12, the last tree before 7.2 the project can fetch)
	 */
	const char *since;
	const char *arg;	/* the unknown bit, the size rule, or the question */
	const char *lesson;
	/*
	 * >= 0 or -errno.  FLAGS, SIZE_IN: the call's result, a result past
	 * the checks measured mapped to 0 by the probe (past()); SIZE_OUT:
	 * 1 if the rule held (tail zeroed, struct truncated), 0 if not;
	 * DISCOVER: what the kernel told, printed with @tells.  NULL: a FLAGS
	 * row for a call that has no flags argument (listed, not called).
	 */
	long (*call)(void);
	int rejects_with;	/* FLAGS: the documented answer besides EINVAL */
	/*
	 * FLAGS: the same call with the same arguments and a bit the kernel
	 * is known to act on or reject, and what it must then return (>= 0
	 * or -errno).  A call can go ahead without reading its flags at all
	 * (a length of 0, a lookup that fails first): a probe that went
	 * ahead says "ignores" only when its control held, else "unproven".
	 */
	long (*control)(void);
	long control_is;
	int off;		/* FLAGS: the errno of a feature this kernel or CPU lacks */
	const char *tells;	/* DISCOVER: printf format of the value; SIZE_OUT: "yes/no" words */
	unsigned int priv;	/* needs a capability: probed as uid 65534 too */
	/*
	 * Pinned expectations, "verdict detail", as root and as uid 65534
	 * (NULL: as root): each "; X.Y: ..." part holds from release X.Y on.
	 */
	const char *expect;
	const char *expect_nobody;
};

/* Part 1 is two tables: the first survey's calls, and those since */
extern const struct row flag_rows[], later_rows[], discover_rows[], *size_rows;
extern const size_t nr_flag_rows, nr_later_rows, nr_discover_rows;
extern size_t nr_size_rows;

/* Part 2's rows are made at run time, one per struct and rule */
void size_rows_init(void);
long size_rule(const struct row *row);

/* The mount calls' and file handles' probes (survey_mount.c), for survey_later.c's table */
long p_open_tree(void);
long p_open_tree_attr(void);
long p_statmount(void);
long p_listmount(void);
long p_listns(void);
long p_fsopen(void);
long p_fsconfig(void);
long p_fsmount(void);
long p_fspick(void);
long p_move_mount(void);
long p_umount2(void);
long p_mount(void);
long c_mount(void);
long p_name_to_handle_at(void);
long p_open_by_handle_at(void);
long c_open_by_handle_at(void);

/* The private temporary directory: @name in it, and a fresh file there */
char *in_dir(const char *name);
int make_file(const char *name);

/* The unique id of the root mount, for statmount() */
uint64_t root_mnt_id(void);

/* A result: >= 0, or -errno; an fd the probe made is closed */
long res(long ret);
long res_fd(long ret);

/*
 * DISCOVER: the call answered and left the question unanswered ("silent")
 * while it answered a question it has always known (the probe's control)
 */
#define SILENT		(-ENOMSG)
/* A result no call returns: the probe could not show it reached its flags */
#define UNPROVEN	(-(1L << 20))

/* A probe's result, @err (the error that follows the checks measured) as 0 */
static inline long past(long ret, int err)
{
	return ret == -err ? 0 : ret;
}

/* A page-sized struct with room for a tail, zeroed before each use */
extern unsigned char big[];
#define BIG_SIZE	(2 * 4096 + 64)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The unknown bits: none is defined for its call by the uapi headers of
 * any kernel of the matrix (lab/survey/bits.py reads these values and
 * checks each family's, from make census)
 */
#define O_UNKNOWN	(1 << 28)	/* O_*, and the fd flags built on them */
#define AT_UNKNOWN	(1 << 30)	/* AT_*, RENAME_* */
#define MAP_UNKNOWN	0x200000	/* between MAP_FIXED_NOREPLACE and MAP_HUGE_* */
#define MFD_UNKNOWN	0x100000	/* MFD_* end at 0x10, MFD_HUGE_* start at bit 26 */
#define CLONE_UNKNOWN	(1ULL << 40)	/* CLONE_* end at bit 37 */
#define WAIT_UNKNOWN	0x100		/* between WCONTINUED and WNOWAIT */
#define FLAGS_UNKNOWN	(1U << 30)	/* a call's own flags, none that high */
#define RWF_UNKNOWN	(1 << 30)	/* RWF_* end at 0x100 */
#define MSG_UNKNOWN	0x10000000	/* between MSG_SPLICE_PAGES and MSG_FASTOPEN */
#define IN_UNKNOWN	0x08000000	/* between IN_EXCL_UNLINK and IN_MASK_CREATE */
#define FUTEX2_UNKNOWN	0x100000	/* FUTEX2_* end at FUTEX2_PRIVATE, 0x80 */
#define MS_UNKNOWN	0x200		/* between MS_NOSYMFOLLOW and MS_NOATIME */

#endif /* FLAGSFIRST_ATLAS_H */
