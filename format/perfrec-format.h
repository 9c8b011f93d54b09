/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libperfrec-format: write and read perfrec capture files.
 *
 * The normative description of the bytes is perfrec-format(5); this header
 * mirrors it.  All on-disk integers are little-endian.  The library knows
 * nothing of /proc or ELF: it frames, checksums, compresses and decodes.
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
#define PRF_VERSION_MINOR	3
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
PRF_STATIC_ASSERT_SIZE(struct prf_stacks_record, 40);
PRF_STATIC_ASSERT_SIZE(struct prf_compact_samples_record, 48);

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * Functions return 0 (or a count) on success and a negative errno on
 * failure.  Where a struct prf_error is passed, it receives a one-line
 * message naming the file, the offset where it matters, and the cause.
 */
struct prf_error {
	int code;			/* negative errno */
	char message[512];
};

/* crc32c (Castagnoli), as in iSCSI and ext4: init ~0, final xor ~0. */
uint32_t prf_crc32c(uint32_t crc, const void *data, size_t size);

/* ---------------------------------------------------------------------- */
/* What a file describes                                                   */
/* ---------------------------------------------------------------------- */

struct prf_meta {
	const char *key;
	const char *value;
};

struct prf_event {
	struct perf_event_attr attr;	/* zero-extended or cut to our size */
	const void *attr_bytes;		/* as recorded, attr_size bytes */
	uint32_t attr_size;
	const char *name;
	const uint64_t *ids;
	uint32_t id_count;
};

struct prf_file_info {
	uint16_t version_major, version_minor;
	const char *hostname;
	const char *kernel_release;
	const char *kernel_version;
	const char *machine;
	const char *boot_id;
	uint32_t nr_cpus_online, nr_cpus_configured;
	uint32_t page_size;
	int32_t clockid;
	int64_t realtime_offset_ns;
	uint64_t start_time_ns;
	const struct prf_meta *meta;
	size_t meta_count;
	const struct prf_event *events;
	size_t event_count;
};

/* Fills the host facts of info from uname(2), /proc and sysconf(3). */
int prf_host_detect(struct prf_file_info *info, char *buf, size_t buf_size);

/*
 * The GNU build-id in a run of ELF notes (a PT_NOTE segment, or
 * /sys/kernel/notes): 0, or -ENODATA when there is none of 1 to 20 bytes.
 */
int prf_notes_build_id(const void *notes, size_t size, uint8_t id[PRF_BUILD_ID_MAX],
		       uint8_t *id_size);

/* A line of /proc/kallsyms that names a text symbol (t, T, w or W). */
#define PRF_KSYM_NAME_MAX	512	/* the kernel's KSYM_NAME_LEN */
#define PRF_MODULE_NAME_MAX	64	/* "[name]" with its brackets; MODULE_NAME_LEN is 56 */
struct prf_kallsyms_line {
	uint64_t address;		/* never 0: hidden addresses are no symbol */
	const char *name;		/* in the line, name_length bytes */
	size_t name_length;		/* 1 to PRF_KSYM_NAME_MAX - 1 */
	const char *module;		/* "ext4" in the line; NULL: the kernel proper */
	size_t module_length;
	char type;
	/* Lower wins among symbols at one address: global, weak, local; fewer '_'. */
	unsigned rank;
};

/* 1 and *line for a text symbol with an address; 0 for any other line. */
int prf_kallsyms_parse_line(const char *p, const char *end, struct prf_kallsyms_line *line);

/*
 * This process's vDSO, the image the kernel maps into every process of
 * the host's native ABI: where it is mapped, how long, and its build-id.
 * 0; -ENOENT without one; -ENODATA when it has no build-id.
 */
int prf_vdso_image(const void **image, size_t *size, uint8_t build_id[PRF_BUILD_ID_MAX],
		   uint8_t *build_id_size);

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */
/* ---------------------------------------------------------------------- */

struct prf_writer;

enum prf_sample_encoding {
	PRF_ENCODING_VERBATIM = 0,	/* samples as the kernel wrote them */
	PRF_ENCODING_COMPACT = 1,	/* interned stacks, varint columns (1.2) */
};

struct prf_writer_options {
	int zstd_level;			/* 0: default (3); < 0: no compression */
	size_t chunk_size;		/* raw bytes per chunk; 0: default 1 MiB */
	const char *name;		/* the file's name, for messages */
	enum prf_sample_encoding sample_encoding;
};

