/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perfrec capture file's on-disk layout: what another implementation
 * needs, and nothing of this one's API (format.h includes the rest).
 *
 * The normative description of the bytes is perfrec-format(5); this header
 * mirrors it.  All on-disk integers are little-endian.
 */
#ifndef PERFREC_FORMAT_H
#define PERFREC_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* On-disk layout                                                          */
/* ---------------------------------------------------------------------- */

#define PRF_FILE_MAGIC		"\x89PRFREC\n"	/* 8 bytes, no NUL */
#define PRF_VERSION_MAJOR	1
#define PRF_VERSION_MINOR	4
#define PRF_BYTE_ORDER_MARK	0x01020304u

/* The fixed start of every file.  Followed by properties up to header_size. */
struct prf_file_header {
	char magic[8];
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t byte_order;		/* PRF_BYTE_ORDER_MARK as written */
	uint32_t header_size;		/* this struct + properties, multiple of 8 */
	uint32_t header_crc;		/* crc32c of header_size bytes, this field 0 */
	uint64_t flags;			/* none defined; readers ignore unknown */
	uint64_t reserved[4];
};

/* A property: tag, length, value, zero padding to 8 bytes. */
struct prf_property {
	uint16_t tag;
	uint16_t flags;			/* none defined */
	uint32_t length;		/* of the value, without padding */
};

enum prf_property_tag {
	PRF_PROP_HOSTNAME = 1,		/* string */
	PRF_PROP_KERNEL_RELEASE = 2,	/* string (uname -r) */
	PRF_PROP_MACHINE = 3,		/* string (uname -m) */
	PRF_PROP_BOOT_ID = 4,		/* string (/proc/sys/kernel/random/boot_id) */
	PRF_PROP_NR_CPUS = 5,		/* u32 online, u32 configured */
	PRF_PROP_PAGE_SIZE = 6,		/* u32 */
	PRF_PROP_CLOCK = 7,		/* struct prf_clock_property */
	PRF_PROP_META = 8,		/* key NUL value (no trailing NUL needed) */
	PRF_PROP_EVENT = 9,		/* struct prf_event_property + data */
	PRF_PROP_KERNEL_VERSION = 10,	/* string (uname -v) */
};

struct prf_clock_property {
	int32_t clockid;		/* CLOCK_MONOTONIC for perfrecd */
	uint32_t reserved;
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME - clockid at start */
	uint64_t start_time_ns;		/* clockid time when the file was started */
};

/*
 * An event: attr_size bytes of perf_event_attr as given to the kernel,
 * padded to 8; name_length bytes of name, padded to 8; id_count u64 ids.
 */
struct prf_event_property {
	uint32_t attr_size;
	uint32_t name_length;
	uint32_t id_count;
	uint32_t reserved;
};

#define PRF_CHUNK_MAGIC		"PRFC"
#define PRF_CHUNK_HEADER_SIZE	64

enum prf_codec {
	PRF_CODEC_NONE = 0,
	PRF_CODEC_ZSTD = 1,
};

enum prf_chunk_flag {
	PRF_CHUNK_FINAL = 1u << 0,	/* the trailer: payload is prf_trailer */
	PRF_CHUNK_SAMPLES = 1u << 1,	/* every record is a PERF_RECORD_SAMPLE (1.1) */
};

struct prf_chunk_header {
	char magic[4];
	uint8_t codec;			/* enum prf_codec */
	uint8_t flags;			/* enum prf_chunk_flag */
	uint16_t header_size;		/* >= 64; a later minor may grow it */
	uint32_t raw_size;		/* payload size after decompression */
	uint32_t stored_size;		/* payload bytes in the file, before padding */
	uint32_t record_count;
	uint32_t payload_crc;		/* crc32c of the stored payload bytes */
	uint64_t sequence;		/* 0, 1, 2, ... within a file */
	uint64_t first_time;		/* smallest record time, 0 if none known */
	uint64_t last_time;		/* largest record time */
	uint32_t samples;		/* a samples chunk's samples, expanded; 0: unknown (1.1) */
	uint32_t reserved[2];
	uint32_t header_crc;		/* crc32c of the first 60 bytes */
};

