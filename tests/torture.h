/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst torture tests (flagsfirst_torture.c has the modes): what the
 * fuzzer, the stress test and the fault injection share.
 */
#ifndef FLAGSFIRST_TORTURE_H
#define FLAGSFIRST_TORTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/flagsfirst.h>

#define PAGE		4096
#define STATS		"/sys/kernel/debug/flagsfirst/stats"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)	((a) < (b) ? (a) : (b))

extern int dev;
extern uint64_t rng_state;

struct stats {
	unsigned long entries, bytes, allocated;
};

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
uint64_t ptr(const void *p);
int ffst(unsigned long cmd, void *arg);
bool documented(int err);
uint64_t rnd(void);
uint64_t below(uint64_t n);
struct stats read_stats(void);
int set(const char *name, const char *value, uint64_t flags);
int get(const char *name, char *buf, size_t len, struct flagsfirst_get *g);
int del_all(void);
int ren(const char *a, const char *b, uint64_t flags);

/* The modes */
int fuzz(int argc, char **argv);
int stress(int argc, char **argv);
int faults(int argc, char **argv);

#endif /* FLAGSFIRST_TORTURE_H */
