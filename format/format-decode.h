/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoding and encoding the kernel's perf records by their event's sample_type. */
#ifndef PRF_FORMAT_DECODE_H
#define PRF_FORMAT_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "perfrec-format.h"

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

/*
 * The generic hardware and software events of perf_event_open(2) by the
 * names perf takes, its aliases included ("cycles", "cs"): *count of
 * them.  Of the names of one (type, config), the first is perf list's.
 */
struct prf_event_name {
	const char *name;
	uint32_t type;			/* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
};
const struct prf_event_name *prf_event_names(size_t *count);
/* perf list's name of a generic event ("cpu-cycles", "cpu-clock"), or NULL. */
const char *prf_event_name(uint32_t type, uint64_t config);

/* Events whose period is nanoseconds between samples. */
static inline int prf_event_is_clock(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE &&
	       (attr->config == PERF_COUNT_SW_CPU_CLOCK || attr->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* ---------------------------------------------------------------------- */
/* perfrec's tracing records                                               */
/* ---------------------------------------------------------------------- */

/* A decoded TRACEPOINT_FORMAT: pointers into the record, NUL-terminated. */
struct prf_tracepoint_format {
	uint64_t config;		/* the event's perf_event_attr.config */
	const char *name;		/* "sched:sched_switch" */
	const char *text;		/* tracefs' format file as it was */
	size_t text_size;		/* without the NUL */
};

/* 0, or -EBADMSG when a size is impossible or a string unterminated. */
int prf_decode_tracepoint_format(const void *data, size_t size,
				 struct prf_tracepoint_format *out);
/* The record's size, -ENOSPC when out is too small, -E2BIG for a text past the bounds. */
ssize_t prf_encode_tracepoint_format(uint64_t config, const char *name, const char *text,
				     size_t text_size, void *out, size_t out_size);

/*
 * A tracepoint's fields, parsed from its format text (a TRACEPOINT_FORMAT
 * record's, which a file may forge): each "field:TYPE NAME[N]; offset:O;
 * size:S; signed:B;" line.  The values are read from a sample's
 * PERF_SAMPLE_RAW data with prf_tracepoint_field_value(), which checks
 * every offset and size against that data.
 */
#define PRF_TRACEPOINT_FIELDS_MAX	128	/* the kernel's largest have ~40 */
#define PRF_TRACEPOINT_FIELD_NAME_MAX	64	/* with the NUL */

enum prf_tracepoint_field_kind {
	PRF_TP_INTEGER,			/* 1, 2, 4 or 8 bytes; signed or not */
	PRF_TP_POINTER,			/* a pointer type: printed in hex */
	PRF_TP_STRING,			/* char NAME[N], or dynamic: up to its first NUL */
	PRF_TP_BYTES,			/* anything else (other arrays, odd sizes) */
};

struct prf_tracepoint_field {
	char name[PRF_TRACEPOINT_FIELD_NAME_MAX];
	uint32_t offset, size;		/* in the raw data, as the format says */
	enum prf_tracepoint_field_kind kind;
	int is_signed;
	int is_common;			/* common_pid ...: perf script leaves them out */
	/*
	 * __data_loc TYPE[] NAME: the field is a u32, the data's offset in
	 * its low 16 bits and length in its high ones; __rel_loc: that
	 * offset counts from the field's end.
	 */
	int dynamic, relative;
};

struct prf_tracepoint_fields {
	struct prf_tracepoint_field *fields;
	size_t count;
};

/*
 * 0 and *out (free with prf_tracepoint_fields_free()), -EBADMSG when the
 * text names no field or a line is malformed, -E2BIG past
 * PRF_TRACEPOINT_FIELDS_MAX fields, -ENOMEM.  Lines it does not know
 * ("name:", "ID:", "print fmt:") are skipped; a field whose name is too
 * long or whose offset or size does not parse makes the text malformed.
 */
int prf_tracepoint_fields_parse(const char *text, size_t size,
				struct prf_tracepoint_fields **out);
void prf_tracepoint_fields_free(struct prf_tracepoint_fields *fields);

/* One field's value in a sample's raw data; bytes point into that data. */
struct prf_tracepoint_value {
	enum prf_tracepoint_field_kind kind;
	int64_t i;			/* PRF_TP_INTEGER signed */
	uint64_t u;			/* PRF_TP_INTEGER unsigned, PRF_TP_POINTER */
	const uint8_t *bytes;		/* strings (without their NUL) and bytes */
	size_t length;
};

/* 0, or -ERANGE when the field (or a string it points to) lies outside raw. */
int prf_tracepoint_field_value(const struct prf_tracepoint_field *field, const void *raw,
			       size_t raw_size, struct prf_tracepoint_value *value);

/* A decoded OFF_CPU record: pointers into the record (8-aligned, as in a chunk). */
struct prf_off_cpu {
	uint64_t time, duration;
	uint32_t pid, tid, cpu;
	uint32_t flags;			/* enum prf_off_cpu_flag */
	uint64_t cgroup;
	uint32_t waker_pid, waker_tid;	/* 0 without PRF_OFF_CPU_WAKER */
	char waker_comm[17];		/* always NUL-terminated */
	const uint64_t *callchain;	/* PERF_CONTEXT_* markers kept */
	size_t callchain_nr;
	const uint64_t *waker_callchain;
	size_t waker_callchain_nr;
	struct prf_regs user_regs;	/* abi 0: none */
	const void *user_stack;
	uint64_t user_stack_size;
};

/*
 * 0, or -EBADMSG when a count passes the record's size or the bounds of
 * perfrec-format.h, or the record is not 8-aligned.
 */
int prf_decode_off_cpu(const void *data, size_t size, struct prf_off_cpu *out);
/* What prf_encode_off_cpu() will write for in. */
size_t prf_off_cpu_record_size(const struct prf_off_cpu *in);
/* The record's size; -ENOSPC when out is too small, -EINVAL past the bounds. */
ssize_t prf_encode_off_cpu(const struct prf_off_cpu *in, void *out, size_t out_size);

/* ---------------------------------------------------------------------- */
/* Reading a callchain                                                     */
/* ---------------------------------------------------------------------- */

/* Whether a record's misc says it was taken in a kernel (host or guest). */
static inline int prf_misc_is_kernel(uint16_t misc)
{
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
}

/*
 * A callchain as every tool here reads it: the kernel's PERF_CONTEXT_*
 * entries switch between kernel and user; a context's first entry is
 * where it was interrupted and the others are return addresses, looked
 * up one byte before (the call itself).  Other values at or above
 * PERF_CONTEXT_MAX (the reader's unwinder marks where it stopped so) come
 * back as markers; zeros are skipped.
 */
struct prf_callchain_walk {
	const uint64_t *chain;
	size_t nr, i;
	int kernel, first;
};

struct prf_frame {
	uint64_t address;	/* as recorded */
	uint64_t pc;		/* to look up: address, less 1 for a return address */
	int kernel;
	int first;		/* where its context was interrupted */
	int marker;		/* no address: a value past PERF_CONTEXT_MAX */
};

/* kernel: the mode before the first context entry (prf_misc_is_kernel()). */
static inline void prf_callchain_walk_start(struct prf_callchain_walk *w, const uint64_t *chain,
					    size_t nr, int kernel)
{
	*w = (struct prf_callchain_walk){ .chain = chain, .nr = nr, .kernel = kernel, .first = 1 };
}

static inline int prf_callchain_is_context(uint64_t v)
{
	switch (v) {
	case PERF_CONTEXT_HV:
	case PERF_CONTEXT_KERNEL:
	case PERF_CONTEXT_USER:
	case PERF_CONTEXT_GUEST:
	case PERF_CONTEXT_GUEST_KERNEL:
	case PERF_CONTEXT_GUEST_USER:
		return 1;
	default:
		return 0;
	}
}

/* 1 and *frame for the next frame or marker; 0 at the chain's end. */
static inline int prf_callchain_next(struct prf_callchain_walk *w, struct prf_frame *frame)
{
	while (w->i < w->nr) {
		uint64_t v = w->chain[w->i++];

		if (v >= PERF_CONTEXT_MAX) {
			if (!prf_callchain_is_context(v)) {
				*frame = (struct prf_frame){ .address = v, .pc = v,
							     .kernel = w->kernel, .marker = 1 };
				return 1;
			}
			w->kernel = v == PERF_CONTEXT_KERNEL || v == PERF_CONTEXT_GUEST_KERNEL;
			w->first = 1;
			continue;
		}
		if (!v)
			continue;
		*frame = (struct prf_frame){ .address = v, .pc = w->first ? v : v - 1,
					     .kernel = w->kernel, .first = w->first };
		w->first = 0;
		return 1;
	}
	return 0;
}

#endif
