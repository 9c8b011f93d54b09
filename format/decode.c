/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decoding of kernel perf records: PERF_RECORD_SAMPLE as laid out by its
 * perf_event_attr, the sample_id_all trailer of the other records, and the
 * side-band records a profiler needs (mappings, tasks, losses, ...).
 *
 * The records come from files, so nothing in them is trusted.  Every read
 * goes through a cursor that knows how many bytes are left; every count is
 * checked against those bytes by division, so that a count times an element
 * size can never wrap around.  Once a read fails the cursor stays failed,
 * which keeps the decoders a flat list of fields in the kernel's order.
 *
 * The layouts are those of linux/perf_event.h and perf_event_open(2), with
 * the order of the last sample fields taken from perf_output_sample() in
 * kernel/events/core.c, which the uapi comment gets wrong: CGROUP, then the
 * page sizes, then AUX.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

/*
 * PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8) appends one u64 per branch entry.
 * Not every linux/perf_event.h knows it, and it is an enum, so spell it.
 */
#define PRF_SAMPLE_BRANCH_COUNTERS	(1ULL << 19)

/* The sample fields this decoder knows where to find. */
#define PRF_SAMPLE_KNOWN	((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1)

#define PRF_READ_FORMAT_KNOWN	(PERF_FORMAT_TOTAL_TIME_ENABLED |	\
				 PERF_FORMAT_TOTAL_TIME_RUNNING |	\
				 PERF_FORMAT_ID | PERF_FORMAT_GROUP |	\
				 PERF_FORMAT_LOST)

/* The sample_type bits that also make up the sample_id_all trailer. */
#define PRF_SAMPLE_ID_FIELDS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME |	\
				 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Bytes of a record not yet decoded. */
struct cursor {
	const uint8_t *data;
	size_t left;
	int error;
};

static void cursor_init(struct cursor *cursor, const void *data, size_t size)
{
	cursor->data = data;
	cursor->left = size;
	cursor->error = 0;
}

/* Marks the record malformed; every later read then fails too. */
static void cursor_fail(struct cursor *cursor)
{
	cursor->left = 0;
	cursor->error = -EBADMSG;
}

/*
 * Consumes count elements of element_size bytes and returns where they
 * start, or NULL if the record does not hold them.
 */
static const void *take(struct cursor *cursor, uint64_t count,
			size_t element_size)
{
	const uint8_t *start = cursor->data;

	if (cursor->error || count > cursor->left / element_size) {
		cursor_fail(cursor);
		return NULL;
	}
	cursor->data += count * element_size;
	cursor->left -= count * element_size;
	return start;
}

static uint64_t read_u64(struct cursor *cursor)
{
	const void *field = take(cursor, 1, sizeof(uint64_t));
	uint64_t value = 0;

	if (field)
		memcpy(&value, field, sizeof(value));
	return value;
}

static uint32_t read_u32(struct cursor *cursor)
{
	const void *field = take(cursor, 1, sizeof(uint32_t));
	uint32_t value = 0;

	if (field)
		memcpy(&value, field, sizeof(value));
	return value;
}

static uint16_t read_u16(struct cursor *cursor)
{
	const void *field = take(cursor, 1, sizeof(uint16_t));
	uint16_t value = 0;

	if (field)
		memcpy(&value, field, sizeof(value));
	return value;
}

/* A string that must end, NUL included, within the bytes left. */
static const char *read_string(struct cursor *cursor)
{
	const char *string = (const char *)cursor->data;

	if (cursor->error || !memchr(string, '\0', cursor->left)) {
		cursor_fail(cursor);
		return NULL;
	}
	take(cursor, cursor->left, 1);
	return string;
}

/*
 * The framing every kernel record must have.  The 8-byte alignment is what
 * makes the uint64_t pointers handed out into the record valid.
 */
