/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu-fixture: writes a capture of off-CPU blocks and CPU samples whose
 * every stack, duration and waker is known, in this program's own
 * functions (its executable maps, from /proc/self/maps, so that the
 * report symbolizes them), for tests/test-report-offcpu.sh.
 *
 *   offcpu-fixture [--scale-pipe N] [--no-off-cpu] [--cycles] FILE
 *
 * Process "app" (pid 2000): thread 2000 "app", thread 2001 "worker";
 * process "waker" (pid 3000).  Every blocked stack is
 * schedule <- a kernel wait <- a user function <- app_main, every waker
 * stack try_to_wake_up <- a kernel wake <- a user function <- its main:
 *   2000  wait_sleep  3 blocks of 10 ms   do_nanosleep    no waker
 *   2000  wait_pipe   2 blocks of  5 ms   pipe_read       woken by waker 3000/3000
 *                                                         in answer_pipe (pipe_write)
 *   2001  wait_lock   4 blocks of 2.5 ms  futex_wait      woken by app 2000/2000 in
 *                                                         unlock_mutex (futex_wake)
 * and cpu-clock samples by period 1 ms: 20 of 2000 in app_main, 10 of
 * 2001 in worker_main, 5 of 3000 in waker_main.  --scale-pipe N makes the
 * pipe blocks N times as long (a second profile for --baseline).
 * Process waker maps this program 4 GiB above where app does (and its
 * addresses are there), so that its frames resolve only in its own maps.
 * Thread app's blocks name cgroup 4711, which a PERF_RECORD_CGROUP calls
 * /system.slice/app.service; worker's name none (0);
 * --no-off-cpu writes the CPU samples alone; --cycles makes the samples'
 * event cycles (no clock: a wall profile must say its periods are no time).  The figures are repeated in
 * test-report-offcpu.sh: change both together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "format.h"
#define REC_WORDS 1024
#define REC_PROGRAM "offcpu-fixture"
#include "record-build.h"

#define BASE_NS		1000000000000ull
#define PERIOD_NS	1000000ull
#define APP		2000u
#define WORKER		2001u
#define WAKER		3000u
#define SAMPLE_ID	7
#define APP_CGROUP	4711
#define WAKER_SHIFT	0x100000000ull	/* waker's maps and addresses, above app's */
#define KERNEL_TEXT	0xffffffff81000000ull

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T schedule\n"
	"ffffffff81000200 T do_nanosleep\n"
	"ffffffff81000300 T pipe_read\n"
	"ffffffff81000400 T futex_wait\n"
	"ffffffff81000500 T try_to_wake_up\n"
	"ffffffff81000600 T pipe_write\n"
	"ffffffff81000700 T futex_wake\n"
	"ffffffff81000800 T _etext\n";

enum kernel_fn { K_SCHEDULE = 1, K_NANOSLEEP, K_PIPE_READ, K_FUTEX_WAIT, K_WAKE_UP,
		 K_PIPE_WRITE, K_FUTEX_WAKE };

static volatile int sink;

/* The user functions the stacks name: only their addresses are used. */
#define USER_FUNCTION(name) \
	__attribute__((noinline, used)) void name(void); \
	__attribute__((noinline, used)) void name(void) { sink += __LINE__; sink *= 3; }
USER_FUNCTION(app_main)
USER_FUNCTION(worker_main)
USER_FUNCTION(waker_main)
USER_FUNCTION(wait_sleep)
USER_FUNCTION(wait_pipe)
USER_FUNCTION(wait_lock)
USER_FUNCTION(answer_pipe)
USER_FUNCTION(unlock_mutex)

/* Inside the function, and so is the return address less one; in pid's maps. */
static uint64_t at_in(uint32_t pid, void (*fn)(void))
{
	return (uint64_t)(uintptr_t)fn + 2 + (pid == WAKER ? WAKER_SHIFT : 0);
}

static uint64_t kernel_at(enum kernel_fn fn)
{
	return KERNEL_TEXT + fn * 0x100 + 0x10;
}

static struct prf_writer *writer;
static struct perf_event_attr attr;

static void append(const void *record, size_t size, uint64_t time)
{
	if (prf_writer_append(writer, record, size, time) < 0) {
		fprintf(stderr, "offcpu-fixture: %s\n", prf_writer_last_error(writer));
		exit(1);
	}
}