/* Payload of the final chunk: the totals of the file. */
struct prf_trailer {
	uint64_t chunk_count;		/* data chunks, without the trailer */
	uint64_t record_count;
	uint64_t raw_bytes;		/* sum of raw_size */
	uint64_t stored_bytes;		/* sum of stored_size */
	uint64_t first_time;
	uint64_t last_time;
	uint64_t dropped_records;	/* records the writer could not write */
	uint64_t dropped_bytes;
};

/* Chunk and record bounds a reader enforces against hostile input. */
#define PRF_HEADER_MAX		(16u << 20)
#define PRF_CHUNK_RAW_MAX	(64u << 20)
#define PRF_EVENT_MAX		4096u
#define PRF_EVENT_IDS_MAX	65536u
#define PRF_EVENT_NAME_MAX	4096u

/*
 * Records.  A payload is a run of records, each starting 8-byte aligned
 * and a multiple of 8 long.  Types below PRF_RECORD_BASE are the kernel's,
 * verbatim, framed by struct perf_event_header (u16 size).  Types from
 * PRF_RECORD_BASE on are perfrec's, framed by struct prf_record_header,
 * whose u32 size lets them exceed 64 KiB.
 */
#define PRF_RECORD_BASE		0x10000u

struct prf_record_header {
	uint32_t type;
	uint16_t misc;
	uint16_t reserved;		/* 0: where the kernel keeps its u16 size */
	uint32_t size;			/* whole record, this header included */
	uint32_t reserved2;
};

enum prf_record_type {
	PRF_RECORD_BUILD_ID = PRF_RECORD_BASE + 1,
	PRF_RECORD_KALLSYMS = PRF_RECORD_BASE + 2,
	PRF_RECORD_KERNEL_MODULE = PRF_RECORD_BASE + 3,
	PRF_RECORD_SNAPSHOT_BEGIN = PRF_RECORD_BASE + 4,
	PRF_RECORD_SNAPSHOT_END = PRF_RECORD_BASE + 5,
	PRF_RECORD_STATS = PRF_RECORD_BASE + 6,
	PRF_RECORD_LOST_NOTE = PRF_RECORD_BASE + 7,
	PRF_RECORD_KERNEL_SYMBOL = PRF_RECORD_BASE + 8,	/* minor 2 */
	/* PRF_RECORD_BASE + 0x09 ... + 0x0f: reserved for kernel symbols */
	/* + 0x10 ... + 0x1f: cgroups and namespaces (1.2) */
	PRF_RECORD_TASK_CGROUP = PRF_RECORD_BASE + 0x10,
	PRF_RECORD_NSPID = PRF_RECORD_BASE + 0x11,
	PRF_RECORD_JIT_MAP = PRF_RECORD_BASE + 0x20,	/* 1.2 */
	PRF_RECORD_JIT_DUMP = PRF_RECORD_BASE + 0x21,	/* 1.2 */
	/* + 0x30 ... + 0x3f: tracing and scheduling (1.4) */
	PRF_RECORD_TRACEPOINT_FORMAT = PRF_RECORD_BASE + 0x30,
	PRF_RECORD_OFF_CPU = PRF_RECORD_BASE + 0x31,
	/* PRF_RECORD_BASE + 0x100 ... + 0x1ff: compact samples (1.2, 1.3) */
	PRF_RECORD_STACKS = PRF_RECORD_BASE + 0x100,
	PRF_RECORD_COMPACT_SAMPLES = PRF_RECORD_BASE + 0x101,
	PRF_RECORD_COMPACT_SAMPLES_BY_CPU = PRF_RECORD_BASE + 0x102,	/* 1.3 */
};

#define PRF_BUILD_ID_MAX	20

enum prf_build_id_flag {
	PRF_BUILD_ID_KERNEL = 1u << 0,		/* the kernel image itself */
	PRF_BUILD_ID_MODULE = 1u << 1,		/* a kernel module */
};

/* The build-id of a mapped file, followed by its path (NUL-terminated). */
struct prf_build_id_record {
	struct prf_record_header header;
	uint32_t pid;			/* a process that mapped it, or -1 */
	uint32_t flags;			/* enum prf_build_id_flag */
	uint32_t major, minor;		/* device of the file */
	uint64_t inode;
	uint64_t inode_generation;
	uint8_t build_id_size;
	uint8_t reserved[7];
	uint8_t build_id[24];		/* build_id_size bytes used */
	/* char path[]; NUL-terminated, padded to 8 */
};

