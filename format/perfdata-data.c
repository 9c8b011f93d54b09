/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A perf.data's data section as the reader's chunks: the kernel's records
 * copied out ~1 MiB at a time with their time range, perf's own records
 * skipped, perf record -z's COMPRESSED records inflated (one zstd stream
 * over the file; a record may straddle two), each bounded.
 */
#include <errno.h>
#include <stdio.h>
#include "perfdata-reader.h"

/* ---- the data section ----------------------------------------------- */

/* The record at pd->position inside the block, reading on where needed; NULL at the end. */
static const uint8_t *record_at(struct prf_reader *r, size_t *available, int *err)
{
	struct prf_perfdata *pd = r->perfdata;
	uint64_t left = pd->data_end - pd->position;
	size_t in_block = pd->position >= pd->block_offset &&
			  pd->position - pd->block_offset <= pd->block_size ?
			  pd->block_size - (size_t)(pd->position - pd->block_offset) : 0;

	*err = 0;
	if (!left)
		return NULL;
	/* 64 KiB: the largest record a u16 size frames. */
	if (in_block < 65536 && in_block < left) {
		size_t n = left < PD_READ_BLOCK ? (size_t)left : PD_READ_BLOCK;

		*err = prf_ensure_mem((void **)&pd->block, &pd->block_capacity, 1, PD_READ_BLOCK);
		if (*err == 0)
			*err = prf_read_at(r->fd, pd->block, n, pd->position);
		if (*err < 0)
			return NULL;
		pd->block_offset = pd->position;
		pd->block_size = in_block = n;
	}
	*available = in_block;
	return pd->block + (pd->position - pd->block_offset);
}

/* The time of a kernel record (0: none), from its event's layout. */
static uint64_t record_time(const struct prf_reader *r, const uint8_t *p, size_t size)
{
	const struct prf_event *event = prf_reader_event_for(r, p, size);
	uint64_t type, time = 0;
	uint32_t kind;
	size_t at;

	if (!event)
		return 0;
	type = event->attr.sample_type;
	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	memcpy(&kind, p, 4);
	if (kind == PERF_RECORD_SAMPLE) {
		at = 8 + 8 * (!!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP) +
			      !!(type & PERF_SAMPLE_TID));
	} else {
		size_t back;

		if (!event->attr.sample_id_all)
			return 0;
		back = 8 * (1 + !!(type & PERF_SAMPLE_ID) + !!(type & PERF_SAMPLE_STREAM_ID) +
			    !!(type & PERF_SAMPLE_CPU) + !!(type & PERF_SAMPLE_IDENTIFIER));
		if (back > size - 8)
			return 0;
		at = size - back;
	}
	if (at + 8 <= size)
		memcpy(&time, p + at, 8);
	return time;
}

/* The bytes of its own some of perf's records have after them. */
static uint64_t data_after(const uint8_t *p, const struct perf_event_header *h)
{
	uint64_t size = 0;

	if (h->type == PRF_PERFDATA_RECORD_AUXTRACE && h->size >= 16)
		memcpy(&size, p + 8, 8);
	else if (h->type == PRF_PERFDATA_RECORD_HEADER_TRACING_DATA && h->size >= 12)
		memcpy(&size, p + 8, 4);
	return size;
}

struct gather {
	struct prf_reader *r;
	size_t size;			/* bytes in r->raw */
	uint32_t records;
	uint64_t first_time, last_time;
};

static void note_time(uint64_t time, uint64_t *first, uint64_t *last)
{
	if (time && (!*first || time < *first))
		*first = time;
	if (time > *last)
		*last = time;
}

/*
 * A record into the chunk; with prf_reader_skip_samples() (the session's
 * pass over the side-band), a sample is only counted and timed, for a
 * chunk of skipped samples said before the next one.
 */
static int append(struct gather *g, const uint8_t *p, size_t size)
{
	struct prf_perfdata *pd = g->r->perfdata;
	uint32_t type;
	int ret;

	memcpy(&type, p, 4);
	if (g->r->skip_samples && type == PERF_RECORD_SAMPLE) {
		pd->skipped_samples++;
		note_time(record_time(g->r, p, size), &pd->skipped_first, &pd->skipped_last);
		return 0;
	}
	ret = prf_ensure_mem((void **)&g->r->raw, &g->r->raw_capacity, 1, g->size + size);
	if (ret < 0)
		return ret;
	memcpy(g->r->raw + g->size, p, size);
	g->size += size;
	g->records++;
	note_time(record_time(g->r, p, size), &g->first_time, &g->last_time);
	return 0;
}

