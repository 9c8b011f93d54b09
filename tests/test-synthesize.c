/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthesis against this machine's /proc and /sys, checked against other
 * tools (eu-readelf, perf) and an independent reading of /proc; and
 * against fake roots for what this machine does not show (modules, hidden
 * addresses, odd maps lines, processes vanishing).
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "format.h"
#include "synthesize.h"

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

static struct perf_event_attr attr = {
	.type = PERF_TYPE_SOFTWARE,
	.size = sizeof(struct perf_event_attr),
	.config = PERF_COUNT_SW_CPU_CLOCK,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		       PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		       PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER,
	.sample_id_all = 1,
};

static const struct synth_layout layout = {
	.attr = &attr,
	.id = 0x1234abcd,
	.cpu = 3,
};

/* ---- a sink that keeps what it is given --------------------------- */

struct record {
	uint8_t *data;
	size_t size;
	uint64_t time;
};

struct collector {
	struct record *records;
	size_t count, cap;
	long fail_at;			/* this emit fails; -1: none does */
	long calls;
};

static uint32_t type_of(const struct record *r)
{
	uint32_t type;

	memcpy(&type, r->data, sizeof(type));
	return type;
}

static int collect(void *context, const void *data, size_t size,
		   uint64_t time)
{
	struct collector *c = context;
	uint32_t type;

	ck_assert_uint_ge(size, 8);
	ck_assert_uint_eq(size % 8, 0);
	ck_assert_uint_gt(time, 0);
	memcpy(&type, data, sizeof(type));
	if (type >= PRF_RECORD_BASE) {
		const struct prf_record_header *h = data;

		ck_assert_uint_eq(h->size, size);
		ck_assert_uint_eq(h->reserved, 0);
	} else {
		const struct perf_event_header *h = data;

		ck_assert_uint_eq(h->size, size);
	}
	if (c->fail_at >= 0 && c->calls++ == c->fail_at)
		return -ENOSPC;
	if (c->count == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->records = realloc(c->records, c->cap * sizeof(*c->records));
		ck_assert_ptr_nonnull(c->records);
	}
	c->records[c->count].data = malloc(size);
	ck_assert_ptr_nonnull(c->records[c->count].data);
	memcpy(c->records[c->count].data, data, size);
	c->records[c->count].size = size;
	c->records[c->count].time = time;
	c->count++;
	return 0;
}

static void collector_reset(struct collector *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->records[i].data);
	free(c->records);
	memset(c, 0, sizeof(*c));
	c->fail_at = -1;
}

static struct record_sink sink_of(struct collector *c)
{
	return (struct record_sink){ .emit = collect, .context = c };
}

static size_t count_type(const struct collector *c, uint32_t type)
{
	size_t n = 0;

	for (size_t i = 0; i < c->count; i++)
		n += type_of(&c->records[i]) == type;
	return n;
}

/* Every kernel record decodes and carries the layout's trailer. */
static void decode(const struct record *r, struct prf_decoded *d)
{
	ck_assert_int_eq(prf_decode_record(&attr, r->data, r->size, d), 1);
	ck_assert_uint_eq(d->id.id, layout.id);
	ck_assert_uint_eq(d->id.stream_id, layout.id);
	ck_assert_uint_eq(d->id.identifier, layout.id);
	ck_assert_uint_eq(d->id.cpu, layout.cpu);
	ck_assert_uint_eq(d->id.time, r->time);
}

/* The n-th record of type whose (pid, tid) match; -1 matches any. */
static const struct record *find(const struct collector *c, uint32_t type,
				 long pid, long tid, struct prf_decoded *d)
{
	for (size_t i = 0; i < c->count; i++) {
		const struct record *r = &c->records[i];
		uint32_t rpid, rtid;

		if (type_of(r) != type)
			continue;
		decode(r, d);
		if (type == PERF_RECORD_COMM) {
			rpid = d->comm.pid;
			rtid = d->comm.tid;
		} else if (type == PERF_RECORD_FORK) {
			rpid = d->task.pid;
			rtid = d->task.tid;
		} else {
			rpid = d->mmap.pid;
			rtid = d->mmap.tid;
		}
		if ((pid < 0 || rpid == (uint32_t)pid) &&
		    (tid < 0 || rtid == (uint32_t)tid))
			return r;
	}
	return NULL;
}

static const struct record *find_mmap2(const struct collector *c, long pid,
				       const char *name, struct prf_decoded *d)
{
	for (size_t i = 0; i < c->count; i++) {
		const struct record *r = &c->records[i];

		if (type_of(r) != PERF_RECORD_MMAP2)
			continue;
		decode(r, d);
		if ((pid < 0 || d->mmap.pid == (uint32_t)pid) &&
		    strstr(d->mmap.filename, name))
			return r;
	}
	return NULL;
}

static const struct prf_build_id_record *find_build_id(const struct collector *c,
						       uint64_t inode)
{
	for (size_t i = 0; i < c->count; i++) {
		const struct prf_build_id_record *b = (void *)c->records[i].data;

		if (type_of(&c->records[i]) == PRF_RECORD_BUILD_ID &&
		    b->inode == inode)
			return b;
	}
	return NULL;
}

static const char *build_id_path(const struct prf_build_id_record *b)
{
	const char *path = (const char *)(b + 1);

	ck_assert_uint_lt(strlen(path), b->header.size - sizeof(*b));
	return path;
}

/* ---- what other tools say ----------------------------------------- */

static size_t parse_hex_bytes(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned byte;

	while (n < max && sscanf(s, "%2x", &byte) == 1) {
		out[n++] = (uint8_t)byte;
		s += 2;
	}
	return n;
}

/* The bytes after "marker" in the output of command, or 0. */
static size_t tool_build_id(const char *command, const char *marker,
			    uint8_t out[20])
{
	char line[512];
	size_t n = 0;
	FILE *p = popen(command, "r");

	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char *hit = strstr(line, marker);

		if (hit && !n)
			n = parse_hex_bytes(hit + strlen(marker), out, 20);
	}
	pclose(p);
	return n;
}

static size_t readelf_build_id(const char *path, uint8_t out[20])
{
	char command[PATH_MAX + 64];

	snprintf(command, sizeof(command), "eu-readelf -n '%s' 2>/dev/null",
		 path);
	return tool_build_id(command, "Build ID: ", out);
}

struct self_map {
	unsigned long long start, end, offset, inode;
	unsigned major, minor;
};

