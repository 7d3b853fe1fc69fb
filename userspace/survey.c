// SPDX-License-Identifier: GPL-2.0-only
/*
 * flagsfirst survey: the history behind flagsfirst, asked of the running
 * kernel, in three parts (userspace/survey_{flags,later,sizes,discovery}.c):
 * which calls reject an unknown flag, how each extensible struct's size is
 * checked, and how a program can ask what the kernel supports.  It needs
 * no module; with /dev/flagsfirst, flagsfirst's own ops are measured by the
 * same code as the reference rows.
 *
 * Every row is checked against the verdict pinned for the running release
 * (--ktap): a kernel that changed behaviour is a finding, not a flake.
 *
 * Every probe is harmless: files are created in a private temporary
 * directory that is removed at the end; a call the kernel might carry out
 * is one that changes nothing (see each probe); a call that needs a
 * capability is asked again as uid 65534, in a child, when run as root.
 * The survey fails if it leaves a file, an fd or a child behind.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atlas.h"
#include "survey.h"

#define NOBODY	65534

static char dir[64];		/* the private temporary directory */

char *in_dir(const char *name)
{
	static char path[2][sizeof(dir) + 1 + 256];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* A fresh file in the directory, readable by uid 65534 too */
int make_file(const char *name)
{
	int fd = open(in_dir(name), O_CREAT | O_RDWR | O_CLOEXEC, 0644);

	if (fd >= 0 && ftruncate(fd, 4096)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The unique id of the mount at / (statx's STATX_MNT_ID_UNIQUE, 6.8), or 0 */
uint64_t root_mnt_id(void)
{
	struct statx stx;

	if (statx(AT_FDCWD, "/", 0, 0x4000 /* STATX_MNT_ID_UNIQUE */, &stx) ||
	    !(stx.stx_mask & 0x4000))
		return 0;
	return stx.stx_mnt_id;
}

long res(long ret)
{
	return ret < 0 ? -errno : ret;
}

long res_fd(long ret)
{
	if (ret >= 0) {
		close(ret);
		return 0;
	}
	return -errno;
}

static const char *err_name(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	return name ? name : "E?";
}

/*
 * Whether a FLAGS probe's result @ret is the call going ahead (or failing
 * past its flags): not absent, denied, off, nor the bit rejected
 */
static bool went_ahead(const struct row *row, long ret)
{
	int err = ret < 0 ? (int)-ret : 0;

	if (ret == -ENOSYS || ret == -ENODEV)
		return false;
	if (row->priv && (err == EPERM || err == EACCES) && err != row->rejects_with)
		return false;
	if (row->off && err == row->off)
		return false;
	return !(ret < 0 && (err == EINVAL || err == row->rejects_with));
}

/*
 * The row's probe, as the caller.  A FLAGS probe that went ahead runs its
 * control too: UNPROVEN if there is none or it did not hold.
 */
static long probe(const struct row *row)
{
	long ret;

	if (!row->call && row->kind == FLAGS)
		return 0;	/* no flags argument: listed, not called */
	if (row->kind == SIZE_IN || row->kind == SIZE_OUT)
		return size_rule(row);
	ret = row->call();
	if (row->kind != FLAGS || !went_ahead(row, ret))
		return ret;
	if (!row->control || row->control() != row->control_is)
		return UNPROVEN;
	return ret;
}

/* The row's probe as uid 65534 with no capability, in a child */
static long probe_as_nobody(const struct row *row)
{
	long ret = -ECHILD;
	int fds[2];
	pid_t pid;

	if (geteuid())
		return probe(row);
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(1);
		ret = probe(row);
		_exit(write(fds[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 1);
	}
	if (pid < 0)
		ret = -errno;
	close(fds[1]);
	if (pid > 0 && read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -ECHILD;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(fds[0]);
	return ret;
}

/*
 * The verdict on @ret, a result of @row's probe, as "verdict detail" in
 * @buf: the words each kind uses (atlas.h; docs/survey.md).
 */
static const char *verdict(const struct row *row, long ret, char *buf, size_t len)
{
	int err = ret < 0 ? (int)-ret : 0;
	const char *v;

	if (row->kind == FLAGS && !row->call) {
		snprintf(buf, len, "noflags 0");
		return buf;
	}
	if (ret == UNPROVEN) {
		/* went ahead, but nothing shows it read its flags */
		snprintf(buf, len, "unproven 0");
		return buf;
	}
	if (ret == -ENOSYS || ret == -ENODEV) {
		v = "absent";
	} else if (row->priv && (ret == -EPERM || ret == -EACCES) &&
		   !(row->kind == FLAGS && row->rejects_with == err)) {
		v = "denied";	/* the capability checked before the rest */
	} else if (row->kind == FLAGS && row->off && err == row->off) {
		v = "off";	/* the kernel has the call, not the feature */
	} else if (row->kind == FLAGS) {
		if (ret < 0 && (err == EINVAL || err == row->rejects_with))
			v = "rejects";
		else
			v = "ignores";	/* read its flags (the control held), went on */
	} else if (row->kind == SIZE_IN) {
		v = ret < 0 ? "rejects" : "accepts";
	} else if (row->kind == SIZE_OUT) {
		/* @tells: "held/did not", as "zeroes/leaves" */
		const char *slash = strchr(row->tells, '/');

		if (ret >= 0) {
			if (ret)
				snprintf(buf, len, "%.*s 0", (int)(slash - row->tells),
					 row->tells);
			else
				snprintf(buf, len, "%s 0", slash + 1);
			return buf;
		}
		v = "rejects";
	} else if (ret == SILENT) {
		v = "silent";	/* it worked, and ignored the question */
		err = 0;
	} else if (ret < 0) {
		v = "fails";
	} else {
		int n = snprintf(buf, len, "tells ");

		snprintf(buf + n, len - n, row->tells, ret);
		return buf;
	}
	snprintf(buf, len, "%s %s", v, err_name(err));
	return buf;
}

/* A release as a number: "6.12.118+deb12-amd64" -> 6012 */
static int release_of(const char *s)
{
	int major = 0, minor = 0;

	if (sscanf(s, "%d.%d", &major, &minor) < 1)
		return 0;
	return major * 1000 + minor;
}

/*
 * What @pinned says of @release, in @buf; NULL if nothing is pinned, ""
 * if the release falls where the pin is not known.  Parts separated by
 * "; ": the first holds from @since (before it the call is absent), each
 * "R: ..." from release R on; "A-B: ..." from B on, and between A and B
 * (a change that came somewhere between two kernels measured) nothing is
 * known.  "tells *" is any value told.
 */
static const char *pinned_at(const char *pinned, const char *since, int release,
			     char *buf, size_t len)
{
	const char *p = pinned, *dash = strchr(since, '-');
	int from = release_of(since);

	snprintf(buf, len, "absent ENOSYS");
	if (!pinned)
		return NULL;
	/* "A-B": the call came in a release from A to B, not known which */
	if (dash) {
		from = release_of(dash + 1);
		if (release >= release_of(since) && release < from)
			buf[0] = '\0';
	}
	while (*p) {
		const char *end = strchr(p, ';'), *colon = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		while (*p == ' ')
			p++, n--;
		if (colon && (!end || colon < end)) {
			const char *dash = strchr(p, '-');
			int gap = 0;

			if (dash && dash < colon) {
				gap = release_of(p);
				from = release_of(dash + 1);
			} else {
				from = release_of(p);
			}
			if (gap && release >= gap && release < from)
				buf[0] = '\0';
			n -= colon + 2 - p;
			p = colon + 2;
		}
		if (release >= from)
			snprintf(buf, len, "%.*s", (int)n, p);
		if (!end)
			break;
		p = end + 1;
	}
	return buf;
}

/* @got against @want: "tells *" takes any value told */
static bool matches(const char *want, const char *got)
{
	size_t n = strlen(want);

	if (n > 2 && !strcmp(want + n - 2, " *"))
		return !strncmp(want, got, n - 1);
	return !strcmp(want, got);
}

/*
 * flagsfirst's own rows are pinned by the module's ABI version (its
 * abi_version parameter), as the kernel's by release: "1: ..." is ABI 1.
 */
static int module_abi(void)
{
	FILE *f = fopen("/sys/module/flagsfirst/parameters/abi_version", "r");
	int abi = -1;

	if (f) {
		if (fscanf(f, "%d", &abi) != 1)
			abi = -1;
		fclose(f);
	}
	return abi * 1000;
}

/* One line of output: who ran it (caller or uid 65534) is in the name */
struct result {
	const struct row *row;
	bool nobody;		/* the "-uid65534" row of a privileged call */
	char name[80];
	char got[64];
};

static int open_fds(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = -1;		/* the DIR's own */

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Empties the directory: what the probes made, whatever they answered */
static void remove_all(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(in_dir(de->d_name));
	closedir(d);
}

static const char *const part_title[NR_PARTS] = {
	"flags: one unknown bit (or command) per call",
	"size rules: each extensible struct, each rule its own row",
	"discovery: what the running kernel says it supports",
};

static const char *const part_arg[NR_PARTS] = { "unknown bit", "size", "question" };

static int part_of(const struct row *row)
{
	return row->kind == FLAGS ? 0 : row->kind == DISCOVER ? 2 : 1;
}

static void run_part(const struct row *rows, size_t n, struct result *out, size_t *nr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct row *row = &rows[i];
		int who;

		for (who = 0; who <= (int)!!row->priv; who++) {
			struct result *r = &out[(*nr)++];

			r->row = row;
			r->nobody = who;
			snprintf(r->name, sizeof(r->name), "%s%s", row->name,
				 who ? "-uid65534" : "");
			verdict(row, who ? probe_as_nobody(row) : probe(row), r->got,
				sizeof(r->got));
		}
	}
}

enum format { HUMAN, TSV, KTAP, PINNED };

int cmd_survey(int argc, char **argv)
{
	static const char *const formats[] = { "", "--tsv", "--ktap", "--pinned" };
	enum format fmt = HUMAN;
	struct result *results;
	struct utsname uts;
	int fd, fds, release, abi, failed = 0, part = -1;
	bool root = !geteuid();
	size_t n = 0, i;

	for (i = 1; argc == 1 && i < ARRAY_SIZE(formats); i++)
		if (!strcmp(argv[0], formats[i]))
			fmt = i;
	if (argc > 1 || (argc == 1 && fmt == HUMAN)) {
		fputs("usage: flagsfirst survey [--tsv | --ktap | --pinned]\n", stderr);
		return 2;
	}
	uname(&uts);
	release = release_of(uts.release);
	abi = module_abi();
	size_rows_init();
	results = calloc(nr_flag_rows + nr_later_rows + nr_size_rows + nr_discover_rows,
			 2 * sizeof(*results));
	if (!results) {
		perror("flagsfirst: survey");
		return 1;
	}

	if (fmt == PINNED) {
		/* Each row's pinned expectation, and the releases it changes at */
		const struct row *parts[] = { flag_rows, later_rows, size_rows, discover_rows };
		size_t counts[] = { nr_flag_rows, nr_later_rows, nr_size_rows,
				    nr_discover_rows }, p;

		for (p = 0; p < ARRAY_SIZE(parts); p++)
			for (i = 0; i < counts[p]; i++) {
				const struct row *row = &parts[p][i];
				int who;

				for (who = 0; who <= (int)!!row->priv; who++)
					printf("%s%s\t%d\t%s\t%s\n", row->name,
					       who ? "-uid65534" : "", part_of(row) + 1, row->since,
					       (who && row->expect_nobody) ? row->expect_nobody :
					       row->expect ? row->expect : "-");
			}
		free(results);
		return 0;
	}

	fds = open_fds();
	snprintf(dir, sizeof(dir), "%s/flagsfirst-survey.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		perror("flagsfirst: survey: mkdtemp");
		free(results);
		return 1;
	}
	fd = make_file("file");
	if (fd < 0) {
		perror("flagsfirst: survey: a file to probe with");
		rmdir(dir);
		free(results);
		return 1;
	}
	close(fd);

	run_part(flag_rows, nr_flag_rows, results, &n);
	run_part(later_rows, nr_later_rows, results, &n);
	run_part(size_rows, nr_size_rows, results, &n);
	run_part(discover_rows, nr_discover_rows, results, &n);

	if (fmt == KTAP)
		printf("KTAP version 1\n# flagsfirst survey on %s, as %s\n1..%zu\n",
		       uts.release, root ? "root" : "an unprivileged user", n);
	for (i = 0; i < n; i++) {
		const struct result *r = &results[i];
		const struct row *row = r->row;
		/* an unprivileged caller's own rows are pinned as uid 65534's */
		bool as_nobody = r->nobody || !root;
		const char *pinned = as_nobody && row->expect_nobody ? row->expect_nobody
								      : row->expect;
		bool own = !strncmp(row->name, "flagsfirst-", 11);
		int at = own ? abi : release;
		char want[64];

		switch (fmt) {
		case TSV:	/* name, verdict, detail: tab-separated */
			printf("%s\t%.*s\t%s\n", r->name, (int)strcspn(r->got, " "), r->got,
			       r->got + strcspn(r->got, " ") + 1);
			break;
		case KTAP:
			if (own && (abi < 0 || !strncmp(r->got, "absent", 6))) {
				printf("ok %zu %s # SKIP no /dev/flagsfirst\n", i + 1, r->name);
			} else if (!pinned_at(pinned, row->since, at, want, sizeof(want))) {
				printf("not ok %zu %s # %s, nothing pinned\n", i + 1, r->name,
				       r->got);
				failed++;
			} else if (!want[0]) {
				printf("ok %zu %s # SKIP %s: this release was not measured\n",
				       i + 1, r->name, r->got);
			} else if (!matches(want, r->got) && own) {
				printf("not ok %zu %s # %s, pinned for ABI %d: %s\n", i + 1,
				       r->name, r->got, at / 1000, want);
				failed++;
			} else if (!matches(want, r->got)) {
				printf("not ok %zu %s # %s, pinned for %d.%d: %s\n", i + 1,
				       r->name, r->got, at / 1000, at % 1000, want);
				failed++;
			} else {
				printf("ok %zu %s # %s\n", i + 1, r->name, r->got);
			}
			break;
		default:
			if (part != part_of(row)) {
				part = part_of(row);
				if (part)
					printf("\n# %s\n", part_title[part]);
				printf("%-33s %-8s %-20s %-22s %s\n", part ? "call:rule" : "call",
				       "since", part_arg[part], "verdict", "lesson");
				if (!part)
					printf("# %s\n", part_title[part]);
			}
			printf("%-33s %-8s %-20s %-22s %s\n", r->name, row->since, row->arg,
			       r->got, r->nobody ? "(as uid 65534)" : row->lesson);
		}
	}
	if (fmt == KTAP)
		printf("# Totals: pass:%zu fail:%d\n", n - failed, failed);
	free(results);

	remove_all();
	if (rmdir(dir)) {
		fprintf(stderr, "flagsfirst: survey: %s left behind: %s\n", dir,
			strerror(errno));
		return 1;
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		failed = -1;
	if (failed < 0 || open_fds() != fds) {
		fprintf(stderr, "flagsfirst: survey: a probe left %s behind\n",
			failed < 0 ? "a child" : "an fd");
		return 1;
	}
	return fmt == KTAP && failed;
}