#define PRF_ZSTD_LEVEL_DEFAULT	3
#define PRF_CHUNK_SIZE_DEFAULT	(1u << 20)

struct prf_writer_stats {
	uint64_t chunks;
	uint64_t records;
	uint64_t raw_bytes;
	uint64_t stored_bytes;		/* chunk payloads as written */
	uint64_t file_bytes;		/* all bytes of the file so far */
	uint64_t dropped_records;
	uint64_t dropped_bytes;
};

/*
 * Starts a file on fd (which the writer does not close) by writing its
 * header.  info's host facts, clock, metadata and events are copied.
 */
int prf_writer_open(struct prf_writer **writer, int fd,
		    const struct prf_file_info *info,
		    const struct prf_writer_options *options,
		    struct prf_error *error);

/*
 * Appends one record (a kernel record or a prf_record_header record; its
 * size must match the one in its header and be a multiple of 8).  time is
 * the record's timestamp, 0 if unknown.  When the chunk is full it is
 * compressed and written; a failed write returns the error, the writer
 * cuts the file back to its last whole chunk and counts what it dropped.
 */
int prf_writer_append(struct prf_writer *writer, const void *record,
		      size_t size, uint64_t time);

/* Writes the records appended so far as a chunk (nothing if none). */
int prf_writer_flush(struct prf_writer *writer);

/* Flushes and writes the trailer that marks the file complete. */
int prf_writer_finish(struct prf_writer *writer);

/* Frees the writer; a file not finished stays readable to its last chunk. */
void prf_writer_close(struct prf_writer *writer);

void prf_writer_get_stats(const struct prf_writer *writer,
			  struct prf_writer_stats *stats);

/* Bytes appended but not yet written. */
size_t prf_writer_pending(const struct prf_writer *writer);

/* The message of the last failed call, naming the file and the cause. */
const char *prf_writer_last_error(const struct prf_writer *writer);

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */
/* ---------------------------------------------------------------------- */

struct prf_reader;

/*
 * Opens path read-only if it is a regular file, without blocking on the
 * way: a FIFO or a device found where a file should be is refused at
 * once, whoever planted it.  An fd (O_CLOEXEC), or a negative errno:
 * -EINVAL when path is no regular file.
 */
int prf_open_regular(const char *path);

/* Called once for each problem met while reading, in file order. */
typedef void (*prf_diag_fn)(void *context, uint64_t offset,
			    const char *message);

int prf_reader_open(struct prf_reader **reader, const char *path,
		    struct prf_error *error);
/* name is used in messages; the reader does not close fd. */
int prf_reader_open_fd(struct prf_reader **reader, int fd, const char *name,
		       struct prf_error *error);
void prf_reader_close(struct prf_reader *reader);

void prf_reader_set_diag(struct prf_reader *reader, prf_diag_fn fn,
			 void *context);

const struct prf_file_info *prf_reader_info(const struct prf_reader *reader);

/* The event a record belongs to (by its sample id), or NULL. */
const struct prf_event *prf_reader_event_for(const struct prf_reader *reader,
					     const void *record, size_t size);

struct prf_chunk {
	uint64_t offset;		/* of the chunk header in the file */
	uint64_t sequence;
	uint32_t flags;
	uint32_t codec;
	uint32_t record_count;		/* records it yields; skipped: its samples */
	uint32_t stored_size;
	uint64_t first_time, last_time;
	uint32_t raw_size;		/* of the payload as stored, decompressed */
	uint32_t stack_count;		/* compact samples: stacks defined; else 0 */
	/*
	 * The records, 8-byte aligned.  Compact samples come here expanded
	 * into the kernel's PERF_RECORD_SAMPLEs, byte for byte as they were
	 * given to the writer, and record_count counts them.
	 */
	const uint8_t *data;
	size_t size;
	const struct prf_stack_ref *stacks;	/* a record's stack; NULL: none */
	/* iteration state for prf_chunk_next_record() */
	size_t position;
	uint32_t index;
};

/*
 * Reads the next whole, valid chunk into chunk (valid until the next
 * call).  Returns 1 for a chunk, 0 at the end, a negative errno for an
 * I/O error.  A damaged chunk is reported through the diag callback and
 * skipped; reading resumes at the next chunk header found after it.
 */
int prf_reader_next_chunk(struct prf_reader *reader, struct prf_chunk *chunk);

