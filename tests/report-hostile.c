/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-hostile: writes odd but well-framed captures, with the real
 * writer, for tests/test-report-hostile.sh to feed perfrec-report.  The
 * files pass every checksum: what is odd is their content, which the
 * replay, the symbolizer and the views must survive.
 *
 *   report-hostile DIR               the fixed set of files (below)
 *   report-hostile --local FILE PATH...
 *                                    one file whose process maps each PATH
 *                                    (files of this host: real ELFs, a
 *                                    FIFO, a directory, a non-ELF, ...),
 *                                    with samples at offsets inside, past
 *                                    the end and at the edges of each map
 *
 * The fixed set, one oddity a file (so that one refused file does not
 * hide the others), then all of them again in one file:
 *   overlap          an MMAP2 punching the middle of another, maps over
 *                    maps, a map at the top of the address space, empty
 *                    and wrapping maps
 *   before-mmap      samples before any COMM or MMAP2, of pids never seen
 *   pid-reuse        FORK/EXIT/FORK of one pid with different binaries;
 *                    EXIT twice, FORK without EXIT, FORK of an unknown
 *                    parent, a thread FORK, exec twice
 *   callchain-long   8000-entry callchains, valid within their record:
 *                    deep recursion, context markers everywhere, zeros
 *   callchain-lies   nr larger than the record, nr = 2^64 - 1, a record
 *                    cut in the middle of a field: the decoder refuses them
 *   unknown-types    kernel and perfrec record types nobody knows
 *   time-backwards   side-band and samples going back in time, time 0 and
 *                    2^64 - 1, maps that begin after the samples they cover
 *   kernel-symbols   KERNEL_SYMBOL records (--kernel-symbols=hit) and no
 *                    KALLSYMS: names without their NUL, no module string,
 *                    names of 600 and modules of 100 characters, start 0,
 *                    size 0 and 2^32 - 1 at the top of the address space,
 *                    overlaps, one address twice, escapes in names; kernel
 *                    samples in, between and past them
 *   kallsyms-*       one garbage KALLSYMS each (only the first counts):
 *                    random bytes, no newlines, unsorted, huge lines, NULs,
 *                    hidden addresses, an empty text
 *   build-id-paths   BUILD_ID records with "../../etc/passwd", "", 4000
 *                    characters, control characters, sizes 0 and 20 of
 *                    zeros; MMAP2 build-ids of size 0 and 255
 *   kernel-in-user   kernel addresses in user context and user addresses
 *                    after PERF_CONTEXT_KERNEL; a user map over kernel
 *                    addresses
 *   names            comms and paths with escapes, C1 controls, invalid
 *                    UTF-8, empty
 *   events           two events; samples of an unknown identifier
 *   numbers          periods of 2^64 - 1, cpu and pid -1, LOST of 2^63
 *   off-cpu          OFF_CPU records: good ones, then counts past the
 *                    record and past the bounds (callchain, waker chain,
 *                    stack size), registers without an ABI, records cut
 *                    short; durations of 0 and 2^64 - 1, times 0 and
 *                    2^64 - 1, 512-entry chains of markers and zeros,
 *                    wakers of no known process or with no tid, waker
 *                    names of 16 bytes without a NUL and with escapes,
 *                    registers and stack copies that are garbage
 *   empty            a header and a trailer, no records
 *   header-only      a header, not even a trailer
 *   many-addresses   6000 distinct addresses in 400 maps
 *   samples-undecodable
 *                    2000 samples in several PRF_CHUNK_SAMPLES chunks, the
 *                    second of which is garbage under good checksums: the
 *                    report's first pass skips it unread, the second finds
 *                    that it does not decompress
 *   everything       all of the above in one file (but many-addresses)
 *   hosts/           70 small files of 70 hosts
 *
 *   report-hostile --bomb FILE
 *                    a file of a few kilobytes whose 3 chunks of 64 MiB
 *                    each hold copies of one FORK record: 4.6 million
 *                    side-band records that a reader must not all keep
 *   report-hostile --c1 FILE ELF OFFSET
 *                    C1 controls (0x9b raw and as U+009B) and bytes that
 *                    are not UTF-8 in a comm, in JIT names, in the path of
 *                    a DSO this host lacks (with a build-id, which the
 *                    reader warns about) and in a map of ELF, a file of
 *                    this host whose name holds them too; samples at
 *                    OFFSET (hex) of ELF (tests/c1-lines, whose DWARF
 *                    names a source file the same way), the JIT code and
 *                    the missing DSO, in one callchain
 *   report-hostile --nameless DIR
 *                    4 files of 20,000 samples each, every sample of its
 *                    own thread that no record names: the reader names
 *                    each ":TID" while it reads the files on several
 *                    threads, 80,000 names in all
 *   report-hostile --times DIR
 *                    captures whose samples' times lie to the time views
 *                    (a sample at 2^63 in chunks that say 2 s, times 0,
 *                    realtime offsets that overflow): write_times() says
 *                    which
 *
 * For the flame graphs (tests/test-flame-*.sh):
 *   report-hostile --markup FILE
 *                    markup in every name a page or an SVG shows: the
 *                    host, a comm and kernel symbols hold "</script>",
 *                    "<!--", "]]>", '&', quotes, U+2028 and invalid UTF-8
 *   report-hostile --big FILE
 *                    a call tree of about 150,000 nodes: 16 processes,
 *                    16,000 kernel stacks 12 deep through 4,096 functions
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format.h"

#define BASE_NS		1000000000000ull	/* 1000 s of uptime */
#define TICK_NS		1001001ull		/* ~999 Hz */
#define PERIOD_NS	1001001ull
#define ID_CPU0		11
#define ID_CPU1		12
#define ID_OTHER	21			/* of the second event */
#define KERNEL_TEXT	0xffffffff81000000ull

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("report-hostile: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ---- the event ----------------------------------------------------- */

static struct perf_event_attr collector_attr(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 999,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN,
		.freq = 1,
		.mmap = 1,
		.comm = 1,
		.task = 1,
		.sample_id_all = 1,
		.mmap2 = 1,
		.comm_exec = 1,
		.use_clockid = 1,
		.clockid = 1,		/* CLOCK_MONOTONIC */
		.build_id = 1,
	};

	return attr;
}

static struct perf_event_attr attr_main;	/* what the records are laid out by */

/* ---- building records ---------------------------------------------- */

struct rec {
	uint64_t *words;	/* 8-aligned */
	size_t size, capacity;
	uint64_t time;		/* for the writer's chunk times */
};

static void put(struct rec *r, const void *data, size_t size)
{
	if (r->size + size > r->capacity) {
		size_t capacity = r->capacity ? r->capacity : 256;

		while (capacity < r->size + size)
			capacity *= 2;
		r->words = realloc(r->words, capacity);
		if (!r->words)
			die("out of memory");
		memset((uint8_t *)r->words + r->capacity, 0, capacity - r->capacity);
		r->capacity = capacity;
	}
	memcpy((uint8_t *)r->words + r->size, data, size);
	r->size += size;
}

static void put_u64(struct rec *r, uint64_t v)
{
	put(r, &v, sizeof(v));
}

static void put_u32s(struct rec *r, uint32_t a, uint32_t b)
{
	put(r, &a, sizeof(a));
	put(r, &b, sizeof(b));
}

static void pad8(struct rec *r)
{
	static const uint8_t zeros[8];

	put(r, zeros, (8 - r->size % 8) % 8);
}

/* Bytes, a NUL, zeros to 8: as the kernel lays its strings. */
static void put_string_n(struct rec *r, const char *s, size_t n)
{
	put(r, s, n);
	put(r, "", 1);
	pad8(r);
}

static void put_string(struct rec *r, const char *s)
{
	put_string_n(r, s, strlen(s));
}

static void begin_kernel(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	r->size = 0;
	r->time = 0;
	put(r, &h, sizeof(h));
}

static void begin_perfrec(struct rec *r, uint32_t type)
{
	struct prf_record_header h = { .type = type };

	r->size = 0;
	r->time = 0;
	put(r, &h, sizeof(h));
}

/* The sample_id_all trailer of a side-band record. */
static void put_id(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time,
		   uint32_t cpu)
{
	struct prf_sample_id id = {
		.pid = pid, .tid = tid, .time = time, .cpu = cpu,
		.id = cpu % 2 ? ID_CPU1 : ID_CPU0,
		.identifier = cpu % 2 ? ID_CPU1 : ID_CPU0,
	};
	uint8_t trailer[PRF_SAMPLE_ID_MAX];

	put(r, trailer, prf_encode_sample_id(&attr_main, &id, trailer));
	r->time = time;
}

static void finish(struct rec *r)
{
	uint32_t type;

	pad8(r);
	memcpy(&type, r->words, sizeof(type));
	if (type >= PRF_RECORD_BASE) {
		uint32_t size = (uint32_t)r->size;

		memcpy((uint8_t *)r->words + 8, &size, sizeof(size));
	} else {
		uint16_t size = (uint16_t)r->size;

		if (r->size > UINT16_MAX)
			die("kernel record of %zu bytes", r->size);
		memcpy((uint8_t *)r->words + 6, &size, sizeof(size));
	}
}

/* ---- writing files ------------------------------------------------- */

struct out {
	struct prf_writer *writer;
	int fd;
	char path[4096];
	struct rec r;
	uint64_t records;
};

static void emit(struct out *o)
{
	if (prf_writer_append(o->writer, o->r.words, o->r.size, o->r.time) < 0)
		die("%s", prf_writer_last_error(o->writer));
	o->records++;
}

/* The files' realtime offset: --times makes ones that overflow. */
static int64_t realtime_offset_ns = 1780000000000000000ll;

static void out_open(struct out *o, const char *path, const char *hostname,
		     const struct prf_event *events, size_t event_count)
{
	static const struct prf_meta meta[] = { { "collector", "report-hostile" } };
	struct prf_file_info info = {
		.hostname = hostname,
		.kernel_release = "6.1.0-hostile-amd64",
		.kernel_version = "#1 SMP PREEMPT_DYNAMIC",
		.machine = "x86_64",
		.boot_id = "00000000-0000-4000-8000-000000000000",
		.nr_cpus_online = 2,
		.nr_cpus_configured = 2,
		.page_size = 4096,
		.clockid = 1,
		.realtime_offset_ns = realtime_offset_ns,
		.start_time_ns = BASE_NS,
		.meta = meta,
		.meta_count = 1,
		.events = events,
		.event_count = event_count,
	};
	/* Small chunks: side-band and samples spread over several. */
	struct prf_writer_options options = { .chunk_size = 64 << 10, .name = path };
	struct prf_error error;

	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0)
		die("%s: %s", path, strerror(errno));
	if (prf_writer_open(&o->writer, o->fd, &info, &options, &error) < 0)
		die("%s", error.message);
}

static const uint64_t main_ids[2] = { ID_CPU0, ID_CPU1 };

static void out_open_default(struct out *o, const char *path)
{
	static struct prf_event event;

	event = (struct prf_event){ .attr = attr_main, .name = "cpu-clock",
				    .ids = main_ids, .id_count = 2 };
	out_open(o, path, "hostile", &event, 1);
}

static void out_close(struct out *o, int trailer)
{
	if ((trailer ? prf_writer_finish(o->writer) : prf_writer_flush(o->writer)) < 0)
		die("%s", prf_writer_last_error(o->writer));
	prf_writer_close(o->writer);
	if (close(o->fd) < 0)
		die("%s: %s", o->path, strerror(errno));
	free(o->r.words);
}

