// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcg-blocks: a QEMU TCG plugin (plugin API 1, QEMU 7.2) that says what one
 * call costs TCG, as opposed to the instructions it executes: make bench
 * BENCH_BLOCKS=N loads it (docs/benchmarks.md, "Seventh look").
 *
 * A window is what one vCPU runs from one syscall instruction to the next:
 * one call and the user code around it.  flagsfirst_bench --calls N reads
 * one byte of page K of a marker area before it makes row K's calls, and
 * page 0 when it is done; every window after a marker counts for that row,
 * and each return to page 0 closes a section (one module's run).  For each
 * section and row the plugin writes the sums over the row's windows:
 *
 *   section row windows instructions blocks lookups slow pages
 *
 * so that divided by the number of calls each is a figure per call.
 * blocks: translated blocks run; lookups: the blocks entered the way QEMU
 * enters a block it did not chain to (after a return, an indirect jump, an
 * instruction that ends a block, or a jump to another page than the
 * block's first), each through the vCPU's jump cache; slow: the lookups
 * that missed that cache, replayed with QEMU 7.2's hash (4096 slots, a
 * page's blocks sharing 64 of them); pages: distinct guest pages of code
 * and data touched.
 *
 * QEMU 7.2 ships no plugin header: qemu-plugin-7.2.h declares the few
 * functions used, as the 7.2 API defines them.  Build: cc -O2 -shared -fPIC -o
 * tcg-blocks.so tcg-blocks.c; use: qemu-system-x86_64 -plugin
 * tcg-blocks.so,out=FILE.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-7.2.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* tests/flagsfirst_bench.c's marker area: 64 pages */
#define MARK_BASE	0x100000000000ULL
#define MARK_PAGES	64
#define PAGE_SHIFT	12
#define MAX_VCPUS	64	/* make bench runs 2 */
#define MAX_PAGES	256
#define MAX_SECTIONS	64

struct block {
	uint64_t pc, end;
	unsigned int insns;
	int unchained;		/* its exit is never chained to the next block */
};

struct window {
	uint64_t insns, blocks, lookups, slow;
	int npages;
};

struct vcpu {
	struct window w;
	uint64_t pages[MAX_PAGES];
	uint64_t prev_pc;
	int prev_unchained;
	int in_window;
	const struct block *jc[4096];	/* the jump cache, replayed */
};

struct sum {
	uint64_t windows, insns, blocks, lookups, slow, pages;
};

static struct vcpu *vcpus;
static struct sum sums[MAX_SECTIONS + 1][MARK_PAGES];
/*
 * The row the windows count for (0: none) and its section: the process
 * that sets them may move between vCPUs.
 */
static int label, section, sections;
static const char *out = "tcg-blocks.txt";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void touch(struct vcpu *v, uint64_t page)
{
	for (int i = 0; i < v->w.npages; i++)
		if (v->pages[i] == page)
			return;
	if (v->w.npages < MAX_PAGES)
		v->pages[v->w.npages++] = page;
}

static void record(struct vcpu *v)
{
	struct sum *s;

	pthread_mutex_lock(&lock);
	if (label && section <= MAX_SECTIONS) {
		s = &sums[section][label];
		s->windows++;
		s->insns += v->w.insns;
		s->blocks += v->w.blocks;
		s->lookups += v->w.lookups;
		s->slow += v->w.slow;
		s->pages += v->w.npages;
	}
	pthread_mutex_unlock(&lock);
}

static void on_syscall(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu % MAX_VCPUS];

	if (v->in_window)
		record(v);
	memset(&v->w, 0, sizeof(v->w));
	v->in_window = 1;
}

static void on_block(unsigned int cpu, void *udata)
{
	const struct block *b = udata;
	struct vcpu *v = &vcpus[cpu % MAX_VCPUS];

	v->w.insns += b->insns;
	v->w.blocks++;
	if (v->prev_unchained || (b->pc ^ v->prev_pc) >> PAGE_SHIFT) {
		/* QEMU 7.2's tb_jmp_cache_hash_func() for system emulation */
		uint64_t t = b->pc ^ (b->pc >> 6);
		unsigned int slot = ((t >> 6) & 0xfc0) | (t & 0x3f);

		v->w.lookups++;
		if (v->jc[slot] != b) {
			v->w.slow++;
			v->jc[slot] = b;
		}
	}
	v->prev_pc = b->pc;
	v->prev_unchained = b->unchained;
	touch(v, b->pc >> PAGE_SHIFT);
	if ((b->end - 1) >> PAGE_SHIFT != b->pc >> PAGE_SHIFT)
		touch(v, (b->end - 1) >> PAGE_SHIFT);
}

static void on_mem(unsigned int cpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		   void *udata)
{
	struct vcpu *v = &vcpus[cpu % MAX_VCPUS];

	if (vaddr - MARK_BASE < (uint64_t)MARK_PAGES << PAGE_SHIFT) {
		int l = (vaddr - MARK_BASE) >> PAGE_SHIFT;

		pthread_mutex_lock(&lock);
		if (!l && label)
			sections++;
		if (l && !label)
			section = sections + 1;
		label = l;
		pthread_mutex_unlock(&lock);
	}
	touch(v, vaddr >> PAGE_SHIFT);
}

/* Does the instruction end its block with an exit QEMU never chains? */
static int unchained(const unsigned char *d, size_t n)
{
	size_t i = 0;

	while (i < n && (d[i] == 0x66 || d[i] == 0xf2 || d[i] == 0xf3 ||
			 d[i] == 0x2e || d[i] == 0x3e || (d[i] & 0xf0) == 0x40))
		i++;
	if (i >= n)
		return 0;
	switch (d[i]) {
	case 0xc2: case 0xc3: case 0xca: case 0xcb: case 0xcf:	/* returns */
	case 0x9d: case 0xfb: case 0xcc: case 0xf4:	/* popf, sti, int3, hlt */
		return 1;
	case 0xff:				/* indirect call and jump */
		return i + 1 < n && ((d[i + 1] >> 3) & 7) >= 2 && ((d[i + 1] >> 3) & 7) <= 5;
	case 0x0f:	/* syscall, sysret, stac/clac/swapgs, mov to cr, wrmsr, cpuid */
		return i + 1 < n && (d[i + 1] == 0x05 || d[i + 1] == 0x07 ||
				     d[i + 1] == 0x01 || d[i + 1] == 0x22 ||
				     d[i + 1] == 0x30 || d[i + 1] == 0xa2);
	}
	return 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
	struct block *b = calloc(1, sizeof(*b));	/* lives as long as QEMU */

	if (!b)
		abort();
	b->pc = qemu_plugin_tb_vaddr(tb);
	b->end = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last);
	b->insns = n;
	b->unchained = unchained(qemu_plugin_insn_data(last),
				 qemu_plugin_insn_size(last));
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const unsigned char *d = qemu_plugin_insn_data(insn);

		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
		if (qemu_plugin_insn_size(insn) == 2 && d[0] == 0x0f && d[1] == 0x05)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_syscall,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void write_results(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out, "w");

	if (!f) {
		perror(out);
		return;
	}
	fprintf(f, "# section row windows instructions blocks lookups slow pages\n");
	for (int s = 1; s <= MAX_SECTIONS; s++)
		for (int l = 1; l < MARK_PAGES; l++) {
			const struct sum *x = &sums[s][l];

			if (x->windows)
				fprintf(f, "%d %d %llu %llu %llu %llu %llu %llu\n", s, l,
					(unsigned long long)x->windows,
					(unsigned long long)x->insns,
					(unsigned long long)x->blocks,
					(unsigned long long)x->lookups,
					(unsigned long long)x->slow,
					(unsigned long long)x->pages);
		}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	vcpus = calloc(MAX_VCPUS, sizeof(*vcpus));
	if (!vcpus)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_results, NULL);
	return 0;
}
