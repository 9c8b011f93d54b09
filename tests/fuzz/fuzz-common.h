/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the fuzz target and the corpus generator: the record layouts
 * the target decodes every record with, and the checksum fix-up that lets
 * mutated (or forged) chunks past the crc checks to the code behind them.
 */
#ifndef PRF_FUZZ_COMMON_H
#define PRF_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "format.h"

#define FUZZ_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define FUZZ_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Every sample field the decoder knows, WEIGHT rather than WEIGHT_STRUCT. */
#define FUZZ_ALL_SAMPLE_FIELDS \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
	 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
	 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |	\
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |		\
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |			\
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |		\
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |		\
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |		\
	 PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* What perfrecd asks for: the layout of most real files. */
#define FUZZ_COLLECTOR_SAMPLE_FIELDS \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
	 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CGROUP)

/* PERF_SAMPLE_BRANCH_COUNTERS: not in every linux/perf_event.h. */
#define FUZZ_SAMPLE_BRANCH_COUNTERS	(1ULL << 19)

enum fuzz_attr {
	FUZZ_ATTR_ALL_GROUP,		/* every field, READ as a group */
	FUZZ_ATTR_ALL_STRUCT,		/* WEIGHT_STRUCT, branch counters */
	FUZZ_ATTR_COLLECTOR,
	FUZZ_ATTR_MINIMAL,		/* no sample_id_all */
};

/*
 * Besides the attr of the record's own event, every record is decoded as
 * if laid out by each of these, so that the long paths of the sample
 * decoder run on whatever bytes the fuzzer makes, not only on files whose
 * events ask for many fields.
 */
static const struct perf_event_attr fuzz_attrs[] = {
	[FUZZ_ATTR_ALL_GROUP] = {
		.size = sizeof(struct perf_event_attr),
		.sample_type = FUZZ_ALL_SAMPLE_FIELDS,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			       PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING |
			       PERF_FORMAT_LOST,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				      PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0xff0fULL,
		.sample_regs_intr = ~0ULL,
		.sample_id_all = 1,
	},
	[FUZZ_ATTR_ALL_STRUCT] = {
		.size = sizeof(struct perf_event_attr),
		.sample_type = (FUZZ_ALL_SAMPLE_FIELDS & ~PERF_SAMPLE_WEIGHT) |
			       PERF_SAMPLE_WEIGHT_STRUCT,
		.read_format = PERF_FORMAT_ID,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				      FUZZ_SAMPLE_BRANCH_COUNTERS,
		.sample_regs_user = ~0ULL,
		.sample_regs_intr = 1,
		.sample_id_all = 1,
	},
	[FUZZ_ATTR_COLLECTOR] = {
		.size = sizeof(struct perf_event_attr),
		.sample_type = FUZZ_COLLECTOR_SAMPLE_FIELDS,
		.sample_id_all = 1,
	},
	[FUZZ_ATTR_MINIMAL] = {
		.size = sizeof(struct perf_event_attr),
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	},
};

/* ---- recomputing checksums ----------------------------------------- */

static inline uint32_t fuzz_get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void fuzz_put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Returns where the chunks start, or size when this is no file header. */
static inline size_t fuzz_fix_file_header(uint8_t *data, size_t size)
{
	const size_t crc_at = offsetof(struct prf_file_header, header_crc);
	uint32_t header_size;

	if (size < sizeof(struct prf_file_header) ||
	    memcmp(data, PRF_FILE_MAGIC, 8) != 0)
		return size;
	header_size = fuzz_get_u32(data + offsetof(struct prf_file_header,
						   header_size));
	if (header_size < sizeof(struct prf_file_header) || header_size > size)
		return size;
	fuzz_put_u32(data + crc_at, 0);
	fuzz_put_u32(data + crc_at, prf_crc32c(0, data, header_size));
	return FUZZ_ALIGN8((size_t)header_size);
}

/*
 * Rewrites the crcs of the chunk at offset; returns where the next one
 * starts, or 0 when no whole chunk is there (its header crc is still
 * made right when it has the magic, so that impossible sizes get read).
 */
static inline size_t fuzz_fix_chunk(uint8_t *data, size_t size, size_t offset)
{
	struct prf_chunk_header h;
	size_t payload, end;

	if (size - offset < sizeof(h))
		return 0;
	memcpy(&h, data + offset, sizeof(h));
	if (memcmp(h.magic, PRF_CHUNK_MAGIC, 4) != 0)
		return 0;
	/* The header crc covers 60 bytes whatever header_size says. */
	end = 0;
	payload = offset + h.header_size;
	if (h.header_size >= sizeof(h) && h.header_size % 8 == 0 &&
	    payload <= size && h.stored_size <= size - payload) {
		h.payload_crc = prf_crc32c(0, data + payload, h.stored_size);
		end = payload + FUZZ_ALIGN8((size_t)h.stored_size);
	}
	h.header_crc = prf_crc32c(0, &h, offsetof(struct prf_chunk_header,
						  header_crc));
	memcpy(data + offset, &h, sizeof(h));
	return end <= size ? end : 0;
}

/*
 * Makes every checksum of a file right, walking its chunks as the reader
 * does; where no whole chunk is found, the next 8-byte boundary is tried,
 * as the reader's resynchronisation would.
 */
static inline void fuzz_fix_checksums(uint8_t *data, size_t size)
{
	size_t offset = fuzz_fix_file_header(data, size);

	while (offset < size && size - offset >= sizeof(struct prf_chunk_header)) {
		size_t next = fuzz_fix_chunk(data, size, offset);

		offset = next ? next : offset + 8;
	}
}

#endif