/* The executable line of /proc/self/maps for path, read with stdio. */
static int self_map(const char *path, struct self_map *m)
{
	char line[PATH_MAX + 256], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0, name;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &m->start,
			   &m->end, perm, &m->offset, &m->major, &m->minor,
			   &m->inode, &name) == 7 &&
		    perm[2] == 'x' && !strcmp(line + name, path))
			found = 1;
	}
	fclose(f);
	return found;
}

static void self_exe(char *path)
{
	ssize_t n = readlink("/proc/self/exe", path, PATH_MAX - 1);

	ck_assert_int_gt(n, 0);
	path[n] = '\0';
}

static void read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, (int)size, f));
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void check_snapshot(const struct collector *c, uint64_t processes)
{
	const struct prf_snapshot_record *begin = (void *)c->records[0].data;
	const struct prf_snapshot_record *end =
		(void *)c->records[c->count - 1].data;

	ck_assert_uint_ge(c->count, 2);
	ck_assert_uint_eq(begin->header.type, PRF_RECORD_SNAPSHOT_BEGIN);
	ck_assert_uint_eq(begin->header.size, sizeof(*begin));
	ck_assert_uint_eq(begin->process_count, 0);
	ck_assert_uint_eq(end->header.type, PRF_RECORD_SNAPSHOT_END);
	ck_assert_uint_eq(end->process_count, processes);
	ck_assert_uint_ge(end->time, begin->time);
	ck_assert_uint_eq(count_type(c, PRF_RECORD_SNAPSHOT_BEGIN), 1);
	ck_assert_uint_eq(count_type(c, PRF_RECORD_SNAPSHOT_END), 1);
}

/* ---- this process ------------------------------------------------- */

struct worker {
	pthread_t thread;
	int ready[2], hold[2];
	pid_t tid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char byte;

	w->tid = gettid();
	ck_assert_int_eq(write(w->ready[1], "x", 1), 1);
	(void)!read(w->hold[0], &byte, 1);
	return NULL;
}

static void worker_start(struct worker *w)
{
	char byte;

	ck_assert_int_eq(pipe(w->ready), 0);
	ck_assert_int_eq(pipe(w->hold), 0);
	ck_assert_int_eq(pthread_create(&w->thread, NULL, worker_main, w), 0);
	ck_assert_int_eq(read(w->ready[0], &byte, 1), 1);
	ck_assert_int_eq(pthread_setname_np(w->thread, "synth-worker"), 0);
}

static void worker_stop(struct worker *w)
{
	close(w->hold[1]);
	pthread_join(w->thread, NULL);
	close(w->hold[0]);
	close(w->ready[0]);
	close(w->ready[1]);
}

static void check_file_build_id(const struct collector *c, uint64_t inode,
				const char *path)
{
	const struct prf_build_id_record *b = find_build_id(c, inode);
	uint8_t expect[20];
	size_t size = readelf_build_id(path, expect);

	ck_assert_uint_gt(size, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->build_id_size, size);
	ck_assert_mem_eq(b->build_id, expect, size);
	ck_assert_uint_eq(b->flags, 0);
	ck_assert_uint_eq(b->pid, (uint32_t)getpid());
	ck_assert_str_eq(build_id_path(b), path);
}

static void check_self_records(const struct collector *c, pid_t worker_tid,
			       uint64_t t0, uint64_t t1)
{
	struct prf_decoded d;
	char comm[64];

	for (size_t i = 0; i < c->count; i++) {
		if (type_of(&c->records[i]) >= PRF_RECORD_BASE)
			continue;
		decode(&c->records[i], &d);
		ck_assert_uint_eq(d.id.pid, (uint32_t)getpid());
		ck_assert(d.id.time >= t0 && d.id.time <= t1);
	}
	ck_assert_ptr_nonnull(find(c, PERF_RECORD_FORK, getpid(), getpid(), &d));
	ck_assert_uint_eq(d.task.ppid, (uint32_t)getppid());
	ck_assert_uint_eq(d.task.ptid, (uint32_t)getppid());
	ck_assert_uint_eq(d.id.tid, (uint32_t)getpid());
	ck_assert_ptr_nonnull(find(c, PERF_RECORD_FORK, getpid(), worker_tid, &d));
	ck_assert_uint_eq(d.task.ppid, (uint32_t)getpid());
	ck_assert_uint_eq(d.task.ptid, (uint32_t)getpid());
	ck_assert_uint_eq(d.id.tid, (uint32_t)worker_tid);

	read_text("/proc/self/comm", comm, sizeof(comm));
	ck_assert_ptr_nonnull(find(c, PERF_RECORD_COMM, getpid(), getpid(), &d));
	ck_assert_str_eq(d.comm.comm, comm);
	ck_assert(!d.comm.exec);
	ck_assert_ptr_nonnull(find(c, PERF_RECORD_COMM, getpid(), worker_tid, &d));
	ck_assert_str_eq(d.comm.comm, "synth-worker");
	ck_assert_uint_eq(d.id.tid, (uint32_t)worker_tid);
}

