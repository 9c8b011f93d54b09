/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compact samples (perfrec-format(5)): the samples a writer is given come
 * back from the reader byte for byte, each with its stack; a file cut
 * anywhere in its last chunks, a bit flipped anywhere in a stack table or
 * a column, or a chunk made to expand without bound costs only that
 * chunk, and nothing crashes.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format.h"

/* ---- samples of known content -------------------------------------- */

struct rng {
	uint64_t state;
};

static uint64_t rng_next(struct rng *r)
{
	r->state ^= r->state << 13;
	r->state ^= r->state >> 7;
	r->state ^= r->state << 17;
	return r->state;
}

#define FP_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
/* dwarf mode's layout: a tail of registers and stack after the callchain */
#define DWARF_TYPE (FP_TYPE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* ADDR, ID and STREAM_ID, without a callchain */
#define ADDR_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)

static uint64_t fp_ids[] = { 7, 8 };
static uint64_t dwarf_ids[] = { 9 };
static uint64_t addr_ids[] = { 10 };

struct samples {
	uint8_t *records[4096];
	size_t sizes[4096];
	uint64_t times[4096];
	size_t count;
};

static void put(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void put_pair(uint8_t **p, uint32_t a, uint32_t b)
{
	memcpy(*p, &a, 4);
	memcpy(*p + 4, &b, 4);
	*p += 8;
}

/*
 * count samples: 40 stacks shapes under a few roots, user and kernel
 * parts, leaves that vary, a few pids and CPUs; now and then an odd one
 * (no callchain, ip not its leaf, a dwarf tail, an id no event has, a
 * callchain longer than its record) that must come back as it went.
 */
static void samples_make(struct samples *s, size_t count, uint64_t seed)
{
	struct rng rng = { seed };
	uint64_t time = 1000000000;

	s->count = count;
	for (size_t i = 0; i < count; i++) {
		uint64_t pick = rng_next(&rng);
		uint64_t shape = pick % 40, odd = (pick >> 8) % 31;
		uint64_t type = odd == 1 ? DWARF_TYPE : odd == 2 ? ADDR_TYPE : FP_TYPE;
		uint64_t identifier = odd == 1 ? 9 : odd == 2 ? 10 : odd == 3 ? 4242 : 7 + (pick >> 20) % 2;
		uint64_t chain[64];
		size_t depth = 0, size;
		uint8_t *record = calloc(1, 65536), *p = record + 8;
		uint32_t pid = 100 + (uint32_t)((pick >> 12) % 4);

		if (shape % 3 == 0) {
			chain[depth++] = PERF_CONTEXT_KERNEL;
			for (uint64_t k = 0; k < 1 + shape % 5; k++)
				chain[depth++] = 0xffffffff81000000ull + 0x1000 * (shape * 7 + k) +
						 (k == 0 ? rng_next(&rng) % 64 : 0);
		}
		chain[depth++] = PERF_CONTEXT_USER;
		for (uint64_t k = 0; k < 2 + shape % 7; k++)
			chain[depth++] = 0x555555554000ull + 0x100 * (shape / 3 + k) +
					 (k == 0 ? rng_next(&rng) % 32 : 0);
		chain[depth++] = 0x7f0000001234ull + shape % 2;
		if (odd == 4)
			depth = 0;
		time += 250000 + rng_next(&rng) % 5000;
		put(&p, identifier);
		/* the leaf, but now and then another address */
		put(&p, depth > 1 && odd != 5 ? chain[1] : 0x400000 + pick % 4096);
		put_pair(&p, pid, pid + (uint32_t)(odd == 6));
		put(&p, time);
		if (type == ADDR_TYPE) {
			put(&p, 0xdead0000 + pick % 256);	/* addr */
			put(&p, identifier);			/* id */
			put(&p, 77);				/* stream_id */
		}
		/* CPUs that share a slot of the times' prediction, and the last one */
		put_pair(&p, (uint32_t[]){ 0, 1, 1 + PRF_COMPACT_CPU_SLOTS, UINT32_MAX }[(pick >> 40) % 4],
			 0);
		if (type != ADDR_TYPE) {
			put(&p, 250000 + (odd == 7 ? 1 : 0));	/* period */
			put(&p, odd == 8 ? 100000 : depth);	/* nr: a lie when odd == 8 */
			for (size_t k = 0; k < depth && odd != 8; k++)
				put(&p, chain[k]);
		}
		if (type == DWARF_TYPE) {
			uint64_t stack = 8 * (1 + pick % 16);

			put(&p, PERF_SAMPLE_REGS_ABI_64);
			put(&p, 0x7ffc0000 + pick % 4096);	/* sp */
			put(&p, stack);
			for (uint64_t k = 0; k < stack / 8; k++)
				put(&p, rng_next(&rng));
			put(&p, stack - 8);			/* dyn_size */
		}
		size = (size_t)(p - record);
		memcpy(record, &(struct perf_event_header){
			PERF_RECORD_SAMPLE,
			(uint16_t)(depth && chain[0] == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
				   PERF_RECORD_MISC_USER),
			(uint16_t)size }, 8);
		s->records[i] = record;
		s->sizes[i] = size;
		s->times[i] = time;
	}
}

static void samples_free(struct samples *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->records[i]);
}