/* ---- records ------------------------------------------------------- */

static void comm(struct out *o, uint32_t pid, uint32_t tid, const char *name,
		 int exec, uint64_t time)
{
	begin_kernel(&o->r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put_u32s(&o->r, pid, tid);
	put_string(&o->r, name);
	put_id(&o->r, pid, tid, time, 0);
	finish(&o->r);
	emit(o);
}

struct map_spec {
	uint64_t start, length, pgoff;
	const char *path;
	size_t path_length;		/* 0: strlen(path) */
	const uint8_t *build_id;	/* NULL: maj/min/inode instead */
	uint8_t build_id_size;
	uint64_t inode;
	uint32_t prot;
};

static void mmap2(struct out *o, uint32_t pid, uint32_t tid, const struct map_spec *m,
		  uint64_t time)
{
	begin_kernel(&o->r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
		     (m->build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put_u32s(&o->r, pid, tid);
	put_u64(&o->r, m->start);
	put_u64(&o->r, m->length);
	put_u64(&o->r, m->pgoff);
	if (m->build_id) {
		uint8_t field[24] = { m->build_id_size };

		memcpy(field + 4, m->build_id, m->build_id_size < 20 ? m->build_id_size : 20);
		put(&o->r, field, sizeof(field));
	} else {
		put_u32s(&o->r, 254, 1);
		put_u64(&o->r, m->inode);
		put_u64(&o->r, 1);
	}
	put_u32s(&o->r, m->prot ? m->prot : PROT_READ | PROT_EXEC, MAP_PRIVATE);
	put_string_n(&o->r, m->path, m->path_length ? m->path_length : strlen(m->path));
	put_id(&o->r, pid, tid, time, 0);
	finish(&o->r);
	emit(o);
}

/* The old MMAP (perf's synthesized kernel map uses it). */
static void mmap1(struct out *o, uint32_t pid, uint64_t start, uint64_t length,
		  uint64_t pgoff, const char *path, uint16_t misc, uint64_t time)
{
	begin_kernel(&o->r, PERF_RECORD_MMAP, misc);
	put_u32s(&o->r, pid, pid);
	put_u64(&o->r, start);
	put_u64(&o->r, length);
	put_u64(&o->r, pgoff);
	put_string(&o->r, path);
	put_id(&o->r, pid, pid, time, 1);
	finish(&o->r);
	emit(o);
}

static void task(struct out *o, uint32_t type, uint32_t pid, uint32_t ppid,
		 uint32_t tid, uint32_t ptid, uint64_t time)
{
	begin_kernel(&o->r, type, 0);
	put_u32s(&o->r, pid, ppid);
	put_u32s(&o->r, tid, ptid);
	put_u64(&o->r, time);
	put_id(&o->r, pid, tid, time, 1);
	finish(&o->r);
	emit(o);
}

struct sample_spec {
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	uint16_t misc;			/* 0: PERF_RECORD_MISC_USER */
	uint64_t ip;
	const uint64_t *chain;		/* NULL: just PERF_CONTEXT_USER, ip */
	uint64_t nr;
	uint64_t identifier;		/* 0: by CPU */
	uint64_t lying_time;		/* 0: time; else the chunk's time of the record */
};

/* Callchain entries are taken as given: markers and all. */
static void sample(struct out *o, const struct sample_spec *s)
{
	uint64_t identifier = s->identifier ? s->identifier :
			      s->cpu % 2 ? ID_CPU1 : ID_CPU0;

	begin_kernel(&o->r, PERF_RECORD_SAMPLE, s->misc ? s->misc : PERF_RECORD_MISC_USER);
	put_u64(&o->r, identifier);
	put_u64(&o->r, s->ip);
	put_u32s(&o->r, s->pid, s->tid);
	put_u64(&o->r, s->time);
	put_u32s(&o->r, s->cpu, 0);
	put_u64(&o->r, s->period ? s->period : PERIOD_NS);
	if (s->chain) {
		put_u64(&o->r, s->nr);
		put(&o->r, s->chain, s->nr * 8);
	} else {
		put_u64(&o->r, 2);
		put_u64(&o->r, PERF_CONTEXT_USER);
		put_u64(&o->r, s->ip);
	}
	o->r.time = s->lying_time ? s->lying_time : s->time;
	finish(&o->r);
	emit(o);
}

/* A plain user sample with a short callchain through two callers. */
static void user_sample(struct out *o, uint32_t pid, uint64_t time, uint64_t ip,
			uint64_t caller)
{
	uint64_t chain[4] = { PERF_CONTEXT_USER, ip, caller, caller + 0x40 };

	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .cpu = (uint32_t)(time / TICK_NS) % 2,
					 .time = time, .ip = ip, .chain = chain, .nr = 4 });
}

static void build_id_record(struct out *o, const char *path, size_t path_length,
			    const uint8_t *id, uint8_t id_size, uint64_t inode,
			    uint32_t flags)
{
	struct prf_build_id_record b = {
		.pid = 0xffffffff,
		.flags = flags,
		.major = 254, .minor = 1,
		.inode = inode,
		.build_id_size = id_size,
	};

	/* id holds 20 bytes; a larger id_size is the lie. */
	memcpy(b.build_id, id, id_size < 20 ? id_size : 20);
	begin_perfrec(&o->r, PRF_RECORD_BUILD_ID);
	put(&o->r, (uint8_t *)&b + sizeof(b.header), sizeof(b) - sizeof(b.header));
	put_string_n(&o->r, path, path_length);
	finish(&o->r);
	emit(o);
}

static void kallsyms(struct out *o, const char *text, size_t size, uint32_t flags)
{
	struct prf_kallsyms_record k = { .flags = flags, .text_size = size };

	begin_perfrec(&o->r, PRF_RECORD_KALLSYMS);
	put(&o->r, (uint8_t *)&k + sizeof(k.header), sizeof(k) - sizeof(k.header));
	put(&o->r, text, size);
	finish(&o->r);
	emit(o);
}

static void snapshot(struct out *o, uint32_t type, uint64_t time)
{
	struct prf_snapshot_record s = { .time = time, .process_count = 3 };

	begin_perfrec(&o->r, type);
	put(&o->r, (uint8_t *)&s + sizeof(s.header), sizeof(s) - sizeof(s.header));
	o->r.time = time;
	finish(&o->r);
	emit(o);
}

static const char sane_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T hostile_entry\n"
	"ffffffff81001000 t hostile_local\n"
	"ffffffff81002000 T hostile_last\n"
	"ffffffffc0000000 t hostile_mod_fn\t[hostile_mod]\n";

/* A process as the snapshot of a file describes it. */
static void process(struct out *o, uint32_t pid, const char *name, const char *path,
		    uint64_t start, uint64_t time)
{
	comm(o, pid, pid, name, 1, time);
	mmap2(o, pid, pid, &(struct map_spec){ .start = start, .length = 0x20000,
					       .pgoff = 0x1000, .path = path,
					       .inode = 1000 + pid }, time);
}

/* ---- the oddities, each writing into o ----------------------------- */

/* An MMAP2 punching the middle of another, and worse. */
static void odd_overlap(struct out *o, uint64_t t)
{
	const uint32_t pid = 1001;

	comm(o, pid, pid, "overlap", 1, t);
	mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x100000, 0, "/usr/bin/outer",
					       .inode = 1 }, t + 1);
	for (int i = 0; i < 32; i++)
		user_sample(o, pid, t + 10 + i, 0x400000 + (uint64_t)i * 0x8000, 0x4fff00);
	/* The middle punched out: the outer map is now two pieces. */
	mmap2(o, pid, pid, &(struct map_spec){ 0x440000, 0x10000, 0x5000, "/usr/lib/inner.so",
					       .inode = 2 }, t + 100);
	for (int i = 0; i < 32; i++)
		user_sample(o, pid, t + 110 + i, 0x400000 + (uint64_t)i * 0x8000, 0x445000);
	/* Exactly the same range again, then one covering everything. */
	mmap2(o, pid, pid, &(struct map_spec){ 0x440000, 0x10000, 0, "/usr/lib/again.so",
					       .inode = 3 }, t + 200);
	mmap2(o, pid, pid, &(struct map_spec){ 0x300000, 0x300000, 0, "/usr/bin/over-all",
					       .inode = 4 }, t + 201);
	/* Maps that start inside and end outside, many times over. */
	for (int i = 0; i < 64; i++)
		mmap2(o, pid, pid, &(struct map_spec){ 0x3f0000 + (uint64_t)i * 0x3000, 0x20000,
						       (uint64_t)i << 12, "/usr/lib/stair.so",
						       .inode = 5 }, t + 210 + (uint64_t)i);
	for (int i = 0; i < 64; i++)
		user_sample(o, pid, t + 300 + i, 0x3f0000 + (uint64_t)i * 0x3100, 0x400123);
	/* The top of the address space, a wrapping one, an empty one. */
	mmap2(o, pid, pid, &(struct map_spec){ 0xfffffffffffff000ull, 0x1000, 0, "/top",
					       .inode = 6 }, t + 400);
	mmap2(o, pid, pid, &(struct map_spec){ 0xffffffffffff0000ull, 0x100000, 0, "/wraps",
					       .inode = 7 }, t + 401);
	mmap2(o, pid, pid, &(struct map_spec){ 0x500000, 0, 0, "/empty", .inode = 8 }, t + 402);
	mmap2(o, pid, pid, &(struct map_spec){ 0x600000, 0x1000, ~0ull - 0x10, "/pgoff-wraps",
					       .inode = 9 }, t + 403);
	mmap2(o, pid, pid, &(struct map_spec){ 0, ~0ull, 0, "/everything", .inode = 10 }, t + 404);
	user_sample(o, pid, t + 410, 0xfffffffffffffff8ull, 0xffffffffffff1000ull);
	user_sample(o, pid, t + 411, 0x500000, 0x600ff0);
	user_sample(o, pid, t + 412, 0, 1);
	user_sample(o, pid, t + 413, 0x600100, ~0ull);
}

/* Samples before anything says who their process is. */
static void odd_before_mmap(struct out *o, uint64_t t)
{
	for (int i = 0; i < 16; i++)
		user_sample(o, 2001, t + (uint64_t)i, 0x401000 + (uint64_t)i * 16, 0x402000);
	for (int i = 0; i < 16; i++)
		user_sample(o, 2100 + (uint32_t)i, t + 20 + (uint64_t)i, 0x7f0000001000ull, 0x401000);
	comm(o, 2001, 2001, "late-comer", 1, t + 100);
	mmap2(o, 2001, 2001, &(struct map_spec){ 0x400000, 0x10000, 0, "/usr/bin/late",
						 .inode = 11 }, t + 101);
	for (int i = 0; i < 16; i++)
		user_sample(o, 2001, t + 110 + (uint64_t)i, 0x401000 + (uint64_t)i * 16, 0x402000);
	/* A thread of a process nobody forked. */
	sample(o, &(struct sample_spec){ .pid = 2001, .tid = 2999, .cpu = 1, .time = t + 200,
					 .ip = 0x401010 });
}