static void check_self_mapping(const struct collector *c, const char *path)
{
	const struct record *r;
	struct self_map m;
	struct prf_decoded d;

	ck_assert_msg(self_map(path, &m), "%s not in /proc/self/maps", path);
	r = find_mmap2(c, getpid(), path, &d);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(d.mmap.filename, path);
	ck_assert_uint_eq(((const struct perf_event_header *)r->data)->misc,
			  PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(d.mmap.tid, (uint32_t)getpid());
	ck_assert_uint_eq(d.mmap.start, m.start);
	ck_assert_uint_eq(d.mmap.length, m.end - m.start);
	ck_assert_uint_eq(d.mmap.page_offset, m.offset);
	ck_assert_uint_eq(d.mmap.major, m.major);
	ck_assert_uint_eq(d.mmap.minor, m.minor);
	ck_assert_uint_eq(d.mmap.inode, m.inode);
	ck_assert_uint_eq(d.mmap.inode_generation, 0);
	ck_assert(d.mmap.prot & PROT_EXEC);
	ck_assert(d.mmap.prot & PROT_READ);
	ck_assert_uint_eq(d.mmap.flags, MAP_PRIVATE);
	check_file_build_id(c, m.inode, path);
}

/* The libc this test runs on, as /proc/self/maps names it. */
static void libc_path(char *path)
{
	char line[PATH_MAX + 256];
	FILE *f = fopen("/proc/self/maps", "r");

	ck_assert_ptr_nonnull(f);
	path[0] = '\0';
	while (!path[0] && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');

		line[strcspn(line, "\n")] = '\0';
		if (name && strstr(name, "/libc.so"))
			strcpy(path, name);
	}
	fclose(f);
	ck_assert_msg(path[0], "no libc in /proc/self/maps");
}

START_TEST(self_process)
{
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	char exe[PATH_MAX], libc[PATH_MAX];
	struct synth_stats stats;
	struct prf_decoded d;
	struct worker w;
	size_t build_ids, mmaps;
	uint64_t t0, t1;

	ck_assert_ptr_nonnull(cache);
	worker_start(&w);
	t0 = now_ns();
	ck_assert_int_eq(prd_synthesize_processes("/proc", getpid(), &layout, cache,
						  1, &sink, &stats), 0);
	t1 = now_ns();
	check_snapshot(&c, 1);
	ck_assert_uint_eq(stats.processes, 1);
	ck_assert_uint_eq(stats.threads, 2);
	ck_assert_uint_eq(count_type(&c, PERF_RECORD_FORK), 2);
	ck_assert_uint_eq(count_type(&c, PERF_RECORD_COMM), 2);
	mmaps = count_type(&c, PERF_RECORD_MMAP2);
	build_ids = count_type(&c, PRF_RECORD_BUILD_ID);
	ck_assert_uint_eq(stats.mappings, mmaps);
	ck_assert_uint_eq(stats.build_ids, build_ids);
	check_self_records(&c, w.tid, t0, t1);

	self_exe(exe);
	check_self_mapping(&c, exe);
	libc_path(libc);
	check_self_mapping(&c, libc);
	ck_assert_ptr_nonnull(find_mmap2(&c, getpid(), "[vdso]", &d));
	ck_assert_str_eq(d.mmap.filename, "[vdso]");
	ck_assert_uint_eq(d.mmap.inode, 0);

	/* the same file again: the build-ids are in it already */
	collector_reset(&c);
	ck_assert_int_eq(prd_synthesize_processes("/proc", getpid(), &layout, cache,
						  1, &sink, &stats), 0);
	ck_assert_uint_eq(count_type(&c, PRF_RECORD_BUILD_ID), 0);
	ck_assert_uint_eq(stats.build_ids, 0);
	ck_assert_uint_eq(count_type(&c, PERF_RECORD_MMAP2), mmaps);

	/* a new file needs them again */
	collector_reset(&c);
	ck_assert_int_eq(prd_synthesize_processes("/proc", getpid(), &layout, cache,
						  2, &sink, &stats), 0);
	ck_assert_uint_eq(count_type(&c, PRF_RECORD_BUILD_ID), build_ids);
	ck_assert_uint_eq(stats.build_ids, build_ids);
	check_file_build_id(&c, find_mmap2(&c, getpid(), exe, &d) ?
			    d.mmap.inode : 0, exe);

	worker_stop(&w);
	collector_reset(&c);
	prd_buildid_cache_free(cache);
}
END_TEST

/* ---- a process tree ----------------------------------------------- */

static pid_t start_child(int hold[2])
{
	int ready[2];
	char byte;
	pid_t pid;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(hold), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, "synth-child");
		close(hold[1]);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		(void)!read(hold[0], &byte, 1);
		_exit(0);
	}
	close(hold[0]);
	ck_assert_int_eq(read(ready[0], &byte, 1), 1);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static uint64_t snapshot_processes(pid_t only_pid, struct collector *c)
{
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct record_sink sink = sink_of(c);
	struct synth_stats stats;

	collector_reset(c);
	ck_assert_int_eq(prd_synthesize_processes("/proc", only_pid, &layout, cache,
						  1, &sink, &stats), 0);
	check_snapshot(c, stats.processes);
	prd_buildid_cache_free(cache);
	return stats.processes;
}

static void check_kernel_thread(const struct collector *c)
{
	struct prf_decoded d;
	char comm[64];

	read_text("/proc/2/comm", comm, sizeof(comm));
	if (strcmp(comm, "kthreadd"))
		return;		/* in a pid namespace: 2 is someone else */
	ck_assert_ptr_nonnull(find(c, PERF_RECORD_FORK, 2, 2, &d));
	ck_assert_ptr_nonnull(find(c, PERF_RECORD_COMM, 2, 2, &d));
	ck_assert_str_eq(d.comm.comm, "kthreadd");
	ck_assert_ptr_null(find(c, PERF_RECORD_MMAP2, 2, -1, &d));
}

START_TEST(process_tree)
{
	struct collector c = { .fail_at = -1 };
	struct prf_decoded d;
	uint64_t processes;
	int hold[2];
	pid_t child = start_child(hold);

	processes = snapshot_processes(0, &c);
	ck_assert_uint_ge(processes, 2);
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_FORK, child, child, &d));
	ck_assert_uint_eq(d.task.ppid, (uint32_t)getpid());
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_COMM, child, child, &d));
	ck_assert_str_eq(d.comm.comm, "synth-child");
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_MMAP2, child, child, &d));
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_FORK, getpid(), getpid(), &d));
	check_kernel_thread(&c);

	/* this process and its descendants */
	ck_assert_uint_eq(snapshot_processes(getpid(), &c), 2);
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_COMM, child, child, &d));
	ck_assert_uint_eq(snapshot_processes(child, &c), 1);
	ck_assert_ptr_null(find(&c, PERF_RECORD_COMM, getpid(), -1, &d));
	/* beyond any pid_max */
	ck_assert_uint_eq(snapshot_processes(0x3fffffff, &c), 0);
	ck_assert_uint_eq(c.count, 2);

	close(hold[1]);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	collector_reset(&c);
}
END_TEST

START_TEST(sink_errors_propagate)
{
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	struct kernel_stats kstats;
	struct synth_stats stats;
	long total;

	ck_assert_int_eq(prd_synthesize_processes("/proc", getpid(), &layout, cache,
						  1, &sink, &stats), 0);
	total = (long)c.count;
	for (long at = 0; at < total; at += total / 7 + 1) {
		collector_reset(&c);
		c.fail_at = at;
		ck_assert_int_eq(prd_synthesize_processes("/proc", getpid(), &layout,
							  cache, 9 + (unsigned)at,
							  &sink, &stats), -ENOSPC);
		ck_assert_uint_eq(c.count, (size_t)at);
	}
	for (long at = 0; at < 3; at++) {
		collector_reset(&c);
		c.fail_at = at;
		ck_assert_int_eq(prd_synthesize_kernel("/proc", "/sys", &layout,
						       &sink, &kstats), -ENOSPC);
	}
	ck_assert_int_eq(prd_synthesize_processes("/nonexistent", 0, &layout, cache,
						  1, &sink, &stats), -ENOENT);
	collector_reset(&c);
	prd_buildid_cache_free(cache);
}
END_TEST

