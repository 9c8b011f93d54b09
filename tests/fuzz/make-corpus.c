/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes the seed corpus of the reader's fuzz target into a directory:
 * valid files made with the real writer, then damaged copies of them.
 *
 *   make-corpus DIR
 *
 * The valid files hold every record type the decoders know (OFF_CPU
 * blocks with and without a user stack copy among them), in the layouts
 * of the collector and of events that ask for every sample field.
 * The damaged ones are of three kinds: cut short, with a byte flipped (so
 * a checksum no longer matches), and forged: a length, count or field set
 * to an impossible value with the checksums recomputed, so that the reader
 * takes the bytes at their word and the code behind the crc checks runs.
 *
 * perf.data seeds, valid and lying, come from perfdata-seeds.c.
 *
 * Everything is deterministic: the same corpus on every run and host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format.h"
#include "fuzz-common.h"
#include "perfdata-seeds.h"

static const char *out_dir;
static size_t files_written;
/* What the writers write samples as: compact for the *-compact seeds. */
static enum prf_sample_encoding encoding;

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "make-corpus: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ---- building records ---------------------------------------------- */

#define RECORD_MAX 8192

struct rec {
	union {
		uint8_t data[RECORD_MAX];
		uint64_t align;		/* records are read as u64s */
	};
	size_t size;
	uint64_t time;			/* passed to the writer */
};

static void put(struct rec *r, const void *data, size_t size)
{
	if (size > RECORD_MAX - r->size)
		die("record over %d bytes", RECORD_MAX);
	memcpy(r->data + r->size, data, size);
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

	put(r, zeros, FUZZ_ALIGN8(r->size) - r->size);
}

