/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flagsfirst selftests: what the topic files share (helpers.c).  Each
 * topic is a program of its own, as in tools/testing/selftests/openat2.
 * No helper waits on the module without a bound: a test of a module that
 * blocks fails in seconds and the other tests still run.
 */
#ifndef FLAGSFIRST_TEST_HELPERS_H
#define FLAGSFIRST_TEST_HELPERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/flagsfirst.h>

#include "discipline.h"

#define FFST_IOC_TYPE	_IOC_TYPE(FLAGSFIRST_IOC_SET)
#define NOBODY		65534
#define PARAMS		"/sys/module/flagsfirst/parameters/"

/*
 * The same source builds against the current header and against the
 * frozen ABI-0 one (tests/abi/v0), as a program of either release would.
 */
#ifdef FLAGSFIRST_SET_IF_SEQ
#define HEADER_ABI	1
#else
#define HEADER_ABI	0
#endif
#define STATS		"/sys/kernel/debug/flagsfirst/stats"
#define CGROUP		"/sys/fs/cgroup"

/* One parsed record. */
struct rec {
	uint16_t type;
	uint64_t seq;
	char name[FLAGSFIRST_NAME_MAX + 1];
	char newname[FLAGSFIRST_NAME_MAX + 1];
};

/* Cgroup paths are short: CGROUP, a name of the test's, a pid. */
#define CG_PATH		128

/* A thread that SETs its own name until told to stop. */
struct writer {
	pthread_t tid;
	int fd, n;
	char name[64];
};

/* The ops, as the tests call them: 0 or -errno (watch(): the fd). */
int open_dev(void);
char *fresh(char *buf, const char *what);
int set(int fd, const char *name, const char *value, uint64_t flags);
int get(int fd, const char *name, char *buf, size_t len,
	struct flagsfirst_get *get);
bool exists(int fd, const char *name);
uint64_t seq_of(int fd, const char *name);
int del(int fd, const char *name, uint64_t flags);
int ren(int fd, const char *oldname, const char *newname, uint64_t flags);
int ren_legacy(int fd, const char *oldname, const char *newname);
int watch(int fd, uint64_t mask, uint64_t flags);

/* The ABI release the module under test runs, and its ops in it. */
int module_abi(void);
const struct release *release_of(unsigned int nr);

/* Other identities: @fn in a child, as @uid (65534) with no capabilities. */
int as_uid(uid_t uid, int (*fn)(int fd, void *arg), void *arg);
int as_nobody(int (*fn)(int fd, void *arg), void *arg);
int become(uid_t uid);

/* Files: module parameters, the debugfs stats, /proc and /sys. */
int write_param(const char *name, const char *value);
void read_param(const char *name, char *buf, size_t len);
long read_key(const char *path, const char *key);
long read_stat(const char *key);
int write_file(const char *path, const char *value);
long read_long(const char *path);
char state_of(const char *path);

/* Watch records, read without ever blocking (read_nb() polls first). */
int parse(const unsigned char *buf, ssize_t len, struct rec *out, int max);
ssize_t read_nb(int wfd, void *buf, size_t len);
int drain(int wfd, unsigned char *buf, size_t len, struct rec *recs, int max);

/* Memory cgroups (v2), for the tests of who pays. */
const char *cg_file(char *buf, const char *cg, const char *file);
int cg_make(char *path, const char *what);
long cg_current(const char *cg);
int cg_enter(const char *cg);
bool have_memcg(void);
long grow_by_sets(const char *cg, int n, size_t len, const char *prefix);

/* Time, and a struct writer's thread. */
uint64_t now_ns(void);
void *set_until(void *arg);

#endif /* FLAGSFIRST_TEST_HELPERS_H */