/* The samples append() skipped, as a chunk of no records (the reader's skipped chunks). */
static int skipped_samples_chunk(struct prf_perfdata *pd, struct prf_chunk *chunk)
{
	static const uint8_t no_records[8] __attribute__((aligned(8)));

	if (!pd->skipped_samples)
		return 0;
	*chunk = (struct prf_chunk){
		.flags = PRF_CHUNK_SAMPLES,
		.record_count = pd->skipped_samples,
		.first_time = pd->skipped_first,
		.last_time = pd->skipped_last,
		.data = no_records,
	};
	pd->skipped_samples = 0;
	pd->skipped_first = pd->skipped_last = 0;
	return 1;
}

/* Whether the reader passes a record of this type and size on. */
static int wanted(struct prf_perfdata *pd, uint32_t type, size_t size)
{
	if (type >= PRF_PERFDATA_RECORD_USER_BASE)
		return 0;		/* perf's own: rounds, its header records, stats */
	if (size % 8) {
		pd->skipped_records++;	/* the kernel's are 8-aligned: damage */
		return 0;
	}
	return 1;
}

static void stream_broken(struct prf_reader *r, uint64_t offset, size_t size, const char *why)
{
	struct prf_perfdata *pd = r->perfdata;

	pd->zstream_broken = 1;
	pd->inflated_used = 0;
	r->stats.damaged_chunks++;
	r->stats.skipped_bytes += size;
	prf_reader_diag(r, offset,
			"%s: offset %llu: %s; the compressed records after it are skipped",
			r->name, (unsigned long long)offset, why);
}

/* A COMPRESSED record: its zstd data inflated, the whole records in it gathered. */
static int inflate(struct prf_reader *r, struct gather *g, const uint8_t *p, size_t size,
		   uint32_t type, uint64_t offset)
{
	struct prf_perfdata *pd = r->perfdata;
	size_t header = type == PRF_PERFDATA_RECORD_COMPRESSED2 ? 16 : 8, at = 0;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	int ret;

	if (pd->zstream_broken) {
		r->stats.skipped_bytes += size;
		return 0;
	}
	if (size < header) {
		stream_broken(r, offset, size, "a compressed record too short for its header");
		return 0;
	}
	in = (ZSTD_inBuffer){ p + header, size - header, 0 };
	if (type == PRF_PERFDATA_RECORD_COMPRESSED2) {
		uint64_t data_size;

		memcpy(&data_size, p + 8, 8);
		if (data_size > in.size) {
			stream_broken(r, offset, size,
				      "a compressed record's data size is larger than it");
			return 0;
		}
		in.size = (size_t)data_size;
	}
	if (!pd->zstream) {
		pd->zstream = ZSTD_createDStream();
		if (!pd->zstream || ZSTD_isError(ZSTD_initDStream(pd->zstream)))
			return -ENOMEM;
	}
	ret = prf_ensure_mem((void **)&pd->inflated, &pd->inflated_capacity, 1,
			     pd->inflated_used + pd->inflate_max);
	if (ret < 0)
		return ret;
	out = (ZSTD_outBuffer){ pd->inflated + pd->inflated_used, pd->inflate_max, 0 };
	while (in.pos < in.size) {
		size_t z = ZSTD_decompressStream(pd->zstream, &out, &in);

		if (ZSTD_isError(z)) {
			stream_broken(r, offset, size, "a compressed record does not decompress");
			return 0;
		}
		if (out.pos == out.size && in.pos < in.size) {
			stream_broken(r, offset, size,
				      "a compressed record inflates beyond its bound");
			return 0;
		}
	}
	pd->inflated_used += out.pos;
	/* Whole records go on; a record cut at the end waits for the next compressed record. */
	while (pd->inflated_used - at >= 8) {
		struct perf_event_header h;

		memcpy(&h, pd->inflated + at, sizeof(h));
		if (h.size < 8) {
			stream_broken(r, offset, size,
				      "an impossible record size inside compressed data");
			return 0;
		}
		if (h.size > pd->inflated_used - at)
			break;
		if (wanted(pd, h.type, h.size)) {
			ret = append(g, pd->inflated + at, h.size);
			if (ret < 0)
				return ret;
		}
		at += h.size;
	}
	memmove(pd->inflated, pd->inflated + at, pd->inflated_used - at);
	pd->inflated_used -= at;
	return 0;
}

