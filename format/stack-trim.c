/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user-stack trim of perfrec-format(5).  With PERF_SAMPLE_STACK_USER
 * the kernel reserves attr.sample_stack_user bytes in every sample but
 * copies only what lies between the stack pointer and the top of the
 * stack (dyn_size); the rest of the reservation is left as it was in the
 * ring.  Most samples use a fraction of it, so a collector that keeps
 * only the live bytes stores several times less, and a reader sees the
 * same stack.  The layout is found by decoding the sample, so this knows
 * no field offsets of its own.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

int prf_sample_trim_stack_user(const struct perf_event_attr *attr,
			       const void *record, size_t size,
			       void *out, size_t out_size)
{
	const uint8_t *in = record;
	uint8_t *to = out;
	struct perf_event_header header;
	struct prf_sample sample;
	size_t data, kept, after, new_size;
	uint64_t kept_u64;
	int err;

	if (!attr || !out)
		return -EINVAL;
	if (!(attr->sample_type & PERF_SAMPLE_STACK_USER))
		return 0;
	err = prf_decode_sample(attr, record, size, &sample);
	if (err)
		return err;
	if (!sample.stack_user_size)
		return 0;	/* no dump at all: a kernel thread */
	/*
	 * At least 8: a size of 0 would mean "no dyn_size follows", and a
	 * stack the kernel could not read at all keeps its dyn_size of 0.
	 */
	kept = PRF_ALIGN8((size_t)sample.stack_user_dyn_size);
	if (kept == 0)
		kept = 8;
	if (kept == sample.stack_user_size)
		return 0;	/* nothing dead to drop */
	new_size = size - ((size_t)sample.stack_user_size - kept);
	if (out_size < new_size)
		return -ENOSPC;

	/* [... u64 size][data: kept | dead][u64 dyn_size ...] */
	data = (size_t)((const uint8_t *)sample.stack_user - in);
	after = data + (size_t)sample.stack_user_size;
	memcpy(to, in, data - sizeof(uint64_t));
	kept_u64 = kept;
	memcpy(to + data - sizeof(uint64_t), &kept_u64, sizeof(kept_u64));
	memcpy(to + data, in + data, (size_t)sample.stack_user_dyn_size);
	memset(to + data + sample.stack_user_dyn_size, 0,
	       kept - (size_t)sample.stack_user_dyn_size);
	memcpy(to + data + kept, in + after, size - after);
	memcpy(&header, to, sizeof(header));
	header.size = (uint16_t)new_size;
	memcpy(to, &header, sizeof(header));
	return (int)new_size;
}