/*
 * With skip set, chunks flagged PRF_CHUNK_SAMPLES come from
 * prf_reader_next_chunk() checked against their payload checksum but not
 * decompressed: their header fields are there (record_count, times), and
 * no records.  For a pass over everything but the samples.
 */
void prf_reader_skip_samples(struct prf_reader *reader, int skip);

/*
 * From now on a thread of the reader's own reads and decompresses the
 * next chunks while the caller works on the one it has (each chunk stays
 * valid until the next call, as without).  Returns 0, or a negative errno
 * when no thread could be started (reading goes on without).  The diag
 * callback is then called on that thread; prf_reader_skip_samples() must
 * come before.
 */
int prf_reader_read_ahead(struct prf_reader *reader);

/*
 * The callchain of a compact sample: its stack number in the chunk (1..,
 * 0 for none) and a 64-bit hash of its words, equal for equal callchains
 * in any chunk and file this process reads.  User addresses mean
 * something only with the sample's pid.
 */
struct prf_stack_ref {
	uint32_t id;
	uint32_t reserved;
	uint64_t hash;
};

struct prf_record {
	uint32_t type;
	uint16_t misc;
	const void *data;		/* the whole record, header included */
	size_t size;
	uint64_t offset;		/* within the chunk's records */
	struct prf_stack_ref stack;	/* compact samples only; else zero */
};

/*
 * Next record of chunk: 1 for a record, 0 at the end, -EBADMSG when a
 * record's size is impossible (the rest of the chunk is then unusable).
 */
int prf_chunk_next_record(struct prf_chunk *chunk, struct prf_record *record);

struct prf_read_stats {
	uint64_t file_size;
	uint64_t chunks;		/* valid data chunks returned */
	uint64_t records;
	uint64_t raw_bytes;
	uint64_t stored_bytes;
	uint64_t damaged_chunks;	/* skipped for a bad crc, length or codec */
	uint64_t skipped_bytes;		/* of damaged regions inside the file */
	uint64_t truncated_bytes;	/* of a cut-short chunk at the end */
	int complete;			/* a valid trailer ended the file */
	struct prf_trailer trailer;	/* if complete */
};

void prf_reader_get_stats(const struct prf_reader *reader,
			  struct prf_read_stats *stats);

/* ---------------------------------------------------------------------- */
/* Decoding perf records                                                   */
/* ---------------------------------------------------------------------- */

struct prf_regs {
	uint64_t abi;			/* PERF_SAMPLE_REGS_ABI_* */
	uint64_t mask;			/* from the attr */
	const uint64_t *regs;		/* one per set bit of mask, in bit order */
	uint32_t count;
};

/* A decoded PERF_RECORD_SAMPLE: pointers point into the record. */
struct prf_sample {
	uint64_t sample_type;		/* which fields below are valid */
	uint16_t misc;
	uint64_t identifier;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *read_values;	/* read_format, read_size u64s */
	uint32_t read_size;
	const uint64_t *callchain;	/* PERF_CONTEXT_* markers kept */
	uint64_t callchain_nr;
	const void *raw;
	uint32_t raw_size;
	const struct perf_branch_entry *branches;
	uint64_t branch_nr;
	uint64_t branch_hw_index;	/* if PERF_SAMPLE_BRANCH_HW_INDEX */
	struct prf_regs regs_user;
	const void *stack_user;
	uint64_t stack_user_size;	/* bytes copied */
	uint64_t stack_user_dyn_size;	/* bytes that were live */
	uint64_t weight;		/* PERF_SAMPLE_WEIGHT or the whole struct */
	uint64_t data_src;
	uint64_t transaction;
	struct prf_regs regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	const void *aux;
	uint64_t aux_size;
};

/* sample_id_all trailer of non-sample records. */
struct prf_sample_id {
	uint64_t sample_type;		/* the attr's, masked to the id fields */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t identifier;
};

/*
 * Decodes a PERF_RECORD_SAMPLE laid out by attr.  0 or -EBADMSG when the
 * record is shorter than its fields say, or a count is impossible.
 */
int prf_decode_sample(const struct perf_event_attr *attr, const void *record,
		      size_t size, struct prf_sample *sample);

/*
 * A sample's ip and callchain without the rest of prf_decode_sample():
 * ip 0 without PERF_SAMPLE_IP, callchain NULL and nr 0 without
 * PERF_SAMPLE_CALLCHAIN.  -EBADMSG when the record is too short for them.
 * The fields after the callchain are not checked.
 */