/* ---- fake roots --------------------------------------------------- */

static void put_file(const char *root, const char *path, const void *data,
		     size_t size)
{
	char full[PATH_MAX], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0755);
		*slash = '/';
	}
	if (!size && !data) {
		mkdir(full, 0755);
		return;
	}
	f = fopen(full, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	fclose(f);
}

static void put_text(const char *root, const char *path, const char *text)
{
	put_file(root, path, text, strlen(text));
}

static void put_dir(const char *root, const char *path)
{
	put_file(root, path, NULL, 0);
}

static char *make_root(void)
{
	static char root[64];

	strcpy(root, "/tmp/test-synthesize-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	return root;
}

static void remove_root(const char *root)
{
	char command[128];

	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	ck_assert_int_eq(system(command), 0);
}

static void put_process(const char *proc, int pid, const char *comm,
			int ppid, unsigned long flags)
{
	char path[64], text[256];

	snprintf(path, sizeof(path), "%d/stat", pid);
	snprintf(text, sizeof(text),
		 "%d (%s) S %d %d %d 0 -1 %lu 101 0 0 0 7 3 0 0 20 0 1 0\n",
		 pid, comm, ppid, pid, pid, flags);
	put_text(proc, path, text);
	snprintf(path, sizeof(path), "%d/task/%d", pid, pid);
	put_dir(proc, path);
}

/* Lines real maps have, and some it should not but might. */
static void put_fake_maps(const char *proc, const char *exe,
			  const struct stat *st)
{
	char *text = malloc(64 << 10), *long_path = malloc(5001);
	size_t n = 0, cap = 64 << 10;
	unsigned maj = major(st->st_dev), min = minor(st->st_dev);
	unsigned long long ino = st->st_ino;

	ck_assert(text && long_path);
	memset(long_path, 'a', 5000);
	long_path[5000] = '\0';
	n += (size_t)snprintf(text + n, cap - n,
		"00400000-00401000 r-xp 00001000 %02x:%02x %llu                %s\n"
		"00600000-00601000 rw-p 00000000 00:00 0 \n"
		"7f0000000000-7f0000001000 r-xs 00002000 08:02 99                 /nonexistent/lib.so (deleted)\n"
		"7f0000002000-7f0000003000 rwxp 00000000 00:00 0 \n"
		"7f0000004000-7f0000005000 --xp 00000000 00:00 0\n"
		"7ffc00000000-7ffc00002000 r-xp 00000000 00:00 0                  [vdso]\n"
		"7f0000006000-7f0000007000 r-xp 00000000 %02x:%02x %llu /%s\n"
		"00800000-00801000 r-xp 00000000 %02x:%02x %llu                %s\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
		maj, min, ino, exe, maj, min, ino + 12345, long_path,
		maj, min, ino + 1, exe);
	put_file(proc, "4242/maps", text, n);
	free(text);
	free(long_path);
}

static void make_fake_proc(const char *proc, const char *exe,
			   const struct stat *st)
{
	put_process(proc, 4242, "fake (x) y", 1, 0x400100);
	put_text(proc, "4242/task/4243/comm", "worker\n");
	put_dir(proc, "4242/task/4244");	/* gone: no comm */
	put_fake_maps(proc, exe, st);
	put_process(proc, 5000, "child", 4242, 0x400100);
	put_text(proc, "5000/maps", "");
	put_process(proc, 5001, "grandchild", 5000, 0x400100);
	put_process(proc, 6000, "other", 1, 0x400100);
	/* a kernel thread: its maps, if any, are not read */
	put_process(proc, 77, "kworker/0:1-events", 2, 0x04208060);
	put_text(proc, "77/maps",
		 "00400000-00401000 r-xp 00000000 00:00 0 \n");
	put_dir(proc, "88");			/* gone: no stat */
	put_text(proc, "99/stat", "99 (half) S 1 99 99 0 -1 0 0\n");
	put_dir(proc, "self");
	put_text(proc, "cpuinfo", "processor : 0\n");
}

struct expect_map {
	uint64_t start, length, pgoff;
	uint32_t prot, flags;
	const char *name;		/* NULL: checked apart */
};

static void check_fake_maps(const struct collector *c, const char *exe,
			    const struct stat *st)
{
	static const struct expect_map expect[] = {
		{ 0x400000, 0x1000, 0x1000, PROT_READ | PROT_EXEC, MAP_PRIVATE, NULL },
		{ 0x7f0000000000, 0x1000, 0x2000, PROT_READ | PROT_EXEC, MAP_SHARED,
		  "/nonexistent/lib.so (deleted)" },
		{ 0x7f0000002000, 0x1000, 0, PROT_READ | PROT_WRITE | PROT_EXEC,
		  MAP_PRIVATE, "//anon" },
		{ 0x7f0000004000, 0x1000, 0, PROT_EXEC, MAP_PRIVATE, "//anon" },
		{ 0x7ffc00000000, 0x2000, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE, "[vdso]" },
		{ 0x7f0000006000, 0x1000, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE, NULL },
		{ 0x800000, 0x1000, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE, NULL },
		{ 0xffffffffff600000, 0x1000, 0, PROT_EXEC, MAP_PRIVATE, "[vsyscall]" },
	};
	size_t k = 0;

	for (size_t i = 0; i < c->count; i++) {
		const struct expect_map *e = &expect[k];
		struct prf_decoded d;

		if (type_of(&c->records[i]) != PERF_RECORD_MMAP2)
			continue;
		decode(&c->records[i], &d);
		ck_assert_uint_eq(d.mmap.pid, 4242);
		ck_assert_uint_lt(k, sizeof(expect) / sizeof(expect[0]));
		ck_assert_uint_eq(d.mmap.start, e->start);
		ck_assert_uint_eq(d.mmap.length, e->length);
		ck_assert_uint_eq(d.mmap.page_offset, e->pgoff);
		ck_assert_uint_eq(d.mmap.prot, e->prot);
		ck_assert_uint_eq(d.mmap.flags, e->flags);
		if (e->name)
			ck_assert_str_eq(d.mmap.filename, e->name);
		else if (k == 5)	/* cut to PATH_MAX with its NUL */
			ck_assert_uint_eq(strlen(d.mmap.filename), PATH_MAX - 1);
		else
			ck_assert_str_eq(d.mmap.filename, exe);
		k++;
	}
	ck_assert_uint_eq(k, sizeof(expect) / sizeof(expect[0]));
	/* only the first line's file is the one it claims to be */
	ck_assert_uint_eq(count_type(c, PRF_RECORD_BUILD_ID), 1);
	ck_assert_ptr_nonnull(find_build_id(c, st->st_ino));
}

static uint64_t fake_snapshot(const char *proc, pid_t only_pid,
			      struct collector *c)
{
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct record_sink sink = sink_of(c);
	struct synth_stats stats;

	collector_reset(c);
	ck_assert_int_eq(prd_synthesize_processes(proc, only_pid, &layout, cache, 1,
						  &sink, &stats), 0);
	check_snapshot(c, stats.processes);
	prd_buildid_cache_free(cache);
	return stats.processes;
}

START_TEST(fake_proc)
{
	struct collector c = { .fail_at = -1 };
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct record_sink sink = sink_of(&c);
	char exe[PATH_MAX], proc[PATH_MAX], *root = make_root();
	const struct prf_build_id_record *b;
	struct synth_stats stats;
	struct prf_decoded d;
	uint8_t expect[20];
	struct stat st;

	self_exe(exe);
	ck_assert_int_eq(stat(exe, &st), 0);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	ck_assert_int_eq(mkdir(proc, 0755), 0);
	make_fake_proc(proc, exe, &st);

	ck_assert_int_eq(prd_synthesize_processes(proc, 0, &layout, cache, 1,
						  &sink, &stats), 0);
	check_snapshot(&c, 5);
	ck_assert_uint_eq(stats.processes, 5);
	ck_assert_uint_eq(stats.threads, 6);
	ck_assert_uint_eq(stats.mappings, 8);
	ck_assert_uint_eq(stats.build_ids, 1);
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_COMM, 4242, 4242, &d));
	ck_assert_str_eq(d.comm.comm, "fake (x) y");
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_FORK, 4242, 4242, &d));
	ck_assert_uint_eq(d.task.ppid, 1);
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_FORK, 4242, 4243, &d));
	ck_assert_uint_eq(d.task.ppid, 4242);
	ck_assert_uint_eq(d.task.ptid, 4242);
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_COMM, 4242, 4243, &d));
	ck_assert_str_eq(d.comm.comm, "worker");
	ck_assert_ptr_null(find(&c, PERF_RECORD_FORK, 4242, 4244, &d));
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_COMM, 77, 77, &d));
	ck_assert_str_eq(d.comm.comm, "kworker/0:1-eve");	/* 15 + NUL */
	ck_assert_ptr_null(find(&c, PERF_RECORD_MMAP2, 77, -1, &d));
	ck_assert_ptr_null(find(&c, PERF_RECORD_FORK, 99, -1, &d));
	check_fake_maps(&c, exe, &st);

	/* found through the path, the last resort, and checked by inode */
	b = find_build_id(&c, st.st_ino);
	ck_assert_uint_eq(b->build_id_size, readelf_build_id(exe, expect));
	ck_assert_mem_eq(b->build_id, expect, b->build_id_size);
	ck_assert_uint_eq(b->pid, 4242);

	ck_assert_uint_eq(fake_snapshot(proc, 4242, &c), 3);
	ck_assert_ptr_nonnull(find(&c, PERF_RECORD_COMM, 5001, 5001, &d));
	ck_assert_ptr_null(find(&c, PERF_RECORD_COMM, 6000, -1, &d));
	ck_assert_uint_eq(fake_snapshot(proc, 5000, &c), 2);
	ck_assert_uint_eq(fake_snapshot(proc, 6000, &c), 1);
	ck_assert_uint_eq(fake_snapshot(proc, 99, &c), 0);

	collector_reset(&c);
	prd_buildid_cache_free(cache);
	remove_root(root);
}
END_TEST

