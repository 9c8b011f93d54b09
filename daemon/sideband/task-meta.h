/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_TASK_META_H
#define PERFRECD_TASK_META_H

/*
 * What the files say of each task beyond the kernel's own records: its
 * cgroup (so that samples name their systemd unit and container) and,
 * for tasks in another pid namespace, their pid as that namespace sees
 * it.  perfrec-format(5), "cgroups and namespaces".
 */
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>
#include "sink.h"

struct task_meta {
	int proc_fd;			/* proc_root, -1 when it cannot be opened */
	int kernel_cgroups;		/* PERF_SAMPLE_CGROUP and attr.cgroup work */
	int have_cgroup2;		/* a cgroup2 mount was found */
	char cgroup_mount[PATH_MAX];	/* where it is mounted */
	char cgroup_root[PATH_MAX];	/* the hierarchy's part it shows; "" for all */
	char self_pidns[64];		/* "pid:[4026531836]": perfrecd's pid namespace */
	uint64_t cgroups;		/* synthesized in the last snapshot */
	uint64_t nspids;
};

/* Looks at proc_root and the kernel once; never fails (what is missing is left out). */
void prd_task_meta_open(struct task_meta *m, const char *proc_root);
void prd_task_meta_close(struct task_meta *m);

/*
 * At the start of a file: the existing cgroups (PERF_RECORD_CGROUP), or
 * without the kernel's support each process's (PRF_RECORD_TASK_CGROUP);
 * a PRF_RECORD_NSPID for each thread in another pid namespace.
 * Returns 0 or the sink's error.
 */
int prd_task_meta_snapshot(struct task_meta *m, const struct synth_layout *layout,
			   const struct record_sink *sink);

/* A FORK from the rings: the new task's namespace ids, its cgroup if needed. */
int prd_task_meta_new_task(struct task_meta *m, pid_t pid, pid_t tid, uint64_t time,
			   const struct record_sink *sink);

/* cgroup.c */
int prd_cgroup_kernel_support(void);
int prd_cgroup_find_mount(const char *proc_root, char *mount, size_t mount_size,
			  char *root, size_t root_size);
int prd_synthesize_cgroups(const char *mount, const char *root,
			   const struct synth_layout *layout,
			   const struct record_sink *sink, uint64_t *count);
/* proc_fd's PID/cgroup as a PRF_RECORD_TASK_CGROUP; -errno when gone. */
int prd_synthesize_task_cgroup(int proc_fd, pid_t pid, const struct record_sink *sink,
			       uint64_t time);

#endif