int prf_sample_callchain(const struct perf_event_attr *attr, const void *record,
			 size_t size, uint64_t *ip, const uint64_t **callchain,
			 uint64_t *nr);

/*
 * The user-stack trim of perfrec-format(5), "User stack samples": a sample
 * with PERF_SAMPLE_STACK_USER carries {u64 size; char data[size]; u64
 * dyn_size}, of which only dyn_size bytes were copied from the stack.
 * Writes the sample to out with size lowered to dyn_size rounded up to 8
 * (8 when dyn_size is 0), the bytes between dyn_size and that zeroed, the rest of data dropped,
 * header.size lowered to match and every other byte kept.  Returns the new
 * size; 0 when there is nothing to drop (out untouched: keep the record);
 * -EBADMSG or -EOPNOTSUPP when the sample does not decode by attr;
 * -ENOSPC when out_size is too small.
 */
int prf_sample_trim_stack_user(const struct perf_event_attr *attr,
			       const void *record, size_t size,
			       void *out, size_t out_size);

/*
 * Decodes the sample_id trailer of a non-sample record.  body_size receives
 * the size of the record without the trailer.  With !attr->sample_id_all
 * the id is empty and body_size is size.
 */
int prf_decode_sample_id(const struct perf_event_attr *attr,
			 const void *record, size_t size,
			 struct prf_sample_id *id, size_t *body_size);

/* Decoded kernel records other than samples; strings are NUL-checked. */
struct prf_mmap {
	uint32_t pid, tid;
	uint64_t start, length, page_offset;
	int has_build_id;		/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint32_t major, minor;
	uint64_t inode, inode_generation;
	uint8_t build_id[PRF_BUILD_ID_MAX];
	uint8_t build_id_size;
	uint32_t prot, flags;		/* 0 for plain MMAP */
	const char *filename;
};

struct prf_comm {
	uint32_t pid, tid;
	int exec;			/* PERF_RECORD_MISC_COMM_EXEC */
	const char *comm;
};

struct prf_task {			/* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct prf_lost {			/* LOST: id, lost; LOST_SAMPLES: lost */
	uint64_t id;
	uint64_t lost;
};

struct prf_throttle {			/* THROTTLE and UNTHROTTLE */
	uint64_t time, id, stream_id;
};

struct prf_ksymbol {
	uint64_t addr;
	uint32_t length;
	uint16_t ksym_type, flags;
	const char *name;
};

struct prf_cgroup {
	uint64_t id;
	const char *path;
};

struct prf_switch {			/* SWITCH and SWITCH_CPU_WIDE */
	int out;			/* PERF_RECORD_MISC_SWITCH_OUT */
	int preempt;			/* PERF_RECORD_MISC_SWITCH_OUT_PREEMPT */
	uint32_t next_prev_pid, next_prev_tid;	/* CPU_WIDE only */
};

struct prf_namespaces {
	uint32_t pid, tid;
	uint64_t count;
	const struct perf_ns_link_info *links;
};

struct prf_decoded {
	uint32_t type;
	union {
		struct prf_sample sample;
		struct prf_mmap mmap;
		struct prf_comm comm;
		struct prf_task task;
		struct prf_lost lost;
		struct prf_throttle throttle;
		struct prf_ksymbol ksymbol;
		struct prf_cgroup cgroup;
		struct prf_switch context_switch;
		struct prf_namespaces namespaces;
	};
	struct prf_sample_id id;	/* trailer; for samples, empty */
};

/*
 * Decodes any kernel record type listed in struct prf_decoded.  Returns 1
 * when decoded, 0 for a type it does not know (skip it), -EBADMSG for a
 * record too short for its type.
 */
int prf_decode_record(const struct perf_event_attr *attr, const void *record,
		      size_t size, struct prf_decoded *decoded);

/*
 * Writes the sample_id_all trailer that attr gives non-sample records
 * (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER as selected by sample_type)
 * to out, which has room for PRF_SAMPLE_ID_MAX bytes.  Returns its size:
 * 0 without attr->sample_id_all.  For records a collector synthesizes.
 */
#define PRF_SAMPLE_ID_MAX	48
size_t prf_encode_sample_id(const struct perf_event_attr *attr,
			    const struct prf_sample_id *id, void *out);

/* "SAMPLE", "MMAP2", "BUILD_ID", ... or NULL for an unknown type. */
const char *prf_record_type_name(uint32_t type);

#ifdef __cplusplus
}
#endif

#endif /* PERFREC_FORMAT_H */