static struct prf_event make_event(const char *name, uint64_t type, uint64_t *ids,
				   uint32_t id_count)
{
	struct prf_event ev = { 0 };

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.sample_type = type;
	ev.attr.sample_period = 250000;
	ev.attr.sample_regs_user = 1ull << 7;	/* sp */
	ev.attr.sample_stack_user = 128;
	ev.name = name;
	ev.ids = ids;
	ev.id_count = id_count;
	return ev;
}

static int open_writer(struct prf_writer **w, int level, size_t chunk_size,
		       enum prf_sample_encoding encoding)
{
	struct prf_event events[] = {
		make_event("cpu-clock", FP_TYPE, fp_ids, 2),
		make_event("dwarf", DWARF_TYPE, dwarf_ids, 1),
		make_event("addr", ADDR_TYPE, addr_ids, 1),
	};
	struct prf_file_info info = { .hostname = "test", .events = events, .event_count = 3 };
	struct prf_writer_options options = { .zstd_level = level, .chunk_size = chunk_size,
					      .name = "memfd", .sample_encoding = encoding };
	struct prf_error error;
	int fd = memfd_create("prf", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(prf_writer_open(w, fd, &info, &options, &error), 0);
	return fd;
}

/* The samples, a chunk each flush_every of them. */
static int write_samples(const struct samples *s, int level, size_t flush_every,
			 enum prf_sample_encoding encoding)
{
	struct prf_writer *w;
	int fd = open_writer(&w, level, 0, encoding);

	for (size_t i = 0; i < s->count; i++) {
		ck_assert_int_eq(prf_writer_append(w, s->records[i], s->sizes[i], s->times[i]), 0);
		if ((i + 1) % flush_every == 0)
			ck_assert_int_eq(prf_writer_flush(w), 0);
	}
	ck_assert_int_eq(prf_writer_finish(w), 0);
	prf_writer_close(w);
	return fd;
}

/* ---- reading back ---------------------------------------------------- */

struct result {
	size_t records;			/* in order, equal to the samples' */
	size_t mismatches;
	size_t chunks, compact_chunks;
	struct prf_read_stats stats;
	size_t chunk_records[64];	/* per chunk read */
};

static int read_back(int fd, const struct samples *s, struct result *out)
{
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = prf_reader_open_fd(&r, fd, "memfd", &error);
	if (ret < 0)
		return ret;
	while ((ret = prf_reader_next_chunk(r, &chunk)) == 1) {
		struct prf_record record;
		size_t n = 0;

		out->compact_chunks += chunk.stacks != NULL;
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			size_t i = out->records + out->mismatches;

			n++;
			if (i < s->count && record.size == s->sizes[i] &&
			    !memcmp(record.data, s->records[i], record.size)) {
				/* no callchain, no stack */
				if (!record.stack.id)
					ck_assert_uint_eq(record.stack.hash, 0);
				out->records++;
			} else {
				out->mismatches++;
			}
		}
		ck_assert_uint_eq(n, chunk.record_count);
		if (out->chunks < 64)
			out->chunk_records[out->chunks] = n;
		out->chunks++;
	}
	prf_reader_get_stats(r, &out->stats);
	prf_reader_close(r);
	return ret;
}

/* ---- compact samples kept as they are (prf_reader_keep_compact) ------- */

struct record_copy {
	size_t size;
	uint8_t bytes[];
};

