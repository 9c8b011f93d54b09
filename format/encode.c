/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Encoding the parts of kernel records that a collector synthesizes. */
#include "internal.h"

static uint8_t *put_u64(uint8_t *p, uint64_t value)
{
	memcpy(p, &value, 8);
	return p + 8;
}

static uint8_t *put_u32_pair(uint8_t *p, uint32_t a, uint32_t b)
{
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
	return p + 8;
}

size_t prf_encode_sample_id(const struct perf_event_attr *attr,
			    const struct prf_sample_id *id, void *out)
{
	uint64_t type = attr->sample_type;
	uint8_t *p = out;

	if (!attr->sample_id_all)
		return 0;
	/* The kernel's order: perf_event_header__init_id / __perf_event_header__id. */
	if (type & PERF_SAMPLE_TID)
		p = put_u32_pair(p, id->pid, id->tid);
	if (type & PERF_SAMPLE_TIME)
		p = put_u64(p, id->time);
	if (type & PERF_SAMPLE_ID)
		p = put_u64(p, id->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		p = put_u64(p, id->stream_id);
	if (type & PERF_SAMPLE_CPU)
		p = put_u32_pair(p, id->cpu, 0);
	if (type & PERF_SAMPLE_IDENTIFIER)
		p = put_u64(p, id->identifier);
	return (size_t)(p - (uint8_t *)out);
}
