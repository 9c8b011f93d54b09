/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cgroups of a file's start, and pid namespaces: a task in a
 * container has a pid of its own there (NSpid in /proc/PID/status),
 * which is the one its logs and its people know.  Only tasks whose
 * /proc/PID/ns/pid differs from perfrecd's are read further, so a host
 * without containers pays one readlink per process and per new task.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "service.h"
#include "synth-internal.h"
#include "task-meta.h"

void prd_task_meta_open(struct task_meta *m, const char *proc_root)
{
	ssize_t n;

	memset(m, 0, sizeof(*m));
	m->proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m->kernel_cgroups = prd_cgroup_kernel_support();
	m->have_cgroup2 = prd_cgroup_find_mount(proc_root, m->cgroup_mount, sizeof(m->cgroup_mount),
						m->cgroup_root, sizeof(m->cgroup_root)) == 0;
	if (m->proc_fd >= 0) {
		n = readlinkat(m->proc_fd, "self/ns/pid", m->self_pidns, sizeof(m->self_pidns) - 1);
		m->self_pidns[n > 0 ? n : 0] = '\0';
	}
	if (!m->have_cgroup2)
		prd_log_info("no cgroup2 mount in %s/self/mountinfo: samples will not name their cgroups",
			     proc_root);
	else if (!m->kernel_cgroups)
		prd_log_info("the kernel cannot tag samples with their cgroup (PERF_SAMPLE_CGROUP, Linux 5.7); each process's cgroup is recorded instead");
}

void prd_task_meta_close(struct task_meta *m)
{
	if (m->proc_fd >= 0)
		close(m->proc_fd);
	m->proc_fd = -1;
}

/* Whether task (a "PID" or "PID/task/TID" of proc) is in another pid namespace. */
static int other_pidns(const struct task_meta *m, const char *task)
{
	char path[64], link[64];
	ssize_t n;

	if (!m->self_pidns[0])
		return 0;
	snprintf(path, sizeof(path), "%s/ns/pid", task);
	n = readlinkat(m->proc_fd, path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return strcmp(link, m->self_pidns) != 0;
}

/*
 * "NSpid:\t4242\t17\t1": the pid in each namespace from the host's in;
 * the last is the innermost.  0 and the values, or -EINVAL.
 */
static int parse_nspid(const char *status, uint32_t *ns_id, uint32_t *level)
{
	const char *p = strstr(status, "\nNSpid:");
	unsigned long value = 0;
	uint32_t count = 0;
	char *end;

	if (!p)
		return -EINVAL;
	p += 7;
	for (;;) {
		while (*p == '\t' || *p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		value = strtoul(p, &end, 10);
		p = end;
		count++;
	}
	if (count < 2 || value > UINT32_MAX)
		return -EINVAL;
	*ns_id = (uint32_t)value;
	*level = count - 1;
	return 0;
}

static int read_ns_id(const struct task_meta *m, const char *task, uint32_t *ns_id,
		      uint32_t *level)
{
	char path[64], text[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/status", task);
	fd = openat(m->proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	text[0] = '\n';
	n = read(fd, text + 1, sizeof(text) - 2);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? (int)n : -ENODATA;
	text[n + 1] = '\0';
	return parse_nspid(text, ns_id, level);
}

static int emit_nspid(struct task_meta *m, pid_t pid, pid_t tid, uint64_t time,
		      const struct record_sink *sink)
{
	struct prf_nspid_record r;
	char task[48];
	uint32_t level_pid = 0, level_tid = 0;

	memset(&r, 0, sizeof(r));
	snprintf(task, sizeof(task), "%d", (int)pid);
	if (read_ns_id(m, task, &r.ns_pid, &level_pid) < 0)
		return 0;
	snprintf(task, sizeof(task), "%d/task/%d", (int)pid, (int)tid);
	if (tid == pid)
		r.ns_tid = r.ns_pid;
	else if (read_ns_id(m, task, &r.ns_tid, &level_tid) < 0)
		return 0;
	r.header.type = PRF_RECORD_NSPID;
	r.header.size = sizeof(r);
	r.time = time;
	r.pid = (uint32_t)pid;
	r.tid = (uint32_t)tid;
	r.ns_level = level_pid;
	m->nspids++;
	return sink->emit(sink->context, &r, sizeof(r), time);
}

static int parse_id(const char *s, pid_t *id)
{
	char *end;
	long v;

	if (*s < '1' || *s > '9')
		return -EINVAL;
	v = strtol(s, &end, 10);
	if (*end || v > INT32_MAX)
		return -EINVAL;
	*id = (pid_t)v;
	return 0;
}

static int process_threads(struct task_meta *m, pid_t pid, uint64_t time,
			   const struct record_sink *sink)
{
	char path[32];
	struct dirent *d;
	DIR *dir;
	int fd, err = 0;
	pid_t tid;

	snprintf(path, sizeof(path), "%d/task", (int)pid);
	fd = openat(m->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!err && (d = readdir(dir)))
		if (!parse_id(d->d_name, &tid))
			err = emit_nspid(m, pid, tid, time, sink);
	closedir(dir);
	return err;
}

static int walk_processes(struct task_meta *m, const struct record_sink *sink)
{
	uint64_t time = prf_clock_ns(CLOCK_MONOTONIC);
	struct dirent *d;
	char name[16];
	DIR *dir;
	int fd, err = 0;
	pid_t pid;

	fd = openat(m->proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!err && (d = readdir(dir))) {
		if (parse_id(d->d_name, &pid))
			continue;
		snprintf(name, sizeof(name), "%d", (int)pid);
		if (!m->kernel_cgroups && m->have_cgroup2) {
			err = prd_synthesize_task_cgroup(m->proc_fd, pid, sink, time);
			if (err && err != -ENOENT && err != -ESRCH && err != -EACCES)
				break;
			err = 0;
		}
		if (other_pidns(m, name))
			err = process_threads(m, pid, time, sink);
	}
	closedir(dir);
	return err;
}

int prd_task_meta_snapshot(struct task_meta *m, const struct synth_layout *layout,
			   const struct record_sink *sink)
{
	int err;

	m->cgroups = m->nspids = 0;
	if (m->have_cgroup2 && m->kernel_cgroups) {
		err = prd_synthesize_cgroups(m->cgroup_mount, m->cgroup_root, layout, sink,
					     &m->cgroups);
		if (err && err != -ENOENT && err != -EACCES)
			return err;
	}
	return m->proc_fd >= 0 ? walk_processes(m, sink) : 0;
}

int prd_task_meta_new_task(struct task_meta *m, pid_t pid, pid_t tid, uint64_t time,
			   const struct record_sink *sink)
{
	char task[48];
	int err;

	if (m->proc_fd < 0 || pid <= 0 || tid <= 0)
		return 0;
	if (pid == tid && !m->kernel_cgroups && m->have_cgroup2) {
		err = prd_synthesize_task_cgroup(m->proc_fd, pid, sink, time);
		if (err && err != -ENOENT && err != -ESRCH && err != -EACCES)
			return err;
	}
	snprintf(task, sizeof(task), "%d/task/%d", (int)pid, (int)tid);
	return other_pidns(m, task) ? emit_nspid(m, pid, tid, time, sink) : 0;
}