enum prf_kallsyms_flag {
	PRF_KALLSYMS_HIDDEN = 1u << 0,	/* kptr_restrict hid the addresses */
};

/* /proc/kallsyms text as read, length text_size, padded to 8. */
struct prf_kallsyms_record {
	struct prf_record_header header;
	uint32_t flags;			/* enum prf_kallsyms_flag */
	uint32_t reserved;
	uint64_t text_size;
	/* char text[]; */
};

/* A loaded kernel module, followed by its name (NUL-terminated). */
struct prf_kernel_module_record {
	struct prf_record_header header;
	uint64_t start;
	uint64_t size;
	uint8_t build_id_size;
	uint8_t reserved[7];
	uint8_t build_id[24];
	/* char name[]; */
};

/*
 * One kernel text symbol that a sample or callchain of the file hit
 * (--kernel-symbols=hit), written before the first sample that needs it:
 * the symbol a reader of the whole /proc/kallsyms would pick at that
 * address, and where that reader would end it (the next symbol, or the
 * bound at the end of a module), so that a reader of these records alone
 * names every address exactly as a reader of the snapshot.  Followed by
 * the name and the module's name ("" for the kernel proper), each
 * NUL-terminated, padded to 8.
 */
struct prf_kernel_symbol_record {
	struct prf_record_header header;
	uint64_t start;
	uint32_t size;			/* the symbol covers [start, start + size) */
	uint8_t type;			/* kallsyms' letter: 't', 'T', 'w' or 'W' */
	uint8_t reserved[3];
	/* char name[]; char module[]; */
};

/* Brackets the records synthesized from /proc at the start of a file. */
struct prf_snapshot_record {
	struct prf_record_header header;
	uint64_t time;
	uint64_t process_count;		/* in SNAPSHOT_END; 0 in BEGIN */
};

/* Collector statistics, cumulative since the collector started. */
struct prf_stats_record {
	struct prf_record_header header;
	uint64_t time;
	uint64_t samples;
	uint64_t lost;			/* PERF_RECORD_LOST: records the kernel dropped */
	uint64_t lost_samples;		/* PERF_RECORD_LOST_SAMPLES */
	uint64_t throttled;		/* PERF_RECORD_THROTTLE */
	uint64_t raw_bytes;
	uint64_t stored_bytes;
	uint64_t dropped_records;	/* by the collector (disk full, ...) */
	uint64_t cpu_user_ns;		/* the collector's own CPU time */
	uint64_t cpu_system_ns;
	uint64_t rss_bytes;
};

enum prf_lost_reason {
	PRF_LOST_WRITE_ERROR = 1,	/* the disk refused (ENOSPC, EIO, ...) */
	PRF_LOST_RING_OVERRUN = 2,	/* the collector found a ring inconsistent */
	PRF_LOST_CPU_OFFLINE = 3,
	PRF_LOST_OFF_CPU = 4,		/* 1.4: off-CPU blocks the BPF ring had no room for */
};

/* Data the collector itself lost between two records of this file. */
struct prf_lost_note_record {
	struct prf_record_header header;
	uint64_t time;
	uint32_t reason;		/* enum prf_lost_reason */
	int32_t cpu;			/* -1 for all */
	uint64_t records;
	uint64_t bytes;
	int32_t error;			/* errno, when reason is WRITE_ERROR */
	uint32_t reserved;
};

/*
 * A process's cgroup v2 path as /proc/PID/cgroup gave it ("0::" line),
 * where the kernel cannot tag samples with PERF_SAMPLE_CGROUP: the
 * process is taken to stay there from time on.  Followed by the path,
 * NUL-terminated, padded to 8.
 */
struct prf_task_cgroup_record {
	struct prf_record_header header;
	uint64_t time;
	uint32_t pid;
	uint32_t reserved;
	/* char path[]; */
};

/*
 * A thread whose pid namespace is not perfrecd's: its ids as the
 * innermost namespace sees them (the last NSpid of /proc/PID/status),
 * from time on.  pid and tid are the host's, as in the kernel records.
 */
struct prf_nspid_record {
	struct prf_record_header header;
	uint64_t time;
	uint32_t pid, tid;
	uint32_t ns_pid, ns_tid;
	uint32_t ns_level;		/* nesting depth of that namespace, 1 and up */
	uint32_t reserved;
};

