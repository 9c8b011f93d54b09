/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make-fixture: writes a small perfrec file whose every field is known, for
 * tests/test-dump.sh to compare perfrec-dump's output against.
 *
 *   make-fixture [--unfinished] [--no-compression] [--two-events] FILE
 *
 * --two-events adds a second cpu-clock event, by period, whose ids the odd
 * samples carry (test-push-state: one profile of both, as perfrec-report).
 * Four data chunks, each flushed by hand so that their boundaries do not
 * depend on the writer's chunk size:
 *   0  SNAPSHOT_BEGIN, COMM, MMAP2 with a build-id, BUILD_ID, KALLSYMS,
 *      KERNEL_MODULE, SNAPSHOT_END
 *   1  FORK, samples 0 to 3
 *   2  samples 4 to 7, LOST
 *   3  STATS, LOST_NOTE, EXIT, a kernel and a perfrec record of unknown type,
 *      CGROUP, TASK_CGROUP, NSPID
 * then the trailer, unless --unfinished.  The values are repeated in
 * test-dump.sh; change both together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "format.h"

#define FIXTURE_PID		4242
#define FIXTURE_CHILD		4243
#define FIXTURE_COMM		"fixture-app"
#define FIXTURE_PATH		"/usr/bin/fixture-app"
#define FIXTURE_MAP_START	0x555555554000ull
#define FIXTURE_MAP_LENGTH	0x21000ull
#define FIXTURE_IP		0x555555555100ull	/* + 0x10 per sample */
#define FIXTURE_CALLER		0x555555556789ull
#define FIXTURE_LIBC		0x7f0000001234ull
#define FIXTURE_PERIOD		10309278ull		/* ns at 97 Hz */
#define FIXTURE_START_NS	5000000000000ull	/* 5000 s of uptime */
#define FIXTURE_TICK_NS		10000000ull		/* 10 ms between samples */
#define FIXTURE_SAMPLES		8
#define FIXTURE_CPUS		4
#define FIXTURE_ID_BASE		101			/* one id per CPU */
/* --two-events: a second cpu-clock, by period, samples every other tick. */
#define FIXTURE_ID_SECOND	(FIXTURE_ID_BASE + FIXTURE_CPUS)

static int two_events;

/* 20 bytes: b1d0c0ffee 00 11 22 ... */
static const uint8_t fixture_build_id[20] = {
	0xb1, 0xd0, 0xc0, 0xff, 0xee, 0x00, 0x11, 0x22, 0x33, 0x44,
	0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
};

static const char fixture_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T start_kernel\n"
	"ffffffffc0000000 t fixture_init\t[fixture_mod]\n";

/* ---- building records ---------------------------------------------- */

/* One record being built; words keeps it 8-aligned, zeroing pads it. */
struct record {
	uint64_t words[128];
	size_t size;
};

static void put(struct record *r, const void *data, size_t size)
{
	if (r->size + size > sizeof(r->words)) {
		fprintf(stderr, "make-fixture: record too long\n");
		exit(1);
	}
	memcpy((uint8_t *)r->words + r->size, data, size);
	r->size += size;
}

static void put_u32(struct record *r, uint32_t value)
{
	put(r, &value, sizeof(value));
}

static void put_u64(struct record *r, uint64_t value)
{
	put(r, &value, sizeof(value));
}

/* NUL-terminated, zero-padded to 8, as the kernel and perfrec lay strings. */
static void put_string(struct record *r, const char *s)
{
	static const uint8_t zeros[8];
	size_t length = strlen(s) + 1;

	put(r, s, length);
	put(r, zeros, (8 - length % 8) % 8);
}

static void kernel_start(struct record *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(struct perf_event_header);
}