static int compare_copies(const void *x, const void *y)
{
	const struct record_copy *a = *(struct record_copy *const *)x;
	const struct record_copy *b = *(struct record_copy *const *)y;

	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return memcmp(a->bytes, b->bytes, a->size);
}

/*
 * A file's samples chunk by chunk, each chunk's sorted (kept, its compact
 * samples come apart from its other records), rebuilt from the kept
 * samples with prf_compact_sample_record(); the damaged chunks counted.
 */
struct either_way {
	struct record_copy **records;
	size_t count, capacity;
	size_t chunks;
	uint64_t damaged;
};

static struct record_copy *copy_of(const void *data, size_t size)
{
	struct record_copy *c = malloc(sizeof(*c) + size);

	ck_assert_ptr_nonnull(c);
	c->size = size;
	memcpy(c->bytes, data, size);
	return c;
}

static void either_way_add(struct either_way *w, struct record_copy *c)
{
	if (w->count == w->capacity) {
		w->capacity = w->capacity ? 2 * w->capacity : 256;
		w->records = realloc(w->records, w->capacity * sizeof(*w->records));
		ck_assert_ptr_nonnull(w->records);
	}
	w->records[w->count++] = c;
}

static void read_either_way(int fd, int keep, struct either_way *w)
{
	static uint8_t rebuilt[UINT16_MAX + 1] __attribute__((aligned(8)));
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_read_stats stats;

	memset(w, 0, sizeof(*w));
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
	prf_reader_keep_compact(r, keep);
	while (prf_reader_next_chunk(r, &chunk) == 1) {
		struct prf_record record;
		size_t from = w->count;

		if (!keep)
			ck_assert_uint_eq(chunk.compact_count, 0);
		while (prf_chunk_next_record(&chunk, &record) == 1)
			either_way_add(w, copy_of(record.data, record.size));
		for (size_t i = 0; i < chunk.compact_count; i++) {
			size_t size = prf_compact_sample_record(&chunk, &chunk.compact[i], rebuilt);

			either_way_add(w, copy_of(rebuilt, size));
		}
		qsort(w->records + from, w->count - from, sizeof(*w->records), compare_copies);
		w->chunks++;
	}
	prf_reader_get_stats(r, &stats);
	w->damaged = stats.damaged_chunks;
	prf_reader_close(r);
}

static void either_way_free(struct either_way *w)
{
	for (size_t i = 0; i < w->count; i++)
		free(w->records[i]);
	free(w->records);
}

/* Kept or expanded, the same records, chunks and damage. */
static void same_either_way(int fd)
{
	struct either_way expanded, kept;

	read_either_way(fd, 0, &expanded);
	read_either_way(fd, 1, &kept);
	ck_assert_uint_eq(kept.chunks, expanded.chunks);
	ck_assert_uint_eq(kept.damaged, expanded.damaged);
	ck_assert_uint_eq(kept.count, expanded.count);
	for (size_t i = 0; i < kept.count; i++)
		ck_assert_int_eq(compare_copies(&kept.records[i], &expanded.records[i]), 0);
	either_way_free(&expanded);
	either_way_free(&kept);
}

START_TEST(round_trip_byte_for_byte)
{
	static const int levels[] = { 0, -1, 1 };
	struct samples s;
	struct result res;

	samples_make(&s, 3000, 0x1234 + (uint64_t)_i);
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		for (int encoding = PRF_ENCODING_VERBATIM; encoding <= PRF_ENCODING_COMPACT; encoding++) {
			int fd = write_samples(&s, levels[l], 700, encoding);

			ck_assert_int_eq(read_back(fd, &s, &res), 0);
			ck_assert_uint_eq(res.records, s.count);
			ck_assert_uint_eq(res.mismatches, 0);
			ck_assert_int_eq(res.stats.complete, 1);
			ck_assert_uint_eq(res.stats.damaged_chunks, 0);
			ck_assert_uint_eq(res.compact_chunks,
					  encoding == PRF_ENCODING_COMPACT ? 5 : 0);
			/* the trailer counts records as stored: two a compact chunk */
			ck_assert_uint_eq(res.stats.trailer.record_count, res.stats.records);
			same_either_way(fd);
			close(fd);
		}
	}
	samples_free(&s);
}
END_TEST