static void finish(struct rec *r, uint32_t type, uint16_t misc, uint64_t time,
		   uint32_t pid, uint32_t tid)
{
	struct prf_sample_id id = { .pid = pid, .tid = tid, .time = time,
				    .id = SAMPLE_ID, .identifier = SAMPLE_ID };
	uint8_t trailer[PRF_SAMPLE_ID_MAX];
	struct perf_event_header h = { .type = type, .misc = misc };

	if (type != PERF_RECORD_SAMPLE)
		put(r, trailer, prf_encode_sample_id(&attr, &id, trailer));
	h.size = (uint16_t)r->size;
	memcpy(r->words, &h, sizeof(h));
	append(r->words, r->size, time);
}

static void write_comm(uint32_t pid, uint32_t tid, const char *name)
{
	struct rec r;

	begin(&r);
	put_u32s(&r, pid, tid);
	put_string(&r, name);
	finish(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_USER, BASE_NS, pid, tid);
}

/* This program's executable maps, as the process pid's (waker's shifted). */
static void write_maps(uint32_t pid)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	struct rec r;

	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, pgoff, inode;
		unsigned major, minor;
		char perms[8], path[2048] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %2047s", &start, &end, perms,
			   &pgoff, &major, &minor, &inode, path) < 7 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		begin(&r);
		put_u32s(&r, pid, pid);
		put_u64(&r, start + (pid == WAKER ? WAKER_SHIFT : 0));
		put_u64(&r, end - start);
		put_u64(&r, pgoff);
		put_u32s(&r, major, minor);
		put_u64(&r, inode);
		put_u64(&r, 0);			/* inode generation */
		put_u32s(&r, 5, 2);		/* PROT_READ | PROT_EXEC, MAP_PRIVATE */
		put_string(&r, path);
		finish(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, BASE_NS, pid, pid);
	}
	if (maps)
		fclose(maps);
}

static void write_cgroup(uint64_t id, const char *path)
{
	struct rec r;

	begin(&r);
	put_u64(&r, id);
	put_string(&r, path);
	finish(&r, PERF_RECORD_CGROUP, 0, BASE_NS, 0, 0);
}

static void write_kallsyms(void)
{
	struct prf_kallsyms_record record = {
		.header = { .type = PRF_RECORD_KALLSYMS },
		.text_size = sizeof(kallsyms) - 1,
	};
	struct rec r = { .size = 0 };

	put(&r, &record, sizeof(record));
	put_string(&r, kallsyms);
	((struct prf_kallsyms_record *)r.words)->header.size = (uint32_t)r.size;
	append(r.words, r.size, 0);
}

/* IDENTIFIER, IP, TID, TIME, CPU, CALLCHAIN: the period is the event's. */
static void write_sample(uint32_t pid, uint32_t tid, void (*fn)(void), uint64_t time)
{
	struct rec r;

	begin(&r);
	put_u64(&r, SAMPLE_ID);
	put_u64(&r, at_in(pid, fn));
	put_u32s(&r, pid, tid);
	put_u64(&r, time);
	put_u32s(&r, 0, 0);
	put_u64(&r, 2);
	put_u64(&r, PERF_CONTEXT_USER);
	put_u64(&r, at_in(pid, fn));
	finish(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, time, pid, tid);
}

struct block {
	uint32_t pid, tid;
	uint64_t duration;
	enum kernel_fn wait;
	void (*blocked)(void), (*blocked_main)(void);
	uint32_t waker_pid, waker_tid;	/* 0: none */
	const char *waker_comm;
	enum kernel_fn wake;
	void (*waker)(void), (*waker_main)(void);
};

static void write_block(const struct block *b, uint64_t time)
{
	uint64_t chain[] = {
		PERF_CONTEXT_KERNEL, kernel_at(K_SCHEDULE), kernel_at(b->wait),
		PERF_CONTEXT_USER, at_in(b->pid, b->blocked), at_in(b->pid, b->blocked_main),
	};
	uint64_t waker_chain[6];
	struct prf_off_cpu block = {
		.time = time, .duration = b->duration, .pid = b->pid, .tid = b->tid,
		.cpu = 1, .callchain = chain, .callchain_nr = 6,
		.cgroup = b->tid == APP ? APP_CGROUP : 0,
	};
	uint64_t record[64];
	ssize_t size;

	if (b->waker_tid) {
		waker_chain[0] = PERF_CONTEXT_KERNEL;
		waker_chain[1] = kernel_at(K_WAKE_UP);
		waker_chain[2] = kernel_at(b->wake);
		waker_chain[3] = PERF_CONTEXT_USER;
		waker_chain[4] = at_in(b->waker_pid, b->waker);
		waker_chain[5] = at_in(b->waker_pid, b->waker_main);
		block.flags = PRF_OFF_CPU_WAKER;
		block.waker_pid = b->waker_pid;
		block.waker_tid = b->waker_tid;
		snprintf(block.waker_comm, sizeof(block.waker_comm), "%s", b->waker_comm);
		block.waker_callchain = waker_chain;
		block.waker_callchain_nr = 6;
	}
	size = prf_encode_off_cpu(&block, record, sizeof(record));
	if (size < 0) {
		fprintf(stderr, "offcpu-fixture: encoding a block: %s\n", strerror((int)-size));
		exit(1);
	}
	append(record, (size_t)size, time);
}