/* The sample_id_all trailer for IDENTIFIER|TID|TIME|CPU, in kernel order. */
static void put_sample_id(struct record *r, uint32_t pid, uint32_t tid,
			  uint64_t time, uint32_t cpu)
{
	put_u32(r, pid);
	put_u32(r, tid);
	put_u64(r, time);
	put_u32(r, cpu);
	put_u32(r, 0);
	put_u64(r, FIXTURE_ID_BASE + cpu);
}

static void kernel_finish(struct record *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header header = {
		.type = type,
		.misc = misc,
		.size = (uint16_t)r->size,
	};

	memcpy(r->words, &header, sizeof(header));
}

/* fixed is a whole prf_*_record; its header is filled in here. */
static void perfrec_start(struct record *r, const void *fixed, size_t size)
{
	memset(r, 0, sizeof(*r));
	put(r, fixed, size);
}

static void perfrec_finish(struct record *r, uint32_t type)
{
	struct prf_record_header header = {
		.type = type,
		.size = (uint32_t)r->size,
	};

	memcpy(r->words, &header, sizeof(header));
}

/* ---- writing ------------------------------------------------------- */

struct fixture {
	struct prf_writer *writer;
	int failed;
};

static void append(struct fixture *f, const struct record *r, uint64_t time)
{
	int ret = prf_writer_append(f->writer, r->words, r->size, time);

	if (ret < 0) {
		fprintf(stderr, "make-fixture: %s\n",
			prf_writer_last_error(f->writer));
		f->failed = 1;
	}
}

static void flush(struct fixture *f)
{
	if (prf_writer_flush(f->writer) < 0) {
		fprintf(stderr, "make-fixture: %s\n",
			prf_writer_last_error(f->writer));
		f->failed = 1;
	}
}

static void append_snapshot(struct fixture *f, uint32_t type, uint64_t time,
			    uint64_t processes)
{
	struct prf_snapshot_record snapshot = {
		.time = time,
		.process_count = processes,
	};
	struct record r;

	perfrec_start(&r, &snapshot, sizeof(snapshot));
	perfrec_finish(&r, type);
	append(f, &r, time);
}

static void append_comm(struct fixture *f, uint64_t time)
{
	struct record r;

	kernel_start(&r);
	put_u32(&r, FIXTURE_PID);
	put_u32(&r, FIXTURE_PID);
	put_string(&r, FIXTURE_COMM);
	put_sample_id(&r, FIXTURE_PID, FIXTURE_PID, time, 0);
	kernel_finish(&r, PERF_RECORD_COMM,
		      PERF_RECORD_MISC_USER | PERF_RECORD_MISC_COMM_EXEC);
	append(f, &r, time);
}