enum prf_jit_flag {
	PRF_JIT_CUT = 1u << 0,		/* the bound was reached: nothing after this */
	PRF_JIT_RESTATED = 1u << 1,	/* taken before this file began, said again */
};

/*
 * Symbols of JIT-compiled code a process described (perf map lines, or
 * jitdump code loads written as such lines): text_size bytes of whole
 * lines "START SIZE NAME\n", START and SIZE in hex, padded to 8.  Later
 * lines of a process override earlier ones where their ranges overlap.
 */
struct prf_jit_map_record {
	struct prf_record_header header;
	uint64_t time;			/* when the collector read them */
	uint32_t pid;
	uint32_t flags;			/* enum prf_jit_flag */
	uint64_t offset;		/* of the first line in the source file */
	uint64_t text_size;
	/* char text[]; */
};

/*
 * A tracepoint event's layout as the recording host's tracefs gave it
 * (events/SUBSYSTEM/NAME/format), so that a reader anywhere can name the
 * fields of its samples' PERF_SAMPLE_RAW data.  Written in every file,
 * before the first sample of the event.  Followed by "subsystem:name"
 * (name_size bytes, its NUL included) and the format text (text_size
 * bytes, its NUL included), padded to 8.
 */
struct prf_tracepoint_format_record {
	struct prf_record_header header;
	uint64_t config;		/* perf_event_attr.config: the tracepoint's id there */
	uint32_t name_size;
	uint32_t text_size;
};

enum prf_off_cpu_flag {
	PRF_OFF_CPU_WAKER = 1u << 0,	/* the waker's ids, name and callchain are known */
	PRF_OFF_CPU_USER_LATE = 1u << 1,	/* user part read when it next returned to user space */
	PRF_OFF_CPU_END_LATE = 1u << 2,	/* its switch-in unseen: ended on its way to user space */
};

/* Bounds a reader enforces: the kernel's own callchain limit and its stack copy's. */
#define PRF_OFF_CPU_CALLCHAIN_MAX	512u
#define PRF_OFF_CPU_USER_STACK_MAX	65528u

/*
 * A thread that left a CPU without being runnable (a sleep, a lock, a
 * pipe, I/O...) and stayed off at least the collector's threshold.  Its
 * callchain says where it blocked and its waker's where the thread that
 * woke it was at the wake-up, both in PERF_SAMPLE_CALLCHAIN's layout
 * (PERF_CONTEXT_KERNEL, kernel frames, PERF_CONTEXT_USER, user frames).
 * With user_regs_mask, the user registers and user_stack_size bytes of
 * its user stack from the stack pointer follow, as PERF_SAMPLE_REGS_USER
 * and PERF_SAMPLE_STACK_USER carry them, for dwarf unwinding.  Followed by
 * u64 callchain[callchain_nr], u64 waker_callchain[waker_callchain_nr],
 * u64 user_regs[popcount(user_regs_mask)], u8 user_stack[user_stack_size],
 * padded to 8.
 */
struct prf_off_cpu_record {
	struct prf_record_header header;
	uint64_t time;			/* when it left the CPU, in the file's clock */
	uint64_t duration;		/* nanoseconds until it ran again */
	uint32_t pid, tid;
	uint32_t cpu;			/* the CPU it left */
	uint32_t flags;			/* enum prf_off_cpu_flag */
	uint64_t cgroup;		/* its cgroup v2 id, as PERF_SAMPLE_CGROUP; 0: not known */
	uint32_t waker_pid, waker_tid;
	char waker_comm[16];		/* NUL-terminated unless 16 long */
	uint32_t callchain_nr;
	uint32_t waker_callchain_nr;
	uint64_t user_regs_abi;		/* PERF_SAMPLE_REGS_ABI_*; 0: no registers */
	uint64_t user_regs_mask;	/* perf_event_attr.sample_regs_user's bits */
	uint32_t user_stack_size;
	uint32_t reserved;
};

/*
 * Compact samples (perfrec-format(5), "Compact samples"): a samples chunk
 * holds one STACKS record, the callchains its samples use as a tree of
 * frames, then one COMPACT_SAMPLES record, its samples as columns of
 * varints that name a stack.  Nothing refers outside the chunk.
 */