/* One pid, three lives. */
static void odd_pid_reuse(struct out *o, uint64_t t)
{
	const uint32_t pid = 3001;

	task(o, PERF_RECORD_FORK, pid, 1, pid, 1, t);
	comm(o, pid, pid, "first-life", 1, t + 1);
	mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x10000, 0, "/usr/bin/first",
					       .inode = 21 }, t + 2);
	for (int i = 0; i < 20; i++)
		user_sample(o, pid, t + 10 + (uint64_t)i, 0x401000 + (uint64_t)i * 8, 0x402000);
	task(o, PERF_RECORD_EXIT, pid, 1, pid, 1, t + 50);
	task(o, PERF_RECORD_EXIT, pid, 1, pid, 1, t + 51);	/* twice */
	task(o, PERF_RECORD_FORK, pid, 1, pid, 1, t + 60);
	comm(o, pid, pid, "second-life", 1, t + 61);
	mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x10000, 0, "/usr/bin/second",
					       .inode = 22 }, t + 62);
	for (int i = 0; i < 20; i++)
		user_sample(o, pid, t + 70 + (uint64_t)i, 0x401000 + (uint64_t)i * 8, 0x402000);
	/* A third FORK without an EXIT, from a parent nobody knows. */
	task(o, PERF_RECORD_FORK, pid, 77777, pid, 77777, t + 100);
	comm(o, pid, pid, "third-life", 1, t + 101);
	comm(o, pid, pid, "exec-again", 1, t + 102);
	mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x10000, 0, "/usr/bin/third",
					       .inode = 23 }, t + 103);
	/* A thread, its name, a thread FORK naming itself its parent. */
	task(o, PERF_RECORD_FORK, pid, pid, pid + 1, pid, t + 104);
	comm(o, pid, pid + 1, "worker", 0, t + 105);
	task(o, PERF_RECORD_FORK, pid, pid, pid, pid, t + 106);
	for (int i = 0; i < 20; i++)
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid + (uint32_t)(i % 2),
						 .cpu = (uint32_t)i % 2, .time = t + 110 + (uint64_t)i,
						 .ip = 0x401000 + (uint64_t)i * 8 });
	/* Samples of the first life arriving after the reuse (late rings). */
	for (int i = 0; i < 8; i++)
		user_sample(o, pid, t + 20 + (uint64_t)i, 0x401000, 0x402000);
	/* A child forked from the pid in each life, then exiting. */
	task(o, PERF_RECORD_FORK, pid + 10, pid, pid + 10, pid, t + 120);
	user_sample(o, pid + 10, t + 121, 0x401004, 0x402000);
	task(o, PERF_RECORD_EXIT, pid + 10, pid, pid + 10, pid, t + 122);
	user_sample(o, pid + 10, t + 123, 0x401004, 0x402000);
	task(o, PERF_RECORD_EXIT, pid, 1, pid, 1, t + 200);
	user_sample(o, pid, t + 201, 0x401000, 0x402000);
}

/* Callchains as long as a kernel record can hold, and odd ones. */
static void odd_callchain_long(struct out *o, uint64_t t)
{
	enum { N = 8000 };
	uint64_t *chain = calloc(N, sizeof(*chain));
	const uint32_t pid = 4001;

	if (!chain)
		die("out of memory");
	process(o, pid, "deep", "/usr/bin/deep", 0x400000, t);
	/* Deep recursion: one return address 7998 times. */
	chain[0] = PERF_CONTEXT_USER;
	chain[1] = 0x401000;
	for (int i = 2; i < N; i++)
		chain[i] = 0x401234;
	for (int k = 0; k < 4; k++)
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 10 + (uint64_t)k,
						 .ip = 0x401000, .chain = chain, .nr = N });
	/* All different, kernel part first. */
	chain[0] = PERF_CONTEXT_KERNEL;
	for (int i = 1; i < N / 2; i++)
		chain[i] = KERNEL_TEXT + (uint64_t)i * 4;
	chain[N / 2] = PERF_CONTEXT_USER;
	for (int i = N / 2 + 1; i < N; i++)
		chain[i] = 0x400000 + (uint64_t)i * 4;
	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 20,
					 .misc = PERF_RECORD_MISC_KERNEL, .ip = KERNEL_TEXT + 4,
					 .chain = chain, .nr = N });
	/* Markers everywhere, zeros, PERF_CONTEXT_MAX and -1. */
	for (int i = 0; i < N; i++) {
		static const uint64_t odd[] = {
			PERF_CONTEXT_USER, PERF_CONTEXT_KERNEL, PERF_CONTEXT_HV,
			PERF_CONTEXT_GUEST, PERF_CONTEXT_GUEST_KERNEL,
			PERF_CONTEXT_GUEST_USER, PERF_CONTEXT_MAX, ~0ull, 0, 1,
			0x401000, KERNEL_TEXT,
		};
		chain[i] = odd[(unsigned)i * 7 % (sizeof(odd) / sizeof(odd[0]))];
	}
	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 30,
					 .ip = 0x401000, .chain = chain, .nr = N });
	/* Only markers; nothing; one address without any marker. */
	for (int i = 0; i < N; i++)
		chain[i] = i % 2 ? PERF_CONTEXT_USER : PERF_CONTEXT_KERNEL;
	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 31,
					 .ip = 0x401000, .chain = chain, .nr = N });
	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 32,
					 .ip = 0x401000, .chain = chain, .nr = 0 });
	chain[0] = 0x401000;
	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 33,
					 .ip = 0x401000, .chain = chain, .nr = 1 });
	/* 1020 to 1030 frames: around a reader's cut at 1024. */
	chain[0] = PERF_CONTEXT_USER;
	for (int i = 1; i < 1040; i++)
		chain[i] = 0x401000 + (uint64_t)(i % 13) * 0x10;
	for (uint64_t n = 1020; n <= 1030; n++)
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 40 + n,
						 .ip = 0x401000, .chain = chain, .nr = n });
	free(chain);
}