/* ---- the build-id cache ------------------------------------------- */

START_TEST(buildid_cache_entries)
{
	enum { N = 5000 };
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	struct buildid_entry **entries = calloc(N, sizeof(*entries)), *e;
	const struct prf_build_id_record *b;
	char exe[PATH_MAX], junk[] = "/tmp/test-synthesize-junk-XXXXXX";
	uint8_t expect[20], id[20], size;
	struct stat st;
	int fd;

	for (int i = 0; i < N; i++) {
		entries[i] = prd_buildid_lookup(cache, "/nonexistent", 1, 0, 0x1000,
						"/nonexistent/file", 8, i % 7,
						(uint64_t)i * 4096);
		ck_assert_ptr_nonnull(entries[i]);
		ck_assert_uint_eq(entries[i]->size, 0);
	}
	for (int i = 0; i < N; i++) {
		e = prd_buildid_lookup(cache, "/nonexistent", 1, 0, 0x1000,
				       "/nonexistent/file", 8, i % 7,
				       (uint64_t)i * 4096);
		ck_assert_ptr_eq(e, entries[i]);
		ck_assert_ptr_ne(entries[i], entries[(i + 1) % N]);
	}
	ck_assert_int_eq(prd_buildid_emit(entries[0], 1, 1, "/nonexistent/file", 8,
					  0, 0, 0, &sink, 1), 0);
	ck_assert_uint_eq(c.count, 0);

	/* through /proc/PID/root when map_files has no such range */
	self_exe(exe);
	ck_assert_int_eq(stat(exe, &st), 0);
	e = prd_buildid_lookup(cache, "/proc", getpid(), 0, 0, exe,
			       major(st.st_dev), minor(st.st_dev), st.st_ino);
	ck_assert_uint_eq(e->size, readelf_build_id(exe, expect));
	ck_assert_mem_eq(e->build_id, expect, e->size);
	/* generation 0 is a generation like any other */
	ck_assert_int_eq(prd_buildid_emit(e, 0, getpid(), exe, major(st.st_dev),
					  minor(st.st_dev), st.st_ino, 5, &sink,
					  42), 1);
	ck_assert_int_eq(prd_buildid_emit(e, 0, getpid(), exe, 0, 0, st.st_ino, 5,
					  &sink, 42), 0);
	ck_assert_int_eq(prd_buildid_emit(e, 1, getpid(), exe, 0, 0, st.st_ino, 5,
					  &sink, 43), 1);
	ck_assert_uint_eq(c.count, 2);
	b = (const void *)c.records[0].data;
	ck_assert_uint_eq(b->header.type, PRF_RECORD_BUILD_ID);
	ck_assert_uint_eq(b->header.size, sizeof(*b) + ALIGN8(strlen(exe) + 1));
	ck_assert_uint_eq(c.records[0].time, 42);
	ck_assert_uint_eq(b->pid, (uint32_t)getpid());
	ck_assert_uint_eq(b->major, major(st.st_dev));
	ck_assert_uint_eq(b->inode, st.st_ino);
	ck_assert_uint_eq(b->inode_generation, 5);
	ck_assert_uint_eq(b->build_id_size, e->size);
	ck_assert_mem_eq(b->build_id, expect, e->size);
	ck_assert_str_eq(build_id_path(b), exe);
	for (size_t i = sizeof(*b) + strlen(exe); i < b->header.size; i++)
		ck_assert_uint_eq(c.records[0].data[i], 0);

	/* not an ELF file */
	fd = mkstemp(junk);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "not an ELF file", 15), 15);
	ck_assert_int_lt(prd_buildid_read_file(fd, id, &size), 0);
	ck_assert_uint_eq(size, 0);
	close(fd);
	unlink(junk);

	free(entries);
	collector_reset(&c);
	prd_buildid_cache_free(cache);
}
END_TEST

