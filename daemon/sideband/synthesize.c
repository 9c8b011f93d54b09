/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The processes of the machine as perf records, so that every file can be
 * read without the ones before it: per thread a FORK and a COMM, per
 * executable mapping an MMAP2 (and the mapped file's BUILD_ID), laid out
 * as perf record synthesizes them.
 *
 * Two passes: the first reads /proc/PID/stat of every process (comm,
 * parent, kernel-thread flag) into a table, which also lets only_pid
 * select a process tree; the second emits the selected processes.  All
 * reads go through openat() on directory fds into buffers of the walk;
 * nothing is allocated per process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "synth-internal.h"

#define PF_KTHREAD		0x00200000	/* include/linux/sched.h */
/*
 * TASK_COMM_LEN, as the kernel's own COMM records carry it: /proc shows
 * kernel threads longer ("kworker/u8:1-events_unbound"); perf cuts too.
 */
#define COMM_MAX		16
#define DENTS_SIZE		(32u << 10)
#define READ_BUF_SIZE		(64u << 10)

/* Kernel record bodies (perf_event_open(2)), before the sample_id trailer. */
struct fork_body {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct comm_body {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[];
};

struct mmap2_body {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t major, minor;
	uint64_t inode, inode_generation;
	uint32_t prot, flags;
	char filename[];
};

struct proc_entry {
	pid_t pid;
	pid_t ppid;
	int8_t selected;		/* -1 not known yet, 0, 1 */
	uint8_t kernel_thread;
	char comm[COMM_MAX];
};

struct walk {
	int proc_fd;
	const char *proc_root;
	const struct synth_layout *layout;
	struct buildid_cache *cache;
	unsigned generation;
	const struct record_sink *sink;
	struct synth_stats stats;
	uint64_t time;			/* of the process being emitted */

	struct proc_entry *procs;
	size_t proc_count, proc_cap;

	char *dents;			/* getdents64() of one directory */
	char *buf;			/* one file's contents */
	size_t buf_cap;
	uint64_t record[(sizeof(struct mmap2_body) + PATH_MAX + 8 +
			 PRF_SAMPLE_ID_MAX) / 8];
};

/* Gone between listing and reading, or not ours to see: skip quietly. */
static int vanished(int err)
{
	return err == -ENOENT || err == -ESRCH || err == -EACCES ||
	       err == -EPERM;
}

ssize_t prd_synth_read_all(int fd, char **buf, size_t *cap, size_t offset)
{
	size_t used = offset;
	ssize_t n;

	for (;;) {
		if (*cap < used + 8 + 4096 &&
		    prf_ensure_mem((void **)buf, cap, 1,
				   used + 8 + (*cap ? 4096 : READ_BUF_SIZE)) < 0)
			return -ENOMEM;
		n = read(fd, *buf + used, *cap - used - 8);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	(*buf)[used] = '\0';
	return (ssize_t)(used - offset);
}

/* A small file (stat, comm) with one read(): single_open() gives it whole. */
static ssize_t read_small(int dir_fd, const char *path, char *buf,
			  size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static int parse_pid(const char *name, pid_t *pid)
{
	long value = 0;

	if (*name < '1' || *name > '9')
		return -EINVAL;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || value > INT_MAX / 10)
			return -EINVAL;
		value = value * 10 + (*name - '0');
	}
	if (value > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)value;
	return 0;
}

static void copy_comm(char *out, const char *s, size_t len)
{
	if (len >= COMM_MAX)
		len = COMM_MAX - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/*
 * "pid (comm) state ppid pgrp session tty tpgid flags ...": comm may hold
 * spaces and parens, so it ends at the last ')'.  stat rather than status:
 * one read gives comm unescaped (as PERF_RECORD_COMM carries it), the
 * parent and the flags that tell kernel threads.
 */
static int parse_stat(char *text, struct proc_entry *entry)
{
	char *lparen = strchr(text, '('), *rparen = strrchr(text, ')');
	unsigned long value = 0;
	char *p, *end;

	if (!lparen || !rparen || rparen < lparen)
		return -EINVAL;
	copy_comm(entry->comm, lparen + 1, (size_t)(rparen - lparen - 1));
	p = rparen + 1;
	/* state (field 3), then ppid (4) ... flags (9) */
	while (*p == ' ')
		p++;
	if (!*p)
		return -EINVAL;
	p++;
	for (int field = 4; field <= 9; field++) {
		value = strtoul(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (field == 4)
			entry->ppid = (pid_t)value;
		p = end;
	}
	entry->kernel_thread = !!(value & PF_KTHREAD);
	return 0;
}

static int add_process(struct walk *w, pid_t pid)
{
	char path[32], text[1024];
	struct proc_entry *entry;
	ssize_t n;

	if (prf_ensure_mem((void **)&w->procs, &w->proc_cap, sizeof(*w->procs),
			   w->proc_count + 1) < 0)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%d/stat", (int)pid);
	n = read_small(w->proc_fd, path, text, sizeof(text));
	if (n < 0)
		return vanished((int)n) ? 0 : (int)n;
	entry = &w->procs[w->proc_count];
	memset(entry, 0, sizeof(*entry));
	entry->pid = pid;
	entry->selected = -1;
	if (parse_stat(text, entry))
		return 0;
	w->proc_count++;
	return 0;
}

static int compare_pids(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int list_processes(struct walk *w)
{
	struct dirent64 *d;
	ssize_t n;
	pid_t pid;
	int err;

	while ((n = getdents64(w->proc_fd, w->dents, DENTS_SIZE)) > 0) {
		for (ssize_t pos = 0; pos < n; pos += d->d_reclen) {
			d = (struct dirent64 *)(w->dents + pos);
			if (parse_pid(d->d_name, &pid))
				continue;
			err = add_process(w, pid);
			if (err)
				return err;
		}
	}
	if (n < 0)
		return -errno;
	if (w->proc_count)
		qsort(w->procs, w->proc_count, sizeof(*w->procs), compare_pids);
	return 0;
}

static struct proc_entry *find_process(struct walk *w, pid_t pid)
{
	struct proc_entry key = { .pid = pid };

	if (pid <= 0)
		return NULL;
	return bsearch(&key, w->procs, w->proc_count, sizeof(key),
		       compare_pids);
}

/* Follows PPid links up to root or to an entry already decided. */
static void select_tree(struct walk *w, struct proc_entry *entry, pid_t root)
{
	struct proc_entry *p = entry, *stop;
	int8_t verdict = 0;

	for (size_t steps = 0; p && steps <= w->proc_count; steps++) {
		if (p->selected >= 0) {
			verdict = p->selected;
			break;
		}
		if (p->pid == root) {
			verdict = p->selected = 1;
			break;
		}
		p = find_process(w, p->ppid);
	}
	stop = p;
	for (p = entry; p && p != stop; p = find_process(w, p->ppid))
		p->selected = verdict;
}

static void select_processes(struct walk *w, pid_t only_pid)
{
	for (size_t i = 0; i < w->proc_count; i++) {
		if (only_pid <= 0)
			w->procs[i].selected = 1;
		else if (w->procs[i].selected < 0)
			select_tree(w, &w->procs[i], only_pid);
	}
}

/* Fills in the header and trailer of the record body in w->record. */
static int emit_kernel_record(struct walk *w, uint32_t type, uint16_t misc,
			      size_t body_size, uint32_t pid, uint32_t tid)
{
	struct perf_event_header *header = (void *)w->record;
	size_t size = body_size;

	size += synth_trailer(w->layout, (char *)w->record + size, pid, tid,
			      w->time);
	header->type = type;
	header->misc = misc;
	header->size = (uint16_t)size;
	return w->sink->emit(w->sink->context, w->record, size, w->time);
}

/*
 * As perf synthesizes threads: the leader's parent is PPid, the other
 * threads' is the leader, as if it had started them all.
 */
static int emit_thread(struct walk *w, const struct proc_entry *proc,
		       pid_t tid, const char *comm)
{
	struct fork_body *task = (void *)w->record;
	struct comm_body *body = (void *)w->record;
	uint32_t parent = tid == proc->pid ? proc->ppid : proc->pid;
	size_t size;
	int err;

	memset(task, 0, sizeof(*task));
	task->pid = proc->pid;
	task->ppid = parent;
	task->tid = tid;
	task->ptid = parent;
	task->time = w->time;
	err = emit_kernel_record(w, PERF_RECORD_FORK, 0, sizeof(*task),
				 proc->pid, tid);
	if (err)
		return err;

	body->pid = proc->pid;
	body->tid = tid;
	size = sizeof(*body) + synth_put_string(body->comm, comm, strlen(comm));
	err = emit_kernel_record(w, PERF_RECORD_COMM, 0, size, proc->pid, tid);
	if (err)
		return err;
	w->stats.threads++;
	return 0;
}

static int thread_comm(int task_fd, pid_t tid, char *comm)
{
	char path[32], text[COMM_MAX + 2];
	ssize_t n;

	snprintf(path, sizeof(path), "%d/comm", (int)tid);
	n = read_small(task_fd, path, text, sizeof(text));
	if (n < 0)
		return (int)n;
	if (n > 0 && text[n - 1] == '\n')
		n--;
	copy_comm(comm, text, (size_t)n);
	return 0;
}

/* Returns the threads emitted, or an error. */
static int synthesize_threads(struct walk *w, const struct proc_entry *proc,
			      int pid_fd)
{
	char comm[COMM_MAX];
	struct dirent64 *d;
	int task_fd, count = 0, err = 0;
	ssize_t n;
	pid_t tid;

	task_fd = openat(pid_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (task_fd < 0)
		return vanished(-errno) ? 0 : -errno;
	while (!err && (n = getdents64(task_fd, w->dents, DENTS_SIZE)) > 0) {
		for (ssize_t pos = 0; !err && pos < n; pos += d->d_reclen) {
			d = (struct dirent64 *)(w->dents + pos);
			if (parse_pid(d->d_name, &tid))
				continue;
			if (tid == proc->pid) {
				memcpy(comm, proc->comm, sizeof(comm));
			} else if ((err = thread_comm(task_fd, tid, comm))) {
				err = vanished(err) ? 0 : err;
				continue;
			}
			err = emit_thread(w, proc, tid, comm);
			count++;
		}
	}
	close(task_fd);
	return err ? err : count;
}

struct map_line {
	uint64_t start, end, offset, inode;
	uint32_t major, minor;
	uint32_t prot, flags;
	const char *path;
	size_t path_len;
};

static const char *parse_hex(const char *p, uint64_t *value)
{
	uint64_t v = 0;
	const char *s = p;

	for (;; p++) {
		unsigned digit;

		if (*p >= '0' && *p <= '9')
			digit = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			digit = (unsigned)(*p - 'a' + 10);
		else
			break;
		v = v << 4 | digit;
	}
	*value = v;
	return p == s ? NULL : p;
}

static const char *parse_hex_field(const char *p, char sep, uint64_t *value)
{
	p = parse_hex(p, value);
	return p && *p == sep ? p + 1 : NULL;
}

/*
 * "start-end perm offset maj:min inode   path": the path, if any, is the
 * rest of the line, " (deleted)" and all, as perf keeps it.  Only lines
 * with 'x' are parsed past perm; returns 0 for those, -EINVAL to skip.
 */
static int parse_map_line(const char *p, struct map_line *m)
{
	uint64_t major, minor;
	const char *perm;

	if (!(p = parse_hex_field(p, '-', &m->start)) ||
	    !(p = parse_hex_field(p, ' ', &m->end)))
		return -EINVAL;
	perm = p;
	if (strnlen(perm, 5) < 5 || perm[2] != 'x' || perm[4] != ' ')
		return -EINVAL;
	m->prot = PROT_EXEC | (perm[0] == 'r' ? PROT_READ : 0) |
		  (perm[1] == 'w' ? PROT_WRITE : 0);
	m->flags = perm[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p = perm + 5;
	if (!(p = parse_hex_field(p, ' ', &m->offset)) ||
	    !(p = parse_hex_field(p, ':', &major)) ||
	    !(p = parse_hex_field(p, ' ', &minor)))
		return -EINVAL;
	m->major = (uint32_t)major;
	m->minor = (uint32_t)minor;
	m->inode = strtoull(p, (char **)&p, 10);
	while (*p == ' ')
		p++;
	m->path = p;
	m->path_len = strlen(p);
	if (m->path_len > PATH_MAX - 1)
		m->path_len = PATH_MAX - 1;
	return 0;
}

static int emit_build_id(struct walk *w, pid_t pid, const struct map_line *m,
			 const char *path)
{
	struct buildid_entry *entry;
	int ret;

	if (!w->cache || !m->inode || path[0] != '/')
		return 0;
	entry = prd_buildid_lookup(w->cache, w->proc_root, pid, m->start, m->end,
				   path, m->major, m->minor, m->inode);
	if (!entry)
		return -ENOMEM;
	ret = prd_buildid_emit(entry, w->generation, pid, path, m->major,
			       m->minor, m->inode, 0, w->sink, w->time);
	if (ret > 0)
		w->stats.build_ids++;
	return ret < 0 ? ret : 0;
}

static int emit_mapping(struct walk *w, pid_t pid, const struct map_line *m)
{
	struct mmap2_body *body = (void *)w->record;
	const char *name = m->path;
	size_t name_len = m->path_len, size;
	int err;

	/* perf's name for anonymous executable memory (JIT code) */
	if (!name_len) {
		name = "//anon";
		name_len = strlen(name);
	}
	memset(body, 0, sizeof(*body));
	size = sizeof(*body) + synth_put_string(body->filename, name, name_len);
	/* before the MMAP2, so readers know the file when they meet it */
	err = emit_build_id(w, pid, m, body->filename);
	if (err)
		return err;
	body->pid = pid;
	body->tid = pid;
	body->start = m->start;
	body->len = m->end - m->start;
	body->pgoff = m->offset;
	body->major = m->major;
	body->minor = m->minor;
	body->inode = m->inode;
	body->prot = m->prot;
	body->flags = m->flags;
	err = emit_kernel_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
				 size, pid, pid);
	if (err)
		return err;
	w->stats.mappings++;
	return 0;
}

static int synthesize_maps(struct walk *w, pid_t pid, int pid_fd)
{
	struct map_line m;
	char *line, *next;
	ssize_t n;
	int fd, err = 0;

	fd = openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return vanished(-errno) ? 0 : -errno;
	n = prd_synth_read_all(fd, &w->buf, &w->buf_cap, 0);
	close(fd);
	if (n < 0)
		return vanished((int)n) ? 0 : (int)n;
	for (line = w->buf; !err && line < w->buf + n; line = next) {
		next = memchr(line, '\n', (size_t)(w->buf + n - line));
		if (next)
			*next++ = '\0';
		else
			next = w->buf + n;
		if (!parse_map_line(line, &m))
			err = emit_mapping(w, pid, &m);
	}
	return err;
}

static int synthesize_process(struct walk *w, const struct proc_entry *proc)
{
	char name[16];
	int pid_fd, threads, err = 0;

	snprintf(name, sizeof(name), "%d", (int)proc->pid);
	pid_fd = openat(w->proc_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pid_fd < 0)
		return vanished(-errno) ? 0 : -errno;
	w->time = prf_clock_ns(CLOCK_MONOTONIC);
	threads = synthesize_threads(w, proc, pid_fd);
	if (threads < 0)
		err = threads;
	else if (threads > 0 && !proc->kernel_thread)
		err = synthesize_maps(w, proc->pid, pid_fd);
	close(pid_fd);
	if (!err && threads > 0)
		w->stats.processes++;
	return err;
}

static int emit_snapshot(struct walk *w, uint32_t type, uint64_t count)
{
	struct prf_snapshot_record record;

	memset(&record, 0, sizeof(record));
	record.header.type = type;
	record.header.size = sizeof(record);
	record.time = prf_clock_ns(CLOCK_MONOTONIC);
	record.process_count = count;
	return w->sink->emit(w->sink->context, &record, sizeof(record),
			     record.time);
}

static int walk_processes(struct walk *w, pid_t only_pid)
{
	int err;

	err = list_processes(w);
	if (err)
		return err;
	select_processes(w, only_pid);
	err = emit_snapshot(w, PRF_RECORD_SNAPSHOT_BEGIN, 0);
	for (size_t i = 0; !err && i < w->proc_count; i++) {
		if (w->procs[i].selected == 1)
			err = synthesize_process(w, &w->procs[i]);
	}
	if (err)
		return err;
	return emit_snapshot(w, PRF_RECORD_SNAPSHOT_END, w->stats.processes);
}

int prd_synthesize_processes(const char *proc_root, pid_t only_pid,
			     const struct synth_layout *layout,
			     struct buildid_cache *cache, unsigned generation,
			     const struct record_sink *sink,
			     struct synth_stats *stats)
{
	struct walk *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->proc_root = proc_root;
	w->layout = layout;
	w->cache = cache;
	w->generation = generation;
	w->sink = sink;
	w->dents = malloc(DENTS_SIZE);
	w->proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->proc_fd < 0)
		err = -errno;
	else
		err = w->dents ? walk_processes(w, only_pid) : -ENOMEM;
	if (stats)
		*stats = w->stats;
	if (w->proc_fd >= 0)
		close(w->proc_fd);
	free(w->dents);
	free(w->buf);
	free(w->procs);
	free(w);
	return err;
}