static int check_frame(const void *record, size_t size)
{
	struct perf_event_header header;

	if (!record)
		return -EINVAL;
	if (size < sizeof(header) || size % 8 || (uintptr_t)record % 8)
		return -EBADMSG;
	memcpy(&header, record, sizeof(header));
	if (header.size != size)
		return -EBADMSG;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* PERF_RECORD_SAMPLE                                                      */
/* ---------------------------------------------------------------------- */

/*
 * struct read_format: one value with its optional extras, or with
 * PERF_FORMAT_GROUP a count nr and nr values, each with its extras.
 */
static void read_values(struct cursor *cursor, uint64_t read_format,
			struct prf_sample *sample)
{
	uint64_t times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t per_value = 1 + !!(read_format & PERF_FORMAT_ID) +
			     !!(read_format & PERF_FORMAT_LOST);
	const uint8_t *start = cursor->data;

	if (read_format & PERF_FORMAT_GROUP) {
		uint64_t nr = read_u64(cursor);

		take(cursor, times, sizeof(uint64_t));
		take(cursor, nr, per_value * sizeof(uint64_t));
	} else {
		take(cursor, times + per_value, sizeof(uint64_t));
	}
	if (cursor->error)
		return;
	sample->read_values = (const uint64_t *)start;
	sample->read_size = (cursor->data - start) / sizeof(uint64_t);
}

static void read_callchain(struct cursor *cursor, struct prf_sample *sample)
{
	sample->callchain_nr = read_u64(cursor);
	sample->callchain = take(cursor, sample->callchain_nr,
				 sizeof(uint64_t));
}

/* The kernel pads raw data so that the u32 size and data end 8-aligned. */
static void read_raw(struct cursor *cursor, struct prf_sample *sample)
{
	sample->raw_size = read_u32(cursor);
	if ((sizeof(uint32_t) + (uint64_t)sample->raw_size) % 8) {
		cursor_fail(cursor);
		return;
	}
	sample->raw = take(cursor, sample->raw_size, 1);
}

static void read_branch_stack(struct cursor *cursor,
			      const struct perf_event_attr *attr,
			      struct prf_sample *sample)
{
	sample->branch_nr = read_u64(cursor);
	if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		sample->branch_hw_index = read_u64(cursor);
	sample->branches = take(cursor, sample->branch_nr,
				sizeof(struct perf_branch_entry));
	/* Skipped: struct prf_sample has no place for the counters yet. */
	if (attr->branch_sample_type & PRF_SAMPLE_BRANCH_COUNTERS)
		take(cursor, sample->branch_nr, sizeof(uint64_t));
}

/* The kernel writes the registers only when it has them (abi != NONE). */
static void read_regs(struct cursor *cursor, uint64_t mask,
		      struct prf_regs *regs)
{
	regs->abi = read_u64(cursor);
	regs->mask = mask;
	if (regs->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	regs->count = __builtin_popcountll(mask);
	regs->regs = take(cursor, regs->count, sizeof(uint64_t));
}

/*
 * A size of 0 (a kernel thread, or no room left) comes without dyn_size.
 * The kernel copies whole u64s, which keeps the next fields aligned.
 */
static void read_stack_user(struct cursor *cursor, struct prf_sample *sample)
{
	sample->stack_user_size = read_u64(cursor);
	if (!sample->stack_user_size)
		return;
	if (sample->stack_user_size % 8) {
		cursor_fail(cursor);
		return;
	}
	sample->stack_user = take(cursor, sample->stack_user_size, 1);
	sample->stack_user_dyn_size = read_u64(cursor);
	if (sample->stack_user_dyn_size > sample->stack_user_size)
		cursor_fail(cursor);
}

/* perf_prepare_sample_aux() rounds the size up to u64 and pads the data. */
static void read_aux(struct cursor *cursor, struct prf_sample *sample)
{
	sample->aux_size = read_u64(cursor);
	if (sample->aux_size % 8) {
		cursor_fail(cursor);
		return;
	}
	sample->aux = take(cursor, sample->aux_size, 1);
}

/* The fields up to PERIOD: fixed size, a u64 or a pair of u32 each. */
static void read_sample_head(struct cursor *cursor, uint64_t type,
			     struct prf_sample *sample)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		sample->identifier = read_u64(cursor);
	if (type & PERF_SAMPLE_IP)
		sample->ip = read_u64(cursor);
	if (type & PERF_SAMPLE_TID) {
		sample->pid = read_u32(cursor);
		sample->tid = read_u32(cursor);
	}
	if (type & PERF_SAMPLE_TIME)
		sample->time = read_u64(cursor);
	if (type & PERF_SAMPLE_ADDR)
		sample->addr = read_u64(cursor);
	if (type & PERF_SAMPLE_ID)
		sample->id = read_u64(cursor);
	if (type & PERF_SAMPLE_STREAM_ID)
		sample->stream_id = read_u64(cursor);
	if (type & PERF_SAMPLE_CPU) {
		sample->cpu = read_u32(cursor);
		read_u32(cursor);	/* res */
	}
	if (type & PERF_SAMPLE_PERIOD)
		sample->period = read_u64(cursor);
}

static void read_sample_tail(struct cursor *cursor,
			     const struct perf_event_attr *attr,
			     struct prf_sample *sample)
{
	uint64_t type = attr->sample_type;

	if (type & PERF_SAMPLE_READ)
		read_values(cursor, attr->read_format, sample);
	if (type & PERF_SAMPLE_CALLCHAIN)
		read_callchain(cursor, sample);
	if (type & PERF_SAMPLE_RAW)
		read_raw(cursor, sample);
	if (type & PERF_SAMPLE_BRANCH_STACK)
		read_branch_stack(cursor, attr, sample);
	if (type & PERF_SAMPLE_REGS_USER)
		read_regs(cursor, attr->sample_regs_user, &sample->regs_user);
	if (type & PERF_SAMPLE_STACK_USER)
		read_stack_user(cursor, sample);
	if (type & PERF_SAMPLE_WEIGHT_TYPE)
		sample->weight = read_u64(cursor);
	if (type & PERF_SAMPLE_DATA_SRC)
		sample->data_src = read_u64(cursor);
	if (type & PERF_SAMPLE_TRANSACTION)
		sample->transaction = read_u64(cursor);
	if (type & PERF_SAMPLE_REGS_INTR)
		read_regs(cursor, attr->sample_regs_intr, &sample->regs_intr);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		sample->phys_addr = read_u64(cursor);
	if (type & PERF_SAMPLE_CGROUP)
		sample->cgroup = read_u64(cursor);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		sample->data_page_size = read_u64(cursor);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		sample->code_page_size = read_u64(cursor);
	if (type & PERF_SAMPLE_AUX)
		read_aux(cursor, sample);
}

/*
 * The kernel sizes a sample exactly from its fields, so bytes left over
 * mean the attr does not describe the record: reject rather than guess.
 */
int prf_decode_sample(const struct perf_event_attr *attr, const void *record,
		      size_t size, struct prf_sample *sample)
{
	struct perf_event_header header;
	struct cursor cursor;
	int err;

	if (!attr || !sample)
		return -EINVAL;
	memset(sample, 0, sizeof(*sample));
	err = check_frame(record, size);
	if (err)
		return err;
	memcpy(&header, record, sizeof(header));
	if (header.type != PERF_RECORD_SAMPLE)
		return -EINVAL;
	/* A field we do not know would shift every field after it. */
	if (attr->sample_type & ~PRF_SAMPLE_KNOWN)
		return -EOPNOTSUPP;
	if ((attr->sample_type & PERF_SAMPLE_READ) &&
	    (attr->read_format & ~(uint64_t)PRF_READ_FORMAT_KNOWN))
		return -EOPNOTSUPP;

	sample->sample_type = attr->sample_type;
	sample->misc = header.misc;
	cursor_init(&cursor, (const uint8_t *)record + sizeof(header),
		    size - sizeof(header));
	read_sample_head(&cursor, attr->sample_type, sample);
	read_sample_tail(&cursor, attr, sample);
	if (!cursor.error && cursor.left)
		cursor_fail(&cursor);
	if (cursor.error) {
		memset(sample, 0, sizeof(*sample));
		return cursor.error;
	}
	return 0;
}

/*
 * The head's fields are one u64 each, so the callchain's offset follows
 * from sample_type alone unless PERF_SAMPLE_READ (variable) comes first.
 */
int prf_sample_callchain(const struct perf_event_attr *attr, const void *record,
			 size_t size, uint64_t *ip, const uint64_t **callchain,
			 uint64_t *nr)
{
	uint64_t type = attr->sample_type;
	size_t at = sizeof(struct perf_event_header) +
		    8 * (size_t)__builtin_popcountll(type & PRF_COMPACT_HEAD_FIELDS);
	const uint8_t *bytes = record;
	uint64_t count = 0;

	*ip = 0;
	*callchain = NULL;
	*nr = 0;
	if (type & PERF_SAMPLE_READ) {
		struct prf_sample s;
		int err = prf_decode_sample(attr, record, size, &s);

		if (err < 0)
			return err;
		*ip = (type & PERF_SAMPLE_IP) ? s.ip : 0;
		*callchain = s.callchain;
		*nr = (type & PERF_SAMPLE_CALLCHAIN) ? s.callchain_nr : 0;
		return 0;
	}
	if (size < at)
		return -EBADMSG;
	if (type & PERF_SAMPLE_IP)
		memcpy(ip, bytes + sizeof(struct perf_event_header) +
			   ((type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0), 8);
	if (!(type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	if (size - at < 8)
		return -EBADMSG;
	memcpy(&count, bytes + at, 8);
	if (count > (size - at - 8) / 8)
		return -EBADMSG;
	*callchain = (const uint64_t *)(bytes + at + 8);
	*nr = count;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The sample_id_all trailer                                               */
/* ---------------------------------------------------------------------- */

static size_t sample_id_size(uint64_t sample_type)
{
	return __builtin_popcountll(sample_type & PRF_SAMPLE_ID_FIELDS) *
	       sizeof(uint64_t);
}

static void read_sample_id(struct cursor *cursor, struct prf_sample_id *id)
{
	uint64_t type = id->sample_type;

	if (type & PERF_SAMPLE_TID) {
		id->pid = read_u32(cursor);
		id->tid = read_u32(cursor);
	}
	if (type & PERF_SAMPLE_TIME)
		id->time = read_u64(cursor);
	if (type & PERF_SAMPLE_ID)
		id->id = read_u64(cursor);
	if (type & PERF_SAMPLE_STREAM_ID)
		id->stream_id = read_u64(cursor);
	if (type & PERF_SAMPLE_CPU) {
		id->cpu = read_u32(cursor);
		read_u32(cursor);	/* res */
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		id->identifier = read_u64(cursor);
}

/* A NULL attr stands for one without sample_id_all: no trailer. */
int prf_decode_sample_id(const struct perf_event_attr *attr,
			 const void *record, size_t size,
			 struct prf_sample_id *id, size_t *body_size)
{
	struct cursor cursor;
	size_t trailer_size;
	int err;

	if (!id || !body_size)
		return -EINVAL;
	memset(id, 0, sizeof(*id));
	*body_size = 0;
	err = check_frame(record, size);
	if (err)
		return err;
	if (!attr || !attr->sample_id_all) {
		*body_size = size;
		return 0;
	}

	trailer_size = sample_id_size(attr->sample_type);
	if (size - sizeof(struct perf_event_header) < trailer_size)
		return -EBADMSG;
	id->sample_type = attr->sample_type & PRF_SAMPLE_ID_FIELDS;
	cursor_init(&cursor, (const uint8_t *)record + size - trailer_size,
		    trailer_size);
	read_sample_id(&cursor, id);
	*body_size = size - trailer_size;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Other kernel records                                                    */
/* ---------------------------------------------------------------------- */

static void read_mmap(struct cursor *cursor, struct prf_mmap *mmap)
{
	mmap->pid = read_u32(cursor);
	mmap->tid = read_u32(cursor);
	mmap->start = read_u64(cursor);
	mmap->length = read_u64(cursor);
	mmap->page_offset = read_u64(cursor);
}

/* The build-id variant: u8 size, u8 and u16 reserved, u8 build_id[20]. */
static void read_mmap2_build_id(struct cursor *cursor, struct prf_mmap *mmap)
{
	const uint8_t *field = take(cursor, 24, 1);

	if (!field)
		return;
	if (field[0] > PRF_BUILD_ID_MAX) {
		cursor_fail(cursor);
		return;
	}
	mmap->has_build_id = 1;
	mmap->build_id_size = field[0];
	memcpy(mmap->build_id, field + 4, mmap->build_id_size);
}

/*
 * The body holds a build-id only if the event asked for one: Linux 6.18
 * also sets MMAP_BUILD_ID in the MMAP2 records of events that did not
 * (while any event on the machine asks, e.g. perf record --buildid-mmap),
 * over bodies that hold the device and inode.  Without the attr, the flag
 * is believed.
 */
static void read_mmap2(struct cursor *cursor, const struct perf_event_attr *attr,
		       uint16_t misc, struct prf_mmap *mmap)
{
	read_mmap(cursor, mmap);
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID && (!attr || attr->build_id)) {
		read_mmap2_build_id(cursor, mmap);
	} else {
		mmap->major = read_u32(cursor);
		mmap->minor = read_u32(cursor);
		mmap->inode = read_u64(cursor);
		mmap->inode_generation = read_u64(cursor);
	}
	mmap->prot = read_u32(cursor);
	mmap->flags = read_u32(cursor);
}

static void read_task(struct cursor *cursor, struct prf_task *task)
{
	task->pid = read_u32(cursor);
	task->ppid = read_u32(cursor);
	task->tid = read_u32(cursor);
	task->ptid = read_u32(cursor);
	task->time = read_u64(cursor);
}

static void read_throttle(struct cursor *cursor, struct prf_throttle *throttle)
{
	throttle->time = read_u64(cursor);
	throttle->id = read_u64(cursor);
	throttle->stream_id = read_u64(cursor);
}

static void read_ksymbol(struct cursor *cursor, struct prf_ksymbol *ksymbol)
{
	ksymbol->addr = read_u64(cursor);
	ksymbol->length = read_u32(cursor);
	ksymbol->ksym_type = read_u16(cursor);
	ksymbol->flags = read_u16(cursor);
	ksymbol->name = read_string(cursor);
}

static void read_switch(struct cursor *cursor, uint32_t type, uint16_t misc,
			struct prf_switch *context_switch)
{
	context_switch->out = !!(misc & PERF_RECORD_MISC_SWITCH_OUT);
	context_switch->preempt = !!(misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	if (type == PERF_RECORD_SWITCH_CPU_WIDE) {
		context_switch->next_prev_pid = read_u32(cursor);
		context_switch->next_prev_tid = read_u32(cursor);
	}
}

static void read_namespaces(struct cursor *cursor,
			    struct prf_namespaces *namespaces)
{
	namespaces->pid = read_u32(cursor);
	namespaces->tid = read_u32(cursor);
	namespaces->count = read_u64(cursor);
	namespaces->links = take(cursor, namespaces->count,
				 sizeof(struct perf_ns_link_info));
}

/* The side-band record types struct prf_decoded describes. */
#define PRF_SIDE_BAND_TYPES	(1u << PERF_RECORD_MMAP |		\
				 1u << PERF_RECORD_MMAP2 |		\
				 1u << PERF_RECORD_COMM |		\
				 1u << PERF_RECORD_FORK |		\
				 1u << PERF_RECORD_EXIT |		\
				 1u << PERF_RECORD_LOST |		\
				 1u << PERF_RECORD_LOST_SAMPLES |	\
				 1u << PERF_RECORD_THROTTLE |		\
				 1u << PERF_RECORD_UNTHROTTLE |		\
				 1u << PERF_RECORD_KSYMBOL |		\
				 1u << PERF_RECORD_CGROUP |		\
				 1u << PERF_RECORD_SWITCH |		\
				 1u << PERF_RECORD_SWITCH_CPU_WIDE |	\
				 1u << PERF_RECORD_NAMESPACES)

static int is_side_band(uint32_t type)
{
	return type < 32 && (PRF_SIDE_BAND_TYPES & (1u << type));
}

static void read_side_band(struct cursor *cursor, const struct perf_event_attr *attr,
			   const struct perf_event_header *header,
			   struct prf_decoded *decoded)
{
	switch (header->type) {
	case PERF_RECORD_MMAP:
		read_mmap(cursor, &decoded->mmap);
		decoded->mmap.filename = read_string(cursor);
		break;
	case PERF_RECORD_MMAP2:
		read_mmap2(cursor, attr, header->misc, &decoded->mmap);
		decoded->mmap.filename = read_string(cursor);
		break;
	case PERF_RECORD_COMM:
		decoded->comm.pid = read_u32(cursor);
		decoded->comm.tid = read_u32(cursor);
		decoded->comm.exec = !!(header->misc & PERF_RECORD_MISC_COMM_EXEC);
		decoded->comm.comm = read_string(cursor);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		read_task(cursor, &decoded->task);
		break;
	case PERF_RECORD_LOST:
		decoded->lost.id = read_u64(cursor);
		decoded->lost.lost = read_u64(cursor);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		decoded->lost.lost = read_u64(cursor);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		read_throttle(cursor, &decoded->throttle);
		break;
	case PERF_RECORD_KSYMBOL:
		read_ksymbol(cursor, &decoded->ksymbol);
		break;
	case PERF_RECORD_CGROUP:
		decoded->cgroup.id = read_u64(cursor);
		decoded->cgroup.path = read_string(cursor);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		read_switch(cursor, header->type, header->misc,
			    &decoded->context_switch);
		break;
	case PERF_RECORD_NAMESPACES:
		read_namespaces(cursor, &decoded->namespaces);
		break;
	}
}

/*
 * The body of a side-band record may be longer than its fields: without
 * the attr (attr == NULL) a trailer is left in it.  A kernel record of a
 * type not decoded here still has its framing checked, then returns 0.
 */
int prf_decode_record(const struct perf_event_attr *attr, const void *record,
		      size_t size, struct prf_decoded *decoded)
{
	struct perf_event_header header;
	struct cursor cursor;
	size_t body_size;
	int err;

	if (!record || !decoded)
		return -EINVAL;
	memset(decoded, 0, sizeof(*decoded));
	if (size < sizeof(header))
		return -EBADMSG;
	memcpy(&header, record, sizeof(header));
	decoded->type = header.type;
	/* perfrec's own records are framed differently; not ours to judge. */
	if (header.type >= PRF_RECORD_BASE)
		return 0;
	if (header.type == PERF_RECORD_SAMPLE) {
		err = prf_decode_sample(attr, record, size, &decoded->sample);
		return err ? err : 1;
	}
	err = check_frame(record, size);
	if (err)
		return err;
	if (!is_side_band(header.type))
		return 0;

	err = prf_decode_sample_id(attr, record, size, &decoded->id,
				   &body_size);
	if (err)
		return err;
	cursor_init(&cursor, (const uint8_t *)record + sizeof(header),
		    body_size - sizeof(header));
	read_side_band(&cursor, attr, &header, decoded);
	if (cursor.error) {
		memset(decoded, 0, sizeof(*decoded));
		decoded->type = header.type;
		return cursor.error;
	}
	return 1;
}