/* ---- the kernel --------------------------------------------------- */

struct kallsyms_facts {
	size_t lines;
	unsigned long long text;	/* address of _text */
};

static void kallsyms_facts(struct kallsyms_facts *f)
{
	char line[1024], name[512], type;
	unsigned long long address;
	FILE *file = fopen("/proc/kallsyms", "r");

	ck_assert_ptr_nonnull(file);
	memset(f, 0, sizeof(*f));
	while (fgets(line, sizeof(line), file)) {
		f->lines++;
		if (sscanf(line, "%llx %c %511s", &address, &type, name) == 3 &&
		    !strcmp(name, "_text") && !strchr(line, '['))
			f->text = address;
	}
	fclose(file);
}

static size_t count_lines(const char *text, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < size; i++)
		n += text[i] == '\n';
	return n;
}

/* Not ELF, so eu-readelf refuses it: perf's reading, or the raw bytes. */
static size_t kernel_build_id(uint8_t out[20])
{
	static const uint8_t head[] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0,
					'G', 'N', 'U', 0 };
	uint8_t notes[4096];
	size_t n = tool_build_id("perf buildid-list -k 2>/dev/null", "", out);
	FILE *f;

	if (n == 20)
		return n;
	f = fopen("/sys/kernel/notes", "rb");
	if (!f)
		return 0;
	n = fread(notes, 1, sizeof(notes), f);
	fclose(f);
	for (size_t i = 0; i + sizeof(head) + 20 <= n; i += 4) {
		if (!memcmp(notes + i, head, sizeof(head))) {
			memcpy(out, notes + i + sizeof(head), 20);
			return 20;
		}
	}
	return 0;
}

static const void *find_prf(const struct collector *c, uint32_t type,
			    size_t nth)
{
	for (size_t i = 0; i < c->count; i++) {
		if (type_of(&c->records[i]) == type && !nth--)
			return c->records[i].data;
	}
	return NULL;
}

static void check_kernel_mmap(const struct collector *c, uint64_t start,
			      const char *name)
{
	const struct record *r = NULL;
	struct prf_decoded d;

	for (size_t i = 0; i < c->count; i++) {
		if (type_of(&c->records[i]) == PERF_RECORD_MMAP)
			r = &c->records[i];
	}
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(count_type(c, PERF_RECORD_MMAP), 1);
	decode(r, &d);
	ck_assert_uint_eq(((const struct perf_event_header *)r->data)->misc,
			  PERF_RECORD_MISC_KERNEL);
	ck_assert_str_eq(d.mmap.filename, name);
	ck_assert_uint_eq(d.mmap.pid, UINT32_MAX);
	ck_assert_uint_eq(d.mmap.tid, 0);
	ck_assert_uint_eq(d.id.pid, UINT32_MAX);
	ck_assert_uint_eq(d.mmap.start, start);
	ck_assert_uint_eq(d.mmap.length, ~0ull - start);
	ck_assert_uint_eq(d.mmap.page_offset, start);
}

START_TEST(kernel_real)
{
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	const struct prf_kallsyms_record *k;
	const struct prf_build_id_record *b;
	struct kallsyms_facts facts;
	struct kernel_stats stats;
	uint8_t expect[20];
	size_t lines, n;
	FILE *modules;

	ck_assert_int_eq(prd_synthesize_kernel("/proc", "/sys", &layout, &sink,
					       &stats), 0);
	kallsyms_facts(&facts);

	ck_assert_uint_eq(count_type(&c, PRF_RECORD_KALLSYMS), 1);
	k = find_prf(&c, PRF_RECORD_KALLSYMS, 0);
	ck_assert_uint_eq(k->header.size, sizeof(*k) + ALIGN8(k->text_size));
	lines = count_lines((const char *)(k + 1), k->text_size);
	ck_assert_uint_eq(stats.symbols, lines);
	ck_assert_uint_le(lines, facts.lines + facts.lines / 100 + 1);
	ck_assert_uint_ge(lines + facts.lines / 100 + 1, facts.lines);
	ck_assert_int_eq(stats.kallsyms_hidden, facts.text == 0);
	ck_assert_uint_eq(k->flags, facts.text ? 0 : PRF_KALLSYMS_HIDDEN);

	n = kernel_build_id(expect);
	b = find_prf(&c, PRF_RECORD_BUILD_ID, 0);
	ck_assert_int_eq(stats.have_build_id, n > 0);
	if (n) {
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(b->flags, PRF_BUILD_ID_KERNEL);
		ck_assert_uint_eq(b->pid, UINT32_MAX);
		ck_assert_uint_eq(b->build_id_size, n);
		ck_assert_mem_eq(b->build_id, expect, n);
		ck_assert_str_eq(build_id_path(b), "[kernel.kallsyms]");
	}
	if (facts.text)
		check_kernel_mmap(&c, facts.text, "[kernel.kallsyms]_text");

	n = 0;
	modules = fopen("/proc/modules", "r");
	if (modules) {
		char line[1024];

		while (fgets(line, sizeof(line), modules))
			n++;
		fclose(modules);
	}
	ck_assert_uint_eq(stats.modules, n);
	ck_assert_uint_eq(count_type(&c, PRF_RECORD_KERNEL_MODULE), n);
	collector_reset(&c);
}
END_TEST