/* Callchains whose nr is more than the record holds: refused. */
static void odd_callchain_lies(struct out *o, uint64_t t)
{
	const uint32_t pid = 5001;
	const uint64_t lies[] = { 3, 64, 8000, 1ull << 32, 1ull << 61, ~0ull };
	uint64_t chain[2] = { PERF_CONTEXT_USER, 0x401000 };

	process(o, pid, "liar", "/usr/bin/liar", 0x400000, t);
	user_sample(o, pid, t + 1, 0x401000, 0x402000);		/* one good one */
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		/* The record holds two entries, nr says lies[i]. */
		begin_kernel(&o->r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		put_u64(&o->r, ID_CPU0);
		put_u64(&o->r, 0x401000);
		put_u32s(&o->r, pid, pid);
		put_u64(&o->r, t + 10 + i);
		put_u32s(&o->r, 0, 0);
		put_u64(&o->r, PERIOD_NS);
		put_u64(&o->r, lies[i]);
		put(&o->r, chain, sizeof(chain));
		o->r.time = t + 10 + i;
		finish(&o->r);
		emit(o);
	}
	/* Cut short: only the identifier and the ip. */
	begin_kernel(&o->r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_u64(&o->r, ID_CPU0);
	put_u64(&o->r, 0x401000);
	finish(&o->r);
	emit(o);
	/* Just a header. */
	begin_kernel(&o->r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	finish(&o->r);
	emit(o);
	/* Side-band cut short: an MMAP2 without its file name, a COMM of 8 bytes. */
	begin_kernel(&o->r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put_u32s(&o->r, pid, pid);
	put_u64(&o->r, 0x400000);
	finish(&o->r);
	emit(o);
	begin_kernel(&o->r, PERF_RECORD_COMM, 0);
	finish(&o->r);
	emit(o);
	/* A COMM and an MMAP2 whose strings have no NUL. */
	begin_kernel(&o->r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put_u32s(&o->r, pid, pid);
	put(&o->r, "ABCDEFGHABCDEFGH", 16);
	finish(&o->r);
	emit(o);
	begin_kernel(&o->r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put_u32s(&o->r, pid, pid);
	put_u64(&o->r, 0x400000);
	put_u64(&o->r, 0x1000);
	put_u64(&o->r, 0);
	put_u32s(&o->r, 254, 1);
	put_u64(&o->r, 99);
	put_u64(&o->r, 1);
	put_u32s(&o->r, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	put(&o->r, "/usr/bin/nonul", 14);
	put(&o->r, "xx", 2);
	finish(&o->r);
	emit(o);
	user_sample(o, pid, t + 100, 0x401000, 0x402000);
}

/* An OFF_CPU record as laid out, its fixed part from r, then words, then bytes. */
static void off_cpu_raw(struct out *o, const struct prf_off_cpu_record *r, const uint64_t *words,
			size_t word_count, const void *bytes, size_t byte_count)
{
	begin_perfrec(&o->r, PRF_RECORD_OFF_CPU);
	put(&o->r, (const uint8_t *)r + sizeof(r->header), sizeof(*r) - sizeof(r->header));
	if (word_count)
		put(&o->r, words, word_count * 8);
	if (byte_count)
		put(&o->r, bytes, byte_count);
	o->r.time = r->time;
	finish(&o->r);
	emit(o);
}

static void odd_off_cpu(struct out *o, uint64_t t)
{
	const uint32_t pid = 9101, waker = 9102;
	/* The blocked chain, then the waker's. */
	const uint64_t both[8] = { PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x100, PERF_CONTEXT_USER, 0x401000,
				   PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x200, PERF_CONTEXT_USER, 0x401100 };
	static uint64_t long_chain[2 * PRF_OFF_CPU_CALLCHAIN_MAX], garbage[8 + 17 + 512];
	const uint32_t lies[] = { 9, 513, 1u << 16, UINT32_MAX };
	struct prf_off_cpu_record r = {
		.time = t + 1, .duration = 1000000, .pid = pid, .tid = pid,
		.flags = PRF_OFF_CPU_WAKER, .waker_pid = waker, .waker_tid = waker,
		.waker_comm = "waker", .callchain_nr = 4, .waker_callchain_nr = 4,
	};

	process(o, pid, "blocked", "/usr/bin/blocked", 0x400000, t);
	process(o, waker, "waker", "/usr/bin/waker", 0x400000, t);
	off_cpu_raw(o, &r, both, 8, NULL, 0);		/* good ones */
	off_cpu_raw(o, &(struct prf_off_cpu_record){ .time = t + 2, .duration = 500000, .pid = pid,
						     .tid = pid, .callchain_nr = 4 }, both, 4, NULL, 0);
	/* Counts that lie: past the record, past the bounds. */
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct prf_off_cpu_record l = r;

		l.time = t + 10 + i;
		l.callchain_nr = lies[i];
		off_cpu_raw(o, &l, both, 8, NULL, 0);
		l.callchain_nr = 4;
		l.waker_callchain_nr = lies[i];
		off_cpu_raw(o, &l, both, 8, NULL, 0);
		l.waker_callchain_nr = 0;
		l.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
		l.user_regs_mask = 0xff01ff;
		l.user_stack_size = lies[i] * 64;
		off_cpu_raw(o, &l, garbage, 4 + 17, NULL, 0);
	}
	/* Registers or a stack without an ABI. */
	r.user_regs_mask = 0xff01ff;
	off_cpu_raw(o, &r, garbage, 4 + 4 + 17, NULL, 0);
	r.user_regs_mask = 0;
	r.user_stack_size = 64;
	off_cpu_raw(o, &r, garbage, 4 + 4 + 8, NULL, 0);
	r.user_stack_size = 0;
	/* Cut short: the header alone, half the fixed part. */
	begin_perfrec(&o->r, PRF_RECORD_OFF_CPU);
	finish(&o->r);
	emit(o);
	begin_perfrec(&o->r, PRF_RECORD_OFF_CPU);
	put(&o->r, (const uint8_t *)&r + sizeof(r.header), 40);
	finish(&o->r);
	emit(o);
	/* Valid but extreme: durations, times, chains, wakers, names, registers. */
	for (size_t i = 0; i < 2 * PRF_OFF_CPU_CALLCHAIN_MAX; i++)
		long_chain[i] = i % 5 == 0 ? PERF_CONTEXT_USER : i % 5 == 1 ? PERF_CONTEXT_KERNEL :
				i % 5 == 2 ? 0 : i % 5 == 3 ? ~0ull - i : 0x401000 + i;
	for (size_t i = 0; i < sizeof(garbage) / 8; i++)
		garbage[i] = 0x4141414141414141ull;
	r.duration = ~0ull;
	r.time = ~0ull;
	off_cpu_raw(o, &r, both, 8, NULL, 0);
	r.duration = 0;
	r.time = 0;
	off_cpu_raw(o, &r, both, 8, NULL, 0);
	r.time = t + 100;
	r.duration = 7;
	r.callchain_nr = r.waker_callchain_nr = PRF_OFF_CPU_CALLCHAIN_MAX;
	off_cpu_raw(o, &r, long_chain, 2 * PRF_OFF_CPU_CALLCHAIN_MAX, NULL, 0);
	r.callchain_nr = r.waker_callchain_nr = 4;
	{
		r.waker_pid = UINT32_MAX;
		r.waker_tid = 4242;
		memcpy(r.waker_comm, "\x1b[31mred\nXXXXXXXX", 16);
		off_cpu_raw(o, &r, both, 8, NULL, 0);
		r.waker_tid = 0;
		off_cpu_raw(o, &r, both, 8, NULL, 0);
		r.flags = ~0u;
		r.waker_tid = waker;
		r.cgroup = ~0ull;
		r.cpu = UINT32_MAX;
		r.pid = r.tid = UINT32_MAX;
		off_cpu_raw(o, &r, both, 8, NULL, 0);
		/* Garbage registers and a stack copy of garbage, as for dwarf unwinding. */
		r.pid = r.tid = pid;
		r.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
		r.user_regs_mask = 0xff01ff;
		r.user_stack_size = 512 * 8;
		memcpy(garbage, both, sizeof(both));
		off_cpu_raw(o, &r, garbage, 8 + 17 + 512, NULL, 0);
	}
}

static void odd_unknown_types(struct out *o, uint64_t t)
{
	static const uint32_t kernel_types[] = {
		0, 99, PERF_RECORD_AUX, PERF_RECORD_ITRACE_START, PERF_RECORD_MAX,
		PERF_RECORD_MAX + 1, 0x7fff, 0xfffe, 0xffff,
	};
	static const uint32_t perfrec_types[] = {
		PRF_RECORD_BASE, PRF_RECORD_BASE + 0x100, PRF_RECORD_BASE + 0x1ff,
		PRF_RECORD_BASE + 0xffff, 0x7fffffff, 0xffffffff,
	};

	process(o, 6001, "unknown", "/usr/bin/unknown", 0x400000, t);
	for (size_t i = 0; i < sizeof(kernel_types) / sizeof(kernel_types[0]); i++) {
		begin_kernel(&o->r, kernel_types[i], (uint16_t)(i * 0x1111));
		put_u64(&o->r, 0x4141414141414141ull);
		put_u64(&o->r, i);
		put_id(&o->r, 6001, 6001, t + i, 0);
		finish(&o->r);
		emit(o);
		user_sample(o, 6001, t + 1 + i, 0x401000, 0x402000);
	}
	for (size_t i = 0; i < sizeof(perfrec_types) / sizeof(perfrec_types[0]); i++) {
		begin_perfrec(&o->r, perfrec_types[i]);
		put_u64(&o->r, 0x4242424242424242ull);
		finish(&o->r);
		emit(o);
	}
	/* Known perfrec types too short for their struct. */
	for (uint32_t type = PRF_RECORD_BUILD_ID; type <= PRF_RECORD_LOST_NOTE; type++) {
		begin_perfrec(&o->r, type);
		finish(&o->r);
		emit(o);
	}
	/* A KALLSYMS whose text_size says more than the record holds. */
	begin_perfrec(&o->r, PRF_RECORD_KALLSYMS);
	put_u32s(&o->r, 0, 0);
	put_u64(&o->r, ~0ull);
	put(&o->r, "ffffffff81000000 T x\n", 21);
	finish(&o->r);
	emit(o);
}

static void odd_time_backwards(struct out *o, uint64_t t)
{
	const uint32_t pid = 7001;

	/* Samples first, their maps later in the file and in time. */
	for (int i = 0; i < 16; i++)
		user_sample(o, pid, t + 1000 - (uint64_t)i * 10, 0x401000 + (uint64_t)i, 0x402000);
	comm(o, pid, pid, "backwards", 1, t + 2000);
	mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x10000, 0, "/usr/bin/backwards",
					       .inode = 31 }, t + 2001);
	/* Then maps going back in time, each replacing the one before. */
	for (int i = 0; i < 16; i++)
		mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x10000, (uint64_t)i << 12,
						       "/usr/bin/backwards", .inode = 31 },
		      t + 1900 - (uint64_t)i * 100);
	for (int i = 0; i < 32; i++)
		user_sample(o, pid, t + 3000 - (uint64_t)i * 97, 0x401000 + (uint64_t)i * 4, 0x402000);
	/* Time 0 and the end of time, for samples and side-band. */
	comm(o, pid, pid, "time-zero", 0, 0);
	mmap2(o, pid, pid, &(struct map_spec){ 0x500000, 0x1000, 0, "/zero", .inode = 32 }, 0);
	mmap2(o, pid, pid, &(struct map_spec){ 0x600000, 0x1000, 0, "/max", .inode = 33 }, ~0ull);
	comm(o, pid, pid, "time-max", 1, ~0ull);
	task(o, PERF_RECORD_EXIT, pid, 1, pid, 1, ~0ull);
	user_sample(o, pid, 0, 0x500010, 0x600010);
	user_sample(o, pid, ~0ull, 0x600010, 0x500010);
	user_sample(o, pid, ~0ull - 1, 0x401000, 0x402000);
	/* A FORK whose own time field disagrees with its sample_id. */
	begin_kernel(&o->r, PERF_RECORD_FORK, 0);
	put_u32s(&o->r, pid + 1, pid);
	put_u32s(&o->r, pid + 1, pid);
	put_u64(&o->r, 5);
	put_id(&o->r, pid + 1, pid + 1, t + 10, 0);
	finish(&o->r);
	emit(o);
	user_sample(o, pid + 1, t + 11, 0x401000, 0x402000);
}

/* One garbage KALLSYMS (the first of a file is the one used). */
static void odd_kallsyms(struct out *o, uint64_t t, int which)
{
	const uint32_t pid = 8001;
	size_t size = 0;
	char *text;
	uint64_t chain[6] = { PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x100, KERNEL_TEXT + 0x1010,
			      0xffffffffc0000010ull, PERF_CONTEXT_USER, 0x401000 };
	uint32_t state = 12345;

	text = malloc(1 << 20);
	if (!text)
		die("out of memory");
	switch (which) {
	case 0:		/* random bytes */
		for (size = 0; size < 200000; size++) {
			state = state * 1103515245 + 12345;
			text[size] = (char)(state >> 16);
		}
		break;
	case 1:		/* no newline at all, one huge line */
		memset(text, 'f', 300000);
		size = 300000;
		break;
	case 2:		/* unsorted, duplicated, odd types, overflowing */
		size = (size_t)snprintf(text, 1 << 20,
			"ffffffff81002000 T zlast\n"
			"ffffffff81000000 T _stext\n"
			"ffffffff81000000 T _stext\n"
			"ffffffff81000000 W alias_weak\n"
			"ffffffff81001000 ? question\n"
			"ffffffffffffffff T the_end\n"
			"fffffffffffffffff T overflow\n"
			"0000000000000000 T zero\n"
			"ffffffff81000100\n"
			"ffffffff81000200 T\n"
			"ffffffff81000300 T \n"
			" T nameless\n"
			"zzzzzzzzzzzzzzzz T not_hex\n"
			"ffffffff81000400 T name\twith\ttabs\t[mod\n"
			"ffffffff81000500 t \x1b]0;title\x07\x1b[31mred\n"
			"ffffffff81000600 t \xff\xfe invalid utf-8\n"
			"ffffffffc0000000 t mod_fn\t[]\n"
			"ffffffffc0000100 t mod_fn2\t[unterminated\n");
		break;
	case 3:		/* NULs inside, no final newline */
		memcpy(text, sane_kallsyms, sizeof(sane_kallsyms));
		size = sizeof(sane_kallsyms) - 1;
		text[30] = '\0';
		text[size - 5] = '\0';
		size -= 1;
		break;
	case 4:		/* hidden addresses, as kptr_restrict makes them */
		for (int i = 0; i < 1000; i++)
			size += (size_t)snprintf(text + size, (1 << 20) - size,
						 "0000000000000000 T hidden_%d\n", i);
		break;
	case 5:		/* a symbol name of 100000 characters */
		size = (size_t)snprintf(text, 1 << 20, "ffffffff81000000 T ");
		memset(text + size, 'n', 100000);
		size += 100000;
		text[size++] = '\n';
		break;
	default:	/* empty */
		break;
	}
	kallsyms(o, text, size, which == 4 ? PRF_KALLSYMS_HIDDEN : 0);
	free(text);
	process(o, pid, "kernel-user", "/usr/bin/ku", 0x400000, t);
	for (int i = 0; i < 16; i++)
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .cpu = (uint32_t)i % 2,
						 .time = t + 10 + (uint64_t)i,
						 .misc = PERF_RECORD_MISC_KERNEL,
						 .ip = chain[1], .chain = chain, .nr = 6 });
	/* At the odd names of variant 2 (escapes, tabs, invalid UTF-8). */
	for (int i = 0; i < 3; i++) {
		uint64_t odd[3] = { PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x410 + (uint64_t)i * 0x100,
				    PERF_CONTEXT_USER };

		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 30 + (uint64_t)i,
						 .misc = PERF_RECORD_MISC_KERNEL, .ip = odd[1],
						 .chain = odd, .nr = 3 });
	}
	/* Idle: pid 0, kernel only. */
	sample(o, &(struct sample_spec){ .pid = 0, .tid = 0, .time = t + 40,
					 .misc = PERF_RECORD_MISC_KERNEL, .ip = KERNEL_TEXT,
					 .chain = chain, .nr = 3 });
}