/* MMAP2 in its build-id form: u8 size, u8 and u16 reserved, u8[20]. */
static void append_mmap2(struct fixture *f, uint64_t time)
{
	uint8_t build_id[24] = { sizeof(fixture_build_id) };
	struct record r;

	memcpy(build_id + 4, fixture_build_id, sizeof(fixture_build_id));
	kernel_start(&r);
	put_u32(&r, FIXTURE_PID);
	put_u32(&r, FIXTURE_PID);
	put_u64(&r, FIXTURE_MAP_START);
	put_u64(&r, FIXTURE_MAP_LENGTH);
	put_u64(&r, 0);				/* pgoff */
	put(&r, build_id, sizeof(build_id));
	put_u32(&r, 5);				/* PROT_READ | PROT_EXEC */
	put_u32(&r, 2);				/* MAP_PRIVATE */
	put_string(&r, FIXTURE_PATH);
	put_sample_id(&r, FIXTURE_PID, FIXTURE_PID, time, 0);
	kernel_finish(&r, PERF_RECORD_MMAP2,
		      PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	append(f, &r, time);
}

static void append_build_id(struct fixture *f)
{
	struct prf_build_id_record record = {
		.pid = FIXTURE_PID,
		.major = 8,
		.minor = 1,
		.inode = 131077,
		.inode_generation = 7,
		.build_id_size = sizeof(fixture_build_id),
	};
	struct record r;

	memcpy(record.build_id, fixture_build_id, sizeof(fixture_build_id));
	perfrec_start(&r, &record, sizeof(record));
	put_string(&r, FIXTURE_PATH);
	perfrec_finish(&r, PRF_RECORD_BUILD_ID);
	append(f, &r, 0);
}

static void append_kallsyms(struct fixture *f)
{
	struct prf_kallsyms_record record = {
		.text_size = sizeof(fixture_kallsyms) - 1,
	};
	struct record r;

	perfrec_start(&r, &record, sizeof(record));
	put_string(&r, fixture_kallsyms);	/* the NUL is padding here */
	perfrec_finish(&r, PRF_RECORD_KALLSYMS);
	append(f, &r, 0);
}

static void append_kernel_module(struct fixture *f)
{
	struct prf_kernel_module_record record = {
		.start = 0xffffffffc0000000ull,
		.size = 0x4000,
		.build_id_size = 4,
		.build_id = { 0xde, 0xad, 0xbe, 0xef },
	};
	struct record r;

	perfrec_start(&r, &record, sizeof(record));
	put_string(&r, "fixture_mod");
	perfrec_finish(&r, PRF_RECORD_KERNEL_MODULE);
	append(f, &r, 0);
}

static void append_task(struct fixture *f, uint32_t type, uint64_t time)
{
	struct record r;

	kernel_start(&r);
	put_u32(&r, FIXTURE_CHILD);
	put_u32(&r, FIXTURE_PID);
	put_u32(&r, FIXTURE_CHILD);
	put_u32(&r, FIXTURE_PID);
	put_u64(&r, time);
	put_sample_id(&r, FIXTURE_CHILD, FIXTURE_CHILD, time, 1);
	kernel_finish(&r, type, PERF_RECORD_MISC_USER);
	append(f, &r, time);
}

static uint64_t sample_time(unsigned int index)
{
	return FIXTURE_START_NS + (index + 1) * FIXTURE_TICK_NS;
}

/* IDENTIFIER, IP, TID, TIME, CPU, PERIOD, CALLCHAIN: the event's order. */
static void append_sample(struct fixture *f, unsigned int index)
{
	uint32_t cpu = index % FIXTURE_CPUS;
	uint32_t tid = index % 2 ? FIXTURE_CHILD : FIXTURE_PID;
	uint64_t ip = FIXTURE_IP + index * 0x10;
	uint64_t time = sample_time(index);
	struct record r;

	kernel_start(&r);
	put_u64(&r, (two_events && index % 2 ? FIXTURE_ID_SECOND : FIXTURE_ID_BASE) + cpu);
	put_u64(&r, ip);
	put_u32(&r, FIXTURE_PID);
	put_u32(&r, tid);
	put_u64(&r, time);
	put_u32(&r, cpu);
	put_u32(&r, 0);
	put_u64(&r, FIXTURE_PERIOD);
	put_u64(&r, 4);
	put_u64(&r, PERF_CONTEXT_USER);
	put_u64(&r, ip);
	put_u64(&r, FIXTURE_CALLER);
	put_u64(&r, FIXTURE_LIBC);
	kernel_finish(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	append(f, &r, time);
}

static void append_lost(struct fixture *f, uint64_t time)
{
	struct record r;

	kernel_start(&r);
	put_u64(&r, FIXTURE_ID_BASE + 2);
	put_u64(&r, 3);
	put_sample_id(&r, (uint32_t)-1, (uint32_t)-1, time, 2);
	kernel_finish(&r, PERF_RECORD_LOST, 0);
	append(f, &r, time);
}

static void append_stats(struct fixture *f, uint64_t time)
{
	struct prf_stats_record stats = {
		.time = time,
		.samples = FIXTURE_SAMPLES,
		.lost = 3,
		.raw_bytes = 4096,
		.stored_bytes = 1024,
		.cpu_user_ns = 1500000,
		.cpu_system_ns = 2500000,
		.rss_bytes = 8u << 20,
	};
	struct record r;

	perfrec_start(&r, &stats, sizeof(stats));
	perfrec_finish(&r, PRF_RECORD_STATS);
	append(f, &r, time);
}

static void append_lost_note(struct fixture *f, uint64_t time)
{
	struct prf_lost_note_record note = {
		.time = time,
		.reason = PRF_LOST_WRITE_ERROR,
		.cpu = -1,
		.records = 5,
		.bytes = 480,
		.error = ENOSPC,
	};
	struct record r;

	perfrec_start(&r, &note, sizeof(note));
	perfrec_finish(&r, PRF_RECORD_LOST_NOTE);
	append(f, &r, time);
}

/* Readers must skip types they do not know, by their size. */
static void append_unknown(struct fixture *f)
{
	struct prf_record_header header = { 0 };
	struct record r;

	kernel_start(&r);
	put_u64(&r, 0x5a5a5a5a5a5a5a5aull);
	kernel_finish(&r, 99, 0);
	append(f, &r, 0);

	perfrec_start(&r, &header, sizeof(header));
	put_u64(&r, 0xa5a5a5a5a5a5a5a5ull);
	perfrec_finish(&r, PRF_RECORD_BASE + 0x50);
	append(f, &r, 0);
}

/* A cgroup as the kernel names it, a process's cgroup, a thread's ids in a container. */
static void append_cgroups(struct fixture *f, uint64_t time)
{
	struct prf_task_cgroup_record task = { .time = time, .pid = FIXTURE_PID };
	struct prf_nspid_record nspid = {
		.time = time, .pid = FIXTURE_PID, .tid = FIXTURE_CHILD,
		.ns_pid = 1, .ns_tid = 2, .ns_level = 1,
	};
	struct record r;

	kernel_start(&r);
	put_u64(&r, 4711);
	put_string(&r, "/system.slice/fixture.service");
	put_sample_id(&r, (uint32_t)-1, (uint32_t)-1, time, 0);
	kernel_finish(&r, PERF_RECORD_CGROUP, 0);
	append(f, &r, time);

	perfrec_start(&r, &task, sizeof(task));
	put_string(&r, "/system.slice/fixture.service");
	perfrec_finish(&r, PRF_RECORD_TASK_CGROUP);
	append(f, &r, time);

	perfrec_start(&r, &nspid, sizeof(nspid));
	perfrec_finish(&r, PRF_RECORD_NSPID);
	append(f, &r, time);
}

static void write_records(struct fixture *f)
{
	uint64_t end = sample_time(FIXTURE_SAMPLES);

	append_snapshot(f, PRF_RECORD_SNAPSHOT_BEGIN, FIXTURE_START_NS, 0);
	append_comm(f, FIXTURE_START_NS);
	append_mmap2(f, FIXTURE_START_NS);
	append_build_id(f);
	append_kallsyms(f);
	append_kernel_module(f);
	append_snapshot(f, PRF_RECORD_SNAPSHOT_END, FIXTURE_START_NS, 1);
	flush(f);

	append_task(f, PERF_RECORD_FORK, FIXTURE_START_NS + FIXTURE_TICK_NS / 2);
	for (unsigned int i = 0; i < FIXTURE_SAMPLES / 2; i++)
		append_sample(f, i);
	flush(f);

	for (unsigned int i = FIXTURE_SAMPLES / 2; i < FIXTURE_SAMPLES; i++)
		append_sample(f, i);
	append_lost(f, sample_time(FIXTURE_SAMPLES - 1));
	flush(f);

	append_stats(f, end);
	append_lost_note(f, end);
	append_task(f, PERF_RECORD_EXIT, end);
	append_unknown(f);
	append_cgroups(f, end);
	flush(f);
}

/* ---- the file ------------------------------------------------------ */

static struct prf_event fixture_event(void)
{
	static const uint64_t ids[FIXTURE_CPUS] = {
		FIXTURE_ID_BASE, FIXTURE_ID_BASE + 1,
		FIXTURE_ID_BASE + 2, FIXTURE_ID_BASE + 3,
	};
	struct prf_event event = { 0 };
	struct perf_event_attr *attr = &event.attr;

	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->sample_freq = 97;
	attr->freq = 1;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			    PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			    PERF_SAMPLE_CALLCHAIN;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->build_id = 1;
	event.name = "cpu-clock";
	event.ids = ids;
	event.id_count = FIXTURE_CPUS;
	return event;
}

/* The same clock by period, under perfrecd's name for it. */
static struct prf_event second_event(void)
{
	static const uint64_t ids[FIXTURE_CPUS] = {
		FIXTURE_ID_SECOND, FIXTURE_ID_SECOND + 1,
		FIXTURE_ID_SECOND + 2, FIXTURE_ID_SECOND + 3,
	};
	struct prf_event event = fixture_event();

	event.attr.freq = 0;
	event.attr.sample_period = FIXTURE_PERIOD;
	event.attr.mmap = event.attr.mmap2 = event.attr.comm = event.attr.comm_exec = 0;
	event.attr.task = event.attr.build_id = 0;
	event.name = "cpu-clock/period=10309278/";
	event.ids = ids;
	return event;
}

static int write_fixture(const char *path, int finish, int zstd_level)
{
	struct prf_event events[2] = { fixture_event(), second_event() };
	struct prf_meta meta[] = {
		{ "collector", "make-fixture" },
		{ "frequency", "97" },
	};
	struct prf_file_info info = {
		.hostname = "fixture-host",
		.kernel_release = "6.1.0-fixture",
		.kernel_version = "#1 SMP PREEMPT_DYNAMIC fixture",
		.machine = "x86_64",
		.boot_id = "00000000-1111-2222-3333-444444444444",
		.nr_cpus_online = FIXTURE_CPUS,
		.nr_cpus_configured = FIXTURE_CPUS,
		.page_size = 4096,
		.clockid = CLOCK_MONOTONIC,
		.realtime_offset_ns = 1700000000000000000ll - (int64_t)FIXTURE_START_NS,
		.start_time_ns = FIXTURE_START_NS,
		.meta = meta,
		.meta_count = 2,
		.events = events,
		.event_count = two_events ? 2 : 1,
	};
	struct prf_writer_options options = {
		.zstd_level = zstd_level,
		.name = path,
	};
	struct fixture f = { 0 };
	struct prf_error error;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "make-fixture: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (prf_writer_open(&f.writer, fd, &info, &options, &error) < 0) {
		fprintf(stderr, "make-fixture: %s\n", error.message);
		close(fd);
		return 1;
	}
	write_records(&f);
	if (finish && !f.failed && prf_writer_finish(f.writer) < 0) {
		fprintf(stderr, "make-fixture: %s\n",
			prf_writer_last_error(f.writer));
		f.failed = 1;
	}
	prf_writer_close(f.writer);
	if (close(fd) < 0) {
		fprintf(stderr, "make-fixture: %s: %s\n", path, strerror(errno));
		f.failed = 1;
	}
	return f.failed;
}

static int usage(void)
{
	fprintf(stderr, "usage: make-fixture [--unfinished] [--no-compression] [--two-events] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int finish = 1, zstd_level = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--unfinished"))
			finish = 0;
		else if (!strcmp(argv[i], "--no-compression"))
			zstd_level = -1;
		else if (!strcmp(argv[i], "--two-events"))
			two_events = 1;
		else if (argv[i][0] == '-' || path)
			return usage();
		else
			path = argv[i];
	}
	if (!path)
		return usage();
	return write_fixture(path, finish, zstd_level);
}