static void finish(struct prf_reader *r)
{
	struct prf_perfdata *pd = r->perfdata;
	uint64_t cut = pd->data_end - pd->position;

	pd->finished = 1;
	if (cut || pd->data_declared_end > r->file_size) {
		/*
		 * The partial record the cut left.  A cut between two records
		 * leaves none: then the file is only incomplete (no features,
		 * stats.complete 0), as a perfrec file without its trailer.
		 */
		r->stats.truncated_bytes = cut;
		prf_reader_diag(r, pd->position,
				"%s: offset %llu: file cut short inside the data section; "
				"discarded %llu bytes", r->name, (unsigned long long)pd->position,
				(unsigned long long)cut);
	} else if (!pd->size_unknown) {
		/* perf wrote its header last: a whole file, its trailer what was read */
		r->stats.complete = 1;
		r->stats.trailer = (struct prf_trailer){
			.chunk_count = r->stats.chunks,
			.record_count = r->stats.records,
			.raw_bytes = r->stats.raw_bytes,
			.stored_bytes = r->stats.stored_bytes,
		};
	}
	if (pd->skipped_records) {
		r->stats.damaged_chunks++;
		prf_reader_diag(r, pd->position, "%s: skipped %llu records of impossible sizes",
				r->name, (unsigned long long)pd->skipped_records);
	}
}

int prf_perfdata_next_chunk(struct prf_reader *r, struct prf_chunk *chunk)
{
	struct prf_perfdata *pd = r->perfdata;
	struct gather g = { .r = r };
	uint64_t first_offset = pd->position;
	int ret = 0;

	if (!pd->started) {
		pd->started = 1;
		if (pd->note[0])
			prf_reader_diag(r, 0, "%s", pd->note);
		if (pd->build_ids_size) {
			*chunk = (struct prf_chunk){ .data = pd->build_ids, .size = pd->build_ids_size };
			for (size_t at = 0; at < pd->build_ids_size; chunk->record_count++) {
				uint32_t size;

				memcpy(&size, pd->build_ids + at + 8, 4);
				at += size;
			}
			chunk->raw_size = chunk->stored_size = (uint32_t)pd->build_ids_size;
			r->stats.chunks++;
			r->stats.records += chunk->record_count;
			r->stats.raw_bytes += chunk->raw_size;
			r->stats.stored_bytes += chunk->stored_size;
			return 1;
		}
	}
	if (skipped_samples_chunk(pd, chunk))
		return 1;
	if (pd->finished)
		return 0;
	/* Bytes read bound a chunk too: skipped samples take no room in it. */
	while (g.size < PD_CHUNK_TARGET && pd->position - first_offset < 4 * PD_CHUNK_TARGET &&
	       pd->skipped_samples < UINT32_MAX / 2) {
		struct perf_event_header h;
		size_t available;
		uint64_t after;
		const uint8_t *p = record_at(r, &available, &ret);

		if (ret < 0)
			return ret;
		if (!p || available < sizeof(h))
			break;
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h)) {
			/* No framing to resync on: the rest of the data section is lost. */
			r->stats.damaged_chunks++;
			r->stats.skipped_bytes += pd->data_end - pd->position;
			prf_reader_diag(r, pd->position, "%s: offset %llu: a record of size %u; "
					"skipped the %llu bytes to the end of the data",
					r->name, (unsigned long long)pd->position, h.size,
					(unsigned long long)(pd->data_end - pd->position));
			pd->position = pd->data_end;
			break;
		}
		if (h.size > available)
			break;		/* runs past the end of the file */
		if (h.type == PRF_PERFDATA_RECORD_COMPRESSED || h.type == PRF_PERFDATA_RECORD_COMPRESSED2)
			ret = inflate(r, &g, p, h.size, h.type, pd->position);
		else if (wanted(pd, h.type, h.size))
			ret = append(&g, p, h.size);
		if (ret < 0)
			return ret;
		after = data_after(p, &h);
		if (after > pd->data_end - pd->position - h.size)
			pd->position = pd->data_end;	/* cut inside that data: nothing more */
		else
			pd->position += h.size + after;
	}
	if (!g.size && !g.records) {
		if (skipped_samples_chunk(pd, chunk))
			return 1;
		if (!pd->finished)
			finish(r);
		return 0;
	}
	*chunk = (struct prf_chunk){
		.offset = first_offset,
		.sequence = r->stats.chunks,
		.record_count = g.records,
		.stored_size = (uint32_t)(pd->position - first_offset),
		.raw_size = (uint32_t)g.size,
		.first_time = g.first_time,
		.last_time = g.last_time,
		.data = r->raw,
		.size = g.size,
	};
	r->stats.chunks++;
	r->stats.records += g.records;
	r->stats.raw_bytes += g.size;
	r->stats.stored_bytes += chunk->stored_size;
	return 1;
}
