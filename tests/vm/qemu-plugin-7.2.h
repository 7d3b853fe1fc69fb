/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of QEMU's TCG plugin API (version 1, as in QEMU 7.2's
 * include/qemu/qemu-plugin.h) that tcg-blocks.c uses: Debian 12 ships
 * QEMU 7.2 with plugin support but without the header.  The functions
 * are QEMU's own, resolved when it loads the plugin.
 */
#ifndef TCG_BLOCKS_QEMU_PLUGIN_H
#define TCG_BLOCKS_QEMU_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_RW = 3 };
typedef void (*udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*mem_cb_t)(unsigned int vcpu, qemu_plugin_meminfo_t info,
			 uint64_t vaddr, void *udata);

typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    void (*cb)(qemu_plugin_id_t id, void *udata),
				    void *udata);

#endif