/* The NUL, then zeros to 8 bytes, as the kernel pads its strings. */
static void put_string(struct rec *r, const char *s)
{
	put(r, s, strlen(s) + 1);
	pad8(r);
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

/* Sizes the record in whichever header family it has. */
static void finish(struct rec *r)
{
	uint32_t type;

	pad8(r);
	memcpy(&type, r->data, sizeof(type));
	if (type >= PRF_RECORD_BASE) {
		uint32_t size = (uint32_t)r->size;

		memcpy(r->data + 8, &size, sizeof(size));
	} else {
		uint16_t size = (uint16_t)r->size;

		if (r->size > UINT16_MAX)
			die("kernel record over 64 KiB");
		memcpy(r->data + 6, &size, sizeof(size));
	}
}

/* Who a record is about: the fields of the sample_id trailer. */
struct who {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

/* In the order of struct sample_id in linux/perf_event.h. */
static void put_sample_id(struct rec *r, const struct perf_event_attr *attr,
			  const struct who *who)
{
	uint64_t type = attr->sample_type;

	if (!attr->sample_id_all)
		return;
	if (type & PERF_SAMPLE_TID)
		put_u32s(r, who->pid, who->tid);
	if (type & PERF_SAMPLE_TIME)
		put_u64(r, who->time);
	if (type & PERF_SAMPLE_ID)
		put_u64(r, who->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		put_u64(r, who->id + 1000);
	if (type & PERF_SAMPLE_CPU)
		put_u32s(r, who->cpu, 0);
	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(r, who->id);
	r->time = who->time;
}

/* ---- samples, field by field in the kernel's order ------------------ */

static void put_read_values(struct rec *r, uint64_t format)
{
	uint64_t nr = format & PERF_FORMAT_GROUP ? 2 : 1;

	if (format & PERF_FORMAT_GROUP)
		put_u64(r, nr);
	else
		put_u64(r, 123456);		/* the value comes first */
	if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put_u64(r, 1000000);
	if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put_u64(r, 999000);
	for (uint64_t i = 0; i < nr; i++) {
		if (format & PERF_FORMAT_GROUP)
			put_u64(r, 5000 + i);
		if (format & PERF_FORMAT_ID)
			put_u64(r, 100 + i);
		if (format & PERF_FORMAT_LOST)
			put_u64(r, i);
	}
}

/* A kernel part and a user part, as perf_callchain() writes them. */
static void put_callchain(struct rec *r, uint64_t ip, unsigned depth)
{
	put_u64(r, depth ? depth + 2 : 0);
	if (!depth)
		return;
	put_u64(r, PERF_CONTEXT_KERNEL);
	for (unsigned i = 0; i < depth / 2; i++)
		put_u64(r, 0xffffffff81000000ULL + ip % 0x100000 + i * 0x40);
	put_u64(r, PERF_CONTEXT_USER);
	for (unsigned i = depth / 2; i < depth; i++)
		put_u64(r, 0x5600000000ULL + ip % 0x10000 + i * 0x123);
}

static void put_branch_stack(struct rec *r, uint64_t branch_type)
{
	const uint64_t nr = 2;

	put_u64(r, nr);
	if (branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		put_u64(r, 1);
	for (uint64_t i = 0; i < nr; i++) {
		struct perf_branch_entry entry = {
			.from = 0x401000 + i * 16,
			.to = 0x402000 + i * 16,
			.predicted = 1,
			.cycles = 7,
		};

		put(r, &entry, sizeof(entry));
	}
	if (branch_type & FUZZ_SAMPLE_BRANCH_COUNTERS)
		for (uint64_t i = 0; i < nr; i++)
			put_u64(r, i + 1);
}

static void put_regs(struct rec *r, uint64_t mask)
{
	put_u64(r, PERF_SAMPLE_REGS_ABI_64);
	for (int i = 0; i < __builtin_popcountll(mask); i++)
		put_u64(r, 0x7ffc0000ULL + (uint64_t)i * 8);
}

static void put_bytes_field(struct rec *r, uint64_t size, uint8_t fill)
{
	uint8_t bytes[64];

	memset(bytes, fill, sizeof(bytes));
	put(r, bytes, size);
}

static void put_sample_head(struct rec *r, const struct perf_event_attr *attr,
			    const struct who *who, uint64_t ip)
{
	uint64_t type = attr->sample_type;

	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(r, who->id);
	if (type & PERF_SAMPLE_IP)
		put_u64(r, ip);
	if (type & PERF_SAMPLE_TID)
		put_u32s(r, who->pid, who->tid);
	if (type & PERF_SAMPLE_TIME)
		put_u64(r, who->time);
	if (type & PERF_SAMPLE_ADDR)
		put_u64(r, 0x7f0000001000ULL);
	if (type & PERF_SAMPLE_ID)
		put_u64(r, who->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		put_u64(r, who->id + 1000);
	if (type & PERF_SAMPLE_CPU)
		put_u32s(r, who->cpu, 0);
	if (type & PERF_SAMPLE_PERIOD)
		put_u64(r, 1003003);
}

static void put_sample_tail(struct rec *r, const struct perf_event_attr *attr,
			    uint64_t ip, unsigned depth)
{
	uint64_t type = attr->sample_type;

	if (type & PERF_SAMPLE_READ)
		put_read_values(r, attr->read_format);
	if (type & PERF_SAMPLE_CALLCHAIN)
		put_callchain(r, ip, depth);
	if (type & PERF_SAMPLE_RAW) {
		put_u32s(r, 12, 0x11111111);	/* u32 size + 12 bytes: 8-aligned */
		put_u64(r, 0x2222222222222222ULL);
	}
	if (type & PERF_SAMPLE_BRANCH_STACK)
		put_branch_stack(r, attr->branch_sample_type);
	if (type & PERF_SAMPLE_REGS_USER)
		put_regs(r, attr->sample_regs_user);
	if (type & PERF_SAMPLE_STACK_USER) {
		put_u64(r, 32);
		put_bytes_field(r, 32, 0x5a);
		put_u64(r, 24);			/* dyn_size */
	}
	if (type & PERF_SAMPLE_WEIGHT_TYPE)
		put_u64(r, 42);
	if (type & PERF_SAMPLE_DATA_SRC)
		put_u64(r, 0x29080142ULL);
	if (type & PERF_SAMPLE_TRANSACTION)
		put_u64(r, 0);
	if (type & PERF_SAMPLE_REGS_INTR)
		put_regs(r, attr->sample_regs_intr);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		put_u64(r, 0x12345000);
	if (type & PERF_SAMPLE_CGROUP)
		put_u64(r, 77);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(r, 4096);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(r, 2 << 20);
	if (type & PERF_SAMPLE_AUX) {
		put_u64(r, 16);
		put_bytes_field(r, 16, 0xa5);
	}
}

static void make_sample(struct rec *r, const struct perf_event_attr *attr,
			const struct who *who, uint64_t ip, unsigned depth)
{
	begin_kernel(r, PERF_RECORD_SAMPLE, depth % 3 ? PERF_RECORD_MISC_USER :
						      PERF_RECORD_MISC_KERNEL);
	put_sample_head(r, attr, who, ip);
	put_sample_tail(r, attr, ip, depth);
	finish(r);
	r->time = who->time;
}

/* ---- side-band records --------------------------------------------- */

static void make_comm(struct rec *r, const struct perf_event_attr *attr,
		      const struct who *who, const char *comm, int exec)
{
	begin_kernel(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put_u32s(r, who->pid, who->tid);
	put_string(r, comm);
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_mmap2(struct rec *r, const struct perf_event_attr *attr,
		       const struct who *who, const char *path, int build_id)
{
	begin_kernel(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
		     (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put_u32s(r, who->pid, who->tid);
	put_u64(r, 0x7f0000000000ULL + who->pid * 0x100000ULL);
	put_u64(r, 0x1c5000);
	put_u64(r, 0x28000);
	if (build_id) {
		uint8_t field[24] = { 20 };	/* size, 3 reserved, 20 bytes */

		for (int i = 0; i < 20; i++)
			field[4 + i] = (uint8_t)(0xb0 + i + who->pid);
		put(r, field, sizeof(field));
	} else {
		put_u32s(r, 254, 1);		/* maj, min */
		put_u64(r, 1000 + who->pid);	/* ino */
		put_u64(r, 3);			/* ino_generation */
	}
	put_u32s(r, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	put_string(r, path);
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_mmap(struct rec *r, const struct perf_event_attr *attr,
		      const struct who *who, const char *path)
{
	begin_kernel(r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put_u32s(r, who->pid, who->tid);
	put_u64(r, 0xffffffffc0000000ULL);
	put_u64(r, 0x4000);
	put_u64(r, 0);
	put_string(r, path);
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_task(struct rec *r, const struct perf_event_attr *attr,
		      const struct who *who, uint32_t type)
{
	begin_kernel(r, type, 0);
	put_u32s(r, who->pid, who->pid > 1 ? who->pid - 1 : 0);
	put_u32s(r, who->tid, who->tid);
	put_u64(r, who->time);
	put_sample_id(r, attr, who);
	finish(r);
}

/* LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE: only u64s. */
static void make_u64s(struct rec *r, const struct perf_event_attr *attr,
		      const struct who *who, uint32_t type, int count)
{
	begin_kernel(r, type, 0);
	for (int i = 0; i < count; i++)
		put_u64(r, i ? (uint64_t)i * 11 : who->time);
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_ksymbol(struct rec *r, const struct perf_event_attr *attr,
			 const struct who *who)
{
	begin_kernel(r, PERF_RECORD_KSYMBOL, 0);
	put_u64(r, 0xffffffffc0a00000ULL);
	put_u32s(r, 0x1f0, PERF_RECORD_KSYMBOL_TYPE_BPF);	/* len; type, flags */
	put_string(r, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_cgroup(struct rec *r, const struct perf_event_attr *attr,
			const struct who *who)
{
	begin_kernel(r, PERF_RECORD_CGROUP, 0);
	put_u64(r, 77);
	put_string(r, "/system.slice/perfrecd.service");
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_switch(struct rec *r, const struct perf_event_attr *attr,
			const struct who *who, int cpu_wide)
{
	begin_kernel(r, cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH,
		     PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	if (cpu_wide)
		put_u32s(r, who->pid + 1, who->tid + 1);
	put_sample_id(r, attr, who);
	finish(r);
}

static void make_namespaces(struct rec *r, const struct perf_event_attr *attr,
			    const struct who *who)
{
	begin_kernel(r, PERF_RECORD_NAMESPACES, 0);
	put_u32s(r, who->pid, who->tid);
	put_u64(r, 3);
	for (uint64_t i = 0; i < 3; i++) {
		struct perf_ns_link_info link = { .dev = 4, .ino = 0xf0000000 + i };

		put(r, &link, sizeof(link));
	}
	put_sample_id(r, attr, who);
	finish(r);
}

/* PERF_RECORD_AUX: a kernel type the decoders leave alone. */
static void make_unknown_kernel(struct rec *r, const struct perf_event_attr *attr,
				const struct who *who)
{
	begin_kernel(r, PERF_RECORD_AUX, 0);
	put_u64(r, 0);
	put_u64(r, 4096);
	put_u64(r, 0);
	put_sample_id(r, attr, who);
	finish(r);
}

/* ---- perfrec's own records ----------------------------------------- */

static void make_snapshot(struct rec *r, uint32_t type, uint64_t time,
			  uint64_t processes)
{
	begin_perfrec(r, type);
	put_u64(r, time);
	put_u64(r, processes);
	finish(r);
	r->time = time;
}

static void make_kallsyms(struct rec *r)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 T do_one_initcall\n"
		"ffffffff81c00000 T __x64_sys_write\n"
		"ffffffffc0a00000 t ext4_fill_super\t[ext4]\n";
	uint32_t flags[2] = { 0, 0 };

	begin_perfrec(r, PRF_RECORD_KALLSYMS);
	put(r, flags, sizeof(flags));
	put_u64(r, sizeof(text) - 1);
	put(r, text, sizeof(text) - 1);
	finish(r);
}

static void make_kernel_module(struct rec *r)
{
	uint8_t build_id[32] = { 20 };		/* size, 7 reserved, 24 bytes */

	begin_perfrec(r, PRF_RECORD_KERNEL_MODULE);
	put_u64(r, 0xffffffffc0a00000ULL);
	put_u64(r, 0x9a000);
	for (int i = 0; i < 20; i++)
		build_id[8 + i] = (uint8_t)(0x40 + i);
	put(r, build_id, sizeof(build_id));
	put_string(r, "ext4");
	finish(r);
}

/* A symbol as hit (--kernel-symbols=hit): start, size, type, name, module. */
static void make_kernel_symbol(struct rec *r, uint64_t start, uint32_t size, char type,
			       const char *name, const char *module)
{
	uint32_t size_type[2] = { size, (uint32_t)(uint8_t)type };

	begin_perfrec(r, PRF_RECORD_KERNEL_SYMBOL);
	put_u64(r, start);
	put(r, size_type, sizeof(size_type));
	put(r, name, strlen(name) + 1);
	put(r, module, strlen(module) + 1);
	pad8(r);
	finish(r);
}

/*
 * A tracepoint's format, through the format library's encoder: a real
 * one, or nonsense for the fields parser (offsets and sizes past any
 * data, a dynamic string of 8 bytes, a line that never ends).
 */
static void make_tracepoint_format(struct rec *r, uint64_t config, int nonsense)
{
	static const char real[] =
		"name: sched_process_exec\nID: 365\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n\n"
		"print fmt: \"filename=%s pid=%d\", __get_str(filename), REC->pid\n";
	static const char bad[] =
		"format:\n\tfield:char comm[4294967295];\toffset:4294967295;\tsize:4294967295;\n"
		"\tfield:__data_loc char[] s;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield:int x;\toffset:0;\tsize:4;\tsigned:1";
	ssize_t n = prf_encode_tracepoint_format(config, nonsense ? "x:y" : "sched:sched_process_exec",
						 nonsense ? bad : real,
						 (nonsense ? sizeof(bad) : sizeof(real)) - 1,
						 r->data, RECORD_MAX);

	if (n < 0)
		die("prf_encode_tracepoint_format: %s", strerror((int)-n));
	r->size = (size_t)n;
	r->time = 0;
}

/* Files of --kernel-symbols=hit: symbols, not the whole kallsyms. */
static int kernel_symbols_as_hit;

static void make_build_id(struct rec *r, const char *path, uint32_t flags)
{
	struct prf_build_id_record b = {
		.pid = 1234,
		.flags = flags,
		.major = 254, .minor = 1,
		.inode = 1310722,
		.inode_generation = 1,
		.build_id_size = 20,
	};

	for (int i = 0; i < 20; i++)
		b.build_id[i] = (uint8_t)(0xc0 + i);
	begin_perfrec(r, PRF_RECORD_BUILD_ID);
	put(r, (uint8_t *)&b + sizeof(b.header), sizeof(b) - sizeof(b.header));
	put_string(r, path);
	finish(r);
}

static void make_stats(struct rec *r, uint64_t time)
{
	struct prf_stats_record s = {
		.time = time, .samples = 300, .lost = 1, .lost_samples = 2,
		.throttled = 1, .raw_bytes = 65536, .stored_bytes = 9000,
		.cpu_user_ns = 1000000, .cpu_system_ns = 2000000,
		.rss_bytes = 8 << 20,
	};

	begin_perfrec(r, PRF_RECORD_STATS);
	put(r, (uint8_t *)&s + sizeof(s.header), sizeof(s) - sizeof(s.header));
	finish(r);
	r->time = time;
}

static void make_lost_note(struct rec *r, uint64_t time)
{
	struct prf_lost_note_record n = {
		.time = time, .reason = PRF_LOST_WRITE_ERROR, .cpu = -1,
		.records = 10, .bytes = 1200, .error = ENOSPC,
	};

	begin_perfrec(r, PRF_RECORD_LOST_NOTE);
	put(r, (uint8_t *)&n + sizeof(n.header), sizeof(n) - sizeof(n.header));
	finish(r);
	r->time = time;
}

/* perfrec-format(5), "cgroups and namespaces": a process's cgroup path. */
static void make_task_cgroup(struct rec *r, uint64_t time, uint32_t pid, const char *path)
{
	begin_perfrec(r, PRF_RECORD_TASK_CGROUP);
	put_u64(r, time);
	put_u64(r, pid);		/* pid, reserved */
	put_string(r, path);
	finish(r);
	r->time = time;
}

/* A thread's ids in its own pid namespace. */
static void make_nspid(struct rec *r, uint64_t time, uint32_t pid, uint32_t tid)
{
	struct prf_nspid_record n = {
		.time = time, .pid = pid, .tid = tid, .ns_pid = 1, .ns_tid = tid - pid + 1,
		.ns_level = 1,
	};

	begin_perfrec(r, PRF_RECORD_NSPID);
	put(r, (uint8_t *)&n + sizeof(n.header), sizeof(n) - sizeof(n.header));
	finish(r);
	r->time = time;
}

/*
 * JIT symbols of pid (perfrec 1.2): overlapping ranges, 0x-prefixed and
 * bare hex, a line that is no symbol, the last line without its newline.
 */
static void make_jit_map(struct rec *r, uint32_t type, uint32_t pid, uint64_t time,
			 uint32_t flags)
{
	static const char text[] =
		"7f0000001000 100 LazyCompile:*hot /app.js:1:10\n"
		"0x00007f0000001080 0x40 int Hot.inner(int)\n"
		"not a symbol\n"
		"7f0000002000 1000 Builtin:CallFunction";
	struct prf_jit_map_record j = {
		.time = time, .pid = pid, .flags = flags, .offset = 4096,
		.text_size = sizeof(text) - 1,
	};

	begin_perfrec(r, type);
	put(r, (uint8_t *)&j + sizeof(j.header), sizeof(j) - sizeof(j.header));
	put(r, text, sizeof(text) - 1);
	finish(r);
	r->time = time;
}

/*
 * An off-CPU block of who (perfrec 1.4), woken by waker, with the blocked
 * and the waker's callchains; with regs, user registers and a stack copy
 * as for dwarf unwinding.
 */
static void make_off_cpu(struct rec *r, const struct who *who, const struct who *waker, int regs)
{
	uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81001010ULL, 0xffffffff81c00020ULL,
			     PERF_CONTEXT_USER, 0x401010, 0x401377 };
	uint64_t waker_chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81001020ULL,
				   PERF_CONTEXT_USER, 0x401080 };
	uint64_t values[3] = { 0x401010, 0x7ffc00001000ULL, 0x7ffc00001010ULL };
	uint8_t stack[64];
	struct prf_off_cpu block = {
		.time = who->time, .duration = 12345678, .pid = who->pid, .tid = who->tid,
		.cpu = who->cpu, .flags = PRF_OFF_CPU_WAKER, .cgroup = 77,
		.waker_pid = waker->pid, .waker_tid = waker->tid, .waker_comm = "sha256sum",
		.callchain = chain, .callchain_nr = FUZZ_ARRAY_SIZE(chain),
		.waker_callchain = waker_chain, .waker_callchain_nr = FUZZ_ARRAY_SIZE(waker_chain),
	};
	ssize_t size;

	if (regs) {
		/* IP, SP, BP: perf's x86_64 bits 8, 7, 6. */
		block.user_regs = (struct prf_regs){ .abi = PERF_SAMPLE_REGS_ABI_64,
						     .mask = 7ULL << 6, .regs = values, .count = 3 };
		memset(stack, 0x5a, sizeof(stack));
		block.user_stack = stack;
		block.user_stack_size = sizeof(stack);
		block.callchain_nr = 3;		/* the kernel part: the user one is unwound */
	}
	size = prf_encode_off_cpu(&block, r->data, sizeof(r->data));
	if (size < 0)
		die("encoding an OFF_CPU record: %s", strerror((int)-size));
	r->size = (size_t)size;
	r->time = who->time;
}

/* A type of a later minor version: readers must skip it. */
static void make_unknown_perfrec(struct rec *r)
{
	begin_perfrec(r, PRF_RECORD_BASE + 0x200);
	put_u64(r, 0xdeadbeef);
	finish(r);
}

/* ---- writing files ------------------------------------------------- */

struct file {
	uint8_t *data;
	size_t size;
};

struct stream {
	struct prf_writer *writer;
	const struct perf_event_attr *attr;	/* of the records' event */
	uint64_t ids[2];			/* one per CPU */
	int fd;
	size_t records;
};

static void emit(struct stream *s, const struct rec *r)
{
	int ret = prf_writer_append(s->writer, r->data, r->size, r->time);

	if (ret < 0)
		die("append: %s", prf_writer_last_error(s->writer));
	s->records++;
}

static void fill_info(struct prf_file_info *info, struct prf_event *events,
		      size_t event_count)
{
	static const struct prf_meta meta[] = {
		{ "collector", "make-corpus" },
		{ "frequency", "997" },
		{ "empty", "" },
	};

	*info = (struct prf_file_info){
		.hostname = "fuzzhost",
		.kernel_release = "6.1.0-fuzz-amd64",
		.kernel_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0",
		.machine = "x86_64",
		.boot_id = "0b3c9f0e-1d2e-4c5f-9a8b-7c6d5e4f3a2b",
		.nr_cpus_online = 2,
		.nr_cpus_configured = 2,
		.page_size = 4096,
		.clockid = 1,			/* CLOCK_MONOTONIC */
		.realtime_offset_ns = 1700000000000000000LL,
		.start_time_ns = 1000000000,
		.meta = meta,
		.meta_count = FUZZ_ARRAY_SIZE(meta),
		.events = events,
		.event_count = event_count,
	};
}

static struct prf_event make_event(enum fuzz_attr which, const char *name,
				   const uint64_t *ids)
{
	struct prf_event ev = {
		.attr = fuzz_attrs[which],
		.name = name,
		.ids = ids,
		.id_count = 2,
	};

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.freq = 1;
	ev.attr.sample_freq = 997;
	return ev;
}

static void stream_open(struct stream *s, struct prf_file_info *info,
			int level, size_t chunk_size)
{
	struct prf_writer_options options = {
		.zstd_level = level,
		.chunk_size = chunk_size,
		.name = "make-corpus",
		.sample_encoding = encoding,
	};
	struct prf_error error;

	s->fd = memfd_create("make-corpus", MFD_CLOEXEC);
	if (s->fd < 0)
		die("memfd_create: %s", strerror(errno));
	if (prf_writer_open(&s->writer, s->fd, info, &options, &error) < 0)
		die("%s", error.message);
	s->records = 0;
}

/* Ends the stream, with or without the trailer, and takes its bytes. */
static struct file stream_close(struct stream *s, int with_trailer)
{
	struct file f;
	off_t size;
	int ret;

	ret = with_trailer ? prf_writer_finish(s->writer) :
			     prf_writer_flush(s->writer);
	if (ret < 0)
		die("finish: %s", prf_writer_last_error(s->writer));
	prf_writer_close(s->writer);
	size = lseek(s->fd, 0, SEEK_END);
	f.size = (size_t)size;
	f.data = malloc(f.size + 1);
	if (size < 0 || !f.data || pread(s->fd, f.data, f.size, 0) != size)
		die("reading back the file: %s", strerror(errno));
	close(s->fd);
	return f;
}

static void save(const char *name, const void *data, size_t size)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	out = fopen(path, "wb");
	if (!out || fwrite(data, 1, size, out) != size || fclose(out) != 0)
		die("%s: %s", path, strerror(errno));
	files_written++;
}

__attribute__((format(printf, 3, 4)))
static void save_named(const void *data, size_t size, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	save(name, data, size);
}

/* ---- the streams --------------------------------------------------- */

static const char *const comms[] = { "systemd", "sha256sum", "cc1", "kworker/0:1" };
static const char *const paths[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/bin/sha256sum",
	"/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
	"//anon",
};

static struct who who_at(const struct stream *s, unsigned i, uint64_t time)
{
	unsigned process = i % FUZZ_ARRAY_SIZE(comms);

	return (struct who){
		.pid = 100 + process * 7,
		.tid = 100 + process * 7 + i % 2,
		.cpu = i % 2,
		.time = time,
		.id = s->ids[i % 2],
	};
}

/* What the collector writes first: the state of the machine. */
static void emit_snapshot(struct stream *s, uint64_t *time)
{
	struct rec r;

	make_snapshot(&r, PRF_RECORD_SNAPSHOT_BEGIN, *time, 0);
	emit(s, &r);
	for (unsigned i = 0; i < FUZZ_ARRAY_SIZE(comms); i++) {
		struct who who = who_at(s, i, ++*time);

		make_comm(&r, s->attr, &who, comms[i], i % 2);
		emit(s, &r);
		make_mmap2(&r, s->attr, &who, paths[i], i % 2);
		emit(s, &r);
		/* One process in a container: its cgroup path, its namespace ids. */
		make_task_cgroup(&r, *time, who.pid, i % 2 ?
				 "/system.slice/docker-3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d.scope" :
				 "/user.slice/user-1000.slice/session-2.scope");
		emit(s, &r);
		if (i % 2) {
			make_nspid(&r, *time, who.pid, who.tid);
			emit(s, &r);
		}
	}
	{
		struct who who = who_at(s, 0, *time);

		/* The cgroup the samples' id 77 names, as the snapshot gives it. */
		make_cgroup(&r, s->attr, &who);
		emit(s, &r);
	}
	make_snapshot(&r, PRF_RECORD_SNAPSHOT_END, ++*time,
		      FUZZ_ARRAY_SIZE(comms));
	emit(s, &r);
	make_tracepoint_format(&r, 365, 0);
	emit(s, &r);
	make_tracepoint_format(&r, 366, 1);
	emit(s, &r);
	if (kernel_symbols_as_hit) {
		make_kernel_module(&r);
		emit(s, &r);
		make_kernel_symbol(&r, 0xffffffff81001000ULL, 0x40, 'T', "do_one_initcall", "");
		emit(s, &r);
		make_kernel_symbol(&r, 0xffffffff81c00000ULL, 0x1000, 't', "__x64_sys_write", "");
		emit(s, &r);
		/* the same address again: the first is kept */
		make_kernel_symbol(&r, 0xffffffff81c00000ULL, 0x20, 'T', "ksys_write", "");
		emit(s, &r);
		make_kernel_symbol(&r, 0xffffffffc0a00000ULL, 0x2000, 't', "ext4_fill_super", "ext4");
		emit(s, &r);
	} else {
		make_kallsyms(&r);
		emit(s, &r);
		make_kernel_module(&r);
		emit(s, &r);
	}
	make_build_id(&r, paths[0], 0);
	emit(s, &r);
	make_build_id(&r, "/boot/vmlinuz-6.1.0-fuzz-amd64", PRF_BUILD_ID_KERNEL);
	emit(s, &r);
	++*time;
	make_jit_map(&r, PRF_RECORD_JIT_MAP, who_at(s, 0, *time).pid, *time, PRF_JIT_RESTATED);
	emit(s, &r);
	++*time;
	make_jit_map(&r, PRF_RECORD_JIT_DUMP, who_at(s, 1, *time).pid, *time, PRF_JIT_CUT);
	emit(s, &r);
	/* In the first chunk, where save_forged_records() makes each word a lie. */
	++*time;
	make_off_cpu(&r, &(struct who){ .pid = 107, .tid = 108, .cpu = 1, .time = *time },
		     &(struct who){ .pid = 114, .tid = 114 }, 0);
	emit(s, &r);
	make_off_cpu(&r, &(struct who){ .pid = 100, .tid = 100, .time = *time },
		     &(struct who){ .pid = 107, .tid = 107 }, 1);
	emit(s, &r);
}

/* One of each side-band record, the n-th time round. */
static void emit_side_band(struct stream *s, unsigned n, uint64_t time)
{
	struct who who = who_at(s, n, time);
	struct rec r;

	switch (n % 16) {
	case 0: make_task(&r, s->attr, &who, PERF_RECORD_FORK); break;
	case 1: make_task(&r, s->attr, &who, PERF_RECORD_EXIT); break;
	case 2: make_u64s(&r, s->attr, &who, PERF_RECORD_LOST, 2); break;
	case 3: make_u64s(&r, s->attr, &who, PERF_RECORD_LOST_SAMPLES, 1); break;
	case 4: make_u64s(&r, s->attr, &who, PERF_RECORD_THROTTLE, 3); break;
	case 5: make_u64s(&r, s->attr, &who, PERF_RECORD_UNTHROTTLE, 3); break;
	case 6: make_ksymbol(&r, s->attr, &who); break;
	case 7: make_cgroup(&r, s->attr, &who); break;
	case 8: make_switch(&r, s->attr, &who, 0); break;
	case 9: make_switch(&r, s->attr, &who, 1); break;
	case 10: make_namespaces(&r, s->attr, &who); break;
	case 11: make_mmap(&r, s->attr, &who, "[kernel.kallsyms]_text"); break;
	case 12: make_unknown_kernel(&r, s->attr, &who); break;
	case 13: make_stats(&r, time); break;
	case 14: make_lost_note(&r, time); break;
	default: make_unknown_perfrec(&r); break;
	}
	emit(s, &r);
}

/* The snapshot, then samples with a side-band record after every few. */
static void emit_records(struct stream *s, unsigned samples, unsigned every)
{
	uint64_t time = 2000000000;
	struct rec r;

	emit_snapshot(s, &time);
	for (unsigned i = 0; i < samples; i++) {
		struct who who = who_at(s, i, time += 1003);

		make_sample(&r, s->attr, &who, 0x401000 + i * 0x37, i % 24);
		emit(s, &r);
		if (i % every == every - 1)
			emit_side_band(s, i / every, time);
	}
}

/* One event in the collector's layout: the common case. */
static struct file collector_file(unsigned samples, unsigned every, int level,
				  size_t chunk_size, int with_trailer)
{
	static const uint64_t ids[2] = { 31, 32 };
	struct prf_event event = make_event(FUZZ_ATTR_COLLECTOR, "cpu-clock", ids);
	struct prf_file_info info;
	struct stream s = { .attr = &event.attr, .ids = { ids[0], ids[1] } };

	fill_info(&info, &event, 1);
	stream_open(&s, &info, level, chunk_size);
	emit_records(&s, samples, every);
	return stream_close(&s, with_trailer);
}

/*
 * Two events asking for every field, told apart by their identifiers:
 * the samples of the second are in its own layout, and event_for() has
 * to find which is which.
 */
static struct file rich_file(unsigned samples, int level, size_t chunk_size)
{
	static const uint64_t ids[2][2] = { { 100, 101 }, { 200, 201 } };
	struct prf_event events[2] = {
		make_event(FUZZ_ATTR_ALL_GROUP, "cycles-group", ids[0]),
		make_event(FUZZ_ATTR_ALL_STRUCT, "mem-loads", ids[1]),
	};
	struct prf_file_info info;
	struct stream s;

	fill_info(&info, events, 2);
	/* One writer; the records alternate between the two layouts. */
	s = (struct stream){ .attr = &events[0].attr,
			     .ids = { ids[0][0], ids[0][1] } };
	stream_open(&s, &info, level, chunk_size);
	emit_snapshot(&s, &(uint64_t){ 3000000000 });
	/* At least 16 rounds: one of each side-band record. */
	for (unsigned i = 0; i < samples || i < 16; i++) {
		struct who who;
		struct rec r;
		int e = i % 2;

		s.attr = &events[e].attr;
		s.ids[0] = ids[e][0];
		s.ids[1] = ids[e][1];
		who = who_at(&s, i, 3000100000 + i * 997);
		if (i < samples) {
			make_sample(&r, s.attr, &who, 0x401000 + i * 0x41, 3 + i % 5);
			emit(&s, &r);
		}
		emit_side_band(&s, i, who.time);
	}
	return stream_close(&s, 1);
}

/* ---- finding things in a file -------------------------------------- */

/* Offset of the n-th property with tag, or 0. */
static size_t find_property(const struct file *f, uint16_t tag, int n)
{
	uint32_t header_size = fuzz_get_u32(f->data + offsetof(struct prf_file_header,
							       header_size));
	size_t offset = sizeof(struct prf_file_header);

	while (offset + sizeof(struct prf_property) <= header_size) {
		struct prf_property p;

		memcpy(&p, f->data + offset, sizeof(p));
		if (p.tag == tag && n-- == 0)
			return offset;
		offset += sizeof(p) + FUZZ_ALIGN8((size_t)p.length);
	}
	return 0;
}

static size_t chunks_start(const struct file *f)
{
	return fuzz_get_u32(f->data + offsetof(struct prf_file_header, header_size));
}

static size_t chunk_end(const struct file *f, size_t offset)
{
	struct prf_chunk_header h;

	memcpy(&h, f->data + offset, sizeof(h));
	return offset + h.header_size + FUZZ_ALIGN8((size_t)h.stored_size);
}

/* Offset of the n-th chunk, or 0 when the file has fewer. */
static size_t find_chunk(const struct file *f, int n)
{
	size_t offset = chunks_start(f);

	while (offset + PRF_CHUNK_HEADER_SIZE <= f->size) {
		if (n-- == 0)
			return offset;
		offset = chunk_end(f, offset);
	}
	return 0;
}

static struct file copy_of(const struct file *f)
{
	struct file c = { malloc(f->size + 1), f->size };

	if (!c.data)
		die("out of memory");
	memcpy(c.data, f->data, f->size);
	return c;
}

/* ---- the damaged variants ------------------------------------------ */

static void save_cuts(const struct file *f, const char *base)
{
	size_t chunks = chunks_start(f), first_end = chunk_end(f, chunks);
	size_t cuts[] = {
		0, 1, 8, 63, 64, 65, chunks - 8, chunks - 1, chunks, chunks + 1,
		chunks + 4, chunks + 63, chunks + 64, chunks + 65,
		(chunks + first_end) / 2, first_end - 1, first_end,
		first_end + 1, f->size - 64 - 1, f->size - 64, f->size - 8,
		f->size - 1,
	};

	for (size_t i = 0; i < FUZZ_ARRAY_SIZE(cuts); i++)
		if (cuts[i] < f->size)
			save_named(f->data, cuts[i], "cut-%s-%zu.prf", base, cuts[i]);
}

/* Flipped bytes break a checksum: the reader must notice and go on. */
static void save_flips(const struct file *f, const char *base)
{
	size_t chunk = chunks_start(f), second = chunk_end(f, chunk);
	size_t spots[] = {
		0, 8, 10, 12, 16, 20, 24, 64, 72, chunk, chunk + 4, chunk + 5,
		chunk + 6, chunk + 8, chunk + 12, chunk + 16, chunk + 20,
		chunk + 24, chunk + 60, chunk + 64, (chunk + second) / 2,
		second - 1, second, f->size - 8, f->size - 1,
	};

	for (size_t i = 0; i < FUZZ_ARRAY_SIZE(spots); i++) {
		struct file c;

		if (spots[i] >= f->size)
			continue;
		c = copy_of(f);
		c.data[spots[i]] ^= 0x41;
		save_named(c.data, c.size, "flip-%s-%zu.prf", base, spots[i]);
		free(c.data);
	}
}

/* Sets a field of width bytes at offset, fixes the crcs, saves. */
static void save_forged(const struct file *f, size_t offset, size_t width,
			uint64_t value, const char *name)
{
	struct file c = copy_of(f);

	if (offset + width > c.size)
		die("forging %s: offset %zu is outside the file", name, offset);
	memcpy(c.data + offset, &value, width);	/* little-endian host */
	fuzz_fix_checksums(c.data, c.size);
	save_named(c.data, c.size, "forge-%s.prf", name);
	free(c.data);
}

#define FILE_HEADER_FIELD(field) offsetof(struct prf_file_header, field), \
	sizeof(((struct prf_file_header *)0)->field)
#define CHUNK_FIELD(chunk, field) (chunk) + offsetof(struct prf_chunk_header, field), \
	sizeof(((struct prf_chunk_header *)0)->field)

static void save_forged_file_header(const struct file *f)
{
	size_t event = find_property(f, PRF_PROP_EVENT, 0);
	size_t meta = find_property(f, PRF_PROP_META, 0);
	size_t first = sizeof(struct prf_file_header);
	size_t value = event + sizeof(struct prf_property);

	save_forged(f, FILE_HEADER_FIELD(header_size), 8, "header-size-8");
	save_forged(f, FILE_HEADER_FIELD(header_size), 68, "header-size-68");
	save_forged(f, FILE_HEADER_FIELD(header_size), f->size + 8, "header-size-past-end");
	save_forged(f, FILE_HEADER_FIELD(header_size), 0xfffffff8, "header-size-huge");
	save_forged(f, FILE_HEADER_FIELD(version_major), 2, "version-2");
	save_forged(f, FILE_HEADER_FIELD(version_minor), 0xffff, "version-minor-new");
	save_forged(f, FILE_HEADER_FIELD(byte_order), 0x04030201, "big-endian");
	save_forged(f, FILE_HEADER_FIELD(flags), ~0ULL, "file-flags");
	save_forged(f, first + 4, 4, 0xffffffff, "property-length-huge");
	save_forged(f, first + 4, 4, chunks_start(f) - first - 8, "property-length-to-end");
	save_forged(f, first, 2, 0x7fff, "property-tag-unknown");
	save_forged(f, first, 2, PRF_PROP_CLOCK, "property-clock-short");
	save_forged(f, first, 2, PRF_PROP_NR_CPUS, "property-cpus-as-string");
	save_forged(f, meta + 8, 8, 0x4141414141414141ULL, "meta-without-nul");
	save_forged(f, event + 4, 4, 8, "event-property-short");
	save_forged(f, value + offsetof(struct prf_event_property, attr_size), 4, 0, "attr-size-0");
	save_forged(f, value + offsetof(struct prf_event_property, attr_size), 4, 64, "attr-size-64");
	save_forged(f, value + offsetof(struct prf_event_property, attr_size), 4, 4096, "attr-size-big");
	save_forged(f, value + offsetof(struct prf_event_property, attr_size), 4, 0xffffffff, "attr-size-huge");
	save_forged(f, value + offsetof(struct prf_event_property, name_length), 4, 0xffffffff, "name-length-huge");
	save_forged(f, value + offsetof(struct prf_event_property, id_count), 4, 3, "id-count-3");
	save_forged(f, value + offsetof(struct prf_event_property, id_count), 4, PRF_EVENT_IDS_MAX + 1, "id-count-over");
	save_forged(f, value + offsetof(struct prf_event_property, id_count), 4, 0, "id-count-0");
}

static void save_forged_chunk(const struct file *f, const char *base)
{
	size_t c = find_chunk(f, 0);
	struct prf_chunk_header h;
	char name[128];

	memcpy(&h, f->data + c, sizeof(h));
#define FORGE(field, value, what) do {						\
		snprintf(name, sizeof(name), "%s-%s", base, what);		\
		save_forged(f, CHUNK_FIELD(c, field), value, name);		\
	} while (0)
	FORGE(raw_size, h.raw_size + 8, "raw-size-plus-8");
	FORGE(raw_size, h.raw_size - 8, "raw-size-minus-8");
	FORGE(raw_size, 0, "raw-size-0");
	FORGE(raw_size, PRF_CHUNK_RAW_MAX + 8, "raw-size-over");
	FORGE(raw_size, 0xfffffff8, "raw-size-huge");
	FORGE(stored_size, h.stored_size + 8, "stored-size-plus-8");
	FORGE(stored_size, h.stored_size - 8, "stored-size-minus-8");
	FORGE(stored_size, 0, "stored-size-0");
	FORGE(stored_size, 0xfffffff8, "stored-size-huge");
	FORGE(record_count, h.record_count + 1, "record-count-plus-1");
	FORGE(record_count, h.record_count - 1, "record-count-minus-1");
	FORGE(record_count, 0, "record-count-0");
	FORGE(record_count, 0xffffffff, "record-count-huge");
	FORGE(header_size, 72, "header-size-72");
	FORGE(header_size, 60, "header-size-60");
	FORGE(header_size, 0xfff8, "header-size-huge");
	FORGE(codec, 2, "codec-2");
	FORGE(codec, h.codec == PRF_CODEC_NONE ? PRF_CODEC_ZSTD : PRF_CODEC_NONE, "codec-swapped");
	FORGE(flags, PRF_CHUNK_FINAL, "final-flag");
	FORGE(flags, 0xfe, "unknown-flags");
	FORGE(sequence, 7, "sequence-7");
	FORGE(first_time, ~0ULL, "first-time-max");
#undef FORGE
}

/* A zstd payload that passes its crc but is not what zstd wrote. */
static void save_forged_zstd(const struct file *f)
{
	size_t c = find_chunk(f, 1);
	size_t payload = c + PRF_CHUNK_HEADER_SIZE;
	struct prf_chunk_header h;

	memcpy(&h, f->data + c, sizeof(h));
	if (h.codec != PRF_CODEC_ZSTD)
		die("chunk 1 of the zstd file is not compressed");
	save_forged(f, payload, 4, 0, "zstd-magic");
	save_forged(f, payload + 4, 1, 0xff, "zstd-frame-header");
	save_forged(f, payload + 5, 4, 0xffffffff, "zstd-content-size");
	save_forged(f, payload + h.stored_size / 2, 1,
		    f->data[payload + h.stored_size / 2] ^ 0x10, "zstd-middle");
	save_forged(f, payload + h.stored_size - 4, 4, 0, "zstd-end");
}

/* A trailer too short to hold struct prf_trailer, with sound crcs. */
static void save_short_trailer(const struct file *f)
{
	size_t c = f->size - PRF_CHUNK_HEADER_SIZE - sizeof(struct prf_trailer);
	struct file t = copy_of(f);
	struct prf_chunk_header h;

	memcpy(&h, t.data + c, sizeof(h));
	if (!(h.flags & PRF_CHUNK_FINAL))
		die("the last chunk is not the trailer");
	h.raw_size = h.stored_size = 8;
	memcpy(t.data + c, &h, sizeof(h));
	t.size = c + PRF_CHUNK_HEADER_SIZE + 8;
	fuzz_fix_checksums(t.data, t.size);
	save("forge-trailer-8-bytes.prf", t.data, t.size);
	free(t.data);
}

/*
 * One event more than a reader accepts.  The writer refuses to make such
 * a file, so the header is put together here: minimal event properties
 * (a VER0 attr, no name, no ids) after the fixed header.
 */
static void save_too_many_events(void)
{
	const size_t event = sizeof(struct prf_property) +
			     sizeof(struct prf_event_property) + PERF_ATTR_SIZE_VER0;
	const size_t count = PRF_EVENT_MAX + 1;
	size_t size = sizeof(struct prf_file_header) + count * event;
	uint8_t *header = calloc(1, size);
	struct prf_file_header fixed = {
		.version_major = PRF_VERSION_MAJOR,
		.byte_order = PRF_BYTE_ORDER_MARK,
		.header_size = (uint32_t)size,
	};

	if (!header)
		die("out of memory");
	memcpy(fixed.magic, PRF_FILE_MAGIC, sizeof(fixed.magic));
	memcpy(header, &fixed, sizeof(fixed));
	for (size_t i = 0; i < count; i++) {
		uint8_t *p = header + sizeof(fixed) + i * event;
		struct prf_property property = {
			.tag = PRF_PROP_EVENT,
			.length = (uint32_t)(event - sizeof(property)),
		};
		struct prf_event_property ev = { .attr_size = PERF_ATTR_SIZE_VER0 };
		uint32_t attr_size = PERF_ATTR_SIZE_VER0;

		memcpy(p, &property, sizeof(property));
		memcpy(p + sizeof(property), &ev, sizeof(ev));
		memcpy(p + sizeof(property) + sizeof(ev) +
		       offsetof(struct perf_event_attr, size), &attr_size, 4);
	}
	fuzz_fix_checksums(header, size);
	save("forge-events-over-limit.prf", header, size);
	free(header);
}

/* ---- records inside uncompressed chunks ---------------------------- */

struct record_spot {
	size_t offset;			/* of the record in the file */
	size_t size;
	uint32_t type;
};

/* The records of the first uncompressed data chunk. */
static size_t find_records(const struct file *f, struct record_spot *spots,
			   size_t max)
{
	size_t c = find_chunk(f, 0), count = 0;
	struct prf_chunk_header h;
	size_t at, end;

	memcpy(&h, f->data + c, sizeof(h));
	if (h.codec != PRF_CODEC_NONE)
		die("the first chunk is compressed");
	at = c + h.header_size;
	end = at + h.raw_size;
	while (at < end && count < max) {
		uint32_t type = fuzz_get_u32(f->data + at);
		size_t size;

		if (type >= PRF_RECORD_BASE)
			size = fuzz_get_u32(f->data + at + 8);
		else
			size = (uint16_t)(f->data[at + 6] | f->data[at + 7] << 8);
		spots[count++] = (struct record_spot){ at, size, type };
		at += size;
	}
	return count;
}

/*
 * For the first record of each type, every u64 after the header set to
 * all ones: each count and size the decoders read meets an impossible
 * value somewhere in the corpus.  Kernel records also get each word plus
 * one, which turns a count into an off-by-one overrun.
 */
static void save_forged_records(const struct file *f, const char *base)
{
	struct record_spot spots[512];
	size_t count = find_records(f, spots, FUZZ_ARRAY_SIZE(spots));
	uint64_t seen[4] = { 0 };
	char name[128];

	for (size_t i = 0; i < count; i++) {
		const struct record_spot *s = &spots[i];
		unsigned bit = s->type >= PRF_RECORD_BASE ? 128 + (s->type & 0x7f) :
							   s->type & 0x7f;
		size_t header = s->type >= PRF_RECORD_BASE ? 16 : 8;

		if (seen[bit / 64] & (1ULL << bit % 64))
			continue;
		seen[bit / 64] |= 1ULL << bit % 64;
		for (size_t word = header; word < s->size; word += 8) {
			uint64_t value;

			snprintf(name, sizeof(name), "%s-type%u-word%zu-max",
				 base, s->type, word / 8);
			save_forged(f, s->offset + word, 8, ~0ULL, name);
			if (s->type >= PRF_RECORD_BASE)
				continue;
			memcpy(&value, f->data + s->offset + word, 8);
			snprintf(name, sizeof(name), "%s-type%u-word%zu-plus1",
				 base, s->type, word / 8);
			save_forged(f, s->offset + word, 8, value + 1, name);
		}
		/* The size field itself: framing the reader must reject. */
		snprintf(name, sizeof(name), "%s-type%u-size-plus-8", base, s->type);
		save_forged(f, s->offset + (header == 16 ? 8 : 6), header == 16 ? 4 : 2,
			    s->size + 8, name);
		snprintf(name, sizeof(name), "%s-type%u-size-4", base, s->type);
		save_forged(f, s->offset + (header == 16 ? 8 : 6), header == 16 ? 4 : 2,
			    4, name);
	}
}

/* The n-th chunk of samples, or 0. */
static size_t find_samples_chunk(const struct file *f, int n)
{
	for (int i = 0;; i++) {
		size_t c = find_chunk(f, i);
		struct prf_chunk_header h;

		if (!c)
			return 0;
		memcpy(&h, f->data + c, sizeof(h));
		if ((h.flags & PRF_CHUNK_SAMPLES) && !(h.flags & PRF_CHUNK_FINAL) && n-- == 0)
			return c;
	}
}

/*
 * The stack table and the columns of an uncompressed chunk of compact
 * samples: each count and size set to 0, one more, and all ones; bytes
 * of every part set to 0xff (an endless varint) and to 0 (stack 0, event
 * 0, a zero delta).
 */
static void save_forged_compact(const struct file *f, const char *base)
{
	size_t c = find_samples_chunk(f, 0);
	struct prf_chunk_header h;
	char name[160];
	size_t stacks, samples, end;

	if (!c)
		die("no chunk of samples in the compact file");
	memcpy(&h, f->data + c, sizeof(h));
	if (h.codec != PRF_CODEC_NONE)
		die("the compact file's chunk of samples is compressed");
	stacks = c + h.header_size;
	if (fuzz_get_u32(f->data + stacks) != PRF_RECORD_STACKS)
		die("the chunk of samples does not start with a stack table");
	samples = stacks + fuzz_get_u32(f->data + stacks + 8);
	end = stacks + h.raw_size;
	if (fuzz_get_u32(f->data + samples) != PRF_RECORD_COMPACT_SAMPLES_BY_CPU)
		die("no compact samples after the stack table");
	for (size_t field = 16; field < sizeof(struct prf_stacks_record); field += 4) {
		uint32_t value = fuzz_get_u32(f->data + stacks + field);

		snprintf(name, sizeof(name), "%s-stacks-u32-%zu-0", base, field);
		save_forged(f, stacks + field, 4, 0, name);
		snprintf(name, sizeof(name), "%s-stacks-u32-%zu-plus1", base, field);
		save_forged(f, stacks + field, 4, value + 1, name);
		snprintf(name, sizeof(name), "%s-stacks-u32-%zu-max", base, field);
		save_forged(f, stacks + field, 4, 0xffffffff, name);
	}
	/* The same columns read as 1.2's record, times from the sample before. */
	snprintf(name, sizeof(name), "%s-samples-type-1.2", base);
	save_forged(f, samples, 4, PRF_RECORD_COMPACT_SAMPLES, name);
	for (size_t field = 16; field < sizeof(struct prf_compact_samples_record); field += 4) {
		uint32_t value = fuzz_get_u32(f->data + samples + field);

		snprintf(name, sizeof(name), "%s-samples-u32-%zu-0", base, field);
		save_forged(f, samples + field, 4, 0, name);
		snprintf(name, sizeof(name), "%s-samples-u32-%zu-plus1", base, field);
		save_forged(f, samples + field, 4, value + 1, name);
		snprintf(name, sizeof(name), "%s-samples-u32-%zu-max", base, field);
		save_forged(f, samples + field, 4, 0xffffffff, name);
	}
	/* Eight spots across each record's body. */
	for (int part = 0; part < 2; part++) {
		size_t from = part ? samples + sizeof(struct prf_compact_samples_record) :
				     stacks + sizeof(struct prf_stacks_record);
		size_t to = part ? end : samples;

		for (size_t k = 0; k < 8 && from < to; k++) {
			size_t at = from + (to - from) * k / 8;

			snprintf(name, sizeof(name), "%s-%s-byte%zu-ff", base,
				 part ? "samples" : "stacks", at - from);
			save_forged(f, at, 1, 0xff, name);
			snprintf(name, sizeof(name), "%s-%s-byte%zu-0", base,
				 part ? "samples" : "stacks", at - from);
			save_forged(f, at, 1, 0, name);
		}
	}
}

/* ---- files put together from pieces -------------------------------- */

static void save_spliced(const struct file *f, const struct file *other)
{
	size_t first = find_chunk(f, 1), second = find_chunk(f, 2);
	size_t size = f->size + other->size + (second - first) + 64;
	uint8_t *buf = calloc(1, size);
	size_t at;

	if (!buf || !first || !second)
		die("splicing: %s", buf ? "too few chunks" : "out of memory");
	/* Two files back to back: a trailer, then a header, mid-file. */
	memcpy(buf, f->data, f->size);
	memcpy(buf + f->size, other->data, other->size);
	save("splice-two-files.prf", buf, f->size + other->size);

	/* A chunk twice in a row. */
	memcpy(buf, f->data, second);
	memcpy(buf + second, f->data + first, second - first);
	memcpy(buf + second + (second - first), f->data + second, f->size - second);
	save("splice-chunk-twice.prf", buf, f->size + (second - first));

	/* Junk between two chunks, with a false chunk magic in it. */
	memcpy(buf, f->data, second);
	at = second;
	memset(buf + at, 0x55, 64);
	memcpy(buf + at + 16, PRF_CHUNK_MAGIC, 4);
	memcpy(buf + at + 40, PRF_CHUNK_MAGIC, 4);	/* unaligned: ignored */
	memcpy(buf + at + 64, f->data + second, f->size - second);
	save("splice-junk-between-chunks.prf", buf, f->size + 64);
	free(buf);
}

/* A header and a trailer, nothing between. */
static void save_empty(void)
{
	static const uint64_t ids[2] = { 31, 32 };
	struct prf_event event = make_event(FUZZ_ATTR_COLLECTOR, "cpu-clock", ids);
	struct prf_file_info info;
	struct stream s = { .attr = &event.attr };
	struct file f;

	fill_info(&info, &event, 1);
	stream_open(&s, &info, 3, 0);
	f = stream_close(&s, 1);
	save("valid-no-records.prf", f.data, f.size);
	free(f.data);
}

static void save_tiny(void)
{
	static const uint8_t magic_only[] = PRF_FILE_MAGIC;
	uint8_t header[64] = { 0 };

	save("tiny-empty.prf", "", 0);
	save("tiny-one-byte.prf", "\x89", 1);
	save("tiny-magic.prf", magic_only, 8);
	/* A fixed header with no properties and a right crc. */
	memcpy(header, PRF_FILE_MAGIC, 8);
	header[8] = PRF_VERSION_MAJOR;
	fuzz_put_u32(header + 12, PRF_BYTE_ORDER_MARK);
	fuzz_put_u32(header + 16, sizeof(header));
	fuzz_fix_checksums(header, sizeof(header));
	save("tiny-bare-header.prf", header, sizeof(header));
}

/* ---- main ---------------------------------------------------------- */

static void save_file(const struct file *f, const char *name)
{
	save_named(f->data, f->size, "valid-%s.prf", name);
}

int main(int argc, char **argv)
{
	struct file one, many, plain, open_ended, big, rich, rich_plain, empty;
	struct file each, hit, hit_each;
	struct file compact, compact_plain, compact_rich, compact_rich_plain;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\nWrites the fuzz seed corpus into DIR.\n",
			argv[0]);
		return 2;
	}
	out_dir = argv[1];
	if (mkdir(out_dir, 0755) < 0 && errno != EEXIST)
		die("%s: %s", out_dir, strerror(errno));

	one = collector_file(60, 5, 3, 0, 1);
	many = collector_file(300, 5, 1, 4096, 1);
	plain = collector_file(120, 5, -1, 4096, 1);
	open_ended = collector_file(120, 5, 3, 4096, 0);
	big = collector_file(6000, 5, 1, 0, 1);
	/* Small, one chunk, every record type: the base of the forgeries. */
	each = collector_file(16, 1, -1, 0, 1);
	rich = rich_file(32, 3, 4096);
	rich_plain = rich_file(4, -1, 0);
	empty = collector_file(0, 1, 3, 0, 1);
	kernel_symbols_as_hit = 1;
	hit = collector_file(120, 5, -1, 4096, 1);
	hit_each = collector_file(16, 1, -1, 0, 1);
	kernel_symbols_as_hit = 0;
	/* The same streams with compact samples (format 1.2). */
	encoding = PRF_ENCODING_COMPACT;
	compact = collector_file(300, 5, 1, 4096, 1);
	compact_plain = collector_file(120, 5, -1, 2048, 1);
	compact_rich = rich_file(32, 3, 4096);
	compact_rich_plain = rich_file(8, -1, 0);
	encoding = PRF_ENCODING_VERBATIM;

	save_file(&one, "collector-one-chunk");
	save_file(&many, "collector-many-chunks");
	save_file(&plain, "collector-uncompressed");
	save_file(&open_ended, "collector-no-trailer");
	save_file(&big, "collector-1mib-chunks");
	save_file(&rich, "rich-zstd");
	save_file(&rich_plain, "rich-uncompressed");
	save_file(&empty, "snapshot-only");
	save_file(&each, "collector-each-type");
	save_file(&hit, "kernel-symbols-hit");
	save_file(&compact, "compact-many-chunks");
	save_file(&compact_plain, "compact-uncompressed");
	save_file(&compact_rich, "compact-rich-zstd");
	save_file(&compact_rich_plain, "compact-rich-uncompressed");
	save_empty();
	save_tiny();

	save_cuts(&many, "many");
	save_cuts(&plain, "plain");
	save_flips(&many, "many");
	save_flips(&plain, "plain");
	save_forged_file_header(&one);
	save_forged_chunk(&many, "zstd");
	save_forged_chunk(&plain, "plain");
	save_forged_zstd(&many);
	save_forged_records(&each, "collector");
	save_forged_records(&rich_plain, "rich");
	save_cuts(&hit, "hit");
	save_flips(&hit, "hit");
	save_forged_records(&hit_each, "hit");
	save_spliced(&many, &one);
	save_short_trailer(&one);
	save_too_many_events();
	save_cuts(&compact, "compact");
	save_flips(&compact_plain, "compact-plain");
	save_forged_compact(&compact_plain, "compact");
	save_forged_compact(&compact_rich_plain, "compact-rich");
	perfdata_seeds(save);

	printf("make-corpus: %zu files in %s\n", files_written, out_dir);
	free(one.data);
	free(many.data);
	free(plain.data);
	free(open_ended.data);
	free(big.data);
	free(rich.data);
	free(rich_plain.data);
	free(empty.data);
	free(each.data);
	free(hit.data);
	free(hit_each.data);
	free(compact.data);
	free(compact_plain.data);
	free(compact_rich.data);
	free(compact_rich_plain.data);
	return 0;
}