struct prf_stacks_record {
	struct prf_record_header header;
	uint32_t count;			/* stacks, numbered 1..count */
	uint32_t frame_count;		/* distinct addresses they use */
	uint32_t frames_size;		/* bytes of each part that follows */
	uint32_t parents_size;
	uint32_t indexes_size;
	uint32_t reserved;
	/*
	 * frames: frame_count varints, each the address minus the one before
	 * (ascending); parents: count varints, stack number minus its
	 * parent's, 0 for none; indexes: count varints into frames.
	 */
};

enum prf_compact_column {
	PRF_COLUMN_FLAGS,		/* one byte a sample: enum prf_compact_flag */
	PRF_COLUMN_FIELDS,		/* varints of the fields that changed */
	PRF_COLUMN_STACKS,		/* varint stack number, 0: no callchain */
	PRF_COLUMN_TIMES,		/* varint zigzag(time - predicted time) */
	PRF_COLUMN_TAILS,		/* bytes after the callchain; whole records */
	PRF_COLUMN_COUNT
};

/*
 * COMPACT_SAMPLES predicts each time by the sample before; COMPACT_SAMPLES_BY_CPU
 * (1.3), same layout, by the same CPU's sample before, plus the period when
 * the event is a clock (perfrec-format(5)).  CPUs share slots modulo this.
 */
#define PRF_COMPACT_CPU_SLOTS	1024u

struct prf_compact_samples_record {
	struct prf_record_header header;
	uint32_t count;			/* samples */
	uint32_t reserved;
	uint32_t column_size[PRF_COLUMN_COUNT];	/* the columns follow in order */
	uint32_t reserved2;
};

enum prf_compact_flag {
	PRF_COMPACT_EVENT = 1u << 0,	/* event index, IDENTIFIER, ID, STREAM_ID */
	PRF_COMPACT_MISC = 1u << 1,
	PRF_COMPACT_TID = 1u << 2,	/* pid, tid */
	PRF_COMPACT_CPU = 1u << 3,	/* cpu, res */
	PRF_COMPACT_PERIOD = 1u << 4,
	PRF_COMPACT_ADDR = 1u << 5,
	PRF_COMPACT_IP = 1u << 6,	/* zigzag(ip - the callchain's first address) */
	PRF_COMPACT_VERBATIM = 1u << 7,	/* the whole record is in the tails */
};

#define PRF_STATIC_ASSERT_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), #type " is part of the on-disk format")
PRF_STATIC_ASSERT_SIZE(struct prf_file_header, 64);
PRF_STATIC_ASSERT_SIZE(struct prf_property, 8);
PRF_STATIC_ASSERT_SIZE(struct prf_clock_property, 24);
PRF_STATIC_ASSERT_SIZE(struct prf_event_property, 16);
PRF_STATIC_ASSERT_SIZE(struct prf_chunk_header, PRF_CHUNK_HEADER_SIZE);
PRF_STATIC_ASSERT_SIZE(struct prf_trailer, 64);
PRF_STATIC_ASSERT_SIZE(struct prf_record_header, 16);
PRF_STATIC_ASSERT_SIZE(struct prf_build_id_record, 80);
PRF_STATIC_ASSERT_SIZE(struct prf_kallsyms_record, 32);
PRF_STATIC_ASSERT_SIZE(struct prf_kernel_module_record, 64);
PRF_STATIC_ASSERT_SIZE(struct prf_kernel_symbol_record, 32);
PRF_STATIC_ASSERT_SIZE(struct prf_snapshot_record, 32);
PRF_STATIC_ASSERT_SIZE(struct prf_stats_record, 104);
PRF_STATIC_ASSERT_SIZE(struct prf_lost_note_record, 56);
PRF_STATIC_ASSERT_SIZE(struct prf_task_cgroup_record, 32);
PRF_STATIC_ASSERT_SIZE(struct prf_nspid_record, 48);
PRF_STATIC_ASSERT_SIZE(struct prf_jit_map_record, 48);
PRF_STATIC_ASSERT_SIZE(struct prf_tracepoint_format_record, 32);
PRF_STATIC_ASSERT_SIZE(struct prf_off_cpu_record, 112);
PRF_STATIC_ASSERT_SIZE(struct prf_stacks_record, 40);
PRF_STATIC_ASSERT_SIZE(struct prf_compact_samples_record, 48);

#ifdef __cplusplus
}
#endif

#endif /* PERFREC_FORMAT_H */