/* Stack numbers are the chunk's; hashes are the callchain's, in any chunk. */
START_TEST(stack_hashes_follow_the_callchain)
{
	struct samples s;
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	size_t i = 0, checked = 0;
	uint64_t *hashes = calloc(3000, sizeof(*hashes));
	int fd;

	samples_make(&s, 3000, 99);
	fd = write_samples(&s, 0, 500, PRF_ENCODING_COMPACT);
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
	while (prf_reader_next_chunk(r, &chunk) == 1) {
		struct prf_record record;

		while (prf_chunk_next_record(&chunk, &record) == 1) {
			struct prf_sample mine, other;
			const struct prf_event *event = prf_reader_event_for(r, record.data, record.size);

			hashes[i] = record.stack.hash;
			if (event && prf_decode_sample(&event->attr, record.data, record.size, &mine) == 0 &&
			    mine.callchain_nr) {
				ck_assert_uint_ne(record.stack.id, 0);
				ck_assert_uint_le(record.stack.id, chunk.stack_count);
				/* against every earlier sample with a callchain */
				for (size_t k = 0; k < i; k++) {
					const struct prf_event *e = prf_reader_event_for(r, s.records[k], s.sizes[k]);

					if (!e || prf_decode_sample(&e->attr, s.records[k], s.sizes[k], &other) < 0 ||
					    !other.callchain_nr || !hashes[k])
						continue;
					int same = other.callchain_nr == mine.callchain_nr &&
						   !memcmp(other.callchain, mine.callchain, 8 * mine.callchain_nr);
					ck_assert_int_eq(same, hashes[k] == hashes[i]);
					checked++;
				}
			}
			i++;
		}
	}
	ck_assert_uint_eq(i, s.count);
	ck_assert_uint_gt(checked, 100000);
	prf_reader_close(r);
	close(fd);
	free(hashes);
	samples_free(&s);
}
END_TEST

static int copy_prefix(int fd, off_t length)
{
	int copy = memfd_create("cut", 0);
	uint8_t *buf = malloc((size_t)length + 1);

	ck_assert_int_eq(pread(fd, buf, (size_t)length, 0), length);
	ck_assert_int_eq(write(copy, buf, (size_t)length), length);
	free(buf);
	return copy;
}

/* Cut at every byte of the last two chunks: every whole chunk still reads. */
START_TEST(truncation_at_every_byte_of_the_last_chunks)
{
	struct samples s;
	struct result whole, cut;
	off_t size;
	int fd;

	samples_make(&s, 600, 7 + (uint64_t)_i);
	fd = write_samples(&s, _i ? 0 : -1, 200, PRF_ENCODING_COMPACT);
	ck_assert_int_eq(read_back(fd, &s, &whole), 0);
	ck_assert_uint_eq(whole.chunks, 3);
	size = lseek(fd, 0, SEEK_END);
	/* from a little before the second chunk to the end */
	for (off_t length = size - 1; length > 0; length--) {
		int copy = copy_prefix(fd, length);

		ck_assert_int_eq(read_back(copy, &s, &cut), 0);
		close(copy);
		ck_assert_uint_eq(cut.mismatches, 0);
		/* whole chunks only: 0, 200, 400 or 600 samples */
		ck_assert_uint_eq(cut.records % 200, 0);
		ck_assert_int_eq(cut.stats.complete, 0);
		if (cut.records == 200 && cut.stats.truncated_bytes == 0)
			break;	/* the first chunk whole and nothing after it: done */
	}
	close(fd);
	samples_free(&s);
}
END_TEST

static void fix_crcs(uint8_t *file, uint64_t chunk_offset)
{
	struct prf_chunk_header h;

	memcpy(&h, file + chunk_offset, sizeof(h));
	h.payload_crc = prf_crc32c(0, file + chunk_offset + h.header_size, h.stored_size);
	h.header_crc = prf_crc32c(0, &h, offsetof(struct prf_chunk_header, header_crc));
	memcpy(file + chunk_offset, &h, sizeof(h));
}

/*
 * Every bit of the middle chunk's stack table and columns flipped in
 * turn, its checksums made right again (what a hostile file does): that
 * chunk reads or is skipped whole, the other two read as written.
 */