static void odd_build_id_paths(struct out *o, uint64_t t)
{
	static const uint8_t id[20] = { 0xba, 0xd0, 0xba, 0xd0, 1, 2, 3, 4, 5, 6,
					7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const uint8_t zeros[20];
	const char *paths[] = {
		"../../etc/passwd", "", "/../../../../etc/shadow", "/etc/passwd",
		"relative/path", "/proc/self/mem", "/dev/zero", "/", ".",
		"/usr/lib/debug/.build-id/ba/d0bad00102030405060708090a0b0c0d0e0f10.debug",
		"/tmp/\x1b[2J\x1b[H", "/tmp/new\nline", "//anon", "[vdso]", "[heap]",
	};
	char *long_path = malloc(4001);
	const uint32_t pid = 9001;

	if (!long_path)
		die("out of memory");
	long_path[0] = '/';
	memset(long_path + 1, 'a', 3999);
	long_path[4000] = '\0';
	comm(o, pid, pid, "build-ids", 1, t);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		uint64_t start = 0x400000 + i * 0x100000;

		build_id_record(o, paths[i], strlen(paths[i]), i % 3 == 1 ? zeros : id,
				(uint8_t)(i % 4 == 3 ? 0 : 20), 100 + i, 0);
		mmap2(o, pid, pid, &(struct map_spec){ start, 0x10000, i * 0x1000, paths[i],
						       .inode = 100 + i }, t + 1 + i);
		for (int k = 0; k < 4; k++)
			user_sample(o, pid, t + 100 + i * 4 + (uint64_t)k,
				    start + (uint64_t)k * 0x1234, start + 0x8000);
	}
	build_id_record(o, long_path, 4000, id, 20, 200, 0);
	mmap2(o, pid, pid, &(struct map_spec){ 0x7f0000000000ull, 0x10000, 0, long_path,
					       .inode = 200 }, t + 300);
	user_sample(o, pid, t + 301, 0x7f0000000100ull, 0x7f0000000200ull);
	/* A path with a NUL in the middle of its field. */
	build_id_record(o, "/usr/bin/a\0/b", 13, id, 20, 201, 0);
	/* Kernel and module flags on user files, a build-id size over 20. */
	build_id_record(o, "/usr/bin/flagged", 16, id, 20, 202, PRF_BUILD_ID_KERNEL | PRF_BUILD_ID_MODULE);
	build_id_record(o, "/usr/bin/oversize", 17, id, 24, 203, 0);
	build_id_record(o, "/usr/bin/oversize", 17, id, 255, 203, 0);
	/* MMAP2 build-ids of size 0, 21 and 255 (the field holds 20). */
	mmap2(o, pid, pid, &(struct map_spec){ 0x8000000000ull, 0x10000, 0, "/usr/bin/bid0",
					       .build_id = id, .build_id_size = 0 }, t + 400);
	mmap2(o, pid, pid, &(struct map_spec){ 0x8100000000ull, 0x10000, 0, "/usr/bin/bid21",
					       .build_id = id, .build_id_size = 21 }, t + 401);
	mmap2(o, pid, pid, &(struct map_spec){ 0x8200000000ull, 0x10000, 0, "/usr/bin/bid255",
					       .build_id = id, .build_id_size = 255 }, t + 402);
	mmap2(o, pid, pid, &(struct map_spec){ 0x8300000000ull, 0x10000, 0, "../../etc/passwd",
					       .build_id = id, .build_id_size = 20 }, t + 403);
	for (int k = 0; k < 4; k++)
		user_sample(o, pid, t + 410 + (uint64_t)k, 0x8000000000ull + ((uint64_t)k << 32),
			    0x8000000010ull);
	free(long_path);
}

/* One KERNEL_SYMBOL: fixed part, then bytes as given (NULs and all), padded. */
static void kernel_symbol(struct out *o, uint64_t start, uint32_t size, const char *tail,
			  size_t tail_size)
{
	struct prf_kernel_symbol_record k = { .start = start, .size = size, .type = 'T' };

	begin_perfrec(&o->r, PRF_RECORD_KERNEL_SYMBOL);
	put(&o->r, (uint8_t *)&k + sizeof(k.header), sizeof(k) - sizeof(k.header));
	put(&o->r, tail, tail_size);
	pad8(&o->r);
	finish(&o->r);
	emit(o);
}

static void odd_kernel_symbols(struct out *o, uint64_t t)
{
	const uint32_t pid = 10101;
	char long_name[700], long_module[140];

	memset(long_name, 'n', sizeof(long_name));
	long_name[600] = '\0';
	long_name[601] = '\0';
	memset(long_module, 'm', sizeof(long_module));
	memcpy(long_module, "x\0", 2);
	long_module[102] = '\0';
	kernel_symbol(o, KERNEL_TEXT + 0x100, 0x100, "hit_entry\0", 10);
	kernel_symbol(o, KERNEL_TEXT + 0x100, 0x80, "hit_entry_again\0", 16);
	kernel_symbol(o, KERNEL_TEXT + 0x180, 0x1000, "hit_overlapping\0", 16);
	/* 16 bytes: the record ends where the NUL would be */
	kernel_symbol(o, KERNEL_TEXT + 0x300, 0x40, "no_nul_at_all_16", 16);
	kernel_symbol(o, KERNEL_TEXT + 0x400, 0x40, "no_module_str_x", 16);
	kernel_symbol(o, KERNEL_TEXT + 0x500, 0x40, long_name, 602);
	kernel_symbol(o, KERNEL_TEXT + 0x600, 0x40, long_module, 103);
	kernel_symbol(o, KERNEL_TEXT + 0x700, 0x40, "\0\0", 2);
	kernel_symbol(o, KERNEL_TEXT + 0x800, 0x40, "esc\x1b[31m\tname\0mod\x1b]0;\0", 22);
	kernel_symbol(o, 0, 0x40, "at_zero\0\0", 9);
	kernel_symbol(o, KERNEL_TEXT + 0x900, 0, "size_zero\0\0", 11);
	kernel_symbol(o, ~0ull - 0x10, UINT32_MAX, "wraps\0mod\0", 10);
	kernel_symbol(o, 0xffffffffc0000000ull, 0x100, "in_module\0hostile_mod\0", 22);
	kernel_symbol(o, KERNEL_TEXT + 0xa00, 0x40, "", 0);
	process(o, pid, "hit", "/usr/bin/hit", 0x400000, t);
	for (uint64_t i = 0; i < 48; i++) {
		uint64_t ip = i < 40 ? KERNEL_TEXT + i * 0x40 + 0x20 : ~0ull - i,
			 chain[4] = { PERF_CONTEXT_KERNEL, ip, 0xffffffffc0000080ull, ip + 1 };

		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 10 + i,
						 .misc = PERF_RECORD_MISC_KERNEL, .ip = ip,
						 .chain = chain, .nr = 4 });
	}
}

static void odd_kernel_in_user(struct out *o, uint64_t t)
{
	const uint32_t pid = 10001;
	uint64_t chain_user_kernel[5] = { PERF_CONTEXT_USER, KERNEL_TEXT + 0x100,
					  KERNEL_TEXT + 0x200, 0x401000, ~0ull - 0x1000 };
	uint64_t chain_kernel_user[5] = { PERF_CONTEXT_KERNEL, 0x401000, 0x402000,
					  PERF_CONTEXT_USER, KERNEL_TEXT };

	kallsyms(o, sane_kallsyms, sizeof(sane_kallsyms) - 1, 0);
	process(o, pid, "confused", "/usr/bin/confused", 0x400000, t);
	for (int i = 0; i < 8; i++) {
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 10 + (uint64_t)i,
						 .ip = KERNEL_TEXT + 0x100,
						 .chain = chain_user_kernel, .nr = 5 });
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 20 + (uint64_t)i,
						 .misc = PERF_RECORD_MISC_KERNEL, .ip = 0x401000,
						 .chain = chain_kernel_user, .nr = 5 });
		/* Other cpumodes: hypervisor, guest kernel, guest user, 7. */
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 30 + (uint64_t)i,
						 .misc = (uint16_t)(i % 2 ? PERF_RECORD_MISC_HYPERVISOR :
								    PERF_RECORD_MISC_GUEST_KERNEL + i % 3),
						 .ip = 0x401000 + (uint64_t)i });
	}
	/* A user map over the kernel's addresses, a kernel map in a user pid. */
	mmap2(o, pid, pid, &(struct map_spec){ KERNEL_TEXT, 0x100000, 0, "/usr/bin/in-kernel-space",
					       .inode = 41 }, t + 50);
	mmap1(o, pid, KERNEL_TEXT, 0x1000000, KERNEL_TEXT, "[kernel.kallsyms]_text",
	      PERF_RECORD_MISC_KERNEL, t + 51);
	mmap1(o, 0xffffffff, KERNEL_TEXT, 0x1000000, KERNEL_TEXT, "[kernel.kallsyms]_text",
	      PERF_RECORD_MISC_KERNEL, t + 52);
	for (int i = 0; i < 8; i++)
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 60 + (uint64_t)i,
						 .ip = KERNEL_TEXT + 0x100,
						 .chain = chain_user_kernel, .nr = 5 });
}

static void odd_names(struct out *o, uint64_t t)
{
	const char *names[] = {
		"", "\x1b[31mred\x1b[0m", "\xff\xfe\xfd", "tab\there", "new\nline",
		"\342\200\256evil" /* U+202E, right-to-left override */, "\xc0\x80", "%s%n%s%n", "a;b;c d", "\"quoted\\\"",
		"\xf4\x90\x80\x80", "\xed\xa0\x80", "ok-\xe2\x9c\x93",
		"csi-\x9b" "2J", "csi-\xc2\x9b" "2J",	/* C1 CSI, raw and as U+009B */
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint32_t pid = 11001 + (uint32_t)i;
		char path[64];

		snprintf(path, sizeof(path), "/usr/bin/%s", names[i]);
		comm(o, pid, pid, names[i], 1, t + i * 10);
		mmap2(o, pid, pid, &(struct map_spec){ 0x400000, 0x10000, 0, path,
						       .inode = 300 + i }, t + i * 10 + 1);
		for (int k = 0; k < 3; k++)
			user_sample(o, pid, t + i * 10 + 2 + (uint64_t)k, 0x401000 + (uint64_t)k,
				    0x402000);
	}
	/* A COMM of 16 bytes without a NUL before the padding. */
	begin_kernel(&o->r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put_u32s(&o->r, 11100, 11100);
	put(&o->r, "0123456789abcdef", 16);
	put(&o->r, "", 1);
	pad8(&o->r);
	put_id(&o->r, 11100, 11100, t + 500, 0);
	finish(&o->r);
	emit(o);
	user_sample(o, 11100, t + 501, 0x401000, 0x402000);
}

static void odd_numbers(struct out *o, uint64_t t)
{
	const uint32_t pid = 12001;

	process(o, pid, "numbers", "/usr/bin/numbers", 0x400000, t);
	for (int i = 0; i < 4; i++)
		sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 10 + (uint64_t)i,
						 .period = ~0ull, .ip = 0x401000 });
	sample(o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = t + 20, .period = 1ull << 63,
					 .ip = 0x401100 });
	sample(o, &(struct sample_spec){ .pid = 0xffffffff, .tid = 0xffffffff, .cpu = 0xffffffff,
					 .time = t + 21, .ip = 0x401000 });
	sample(o, &(struct sample_spec){ .pid = 0xffffffff, .tid = 0, .cpu = 65535,
					 .time = t + 22, .misc = PERF_RECORD_MISC_KERNEL,
					 .ip = KERNEL_TEXT });
	comm(o, 0xffffffff, 0xffffffff, "minus-one", 1, t + 23);
	task(o, PERF_RECORD_FORK, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, t + 24);
	/* LOST of 2^63 twice, LOST_SAMPLES of 2^64 - 1. */
	for (int i = 0; i < 2; i++) {
		begin_kernel(&o->r, PERF_RECORD_LOST, 0);
		put_u64(&o->r, ID_CPU0);
		put_u64(&o->r, 1ull << 63);
		put_id(&o->r, 0, 0, t + 30 + (uint64_t)i, 0);
		finish(&o->r);
		emit(o);
	}
	begin_kernel(&o->r, PERF_RECORD_LOST_SAMPLES, 0);
	put_u64(&o->r, ~0ull);
	put_id(&o->r, 0, 0, t + 32, 0);
	finish(&o->r);
	emit(o);
	/* STATS that say everything was dropped. */
	{
		struct prf_stats_record s = { .time = t + 40, .samples = ~0ull, .lost = ~0ull,
					      .dropped_records = ~0ull };

		begin_perfrec(&o->r, PRF_RECORD_STATS);
		put(&o->r, (uint8_t *)&s + sizeof(s.header), sizeof(s) - sizeof(s.header));
		finish(&o->r);
		emit(o);
	}
}

