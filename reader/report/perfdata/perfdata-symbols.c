/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What perf takes from outside a perf.data: the kernel's symbols from a
 * kallsyms file (perf report --kallsyms FILE) and JIT code's from
 * /tmp/perf-PID.map files, which it opens for a process's anonymous
 * code.  Both are written from what the capture recorded, each whole or
 * not at all (report_output_open()).  Their names are another host's:
 * cut, made safe, and without the blanks that separate the fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfdata-internal.h"
#include "symbolize.h"

static const char *field(char *out, size_t size, const char *name)
{
	perfdata_clean_name(out, size, name);
	for (char *p = out; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '_';
	return *out ? out : "?";
}

static void put_ksym(void *context, const struct symbolizer_ksym *k)
{
	FILE *out = context;
	char name[512], module[PRF_MODULE_NAME_MAX];

	fprintf(out, "%016" PRIx64 " T %s", k->start, field(name, sizeof(name), k->name));
	if (k->module && *k->module)
		fprintf(out, "\t[%s]", field(module, sizeof(module), k->module));
	fputc('\n', out);
}

int perfdata_write_kallsyms(struct perfdata_writer *w, const char *path)
{
	struct report_output output;
	int ret;

	if (!w->kernel || !w->kernel_start)
		return 0;
	ret = report_output_open_beside(&output, path);
	if (ret < 0)
		return ret;
	dso_kernel_for_each_symbol(w->kernel, put_ksym, output.file);
	ret = report_output_close(&output, !ferror(output.file));
	return ret < 0 ? ret : 1;
}

struct jit_files {
	struct perfdata_writer *w;
	const char *dir;
	uint32_t *pids;			/* written: a pid's newest process wins */
	size_t pid_count, pid_capacity;
	int count, error;
};

static int jit_file(const char *path, const struct session_task_event *e)
{
	struct report_output output;
	char name[PERFDATA_NAME_MAX];
	int ret = report_output_open_beside(&output, path);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < e->jit_count; i++) {
		const struct symbolizer_jit_symbol *s = &e->jit[i];

		/* perf-PID.map: a line per symbol, the name to its end */
		perfdata_clean_name(name, sizeof(name), s->name);
		fprintf(output.file, "%" PRIx64 " %" PRIx64 " %s\n", s->start, s->end - s->start,
			*name ? name : "?");
	}
	return report_output_close(&output, !ferror(output.file));
}

/*
 * FILE.jit/, made or taken when it is a directory of this user's: one
 * planted beside FILE (a symlink to /etc, another user's directory in
 * /tmp) would have the maps written where that user chose.
 */
static int jit_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	return 0;
}

static void put_jit(void *context, const struct session_task_event *e)
{
	struct jit_files *j = context;
	char path[PATH_MAX];
	int ret;

	if (j->error || e->kind != SESSION_TASK_START || !e->jit_count ||
	    (j->w->options.host && e->host != j->w->options.host))
		return;
	for (size_t i = 0; i < j->pid_count; i++)
		if (j->pids[i] == e->pid)
			return;
	if (prf_ensure_mem((void **)&j->pids, &j->pid_capacity, sizeof(*j->pids),
			   j->pid_count + 1) < 0) {
		j->error = -ENOMEM;
		return;
	}
	j->pids[j->pid_count++] = e->pid;
	if (!j->count && (ret = jit_dir(j->dir)) < 0) {
		j->error = ret;
		return;
	}
	if (snprintf(path, sizeof(path), "%s/perf-%" PRIu32 ".map", j->dir, e->pid) >=
	    (int)sizeof(path)) {
		j->error = -ENAMETOOLONG;
		return;
	}
	ret = jit_file(path, e);
	if (ret < 0)
		j->error = ret;
	else
		j->count++;
}

int perfdata_write_jit_maps(struct perfdata_writer *w, const char *dir)
{
	struct jit_files j = { .w = w, .dir = dir };

	session_for_each_task_event(w->session, put_jit, &j);
	free(j.pids);
	return j.error ? j.error : j.count;
}