START_TEST(bit_flips_in_stack_tables_and_columns)
{
	struct samples s;
	struct result whole, flipped;
	struct prf_chunk_header h;
	uint64_t middle;
	size_t size, damaged = 0, read = 0;
	uint8_t *file;
	int fd;

	samples_make(&s, 300, 4242);
	fd = write_samples(&s, -1, 100, PRF_ENCODING_COMPACT);
	ck_assert_int_eq(read_back(fd, &s, &whole), 0);
	ck_assert_uint_eq(whole.chunks, 3);
	size = (size_t)lseek(fd, 0, SEEK_END);
	file = malloc(size);
	ck_assert_int_eq(pread(fd, file, size, 0), (ssize_t)size);
	/* the header, then the first chunk: the middle one follows */
	memcpy(&middle, file + offsetof(struct prf_file_header, header_size), 4);
	middle &= 0xffffffff;
	memcpy(&h, file + middle, sizeof(h));
	middle += h.header_size + ((h.stored_size + 7) & ~7u);
	memcpy(&h, file + middle, sizeof(h));
	ck_assert_int_eq(h.codec, PRF_CODEC_NONE);
	for (size_t bit = 0; bit < 8 * (size_t)h.stored_size; bit++) {
		uint8_t *payload = file + middle + h.header_size;
		int copy = memfd_create("flip", 0);

		payload[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		fix_crcs(file, middle);
		ck_assert_int_eq(write(copy, file, size), (ssize_t)size);
		payload[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		fix_crcs(file, middle);

		ck_assert_int_eq(read_back(copy, &s, &flipped), 0);
		/* Kept samples are checked as expanded ones are (every 5th flip: time). */
		if (bit % 5 == 0)
			same_either_way(copy);
		close(copy);
		ck_assert_uint_eq(flipped.chunk_records[0], 100);
		if (flipped.stats.damaged_chunks) {
			ck_assert_uint_eq(flipped.chunks, 2);
			ck_assert_uint_eq(flipped.chunk_records[1], 100);
			damaged++;
		} else {
			ck_assert_uint_eq(flipped.chunks, 3);
			ck_assert_uint_eq(flipped.chunk_records[2], 100);
			read++;
		}
	}
	/* most flips are caught; a flipped address or time reads as another */
	ck_assert_uint_gt(damaged, read / 4);
	free(file);
	close(fd);
	samples_free(&s);
}
END_TEST

/*
 * A timer's samples: each CPU a period apart but for a few nanoseconds of
 * latency, the CPUs half a period out of phase and drained in turns, as
 * the collector reads its rings.  The times column then holds about a
 * byte a sample; predicted from the sample before (the other CPU's, half
 * a period away) it would take three.
 */
START_TEST(times_are_predicted_per_cpu)
{
	struct samples s = { 0 };
	struct result res;
	struct stat st;
	uint32_t times_size = 0, count = 0;
	uint8_t *file;
	int fd;

	for (size_t i = 0; i < 2000; i++) {
		uint32_t cpu = (uint32_t)(i / 10 % 2);
		uint64_t tick = i / 20 * 10 + i % 10;
		uint64_t time = 1000000000 + tick * 250000 + cpu * 125000 + (i * 7919) % 50;
		uint8_t *record = calloc(1, 256), *p = record + 8;

		put(&p, 7);				/* identifier */
		put(&p, 0x555555554000ull + i % 3);	/* ip */
		put_pair(&p, 100, 100);
		put(&p, time);
		put_pair(&p, cpu, 0);
		put(&p, 250000);			/* period */
		put(&p, 2);
		put(&p, PERF_CONTEXT_USER);
		put(&p, 0x555555554000ull + i % 3);
		memcpy(record, &(struct perf_event_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
							    (uint16_t)(p - record) }, 8);
		s.records[i] = record;
		s.sizes[i] = (size_t)(p - record);
		s.times[i] = time;
		s.count++;
	}
	fd = write_samples(&s, -1, s.count, PRF_ENCODING_COMPACT);
	ck_assert_int_eq(read_back(fd, &s, &res), 0);
	ck_assert_uint_eq(res.records, s.count);
	ck_assert_uint_eq(res.mismatches, 0);
	ck_assert_uint_eq(res.compact_chunks, 1);

	/* Stored as is (level -1): find the record in the file's bytes. */
	ck_assert_int_eq(fstat(fd, &st), 0);
	file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(file, MAP_FAILED);
	for (size_t at = 0; at + sizeof(struct prf_compact_samples_record) <= (size_t)st.st_size;
	     at += 8) {
		struct prf_compact_samples_record head;

		memcpy(&head, file + at, sizeof(head));
		if (head.header.type == PRF_RECORD_COMPACT_SAMPLES_BY_CPU && head.count == s.count) {
			times_size = head.column_size[PRF_COLUMN_TIMES];
			count++;
		}
	}
	munmap(file, (size_t)st.st_size);
	ck_assert_uint_eq(count, 1);
	ck_assert_uint_le(times_size, s.count + 2 * 10);
	close(fd);
	samples_free(&s);
}
END_TEST

/* ---- hand-made hostile records ----------------------------------------- */

static void put_varint(uint8_t **p, uint64_t v)
{
	while (v >= 0x80) {
		*(*p)++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*(*p)++ = (uint8_t)v;
}

/*
 * One stack 8000 frames deep and 2000 samples of it: 22 KB that would
 * expand to 128 MB.  The reader refuses the chunk; the next one reads.
 */
START_TEST(expansion_past_the_limit_is_refused)
{
	size_t nodes = 8000, samples = 2000;
	size_t stacks_size = sizeof(struct prf_stacks_record) + 8 + 2 * nodes + 8;
	size_t samples_size = sizeof(struct prf_compact_samples_record) + 16 + 4 * samples;
	uint8_t *record = calloc(1, stacks_size + samples_size), *p;
	struct prf_stacks_record stacks = { 0 };
	struct prf_compact_samples_record compact = { 0 };
	struct samples s;
	struct result res;
	struct prf_writer *w;
	int fd;

	p = record + sizeof(stacks);
	put_varint(&p, 0x1000);			/* the one address */
	stacks.frames_size = (uint32_t)(p - record - sizeof(stacks));
	for (size_t n = 0; n < nodes; n++)
		*p++ = n ? 1 : 0;		/* each under the one before */
	stacks.parents_size = (uint32_t)nodes;
	for (size_t n = 0; n < nodes; n++)
		*p++ = 0;
	stacks.indexes_size = (uint32_t)nodes;
	stacks.header.type = PRF_RECORD_STACKS;
	stacks.header.size = (uint32_t)((size_t)(p - record + 7) & ~(size_t)7);
	stacks.count = (uint32_t)nodes;
	stacks.frame_count = 1;
	memcpy(record, &stacks, sizeof(stacks));

	uint8_t *start = record + stacks.header.size, *q = start + sizeof(compact);
	for (size_t i = 0; i < samples; i++)
		*q++ = i ? 0 : PRF_COMPACT_EVENT;		/* flags */
	put_varint(&q, 0);					/* event 0 */
	put_varint(&q, 7);					/* its identifier */
	compact.column_size[PRF_COLUMN_FLAGS] = (uint32_t)samples;
	compact.column_size[PRF_COLUMN_FIELDS] = 2;
	for (size_t i = 0; i < samples; i++)
		put_varint(&q, nodes);				/* the deepest stack */
	compact.column_size[PRF_COLUMN_STACKS] = (uint32_t)(2 * samples);
	for (size_t i = 0; i < samples; i++)
		*q++ = 2;					/* times */
	compact.column_size[PRF_COLUMN_TIMES] = (uint32_t)samples;
	compact.header.type = PRF_RECORD_COMPACT_SAMPLES;
	compact.header.size = (uint32_t)((size_t)(q - start + 7) & ~(size_t)7);
	compact.count = (uint32_t)samples;
	memcpy(start, &compact, sizeof(compact));

	samples_make(&s, 10, 5);
	fd = open_writer(&w, 0, 0, PRF_ENCODING_COMPACT);
	ck_assert_int_eq(prf_writer_append(w, record, stacks.header.size, 0), 0);
	ck_assert_int_eq(prf_writer_append(w, start, compact.header.size, 0), 0);
	ck_assert_int_eq(prf_writer_flush(w), 0);
	for (size_t i = 0; i < s.count; i++)
		ck_assert_int_eq(prf_writer_append(w, s.records[i], s.sizes[i], s.times[i]), 0);
	ck_assert_int_eq(prf_writer_finish(w), 0);
	prf_writer_close(w);

	ck_assert_int_eq(read_back(fd, &s, &res), 0);
	ck_assert_uint_eq(res.stats.damaged_chunks, 1);
	ck_assert_uint_eq(res.records, s.count);
	ck_assert_uint_eq(res.mismatches, 0);
	same_either_way(fd);
	close(fd);
	free(record);
	samples_free(&s);
}
END_TEST

/*
 * Tracepoint samples (perfrecd's -e subsystem:name) beside clock samples:
 * PERF_SAMPLE_RAW after the callchain, no period (the attr's 1).  The raw
 * data is kept whatever the encoding models: every sample comes back as
 * it went, byte for byte.
 */
#define TRACEPOINT_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | \
			 PERF_SAMPLE_RAW)

START_TEST(tracepoint_samples_round_trip)
{
	static uint64_t clock_ids[] = { 7 }, tracepoint_ids[] = { 8 };
	struct prf_event events[2] = {
		make_event("cpu-clock", FP_TYPE, clock_ids, 1),
		make_event("sched:sched_switch", TRACEPOINT_TYPE, tracepoint_ids, 1),
	};
	struct prf_file_info info = { .hostname = "test", .events = events, .event_count = 2 };
	struct rng rng = { 0x7e57 };
	struct samples s = { .count = 600 };
	uint64_t time = 1000000000;

	events[1].attr.type = PERF_TYPE_TRACEPOINT;
	events[1].attr.config = 372;
	events[1].attr.sample_period = 1;
	for (size_t i = 0; i < s.count; i++) {
		int tracepoint = i % 3 != 0;
		uint8_t *record = calloc(1, 1024), *p = record + 8;
		uint32_t raw_size = 68;		/* sched_switch's: 4 + 68 is 8-aligned */
		uint64_t depth = 3 + i % 4;

		time += 1000 + rng_next(&rng) % 1000;
		put(&p, tracepoint ? 8 : 7);
		put(&p, 0xffffffff81000000ull + i % 16);
		put_pair(&p, 100 + (uint32_t)(i % 5), 100 + (uint32_t)(i % 5));
		put(&p, time);
		put_pair(&p, (uint32_t)(i % 2), 0);
		if (!tracepoint)
			put(&p, 250000);
		put(&p, depth);
		put(&p, PERF_CONTEXT_KERNEL);
		for (uint64_t k = 1; k < depth; k++)
			put(&p, 0xffffffff81000000ull + 0x100 * k + i % 3);
		if (tracepoint) {
			memcpy(p, &raw_size, 4);
			for (uint32_t b = 0; b < raw_size; b++)
				p[4 + b] = (uint8_t)rng_next(&rng);
			p += 4 + raw_size;
		}
		s.sizes[i] = (size_t)(p - record);
		memcpy(record, &(struct perf_event_header){ PERF_RECORD_SAMPLE,
			PERF_RECORD_MISC_KERNEL, (uint16_t)s.sizes[i] }, 8);
		s.records[i] = record;
		s.times[i] = time;
	}
	for (int encoding = PRF_ENCODING_VERBATIM; encoding <= PRF_ENCODING_COMPACT; encoding++) {
		struct prf_writer_options options = { .zstd_level = 1, .name = "memfd",
						      .sample_encoding = encoding };
		struct prf_writer *w;
		struct prf_error error;
		struct result res;
		int fd = memfd_create("prf", 0);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(prf_writer_open(&w, fd, &info, &options, &error), 0);
		for (size_t i = 0; i < s.count; i++)
			ck_assert_int_eq(prf_writer_append(w, s.records[i], s.sizes[i], s.times[i]), 0);
		ck_assert_int_eq(prf_writer_finish(w), 0);
		prf_writer_close(w);
		ck_assert_int_eq(read_back(fd, &s, &res), 0);
		ck_assert_uint_eq(res.records, s.count);
		ck_assert_uint_eq(res.mismatches, 0);
		ck_assert_uint_eq(res.compact_chunks, encoding == PRF_ENCODING_COMPACT);
		close(fd);
	}
	samples_free(&s);
}
END_TEST

static Suite *compact_suite(void)
{
	Suite *s = suite_create("compact");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, round_trip_byte_for_byte, 0, 3);
	tcase_add_test(tc, stack_hashes_follow_the_callchain);
	tcase_add_test(tc, times_are_predicted_per_cpu);
	tcase_add_loop_test(tc, truncation_at_every_byte_of_the_last_chunks, 0, 2);
	tcase_add_test(tc, bit_flips_in_stack_tables_and_columns);
	tcase_add_test(tc, expansion_past_the_limit_is_refused);
	tcase_add_test(tc, tracepoint_samples_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(compact_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