/* Two events; samples of an identifier neither has. */
static void write_events_file(const char *path)
{
	static const uint64_t ids_a[2] = { ID_CPU0, ID_CPU1 }, ids_b[1] = { ID_OTHER };
	struct prf_event events[2] = {
		{ .attr = attr_main, .name = "cpu-clock", .ids = ids_a, .id_count = 2 },
		{ .attr = attr_main, .name = "task-clock", .ids = ids_b, .id_count = 1 },
	};
	struct out o;
	const uint64_t t = BASE_NS;

	/* The second event without callchains: another layout. */
	events[1].attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	events[1].attr.config = PERF_COUNT_SW_TASK_CLOCK;
	out_open(&o, path, "hostile", events, 2);
	process(&o, 13001, "events", "/usr/bin/events", 0x400000, t);
	for (int i = 0; i < 8; i++)
		user_sample(&o, 13001, t + 10 + (uint64_t)i, 0x401000, 0x402000);
	for (int i = 0; i < 8; i++) {
		begin_kernel(&o.r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		put_u64(&o.r, ID_OTHER);
		put_u64(&o.r, 0x401000 + (uint64_t)i);
		put_u32s(&o.r, 13001, 13001);
		put_u64(&o.r, t + 20 + (uint64_t)i);
		put_u32s(&o.r, 1, 0);
		put_u64(&o.r, PERIOD_NS);
		o.r.time = t + 20 + (uint64_t)i;
		finish(&o.r);
		emit(&o);
	}
	for (int i = 0; i < 8; i++)
		sample(&o, &(struct sample_spec){ .pid = 13001, .tid = 13001, .time = t + 30 + (uint64_t)i,
						  .ip = 0x401000, .identifier = 0xdead0000 + (uint64_t)i });
	out_close(&o, 1);
}

/*
 * Tracepoint samples against their formats: a real one (config 365) whose
 * samples lie (a filename past the data, a raw part of 4 bytes, names
 * with a terminal escape and a newline), the same config again with
 * another text (the first is kept), a format that does not parse (366),
 * a record that does not decode, and an event with no format at all (367).
 */
static void tracepoint_format(struct out *o, uint64_t config, const char *name, const char *text)
{
	uint8_t record[4096];
	ssize_t n = prf_encode_tracepoint_format(config, name, text, strlen(text), record,
						 sizeof(record));

	if (n < 0)
		die("prf_encode_tracepoint_format: %s", strerror((int)-n));
	o->r.size = 0;
	put(&o->r, record, (size_t)n);
	o->r.time = BASE_NS;
	emit(o);
}

/* A tracepoint sample of event id: IDENTIFIER IP TID TIME CPU RAW. */
static void tracepoint_sample(struct out *o, uint64_t id, uint64_t time, const void *raw,
			      uint32_t raw_size)
{
	begin_kernel(&o->r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put_u64(&o->r, id);
	put_u64(&o->r, KERNEL_TEXT + 0x100);
	put_u32s(&o->r, 14001, 14001);
	put_u64(&o->r, time);
	put_u32s(&o->r, 0, 0);
	put(&o->r, &raw_size, 4);
	put(&o->r, raw, raw_size);
	pad8(&o->r);
	o->r.time = time;
	finish(&o->r);
	emit(o);
}

static void write_tracepoint_file(const char *path)
{
	static const char exec_format[] =
		"name: sched_process_exec\nID: 365\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n";
	static const uint64_t ids_a[1] = { ID_CPU0 }, ids_b[1] = { ID_OTHER },
			      ids_c[1] = { ID_OTHER + 1 }, ids_d[1] = { ID_OTHER + 2 };
	struct prf_event events[4] = {
		{ .attr = attr_main, .name = "cpu-clock", .ids = ids_a, .id_count = 1 },
		{ .name = "sched:sched_process_exec", .ids = ids_b, .id_count = 1 },
		{ .name = "x:unparsed", .ids = ids_c, .id_count = 1 },
		{ .name = "x:no_format", .ids = ids_d, .id_count = 1 },
	};
	uint8_t raw[64] = { 0 };
	uint32_t location = 14u << 16 | 32;
	int32_t pid = 14001;
	struct out o;
	const uint64_t t = BASE_NS;

	for (int e = 1; e < 4; e++) {
		events[e].attr = attr_main;
		events[e].attr.type = PERF_TYPE_TRACEPOINT;
		events[e].attr.config = 364 + (uint64_t)e;
		events[e].attr.freq = 0;
		events[e].attr.sample_period = 1;
		events[e].attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
					     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
					     PERF_SAMPLE_RAW;
	}
	out_open(&o, path, "hostile", events, 4);
	process(&o, 14001, "tracee", "/usr/bin/tracee", 0x400000, t);
	tracepoint_format(&o, 365, "sched:sched_process_exec", exec_format);
	tracepoint_format(&o, 365, "sched:sched_process_exec", "field:int a;\toffset:8;\tsize:4;\n");
	tracepoint_format(&o, 366, "x:unparsed", "field:int a;\toffset:9999999999;\tsize:4;\n");
	/* A name without its NUL: the record does not decode. */
	o.r.size = 0;
	begin_perfrec(&o.r, PRF_RECORD_TRACEPOINT_FORMAT);
	put_u64(&o.r, 367);
	put_u32s(&o.r, 4, 2);
	put(&o.r, "x:nox", 6);
	finish(&o.r);
	emit(&o);

	/* An OFF_CPU record beside them, for perfrec-dump: a waker's name to escape. */
	{
		static const uint64_t chain[3] = { PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x200,
						   KERNEL_TEXT + 0x300 };
		struct prf_off_cpu off = {
			.time = t + 5, .duration = 1500000, .pid = 14001, .tid = 14002, .cpu = 1,
			.flags = PRF_OFF_CPU_WAKER, .cgroup = 77, .waker_pid = 14003,
			.waker_tid = 14004, .waker_comm = "wa\033[2Jker", .callchain = chain,
			.callchain_nr = 3, .waker_callchain = chain, .waker_callchain_nr = 2,
		};
		uint64_t record[64];
		ssize_t n = prf_encode_off_cpu(&off, record, sizeof(record));

		if (n < 0)
			die("prf_encode_off_cpu: %s", strerror((int)-n));
		o.r.size = 0;
		put(&o.r, record, (size_t)n);
		o.r.time = t + 5;
		emit(&o);
	}
	memcpy(raw + 8, &location, 4);
	memcpy(raw + 12, &pid, 4);
	memcpy(raw + 16, "tr\033[31mce\n", 11);
	memcpy(raw + 32, "/usr/bin/true", 14);
	tracepoint_sample(&o, ID_OTHER, t + 10, raw, 52);	/* as it should be (4 + 52: 8-aligned) */
	location = 14u << 16 | 60;
	memcpy(raw + 8, &location, 4);
	tracepoint_sample(&o, ID_OTHER, t + 11, raw, 52);	/* the filename past the data */
	tracepoint_sample(&o, ID_OTHER, t + 12, raw, 4);	/* only common fields' room */
	tracepoint_sample(&o, ID_OTHER + 1, t + 13, raw, 52);
	tracepoint_sample(&o, ID_OTHER + 2, t + 14, raw, 52);
	out_close(&o, 1);
}

/* 6000 distinct addresses in 400 maps of 40 processes. */
static void odd_many_addresses(struct out *o, uint64_t t)
{
	uint32_t state = 1;

	for (uint32_t p = 0; p < 40; p++) {
		char name[32];

		snprintf(name, sizeof(name), "many-%u", p);
		comm(o, 14000 + p, 14000 + p, name, 1, t);
		for (uint32_t m = 0; m < 10; m++) {
			char path[64];

			snprintf(path, sizeof(path), "/usr/lib/many-%u.so", m);
			mmap2(o, 14000 + p, 14000 + p,
			      &(struct map_spec){ 0x7f0000000000ull + ((uint64_t)m << 24), 0x100000,
						  (uint64_t)m << 12, path, .inode = 500 + m }, t + 1);
		}
	}
	for (uint32_t i = 0; i < 6000; i++) {
		uint64_t ip, caller;

		state = state * 1103515245 + 12345;
		ip = 0x7f0000000000ull + ((uint64_t)(state % 10) << 24) + (i * 0x35 % 0x100000);
		caller = 0x7f0000000000ull + ((uint64_t)((state >> 8) % 10) << 24) + (state >> 12) % 0x100000;
		user_sample(o, 14000 + i % 40, t + 10 + i, ip, caller);
	}
}

/* ---- the files ----------------------------------------------------- */

static void jit_record(struct out *o, uint32_t type, uint32_t pid, uint64_t time, uint32_t flags,
		       uint64_t offset, const char *text, size_t size, uint64_t claimed)
{
	struct prf_jit_map_record j = { .time = time, .pid = pid, .flags = flags,
					.offset = offset, .text_size = claimed };

	begin_perfrec(&o->r, type);
	put(&o->r, (uint8_t *)&j + sizeof(j.header), sizeof(j) - sizeof(j.header));
	put(&o->r, text, size);
	o->r.time = time;
	finish(&o->r);
	emit(o);
}

/*
 * JIT symbols (JIT_MAP, JIT_DUMP) that lie: names with escapes and
 * newlines' neighbours, a 100000-byte name, sizes that wrap or span the
 * address space, thousands of nested overlaps, a text_size past its
 * record, lines that are no symbols, a pid that never lived, the same
 * lines restated; samples in the anonymous map and in no map at all.
 */
static void odd_jit(struct out *o, uint64_t t)
{
	const uint32_t pid = 12001;
	static char text[1 << 20];
	size_t n = 0;

	comm(o, pid, pid, "jit", 1, t);
	mmap2(o, pid, pid, &(struct map_spec){ .start = 0x7f0000000000, .length = 0x100000,
					       .path = "//anon" }, t + 1);
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "7f0000001000 40 \x1b[31mred\x1b[0m\r\n"
			      "0x7f0000001040 0x40 tab\there \xff\xfe\n"
			      "7f0000001080 ffffffffffffffff wraps\n"
			      "0 8000000000000000 everything\n"
			      "7f00000010c0 40\n"
			      "7f00000010c0 0 empty\n"
			      "zz 40 not-hex\n"
			      "7f0000001140 40 ");
	memcpy(text + n, "nul\0inside\n7f0000001180 40 ", 27);	/* a NUL in a name */
	n += 27;
	memset(text + n, 'x', 100000);
	n += 100000;
	text[n++] = '\n';
	for (unsigned i = 0; i < 5000 && n + 64 < sizeof(text); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%llx %x nested_%u\n",
				      0x7f0000010000ULL + i * 8, 0x10000 - i * 16, i);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "7f0000002000 40 no-newline");
	jit_record(o, PRF_RECORD_JIT_MAP, pid, t + 2, 0, 0, text, n, n);
	jit_record(o, PRF_RECORD_JIT_MAP, pid, t + 3, PRF_JIT_RESTATED, 0, text, n, n);
	jit_record(o, PRF_RECORD_JIT_MAP, pid, t + 4, 0, n, text, 64, 1u << 30);	/* lies */
	jit_record(o, PRF_RECORD_JIT_DUMP, pid, t + 5, PRF_JIT_CUT, 0, "7f0000003000 40 dumped\n", 23, 23);
	jit_record(o, PRF_RECORD_JIT_MAP, 77777, t + 6, 0, 0, "1000 10 nobody\n", 15, 15);
	for (uint64_t k = 0; k < 8; k++) {
		user_sample(o, pid, t + 10 + k, 0x7f0000001000 + k * 0x40, 0x7f0000012345);
		user_sample(o, pid, t + 20 + k, 0x7f0000003000 + k, 0x6000000);	/* no map */
	}
}