static size_t put_note(uint8_t *p, const char *name, uint32_t type,
		       const uint8_t *desc, uint32_t desc_size)
{
	uint32_t head[3] = { (uint32_t)strlen(name) + 1, desc_size, type };
	size_t n = sizeof(head);

	memcpy(p, head, sizeof(head));
	memset(p + n, 0, ALIGN8(head[0] + desc_size + 8));
	memcpy(p + n, name, head[0]);
	n += (head[0] + 3) & ~3u;
	memcpy(p + n, desc, desc_size);
	return n + ((desc_size + 3) & ~3u);
}

static const char fake_kallsyms_hidden[] =
	"0000000000000000 T _stext\n"
	"0000000000000000 T _text\n"
	"0000000000000000 t foo_init\t[mod_a]\n";

static void make_hidden_root(const char *root, const uint8_t *id_kernel,
			     const uint8_t *id_a)
{
	uint8_t notes[256], desc[16] = { 0 };
	size_t n = 0;

	put_text(root, "proc/kallsyms", fake_kallsyms_hidden);
	put_text(root, "proc/modules",
		 "mod_a 16384 0 - Live 0x0000000000000000\n"
		 "mod_b 8192 1 mod_a, Live 0x0000000000000000 (OE)\n");
	n = put_note(notes, "GNU", NT_GNU_BUILD_ID, id_a, 20);
	put_file(root, "sys/module/mod_a/notes/.note.gnu.build-id", notes, n);
	n = put_note(notes, "Xen", 6, desc, 4);
	n += put_note(notes + n, "GNU", 1, desc, 16);
	n += put_note(notes + n, "GNU", NT_GNU_BUILD_ID, id_kernel, 20);
	put_file(root, "sys/kernel/notes", notes, n);
}

static const struct prf_kernel_module_record *module(const struct collector *c,
						      size_t nth,
						      const char *name)
{
	const struct prf_kernel_module_record *m =
		find_prf(c, PRF_RECORD_KERNEL_MODULE, nth);

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq((const char *)(m + 1), name);
	ck_assert_uint_eq(m->header.size,
			  sizeof(*m) + ALIGN8(strlen(name) + 1));
	return m;
}

static void run_kernel(const char *root, struct collector *c,
		       struct kernel_stats *stats)
{
	struct record_sink sink = sink_of(c);
	char proc[PATH_MAX], sys[PATH_MAX];

	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	collector_reset(c);
	ck_assert_int_eq(prd_synthesize_kernel(proc, sys, &layout, &sink, stats), 0);
}

/*
 * Without symbols (--kernel-symbols=hit or none) only the reference
 * symbol is looked for: kallsyms is read up to _text, and to its end only
 * when _text is not there or reads as zero (hidden addresses).
 */
START_TEST(kernel_fake_without_symbols)
{
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	char proc[PATH_MAX], sys[PATH_MAX], *text, *at;
	struct kernel_stats stats;
	char *root = make_root();
	size_t lines = 20000, size = 40 * lines + 200;

	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	/* _stext only, far past the first pieces read: found at the end */
	text = malloc(size);
	ck_assert_ptr_nonnull(text);
	at = text;
	for (size_t i = 0; i < lines; i++)
		at += sprintf(at, "ffffffff8%07zx t local_%06zu\n", i * 16, i);
	strcpy(at, "ffffffff81000000 T _stext\n");
	put_text(root, "proc/kallsyms", text);
	collector_reset(&c);
	ck_assert_int_eq(prd_synthesize_kernel_without_symbols(proc, sys, &layout, &sink, &stats), 0);
	ck_assert_int_eq(stats.kallsyms_hidden, 0);
	ck_assert_uint_eq(stats.symbols, 0);
	ck_assert_uint_eq(count_type(&c, PRF_RECORD_KALLSYMS), 0);
	check_kernel_mmap(&c, 0xffffffff81000000ull, "[kernel.kallsyms]_stext");

	/* _text first: taken, whatever follows */
	at = text + sprintf(text, "ffffffff81000000 T _stext\nffffffff81200000 T _text\n");
	for (size_t i = 0; i < lines; i++)
		at += sprintf(at, "ffffffff8%07zx t local_%06zu\n", i * 16, i);
	put_text(root, "proc/kallsyms", text);
	collector_reset(&c);
	ck_assert_int_eq(prd_synthesize_kernel_without_symbols(proc, sys, &layout, &sink, &stats), 0);
	ck_assert_int_eq(stats.kallsyms_hidden, 0);
	check_kernel_mmap(&c, 0xffffffff81200000ull, "[kernel.kallsyms]_text");

	/* every address zero, _text's too: hidden, and no kernel map */
	put_text(root, "proc/kallsyms", fake_kallsyms_hidden);
	collector_reset(&c);
	ck_assert_int_eq(prd_synthesize_kernel_without_symbols(proc, sys, &layout, &sink, &stats), 0);
	ck_assert_int_eq(stats.kallsyms_hidden, 1);
	ck_assert_uint_eq(count_type(&c, PERF_RECORD_MMAP), 0);
	ck_assert_uint_eq(count_type(&c, PRF_RECORD_KALLSYMS), 0);
	free(text);
	collector_reset(&c);
	remove_root(root);
}
END_TEST

START_TEST(kernel_fake_hidden)
{
	struct collector c = { .fail_at = -1 };
	const struct prf_kernel_module_record *m;
	const struct prf_kallsyms_record *k;
	const struct prf_build_id_record *b;
	uint8_t id_kernel[20], id_a[20];
	struct kernel_stats stats;
	char *root = make_root();

	for (int i = 0; i < 20; i++) {
		id_kernel[i] = (uint8_t)(0xa0 + i);
		id_a[i] = (uint8_t)(0x10 + i);
	}
	make_hidden_root(root, id_kernel, id_a);
	run_kernel(root, &c, &stats);
	ck_assert_int_eq(stats.kallsyms_hidden, 1);
	ck_assert_uint_eq(stats.symbols, 3);
	ck_assert_uint_eq(stats.modules, 2);
	ck_assert_int_eq(stats.have_build_id, 1);

	k = find_prf(&c, PRF_RECORD_KALLSYMS, 0);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->flags, PRF_KALLSYMS_HIDDEN);
	ck_assert_uint_eq(k->text_size, strlen(fake_kallsyms_hidden));
	ck_assert_mem_eq(k + 1, fake_kallsyms_hidden, k->text_size);
	/* no address to put the kernel at */
	ck_assert_uint_eq(count_type(&c, PERF_RECORD_MMAP), 0);

	b = find_prf(&c, PRF_RECORD_BUILD_ID, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->flags, PRF_BUILD_ID_KERNEL);
	ck_assert_uint_eq(b->build_id_size, 20);
	ck_assert_mem_eq(b->build_id, id_kernel, 20);

	m = module(&c, 0, "mod_a");
	ck_assert_uint_eq(m->start, 0);
	ck_assert_uint_eq(m->size, 16384);
	ck_assert_uint_eq(m->build_id_size, 20);
	ck_assert_mem_eq(m->build_id, id_a, 20);
	m = module(&c, 1, "mod_b");
	ck_assert_uint_eq(m->size, 8192);
	ck_assert_uint_eq(m->build_id_size, 0);
	collector_reset(&c);
	remove_root(root);
}
END_TEST