static int write_file(const char *path, uint64_t scale_pipe, int off_cpu, int cycles)
{
	static const uint64_t ids[] = { SAMPLE_ID };
	struct prf_event event = { .name = "cpu-clock", .ids = ids, .id_count = 1 };
	struct prf_file_info info = {
		.hostname = "offcpu-fixture", .kernel_release = "6.1.0", .kernel_version = "#1",
		.machine = "x86_64", .boot_id = "00000000-0000-0000-0000-000000000000",
		.nr_cpus_online = 2, .nr_cpus_configured = 2, .page_size = 4096,
		.clockid = CLOCK_MONOTONIC, .start_time_ns = BASE_NS,
		.events = &event, .event_count = 1,
	};
	const struct block blocks[] = {
		{ APP, APP, 10000000, K_NANOSLEEP, wait_sleep, app_main, 0, 0, NULL, 0, NULL, NULL },
		{ APP, APP, 5000000 * scale_pipe, K_PIPE_READ, wait_pipe, app_main,
		  WAKER, WAKER, "waker", K_PIPE_WRITE, answer_pipe, waker_main },
		{ APP, WORKER, 2500000, K_FUTEX_WAIT, wait_lock, worker_main,
		  APP, APP, "app", K_FUTEX_WAKE, unlock_mutex, app_main },
	};
	static const unsigned counts[] = { 3, 2, 4 };
	struct prf_writer_options options = { .name = path };
	struct prf_error error;
	uint64_t time = BASE_NS + PERIOD_NS;
	int fd;

	attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = PERIOD_NS,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN,
		.mmap = 1, .comm = 1, .task = 1, .sample_id_all = 1, .mmap2 = 1,
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	if (cycles) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		event.name = "cycles";
	}
	event.attr = attr;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || prf_writer_open(&writer, fd, &info, &options, &error) < 0) {
		fprintf(stderr, "offcpu-fixture: %s: %s\n", path,
			fd < 0 ? strerror(errno) : error.message);
		return 1;
	}
	write_kallsyms();
	write_cgroup(APP_CGROUP, "/system.slice/app.service");
	write_comm(APP, APP, "app");
	write_comm(APP, WORKER, "worker");
	write_comm(WAKER, WAKER, "waker");
	write_maps(APP);
	write_maps(WAKER);
	for (unsigned i = 0; i < 20; i++, time += PERIOD_NS)
		write_sample(APP, APP, app_main, time);
	for (unsigned i = 0; i < 10; i++, time += PERIOD_NS)
		write_sample(APP, WORKER, worker_main, time);
	for (unsigned i = 0; i < 5; i++, time += PERIOD_NS)
		write_sample(WAKER, WAKER, waker_main, time);
	for (size_t b = 0; off_cpu && b < sizeof(blocks) / sizeof(blocks[0]); b++)
		for (unsigned i = 0; i < counts[b]; i++, time += PERIOD_NS)
			write_block(&blocks[b], time);
	if (prf_writer_finish(writer) < 0) {
		fprintf(stderr, "offcpu-fixture: %s\n", prf_writer_last_error(writer));
		return 1;
	}
	prf_writer_close(writer);
	return close(fd) < 0;
}

int main(int argc, char **argv)
{
	uint64_t scale_pipe = 1;
	int off_cpu = 1, cycles = 0;
	int i = 1;

	for (; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--scale-pipe") && i + 1 < argc - 1)
			scale_pipe = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-off-cpu"))
			off_cpu = 0;
		else if (!strcmp(argv[i], "--cycles"))
			cycles = 1;
		else
			break;
	}
	if (i != argc - 1 || !scale_pipe) {
		fprintf(stderr, "usage: offcpu-fixture [--scale-pipe N] [--no-off-cpu] [--cycles] FILE\n");
		return 2;
	}
	return write_file(argv[i], scale_pipe, off_cpu, cycles);
}