typedef void (*oddity_fn)(struct out *o, uint64_t t);

static const struct {
	const char *name;
	oddity_fn fn;
} oddities[] = {
	{ "overlap", odd_overlap },
	{ "before-mmap", odd_before_mmap },
	{ "pid-reuse", odd_pid_reuse },
	{ "callchain-long", odd_callchain_long },
	{ "callchain-lies", odd_callchain_lies },
	{ "unknown-types", odd_unknown_types },
	{ "time-backwards", odd_time_backwards },
	{ "build-id-paths", odd_build_id_paths },
	{ "kernel-in-user", odd_kernel_in_user },
	{ "kernel-symbols", odd_kernel_symbols },
	{ "names", odd_names },
	{ "numbers", odd_numbers },
	{ "off-cpu", odd_off_cpu },
	{ "many-addresses", odd_many_addresses },
	{ "jit", odd_jit },
};

#define KALLSYMS_VARIANTS 7

static void path_in(char *path, size_t size, const char *dir, const char *name)
{
	if ((size_t)snprintf(path, size, "%s/%s.prf", dir, name) >= size)
		die("%s: path too long", dir);
}

/* The usual start: a snapshot with the kernel's symbols and one process. */
static void preamble(struct out *o, int with_kallsyms)
{
	snapshot(o, PRF_RECORD_SNAPSHOT_BEGIN, BASE_NS);
	process(o, 1, "init", "/sbin/init", 0x55555555000ull, BASE_NS);
	snapshot(o, PRF_RECORD_SNAPSHOT_END, BASE_NS);
	if (with_kallsyms)
		kallsyms(o, sane_kallsyms, sizeof(sane_kallsyms) - 1, 0);
}

/*
 * The second samples chunk of path: its payload made garbage, its payload
 * and header checksums made right again.
 */
static void forge_samples_chunk(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct prf_file_header file;
	uint64_t offset;
	int seen = 0;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || pread(fd, &file, sizeof(file), 0) != (ssize_t)sizeof(file))
		die("%s: %s", path, strerror(errno));
	for (offset = file.header_size; offset + PRF_CHUNK_HEADER_SIZE <= (uint64_t)st.st_size;) {
		struct prf_chunk_header h;
		uint8_t *payload;

		if (pread(fd, &h, sizeof(h), (off_t)offset) != (ssize_t)sizeof(h))
			die("%s: %s", path, strerror(errno));
		if (!(h.flags & PRF_CHUNK_SAMPLES) || h.stored_size < 64 || ++seen < 2) {
			offset += h.header_size + ((h.stored_size + 7ull) & ~7ull);
			continue;
		}
		payload = malloc(h.stored_size);
		if (!payload)
			die("out of memory");
		if (pread(fd, payload, h.stored_size, (off_t)(offset + h.header_size)) != (ssize_t)h.stored_size)
			die("%s: %s", path, strerror(errno));
		/* The frame header stays (its size still matches); what follows is noise. */
		for (uint32_t i = 32; i < h.stored_size; i++)
			payload[i] = (uint8_t)(i * 131 + 7);
		h.payload_crc = prf_crc32c(0, payload, h.stored_size);
		h.header_crc = prf_crc32c(0, &h, offsetof(struct prf_chunk_header, header_crc));
		if (pwrite(fd, &h, sizeof(h), (off_t)offset) != (ssize_t)sizeof(h) ||
		    pwrite(fd, payload, h.stored_size, (off_t)(offset + h.header_size)) != (ssize_t)h.stored_size)
			die("%s: %s", path, strerror(errno));
		free(payload);
		close(fd);
		return;
	}
	die("%s: no second samples chunk to forge", path);
}

static void write_samples_undecodable(const char *path)
{
	struct out o;

	out_open_default(&o, path);
	preamble(&o, 1);
	for (uint64_t i = 0; i < 2000; i++)
		user_sample(&o, 1, BASE_NS + 10 + i * TICK_NS, 0x55555556000ull + (i % 64) * 16,
			    0x55555557000ull);
	out_close(&o, 1);
	forge_samples_chunk(path);
}