START_TEST(kernel_fake_visible)
{
	struct collector c = { .fail_at = -1 };
	const struct prf_kernel_module_record *m;
	uint8_t notes[256], id[24] = { 1, 2, 3 };
	struct kernel_stats stats;
	char *root = make_root();
	size_t n;

	/* no _text: perf falls back on _stext and names the map after it */
	put_text(root, "proc/kallsyms",
		 "ffffffff80000000 T startup_64\n"
		 "ffffffffc0000000 t _text\t[mod_x]\n"
		 "ffffffff81000010 T my_text\n"
		 "ffffffff81000020 t __text\n"
		 "ffffffff81000000 T _stext\n");
	put_text(root, "proc/modules",
		 "mod_x 4096 0 - Live 0xffffffffc0123000\n"
		 "\n"
		 "short line\n"
		 "mod_y 8192 2 mod_x, Loading 0xffffffffc0200000 (OE)");
	/* too long a build-id, and a note cut short */
	n = put_note(notes, "GNU", NT_GNU_BUILD_ID, id, 24);
	put_file(root, "sys/module/mod_x/notes/.note.gnu.build-id", notes, n);
	n = put_note(notes, "GNU", NT_GNU_BUILD_ID, id, 20);
	put_file(root, "sys/module/mod_y/notes/.note.gnu.build-id", notes,
		 n - 4);
	run_kernel(root, &c, &stats);
	ck_assert_int_eq(stats.kallsyms_hidden, 0);
	ck_assert_uint_eq(stats.symbols, 5);
	ck_assert_int_eq(stats.have_build_id, 0);
	ck_assert_uint_eq(count_type(&c, PRF_RECORD_BUILD_ID), 0);
	ck_assert_uint_eq(((const struct prf_kallsyms_record *)
			   find_prf(&c, PRF_RECORD_KALLSYMS, 0))->flags, 0);
	check_kernel_mmap(&c, 0xffffffff81000000ull, "[kernel.kallsyms]_stext");
	ck_assert_uint_eq(stats.modules, 2);
	m = module(&c, 0, "mod_x");
	ck_assert_uint_eq(m->start, 0xffffffffc0123000ull);
	ck_assert_uint_eq(m->size, 4096);
	ck_assert_uint_eq(m->build_id_size, 0);
	m = module(&c, 1, "mod_y");
	ck_assert_uint_eq(m->start, 0xffffffffc0200000ull);
	ck_assert_uint_eq(m->build_id_size, 0);

	/* _text found, and nothing else there at all */
	put_text(root, "proc/kallsyms",
		 "ffffffff81000000 T _stext\nffffffff81200000 T _text\n");
	remove(strcat(strcpy((char *)notes, root), "/proc/modules"));
	run_kernel(root, &c, &stats);
	check_kernel_mmap(&c, 0xffffffff81200000ull, "[kernel.kallsyms]_text");
	ck_assert_uint_eq(stats.modules, 0);

	/* no kallsyms at all (CONFIG_KALLSYMS=n) */
	remove(strcat(strcpy((char *)notes, root), "/proc/kallsyms"));
	run_kernel(root, &c, &stats);
	ck_assert_uint_eq(c.count, 0);
	collector_reset(&c);
	remove_root(root);
}
END_TEST

/* ---- how long it takes -------------------------------------------- */

static double synthesize_ms(struct buildid_cache *cache, unsigned generation,
			    struct synth_stats *stats)
{
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	uint64_t start = now_ns();

	ck_assert_int_eq(prd_synthesize_processes("/proc", 0, &layout, cache,
						  generation, &sink, stats), 0);
	start = now_ns() - start;
	collector_reset(&c);
	return (double)start / 1e6;
}

START_TEST(timing)
{
	struct buildid_cache *cache = prd_buildid_cache_new();
	struct collector c = { .fail_at = -1 };
	struct record_sink sink = sink_of(&c);
	struct synth_stats stats;
	struct kernel_stats kstats;
	double cold, warm, best = 1e9, kernel;
	uint64_t start;

	cold = synthesize_ms(cache, 1, &stats);
	warm = synthesize_ms(cache, 2, &stats);
	for (unsigned i = 3; i < 13; i++) {
		double ms = synthesize_ms(cache, i, &stats);

		best = ms < best ? ms : best;
	}
	start = now_ns();
	ck_assert_int_eq(prd_synthesize_kernel("/proc", "/sys", &layout, &sink,
					       &kstats), 0);
	kernel = (double)(now_ns() - start) / 1e6;
	fprintf(stderr, "synthesis: %llu processes, %llu threads, "
		"%llu mappings, %llu build-ids: %.2f ms with a cold build-id "
		"cache, %.2f ms warm (best of 10: %.2f ms); kernel (%llu "
		"symbols): %.2f ms\n",
		(unsigned long long)stats.processes,
		(unsigned long long)stats.threads,
		(unsigned long long)stats.mappings,
		(unsigned long long)stats.build_ids, cold, warm, best,
		(unsigned long long)kstats.symbols, kernel);
	collector_reset(&c);
	prd_buildid_cache_free(cache);
}
END_TEST

static Suite *synthesize_suite(void)
{
	Suite *s = suite_create("synthesize");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, self_process);
	tcase_add_test(tc, process_tree);
	tcase_add_test(tc, sink_errors_propagate);
	tcase_add_test(tc, fake_proc);
	tcase_add_test(tc, buildid_cache_entries);
	tcase_add_test(tc, kernel_real);
	tcase_add_test(tc, kernel_fake_hidden);
	tcase_add_test(tc, kernel_fake_without_symbols);
	tcase_add_test(tc, kernel_fake_visible);
	tcase_add_test(tc, timing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(synthesize_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