static void write_fixed(const char *dir)
{
	char path[4096];
	struct out o, all;

	path_in(path, sizeof(path), dir, "everything");
	out_open_default(&all, path);
	preamble(&all, 0);
	for (size_t i = 0; i < sizeof(oddities) / sizeof(oddities[0]); i++) {
		uint64_t t = BASE_NS + (uint64_t)(i + 1) * 1000000000ull;

		path_in(path, sizeof(path), dir, oddities[i].name);
		out_open_default(&o, path);
		/* The kallsyms files bring their own; so does kernel-in-user; kernel-symbols has none. */
		preamble(&o, oddities[i].fn != odd_kernel_in_user &&
			     oddities[i].fn != odd_kernel_symbols);
		oddities[i].fn(&o, t);
		out_close(&o, 1);
		/* Bulk is not an oddity: it stays in its own file. */
		if (oddities[i].fn != odd_many_addresses)
			oddities[i].fn(&all, t);
	}
	for (int k = 0; k < KALLSYMS_VARIANTS; k++) {
		char name[32];

		snprintf(name, sizeof(name), "kallsyms-%d", k);
		path_in(path, sizeof(path), dir, name);
		out_open_default(&o, path);
		preamble(&o, 0);
		odd_kallsyms(&o, BASE_NS + 1000, k);
		out_close(&o, 1);
		odd_kallsyms(&all, BASE_NS + 100000000000ull + (uint64_t)k * 1000, k);
	}
	out_close(&all, 1);

	path_in(path, sizeof(path), dir, "events");
	write_events_file(path);

	path_in(path, sizeof(path), dir, "samples-undecodable");
	write_samples_undecodable(path);

	path_in(path, sizeof(path), dir, "tracepoints");
	write_tracepoint_file(path);

	path_in(path, sizeof(path), dir, "empty");
	out_open_default(&o, path);
	out_close(&o, 1);
	path_in(path, sizeof(path), dir, "header-only");
	out_open_default(&o, path);
	out_close(&o, 0);

	/* 70 hosts, one file each, in a directory of their own. */
	snprintf(path, sizeof(path), "%s/hosts", dir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("%s: %s", path, strerror(errno));
	for (int h = 0; h < 70; h++) {
		char host[32], name[64];
		static struct prf_event event;

		event = (struct prf_event){ .attr = attr_main, .name = "cpu-clock",
					    .ids = main_ids, .id_count = 2 };
		snprintf(host, sizeof(host), "host-%02d", h);
		snprintf(name, sizeof(name), "hosts/%s", host);
		path_in(path, sizeof(path), dir, name);
		out_open(&o, path, host, &event, 1);
		preamble(&o, h % 2);
		for (int i = 0; i < 10; i++) {
			uint64_t chain[3] = { PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x100 + (uint64_t)i };

			user_sample(&o, 1, BASE_NS + 10 + (uint64_t)i, 0x55555556000ull + (uint64_t)i, 0x55555557000ull);
			sample(&o, &(struct sample_spec){ .pid = 1, .tid = 1, .time = BASE_NS + 20 + (uint64_t)i,
							  .misc = PERF_RECORD_MISC_KERNEL,
							  .ip = chain[1], .chain = chain, .nr = 2 });
		}
		out_close(&o, 1);
	}
}

/* Maps of files of this host, with samples in, around and past them. */
static void write_local(const char *path, char **files, int count)
{
	struct out o;
	const uint32_t pid = 15001;
	const uint64_t t = BASE_NS + 1000;

	out_open_default(&o, path);
	preamble(&o, 1);
	comm(&o, pid, pid, "local-files", 1, t);
	for (int i = 0; i < count; i++) {
		uint64_t start = 0x7f0000000000ull + ((uint64_t)i << 32);
		struct stat st;
		uint64_t size = stat(files[i], &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0x10000;
		const uint64_t pgoffs[] = { 0, 0x1000, size & ~0xfffull, (size + 0x100000) & ~0xfffull };

		for (size_t m = 0; m < sizeof(pgoffs) / sizeof(pgoffs[0]); m++) {
			uint64_t map = start + m * 0x40000000ull;
			uint64_t length = size + 0x2000;
			uint32_t state = (uint32_t)(i * 31 + (int)m);

			mmap2(&o, pid, pid, &(struct map_spec){ map, length, pgoffs[m], files[i],
								.inode = 700 + (uint64_t)i }, t + 1);
			for (int k = 0; k < 64; k++) {
				uint64_t off;

				state = state * 1103515245 + 12345;
				off = k < 4 ? (uint64_t[]){ 0, 1, length - 1, length - 8 }[k] :
				      (uint64_t)state % length;
				user_sample(&o, pid, t + 10 + m * 1000 + (uint64_t)k, map + off,
					    map + (uint64_t)(state >> 4) % length);
			}
		}
	}
	out_close(&o, 1);
}

/* The hostile bytes of --c1: CSI raw, CSI as U+009B, then no UTF-8 at all. */
#define C1_BYTES	"\x9b[31m-\xc2\x9b[32m-\xff\xfe"

static void write_c1(const char *path, const char *elf, const char *offset_text)
{
	static const uint8_t missing_id[20] = { 0xc1, 0xc1, 0xc1, 0xc1, 1, 2, 3, 4, 5 };
	static const char jit_text[] = "7e0000001000 40 jit-" C1_BYTES "\n";
	const uint64_t elf_map = 0x7f0000000000ull, jit_map = 0x7e0000000000ull;
	const uint64_t missing_map = 0x7d0000000000ull, t = BASE_NS + 1000;
	const uint32_t pid = 16001;
	char *end;
	uint64_t offset = strtoull(offset_text, &end, 16);
	struct stat st;
	struct out o;

	if (!*offset_text || *end || stat(elf, &st) < 0 || offset >= (uint64_t)st.st_size)
		die("--c1: %s: no offset %s in it", elf, offset_text);
	out_open_default(&o, path);
	preamble(&o, 1);
	comm(&o, pid, pid, "c1-" C1_BYTES, 1, t);
	mmap2(&o, pid, pid, &(struct map_spec){ elf_map, ((uint64_t)st.st_size + 0xfff) & ~0xfffull,
					       0, elf, .inode = 1601 }, t + 1);
	mmap2(&o, pid, pid, &(struct map_spec){ .start = jit_map, .length = 0x100000,
					       .path = "//anon" }, t + 2);
	mmap2(&o, pid, pid, &(struct map_spec){ .start = missing_map, .length = 0x10000,
					       .path = "/nonexistent/lib-" C1_BYTES ".so",
					       .build_id = missing_id, .build_id_size = 20 }, t + 3);
	jit_record(&o, PRF_RECORD_JIT_MAP, pid, t + 4, 0, 0, jit_text, sizeof(jit_text) - 1,
		   sizeof(jit_text) - 1);
	for (uint64_t k = 0; k < 16; k++) {
		uint64_t chain[4] = { PERF_CONTEXT_USER, elf_map + offset, jit_map + 0x1010 + k,
				      missing_map + 0x100 + k };

		sample(&o, &(struct sample_spec){ .pid = pid, .tid = pid, .cpu = (uint32_t)k % 2,
						  .time = t + 10 + k * TICK_NS, .ip = chain[1],
						  .chain = chain, .nr = 4 });
	}
	out_close(&o, 1);
}

/* Chunks as large as the format allows, of one FORK record again and again. */
static void write_bomb(const char *path)
{
	static const struct prf_meta meta[] = { { "collector", "report-hostile" } };
	static struct prf_event event;
	struct prf_file_info info = {
		.hostname = "hostile", .kernel_release = "6.1.0-hostile-amd64",
		.machine = "x86_64", .nr_cpus_online = 2, .page_size = 4096, .clockid = 1,
		.start_time_ns = BASE_NS, .meta = meta, .meta_count = 1,
		.events = &event, .event_count = 1,
	};
	struct prf_writer_options options = { .chunk_size = PRF_CHUNK_RAW_MAX - 4096, .name = path };
	struct prf_error error;
	struct out o;
	uint64_t raw = 0;

	event = (struct prf_event){ .attr = attr_main, .name = "cpu-clock",
				    .ids = main_ids, .id_count = 2 };
	memset(&o, 0, sizeof(o));
	snprintf(o.path, sizeof(o.path), "%s", path);
	o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.fd < 0)
		die("%s: %s", path, strerror(errno));
	if (prf_writer_open(&o.writer, o.fd, &info, &options, &error) < 0)
		die("%s", error.message);
	preamble(&o, 1);
	while (raw < 3ull * (PRF_CHUNK_RAW_MAX - 4096)) {
		task(&o, PERF_RECORD_FORK, 2, 1, 2, 1, BASE_NS + 10);
		raw += o.r.size;
	}
	user_sample(&o, 2, BASE_NS + 20, 0x55555556000ull, 0x55555557000ull);
	out_close(&o, 1);
}

/* ---- for the flame graphs ------------------------------------------ */

/* The hostile names, each a kernel symbol; the first is also a comm. */
static const char *const markup_names[] = {
	"</script><script>alert(1)</script>",
	"<img/src=x/onerror=alert(2)>",
	"a&b<c>\"d'e&amp;",
	"]]><!--x-->",
	/* Split where a hex escape would run on; parenthesized for clang's -Wstring-concatenation. */
	("sep\xe2\x80\xa8" "ara\xe2\x80\xa9" "tors"),
	("bad\xff\xfe" "utf8\xc0\x80"),
	"</style><b>bold</b>",
};

static void write_markup(const char *path)
{
	static struct prf_event event;
	char text[4096];
	size_t size = 0;
	struct out o;
	const uint32_t pid = 16001;
	const uint64_t t = BASE_NS + 1000;

	event = (struct prf_event){ .attr = attr_main, .name = "cpu-clock",
				    .ids = main_ids, .id_count = 2 };
	out_open(&o, path, "<b>host</b>&\"'</script>", &event, 1);
	preamble(&o, 0);
	for (size_t i = 0; i < sizeof(markup_names) / sizeof(markup_names[0]); i++)
		size += (size_t)snprintf(text + size, sizeof(text) - size, "%llx t %s\n",
					 (unsigned long long)(KERNEL_TEXT + 0x1000 * (i + 1)),
					 markup_names[i]);
	size += (size_t)snprintf(text + size, sizeof(text) - size,
				 "ffffffff81100000 T plain_caller\n"
				 "ffffffffc0000000 t mod_fn\t[<b>mod&amp;</b>]\n");
	kallsyms(&o, text, size, 0);
	process(&o, pid, markup_names[0], "/usr/lib/x<y>&z\"'.so", 0x400000, t);
	process(&o, pid + 1, "<i>&amp;\"'", "/usr/bin/plain", 0x400000, t);
	for (uint64_t i = 0; i < 700; i++) {
		size_t which = i % (sizeof(markup_names) / sizeof(markup_names[0]));
		uint64_t chain[6] = { PERF_CONTEXT_KERNEL,
				      KERNEL_TEXT + 0x1000 * (which + 1) + 0x10,
				      i % 5 ? 0xffffffff81100020ull : 0xffffffffc0000020ull,
				      PERF_CONTEXT_USER, 0x401000 + i % 3 * 0x100, 0x402000 };

		sample(&o, &(struct sample_spec){ .pid = pid + (uint32_t)(i % 4 == 3), .tid = pid + (uint32_t)(i % 4 == 3),
						  .cpu = (uint32_t)i % 2, .time = t + 10 + i * TICK_NS,
						  .misc = PERF_RECORD_MISC_KERNEL, .ip = chain[1],
						  .chain = chain, .nr = 6 });
	}
	out_close(&o, 1);
}

/*
 * A large tree that is the same on every run: the two outermost levels
 * from 8 functions each, the ten below from 4,096, so that most stacks
 * part from the others at their third frame.
 */
static void write_big(const char *path)
{
	const size_t functions = 4096, samples = 16000, depth = 12;
	const uint64_t t = BASE_NS + 1000;
	size_t size = 0, capacity = functions * 40;
	char *text = malloc(capacity);
	uint32_t state = 4242;
	struct out o;

	if (!text)
		die("out of memory");
	for (size_t i = 0; i < functions; i++)
		size += (size_t)snprintf(text + size, capacity - size, "%llx t fn_%04zu\n",
					 (unsigned long long)(KERNEL_TEXT + 0x100 * (i + 1)), i);
	out_open_default(&o, path);
	preamble(&o, 0);
	kallsyms(&o, text, size, 0);
	free(text);
	for (uint32_t p = 0; p < 16; p++) {
		char name[32];

		snprintf(name, sizeof(name), "proc-%02u", p);
		process(&o, 17000 + p, name, "/usr/bin/proc", 0x400000, t);
	}
	for (uint64_t i = 0; i < samples; i++) {
		uint64_t chain[1 + 12] = { PERF_CONTEXT_KERNEL };
		uint32_t pid;

		state = state * 1103515245 + 12345;
		/* Skewed: process p takes about twice the samples of p + 1. */
		pid = 17000 + (uint32_t)__builtin_ctz((state >> 8) | 0x8000);
		for (size_t level = 0; level < depth; level++) {
			size_t function;

			state = state * 1103515245 + 12345;
			function = level < 2 ? level * 8 + (state >> 16) % 8 : (state >> 8) % functions;
			/* Leaf first: the outermost frame is the last entry. */
			chain[depth - level] = KERNEL_TEXT + 0x100 * (function + 1) + 0x10;
		}
		sample(&o, &(struct sample_spec){ .pid = pid, .tid = pid, .cpu = (uint32_t)i % 2,
						  .time = t + 10 + i * (TICK_NS / 8),
						  .misc = PERF_RECORD_MISC_KERNEL, .ip = chain[1],
						  .chain = chain, .nr = 1 + depth });
	}
	out_close(&o, 1);
}

/* One file of samples: honest ones over 2 s and the odd ones, in chunks that say chunk_time. */
static void write_times_file(const char *dir, const char *name, const uint64_t *odd,
			     size_t odd_count, uint64_t chunk_time, int honest)
{
	char path[4096];
	struct out o;
	const uint32_t pid = 17001;

	path_in(path, sizeof(path), dir, name);
	out_open_default(&o, path);
	process(&o, pid, "times", "/usr/bin/times", 0x400000, BASE_NS);
	for (int i = 0; honest && i < 200; i++)
		user_sample(&o, pid, BASE_NS + (uint64_t)i * 10000000, 0x401000, 0x402000);
	for (size_t i = 0; i < odd_count; i++) {
		uint64_t chain[4] = { PERF_CONTEXT_USER, 0x401800, 0x402000, 0x402040 };

		sample(&o, &(struct sample_spec){ .pid = pid, .tid = pid, .time = odd[i],
						  .ip = 0x401800, .chain = chain, .nr = 4,
						  .lying_time = chunk_time ? chunk_time : odd[i] });
	}
	out_close(&o, 1);
}

/*
 * --times DIR: captures whose times lie to the time views:
 *   far-after      samples at 2^63, 2^64 - 2 and 2^64 - 1 in chunks
 *                  that say they are within the capture's 2 s
 *   one-far        one sample at 2^63 (with its process at 1000 s)
 *   before-start   samples at 1 ns and 1 s, in chunks that say 1000 s
 *   zero           samples at time 0 only
 *   offset-max, offset-min
 *                  the honest 2 s with a realtime offset of INT64_MAX and
 *                  INT64_MIN: no wall-clock time of theirs fits
 */
static void write_times(const char *dir)
{
	static const uint64_t far[] = { 1ull << 63, ~0ull - 1, ~0ull };
	static const uint64_t one_far[] = { 1ull << 63 };
	static const uint64_t early[] = { 1, 1000000000 };
	static const uint64_t zero[] = { 0, 0 };

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	write_times_file(dir, "far-after", far, 3, BASE_NS + 1000000000, 1);
	write_times_file(dir, "one-far", one_far, 1, 0, 0);
	write_times_file(dir, "before-start", early, 2, BASE_NS + 500000000, 1);
	write_times_file(dir, "zero", zero, 2, 0, 0);
	realtime_offset_ns = INT64_MAX;
	write_times_file(dir, "offset-max", NULL, 0, 0, 1);
	realtime_offset_ns = INT64_MIN;
	write_times_file(dir, "offset-min", NULL, 0, 0, 1);
}

#define NAMELESS_FILES	4
#define NAMELESS_THREADS 20000

static void write_nameless(const char *dir)
{
	char path[4096], name[32];
	struct out o;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	for (uint32_t f = 0; f < NAMELESS_FILES; f++) {
		snprintf(name, sizeof(name), "nameless-%u", f);
		path_in(path, sizeof(path), dir, name);
		out_open_default(&o, path);
		preamble(&o, 1);
		for (uint32_t i = 0; i < NAMELESS_THREADS; i++) {
			uint32_t tid = 100000 + f * NAMELESS_THREADS + i;

			sample(&o, &(struct sample_spec){ .pid = tid, .tid = tid, .cpu = i % 2,
							  .time = BASE_NS + 10 + i, .ip = 0x1000 });
		}
		out_close(&o, 1);
	}
}

int main(int argc, char **argv)
{
	attr_main = collector_attr();
	if (argc == 3 && strcmp(argv[1], "--markup") == 0) {
		write_markup(argv[2]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--big") == 0) {
		write_big(argv[2]);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--local") == 0) {
		write_local(argv[2], argv + 3, argc - 3);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "--c1") == 0) {
		write_c1(argv[2], argv[3], argv[4]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--bomb") == 0) {
		write_bomb(argv[2]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--times") == 0) {
		write_times(argv[2]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--nameless") == 0) {
		write_nameless(argv[2]);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "Usage: report-hostile DIR\n"
				"       report-hostile --local FILE PATH...\n"
				"       report-hostile --c1 FILE ELF OFFSET\n"
				"       report-hostile --bomb FILE\n"
				"       report-hostile --nameless DIR\n"
				"       report-hostile --markup FILE\n"
				"       report-hostile --big FILE\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
		die("%s: %s", argv[1], strerror(errno));
	write_fixed(argv[1]);
	return 0;
}
