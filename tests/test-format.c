/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The format library's contract: what is written reads back byte for
 * byte; a file cut anywhere or damaged anywhere yields every chunk that is
 * still whole, says what it lost, and never crashes.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "format.h"

/* ---- a deterministic record stream -------------------------------- */

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

struct stream {
	uint8_t **records;
	size_t *sizes;
	uint64_t *times;
	size_t count;
};

/* Kernel-framed records up to 64 KiB and perfrec ones up to max_big. */
static void stream_make(struct stream *s, size_t count, size_t max_small,
			size_t max_big, uint64_t seed)
{
	struct rng rng = { seed };

	s->records = calloc(count, sizeof(*s->records));
	s->sizes = calloc(count, sizeof(*s->sizes));
	s->times = calloc(count, sizeof(*s->times));
	s->count = count;
	for (size_t i = 0; i < count; i++) {
		uint64_t pick = rng_next(&rng);
		int big = max_big && pick % 17 == 0;
		size_t size = 8 * (1 + rng_next(&rng) % ((big ? max_big : max_small) / 8));
		uint8_t *p = malloc(size);

		if (big && size < sizeof(struct prf_record_header))
			size = sizeof(struct prf_record_header);
		p = realloc(p, size);
		for (size_t k = 0; k < size; k++)
			p[k] = (uint8_t)rng_next(&rng) & (k % 3 ? 0xff : 0x0f);
		if (big) {
			struct prf_record_header h = {
				.type = PRF_RECORD_BASE + 1 + pick % 7,
				.size = (uint32_t)size,
			};
			memcpy(p, &h, sizeof(h));
		} else {
			struct perf_event_header h = {
				.type = 1 + (uint32_t)(pick % 20),
				.misc = (uint16_t)(pick >> 32),
				.size = (uint16_t)size,
			};
			memcpy(p, &h, sizeof(h));
		}
		s->records[i] = p;
		s->sizes[i] = size;
		s->times[i] = 1000 + i * 10;
	}
}

static void stream_free(struct stream *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->records[i]);
	free(s->records);
	free(s->sizes);
	free(s->times);
}

static struct prf_event test_event(uint64_t *ids, uint32_t id_count)
{
	struct prf_event ev = { 0 };

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	ev.attr.sample_freq = 97;
	ev.attr.freq = 1;
	ev.name = "cpu-clock";
	ev.ids = ids;
	ev.id_count = id_count;
	return ev;
}

/* Writes the stream to a new memfd and returns it. */
static int write_file(const struct stream *s, int level, size_t chunk_size,
		      int finish)
{
	static uint64_t ids[] = { 11, 12, 13, 14 };
	struct prf_event event = test_event(ids, 4);
	struct prf_meta meta[] = { { "daemon", "test-format" }, { "frequency", "97" } };
	struct prf_file_info info = { 0 };
	struct prf_writer_options options = { .zstd_level = level,
					      .chunk_size = chunk_size,
					      .name = "memfd" };
	struct prf_writer *w;
	struct prf_error error;
	struct prf_host host;
	int fd = memfd_create("prf", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(prf_file_info_detect(&info, &host), 0);
	info.meta = meta;
	info.meta_count = 2;
	info.events = &event;
	info.event_count = 1;
	ck_assert_int_eq(prf_writer_open(&w, fd, &info, &options, &error), 0);
	for (size_t i = 0; i < s->count; i++)
		ck_assert_int_eq(prf_writer_append(w, s->records[i], s->sizes[i],
						   s->times[i]), 0);
	if (finish)
		ck_assert_int_eq(prf_writer_finish(w), 0);
	else
		ck_assert_int_eq(prf_writer_flush(w), 0);
	prf_writer_close(w);
	return fd;
}

struct diag_log {
	int count;
	char last[512];
};

static void diag_collect(void *context, uint64_t offset, const char *message)
{
	struct diag_log *log = context;

	(void)offset;
	log->count++;
	snprintf(log->last, sizeof(log->last), "%s", message);
}

struct read_result {
	size_t records;		/* matched the stream, in order */
	size_t mismatches;
	struct prf_read_stats stats;
	struct diag_log diag;
	uint64_t chunk_end[4096];	/* file offset after each chunk read */
	size_t chunk_first[4096];	/* records read before it */
	size_t chunks;
};

static int is_sample(const void *record)
{
	uint32_t type;

	memcpy(&type, record, sizeof(type));
	return type == PERF_RECORD_SAMPLE;
}

/* read_file() with prf_reader_read_ahead(): the same chunks must come. */
static int reading_ahead;

/*
 * Reads fd and checks each record against the stream: samples against
 * its samples, the others against the rest, each in order (the writer
 * puts the two in chunks of their own).  Records of a skipped chunk are
 * missing, so matching resynchronises on the next one.
 */
static int read_file(int fd, const struct stream *s, struct read_result *out)
{
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	size_t next[2] = { 0, 0 }, read = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = prf_reader_open_fd(&r, fd, "memfd", &error);
	if (ret < 0)
		return ret;
	prf_reader_set_diag(r, diag_collect, &out->diag);
	if (reading_ahead)
		ck_assert_int_eq(prf_reader_read_ahead(r), 0);
	while ((ret = prf_reader_next_chunk(r, &chunk)) == 1) {
		struct prf_record record;

		if (out->chunks < 4096) {
			out->chunk_end[out->chunks] = chunk.offset;
			out->chunk_first[out->chunks] = read;
		}
		out->chunks++;
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			int kind = is_sample(record.data);
			size_t *at = &next[kind];

			read++;
			if (kind != !!(chunk.flags & PRF_CHUNK_SAMPLES))
				out->mismatches++;	/* in the other kind's chunk */
			while (*at < s->count && (is_sample(s->records[*at]) != kind ||
			       s->sizes[*at] != record.size ||
			       memcmp(s->records[*at], record.data, record.size)))
				(*at)++;
			if (*at == s->count) {
				out->mismatches++;
				continue;
			}
			out->records++;
			(*at)++;
		}
	}
	prf_reader_get_stats(r, &out->stats);
	prf_reader_close(r);
	return ret;
}

static int copy_prefix(int fd, size_t size)
{
	int copy = memfd_create("prf-cut", 0);
	uint8_t *buf = malloc(size ? size : 1);

	ck_assert_int_eq(pread(fd, buf, size, 0), (ssize_t)size);
	ck_assert_int_eq(write(copy, buf, size), (ssize_t)size);
	free(buf);
	return copy;
}

static off_t file_size(int fd)
{
	return lseek(fd, 0, SEEK_END);
}

/* ---- round trip ---------------------------------------------------- */

static void check_round_trip(int level, size_t chunk_size)
{
	struct stream s;
	struct read_result result;
	int fd;

	stream_make(&s, 3000, 65528, 300000, 42 + (uint64_t)level);
	fd = write_file(&s, level, chunk_size, 1);
	ck_assert_int_eq(read_file(fd, &s, &result), 0);
	ck_assert_uint_eq(result.records, s.count);
	ck_assert_uint_eq(result.mismatches, 0);
	ck_assert_int_eq(result.diag.count, 0);
	ck_assert_int_eq(result.stats.complete, 1);
	ck_assert_uint_eq(result.stats.trailer.record_count, s.count);
	ck_assert_uint_eq(result.stats.trailer.chunk_count, result.stats.chunks);
	ck_assert_uint_eq(result.stats.trailer.first_time, s.times[0]);
	ck_assert_uint_eq(result.stats.trailer.last_time, s.times[s.count - 1]);
	ck_assert_uint_gt(result.stats.chunks, 10);
	close(fd);
	stream_free(&s);
}

START_TEST(round_trip_zstd_default)
{
	check_round_trip(0, 0);
}
END_TEST

START_TEST(round_trip_zstd_level1_small_chunks)
{
	check_round_trip(1, 64 * 1024);
}
END_TEST

START_TEST(round_trip_uncompressed)
{
	check_round_trip(-1, 256 * 1024);
}
END_TEST

START_TEST(round_trip_read_ahead)
{
	reading_ahead = 1;
	check_round_trip(1, 64 * 1024);
	check_round_trip(-1, 16 * 1024);
	reading_ahead = 0;
}
END_TEST

/* Closed with chunks still being read: no hang, nothing left (ASan). */
START_TEST(read_ahead_closed_early)
{
	struct stream s;
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_read_stats stats;
	int fd;

	stream_make(&s, 3000, 4096, 0, 71);
	fd = write_file(&s, 1, 8192, 1);
	for (int taken = 0; taken < 4; taken++) {
		ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
		ck_assert_int_eq(prf_reader_read_ahead(r), 0);
		ck_assert_int_eq(prf_reader_read_ahead(r), 0);	/* once is enough */
		for (int i = 0; i < taken; i++)
			ck_assert_int_eq(prf_reader_next_chunk(r, &chunk), 1);
		prf_reader_get_stats(r, &stats);
		ck_assert_uint_eq(stats.chunks, (uint64_t)taken);
		prf_reader_close(r);
	}
	/* At the end, the end again. */
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
	ck_assert_int_eq(prf_reader_read_ahead(r), 0);
	while (prf_reader_next_chunk(r, &chunk) == 1)
		;
	ck_assert_int_eq(prf_reader_next_chunk(r, &chunk), 0);
	prf_reader_get_stats(r, &stats);
	ck_assert_int_eq(stats.complete, 1);
	prf_reader_close(r);
	close(fd);
	stream_free(&s);
}
END_TEST

/* ---- samples in chunks of their own ---------------------------------- */

/* How many of the stream's records before index end are not samples. */
static size_t others_before(const struct stream *s, size_t end)
{
	size_t n = 0;

	for (size_t i = 0; i < end; i++)
		n += !is_sample(s->records[i]);
	return n;
}

/*
 * Samples go into PRF_CHUNK_SAMPLES chunks, the rest into others, and
 * every other record is in the file before the samples that came after
 * it (a file cut anywhere has the maps of its samples).  With
 * prf_reader_skip_samples() the samples' chunks come without records but
 * with their record counts, and a damaged one is still found.
 */
START_TEST(samples_in_chunks_of_their_own)
{
	struct stream s;
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_read_stats stats;
	size_t samples = 0, others = 0, sample_chunks = 0, counted = 0, next_sample = 0;
	size_t others_read = 0;
	uint64_t victim = 0;
	int fd;

	stream_make(&s, 4000, 2048, 0, 61);
	for (size_t i = 0; i < s.count; i++) {
		/* Every third record a sample, as in a capture. */
		uint32_t type;

		memcpy(&type, s.records[i], sizeof(type));
		if (i % 3 == 0 && type < PRF_RECORD_BASE) {
			type = PERF_RECORD_SAMPLE;
			memcpy(s.records[i], &type, sizeof(type));
		}
		samples += is_sample(s.records[i]);
	}
	others = s.count - samples;
	fd = write_file(&s, 0, 16384, 1);
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
	while (prf_reader_next_chunk(r, &chunk) == 1) {
		struct prf_record record;
		int flagged = (chunk.flags & PRF_CHUNK_SAMPLES) != 0;

		sample_chunks += flagged;
		if (flagged && !victim && sample_chunks == 3)
			victim = chunk.offset;
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			ck_assert_int_eq(is_sample(record.data), flagged);
			if (!flagged) {
				others_read++;
				continue;
			}
			while (next_sample < s.count && !is_sample(s.records[next_sample]))
				next_sample++;
			ck_assert_uint_lt(next_sample, s.count);
			ck_assert_int_eq(memcmp(record.data, s.records[next_sample], record.size), 0);
			/* Everything else written before this sample is already in the file. */
			ck_assert_uint_ge(others_read, others_before(&s, next_sample));
			next_sample++;
		}
	}
	prf_reader_close(r);
	ck_assert_uint_gt(sample_chunks, 3);
	ck_assert_uint_eq(others_read, others);

	/* Skipping: counts without records; the other records all there. */
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
	prf_reader_skip_samples(r, 1);
	others_read = 0;
	while (prf_reader_next_chunk(r, &chunk) == 1) {
		struct prf_record record;

		if (chunk.flags & PRF_CHUNK_SAMPLES) {
			ck_assert_uint_eq(chunk.size, 0);
			ck_assert_int_eq(prf_chunk_next_record(&chunk, &record), 0);
			counted += chunk.record_count;
		}
		while (prf_chunk_next_record(&chunk, &record) == 1)
			others_read++;
	}
	prf_reader_close(r);
	ck_assert_uint_eq(counted, samples);
	ck_assert_uint_eq(others_read, others);

	/* A bit flipped in a samples chunk's payload: damaged, even skipped. */
	{
		uint8_t byte;
		struct diag_log log = { 0 };

		ck_assert_int_eq(pread(fd, &byte, 1, (off_t)victim + 64 + 5), 1);
		byte ^= 0x10;
		ck_assert_int_eq(pwrite(fd, &byte, 1, (off_t)victim + 64 + 5), 1);
		ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
		prf_reader_set_diag(r, diag_collect, &log);
		prf_reader_skip_samples(r, 1);
		counted = 0;
		while (prf_reader_next_chunk(r, &chunk) == 1)
			if (chunk.flags & PRF_CHUNK_SAMPLES)
				counted += chunk.record_count;
		prf_reader_get_stats(r, &stats);
		prf_reader_close(r);
		ck_assert_uint_eq(stats.damaged_chunks, 1);
		ck_assert_int_eq(log.count, 1);
		ck_assert_uint_lt(counted, samples);
	}
	close(fd);
	stream_free(&s);
}
END_TEST

START_TEST(header_round_trip)
{
	struct stream s;
	struct prf_reader *r;
	struct prf_error error;
	const struct prf_file_info *info;
	struct prf_file_info host = { 0 };
	struct prf_host facts;
	int fd;

	stream_make(&s, 10, 256, 0, 7);
	fd = write_file(&s, 0, 0, 1);
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "memfd", &error), 0);
	info = prf_reader_info(r);
	ck_assert_int_eq(prf_file_info_detect(&host, &facts), 0);
	ck_assert_str_eq(info->hostname, host.hostname);
	ck_assert_str_eq(info->kernel_release, host.kernel_release);
	ck_assert_str_eq(info->machine, host.machine);
	ck_assert_str_eq(info->boot_id, host.boot_id);
	ck_assert_uint_eq(info->nr_cpus_online, host.nr_cpus_online);
	ck_assert_uint_eq(info->page_size, host.page_size);
	ck_assert_int_eq(info->clockid, CLOCK_MONOTONIC);
	ck_assert_uint_eq(info->meta_count, 2);
	ck_assert_str_eq(info->meta[1].key, "frequency");
	ck_assert_str_eq(info->meta[1].value, "97");
	ck_assert_uint_eq(info->event_count, 1);
	ck_assert_str_eq(info->events[0].name, "cpu-clock");
	ck_assert_uint_eq(info->events[0].attr_size, sizeof(struct perf_event_attr));
	ck_assert_uint_eq(info->events[0].attr.sample_freq, 97);
	ck_assert_uint_eq(info->events[0].id_count, 4);
	ck_assert_uint_eq(info->events[0].ids[3], 14);
	prf_reader_close(r);
	close(fd);
	stream_free(&s);
}
END_TEST

/* ---- truncation ----------------------------------------------------- */

START_TEST(truncation_at_every_byte_of_the_last_chunks)
{
	struct stream s;
	struct read_result full, cut;
	int fd;

	stream_make(&s, 400, 512, 0, 9);
	fd = write_file(&s, 1, 4096, 1);
	ck_assert_int_eq(read_file(fd, &s, &full), 0);
	ck_assert_uint_ge(full.chunks, 4);
	size_t size = (size_t)file_size(fd);
	/* Chunk starts; the trailer starts where the last data chunk ends. */
	uint64_t from = full.chunk_end[full.chunks - 2];

	for (size_t length = from; length < size; length++) {
		int part = copy_prefix(fd, length);
		size_t whole = 0;
		uint64_t last_end = from;

		ck_assert_int_eq(read_file(part, &s, &cut), 0);
		for (size_t c = 0; c < full.chunks; c++) {
			uint64_t end = c + 1 < full.chunks ? full.chunk_end[c + 1] :
				       size - 64 - sizeof(struct prf_trailer);

			if (end <= length) {
				whole = c + 1;
				last_end = end;
			}
		}
		size_t expected = whole < full.chunks ? full.chunk_first[whole] : s.count;
		ck_assert_uint_eq(cut.records, expected);
		ck_assert_uint_eq(cut.mismatches, 0);
		ck_assert_int_eq(cut.stats.complete, 0);
		ck_assert_uint_eq(cut.stats.truncated_bytes, length - last_end);
		ck_assert_int_eq(cut.diag.count, length == last_end ? 0 : 1);
		if (length != last_end)
			ck_assert_ptr_nonnull(strstr(cut.diag.last, "cut short"));
		close(part);
	}
	close(fd);
	stream_free(&s);
}
END_TEST

START_TEST(file_without_trailer_reads_whole)
{
	struct stream s;
	struct read_result result;
	int fd;

	stream_make(&s, 500, 2048, 0, 11);
	fd = write_file(&s, 3, 8192, 0);
	ck_assert_int_eq(read_file(fd, &s, &result), 0);
	ck_assert_uint_eq(result.records, s.count);
	ck_assert_int_eq(result.stats.complete, 0);
	ck_assert_uint_eq(result.stats.truncated_bytes, 0);
	close(fd);
	stream_free(&s);
}
END_TEST

/* The trailer's verdict alone, and the reader's after reading it all. */
static void check_complete(int fd, const struct stream *s, int expected)
{
	struct read_result result;

	ck_assert_int_eq(prf_file_is_complete(fd), expected);
	ck_assert_int_eq(read_file(fd, s, &result), 0);
	ck_assert_int_eq(result.stats.complete, expected);
}

static void flip_byte(int fd, off_t at)
{
	uint8_t byte;

	ck_assert_int_eq(pread(fd, &byte, 1, at), 1);
	byte ^= 0x10;
	ck_assert_int_eq(pwrite(fd, &byte, 1, at), 1);
}

START_TEST(file_is_complete)
{
	const size_t trailer = PRF_CHUNK_HEADER_SIZE + sizeof(struct prf_trailer);
	struct stream s;
	struct read_result full;
	int fd, part, pipe_fds[2];
	size_t size;

	stream_make(&s, 400, 512, 0, 13);
	fd = write_file(&s, 1, 4096, 1);
	check_complete(fd, &s, 1);
	ck_assert_int_eq(read_file(fd, &s, &full), 0);
	ck_assert_uint_ge(full.chunks, 4);
	size = (size_t)file_size(fd);

	/* Cut where a chunk starts, the trailer's included: whole chunks, no trailer. */
	for (size_t c = 1; c <= full.chunks; c++) {
		part = copy_prefix(fd, c < full.chunks ? full.chunk_end[c] : size - trailer);
		check_complete(part, &s, 0);
		close(part);
	}
	/* Cut inside the trailer. */
	part = copy_prefix(fd, size - 8);
	check_complete(part, &s, 0);
	close(part);

	/* Still being written: flushed, not finished. */
	part = write_file(&s, 1, 4096, 0);
	check_complete(part, &s, 0);
	close(part);

	/* The trailer damaged: its payload, then its header. */
	part = copy_prefix(fd, size);
	flip_byte(part, (off_t)size - 8);
	check_complete(part, &s, 0);
	close(part);
	part = copy_prefix(fd, size);
	flip_byte(part, (off_t)(size - trailer + 16));
	check_complete(part, &s, 0);
	close(part);

	ck_assert_int_eq(pipe(pipe_fds), 0);
	ck_assert_int_eq(prf_file_is_complete(pipe_fds[0]), -EINVAL);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	close(fd);
	stream_free(&s);
}
END_TEST

/* ---- damage ---------------------------------------------------------- */

/* Which data chunk holds byte `at`, and is it in that chunk's padding? */
static size_t chunk_of(const struct read_result *full, uint64_t at,
		       uint64_t data_end)
{
	for (size_t c = 0; c < full->chunks; c++) {
		uint64_t end = c + 1 < full->chunks ? full->chunk_end[c + 1] : data_end;

		if (at >= full->chunk_end[c] && at < end)
			return c;
	}
	return (size_t)-1;
}

static void check_bit_flips(void)
{
	struct stream s;
	struct read_result full, damaged;
	int fd;

	stream_make(&s, 120, 400, 0, 13);
	fd = write_file(&s, 1, 4096, 1);
	ck_assert_int_eq(read_file(fd, &s, &full), 0);
	size_t size = (size_t)file_size(fd);
	uint64_t header_end = full.chunk_end[0];
	uint64_t data_end = size - 64 - sizeof(struct prf_trailer);
	uint8_t *image = malloc(size);

	ck_assert_int_eq(pread(fd, image, size, 0), (ssize_t)size);
	for (size_t at = 0; at < size; at++) {
		int copy = memfd_create("prf-flip", 0);
		int ret;

		image[at] ^= 1u << (at % 8);
		ck_assert_int_eq(write(copy, image, size), (ssize_t)size);
		image[at] ^= 1u << (at % 8);
		ret = read_file(copy, &s, &damaged);
		close(copy);
		if (at < header_end) {
			/* The header is checksummed as a whole: refused. */
			ck_assert_int_lt(ret, 0);
			continue;
		}
		ck_assert_int_eq(ret, 0);
		ck_assert_uint_eq(damaged.mismatches, 0);
		size_t c = chunk_of(&full, at, data_end);
		if (c == (size_t)-1) {
			/* In the trailer: every record, but not complete. */
			ck_assert_uint_eq(damaged.records, s.count);
			ck_assert_int_eq(damaged.stats.complete, 0);
			continue;
		}
		size_t lost = (c + 1 < full.chunks ? full.chunk_first[c + 1] : s.count) -
			      full.chunk_first[c];
		uint64_t end = c + 1 < full.chunks ? full.chunk_end[c + 1] : data_end;
		struct prf_chunk_header h;
		ck_assert_int_eq(pread(fd, &h, sizeof(h), (off_t)full.chunk_end[c]), (ssize_t)sizeof(h));
		uint64_t padding_from = full.chunk_end[c] + 64 + h.stored_size;

		if (at >= padding_from && at < end) {
			ck_assert_uint_eq(damaged.records, s.count);
		} else {
			ck_assert_uint_eq(damaged.records, s.count - lost);
			ck_assert_uint_eq(damaged.stats.damaged_chunks, 1);
			ck_assert_int_eq(damaged.diag.count, 1);
			ck_assert_int_eq(damaged.stats.complete, 1);
		}
	}
	free(image);
	close(fd);
	stream_free(&s);
}

START_TEST(bit_flip_anywhere)
{
	check_bit_flips();
}
END_TEST

/* Every damage case again with the chunks read by the reader's thread. */
START_TEST(bit_flip_anywhere_read_ahead)
{
	reading_ahead = 1;
	check_bit_flips();
	reading_ahead = 0;
}
END_TEST

/* Rewrites the header of the chunk at offset and fixes its checksum. */
static void forge_chunk(int fd, uint64_t offset,
			void (*edit)(struct prf_chunk_header *))
{
	struct prf_chunk_header h;

	ck_assert_int_eq(pread(fd, &h, sizeof(h), (off_t)offset), (ssize_t)sizeof(h));
	edit(&h);
	h.header_crc = prf_crc32c(0, &h, offsetof(struct prf_chunk_header, header_crc));
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), (off_t)offset), (ssize_t)sizeof(h));
}

static void lie_raw_huge(struct prf_chunk_header *h) { h->raw_size = 0xfffffff0u; }
static void lie_raw_small(struct prf_chunk_header *h) { h->raw_size /= 2; }
static void lie_stored_huge(struct prf_chunk_header *h) { h->stored_size = 0x7ffffff8u; }
static void lie_count(struct prf_chunk_header *h) { h->record_count += 1; }
static void lie_count_huge(struct prf_chunk_header *h) { h->record_count = 0xffffffffu; }
static void lie_codec(struct prf_chunk_header *h) { h->codec = 7; }
static void lie_header_size(struct prf_chunk_header *h) { h->header_size = 12; }
static void lie_header_huge(struct prf_chunk_header *h) { h->header_size = 0xfff8; }

static void (*const lies[])(struct prf_chunk_header *) = {
	lie_raw_huge, lie_raw_small, lie_stored_huge, lie_count,
	lie_count_huge, lie_codec, lie_header_size, lie_header_huge,
};

START_TEST(length_lies_in_a_middle_chunk)
{
	struct stream s;
	struct read_result full, damaged;
	int fd = -1;

	stream_make(&s, 300, 600, 0, 17);
	fd = write_file(&s, 1, 4096, 1);
	ck_assert_int_eq(read_file(fd, &s, &full), 0);
	ck_assert_uint_ge(full.chunks, 5);
	size_t victim = full.chunks / 2;
	size_t lost = full.chunk_first[victim + 1] - full.chunk_first[victim];
	int copy = copy_prefix(fd, (size_t)file_size(fd));

	forge_chunk(copy, full.chunk_end[victim], lies[_i]);
	ck_assert_int_eq(read_file(copy, &s, &damaged), 0);
	ck_assert_uint_eq(damaged.mismatches, 0);
	if (lies[_i] == lie_stored_huge || lies[_i] == lie_header_huge) {
		/* A sound header that points past the end reads as a cut. */
		ck_assert_uint_eq(damaged.records, full.chunk_first[victim]);
		ck_assert_uint_gt(damaged.stats.truncated_bytes, 0);
	} else {
		ck_assert_uint_eq(damaged.records, s.count - lost);
		ck_assert_uint_eq(damaged.stats.damaged_chunks, 1);
		ck_assert_int_eq(damaged.diag.count, 1);
		ck_assert_ptr_nonnull(strstr(damaged.diag.last, "memfd: offset "));
	}
	close(copy);
	close(fd);
	stream_free(&s);
}
END_TEST

/* An uncompressed chunk whose records lie about their sizes. */
START_TEST(record_framing_lies)
{
	static const uint16_t bad_sizes[] = { 0, 4, 12, 0xfff8 };
	struct stream s;
	struct read_result full, damaged;

	stream_make(&s, 300, 600, 0, 19);
	int fd = write_file(&s, -1, 4096, 1);
	ck_assert_int_eq(read_file(fd, &s, &full), 0);
	size_t victim = 2;
	uint64_t at = full.chunk_end[victim];
	struct prf_chunk_header h;
	int copy = copy_prefix(fd, (size_t)file_size(fd));
	uint8_t *payload;

	ck_assert_int_eq(pread(copy, &h, sizeof(h), (off_t)at), (ssize_t)sizeof(h));
	ck_assert_int_eq(h.codec, PRF_CODEC_NONE);
	payload = malloc(h.stored_size);
	ck_assert_int_eq(pread(copy, payload, h.stored_size, (off_t)at + 64), (ssize_t)h.stored_size);
	memcpy(payload + 6, &bad_sizes[_i], 2);
	/* A forger fixes both checksums: the framing check must catch it. */
	ck_assert_int_eq(pwrite(copy, payload, h.stored_size, (off_t)at + 64), (ssize_t)h.stored_size);
	h.payload_crc = prf_crc32c(0, payload, h.stored_size);
	h.header_crc = prf_crc32c(0, &h, offsetof(struct prf_chunk_header, header_crc));
	ck_assert_int_eq(pwrite(copy, &h, sizeof(h), (off_t)at), (ssize_t)sizeof(h));

	ck_assert_int_eq(read_file(copy, &s, &damaged), 0);
	ck_assert_uint_eq(damaged.stats.damaged_chunks, 1);
	ck_assert_uint_eq(damaged.records,
			  s.count - (full.chunk_first[victim + 1] - full.chunk_first[victim]));
	ck_assert_ptr_nonnull(strstr(damaged.diag.last, "framing"));
	free(payload);
	close(copy);
	close(fd);
	stream_free(&s);
}
END_TEST

START_TEST(garbage_between_chunks_is_skipped)
{
	struct stream s;
	struct read_result full, damaged;

	stream_make(&s, 200, 600, 0, 23);
	int fd = write_file(&s, 1, 4096, 1);
	ck_assert_int_eq(read_file(fd, &s, &full), 0);
	size_t size = (size_t)file_size(fd);
	uint8_t *image = malloc(size + 4096);
	uint64_t at = full.chunk_end[3];

	ck_assert_int_eq(pread(fd, image, size, 0), (ssize_t)size);
	/* 4 KiB of junk (with a fake magic) spliced in before chunk 3. */
	memmove(image + at + 4096, image + at, size - at);
	for (size_t i = 0; i < 4096; i++)
		image[at + i] = (uint8_t)(i * 131);
	memcpy(image + at + 64, PRF_CHUNK_MAGIC, 4);
	int copy = memfd_create("prf-junk", 0);
	ck_assert_int_eq(write(copy, image, size + 4096), (ssize_t)(size + 4096));
	ck_assert_int_eq(read_file(copy, &s, &damaged), 0);
	ck_assert_uint_eq(damaged.records, s.count);
	ck_assert_uint_eq(damaged.stats.skipped_bytes, 4096);
	ck_assert_int_eq(damaged.diag.count, 1);
	ck_assert_int_eq(damaged.stats.complete, 1);
	free(image);
	close(copy);
	close(fd);
	stream_free(&s);
}
END_TEST

/* ---- the header and versions -------------------------------------- */

static int rewrite_header(int fd, void (*edit)(struct prf_file_header *, uint8_t *, size_t))
{
	struct prf_file_header h;
	uint8_t *area;
	int copy = copy_prefix(fd, (size_t)file_size(fd));

	ck_assert_int_eq(pread(copy, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	area = malloc(h.header_size);
	ck_assert_int_eq(pread(copy, area, h.header_size, 0), (ssize_t)h.header_size);
	edit((struct prf_file_header *)area, area, h.header_size);
	((struct prf_file_header *)area)->header_crc = 0;
	((struct prf_file_header *)area)->header_crc = prf_crc32c(0, area, h.header_size);
	ck_assert_int_eq(pwrite(copy, area, h.header_size, 0), (ssize_t)h.header_size);
	free(area);
	return copy;
}

/* A newer minor may add properties: turn the first one into an unknown tag. */
static void newer_minor(struct prf_file_header *h, uint8_t *area, size_t size)
{
	struct prf_property *first = (struct prf_property *)(area + sizeof(*h));

	(void)size;
	h->version_minor = PRF_VERSION_MINOR + 5;
	first->tag = 200;
}

static void newer_major(struct prf_file_header *h, uint8_t *area, size_t size)
{
	(void)area; (void)size;
	h->version_major = PRF_VERSION_MAJOR + 1;
	h->version_minor = 3;
}

static void big_endian(struct prf_file_header *h, uint8_t *area, size_t size)
{
	(void)area; (void)size;
	h->byte_order = __builtin_bswap32(PRF_BYTE_ORDER_MARK);
}

static void property_overrun(struct prf_file_header *h, uint8_t *area, size_t size)
{
	struct prf_property *first = (struct prf_property *)(area + sizeof(*h));

	(void)size;
	first->length = h->header_size;
}

START_TEST(version_rules)
{
	struct stream s;
	struct read_result result;
	struct prf_reader *r;
	struct prf_error error;
	char own[32];

	stream_make(&s, 50, 300, 0, 29);
	int fd = write_file(&s, 0, 0, 1);

	int minor = rewrite_header(fd, newer_minor);
	ck_assert_int_eq(read_file(minor, &s, &result), 0);
	ck_assert_uint_eq(result.records, s.count);
	ck_assert_int_eq(prf_reader_open_fd(&r, minor, "minor.prf", &error), 0);
	ck_assert_uint_eq(prf_reader_info(r)->version_minor, PRF_VERSION_MINOR + 5);
	ck_assert_str_eq(prf_reader_info(r)->hostname, "");	/* it was replaced */
	prf_reader_close(r);

	int major = rewrite_header(fd, newer_major);
	ck_assert_int_eq(prf_reader_open_fd(&r, major, "major.prf", &error), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(error.message, "major.prf"));
	ck_assert_ptr_nonnull(strstr(error.message, "2.3"));
	snprintf(own, sizeof(own), "%d.%d", PRF_VERSION_MAJOR, PRF_VERSION_MINOR);
	ck_assert_ptr_nonnull(strstr(error.message, own));

	int swapped = rewrite_header(fd, big_endian);
	ck_assert_int_eq(prf_reader_open_fd(&r, swapped, "be.prf", &error), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(error.message, "big-endian"));

	int overrun = rewrite_header(fd, property_overrun);
	ck_assert_int_eq(prf_reader_open_fd(&r, overrun, "overrun.prf", &error), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(error.message, "overrun.prf: offset 64"));

	close(minor);
	close(major);
	close(swapped);
	close(overrun);
	close(fd);
	stream_free(&s);
}
END_TEST

START_TEST(not_a_perfrec_file)
{
	struct prf_reader *r;
	struct prf_error error;
	int fd = memfd_create("junk", 0);
	char text[200];

	memset(text, 'x', sizeof(text));
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "empty.prf", &error), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(error.message, "too short"));
	ck_assert_int_eq(write(fd, text, sizeof(text)), (ssize_t)sizeof(text));
	ck_assert_int_eq(prf_reader_open_fd(&r, fd, "text.prf", &error), -EBADMSG);
	ck_assert_str_eq(error.message, "text.prf: not a perfrec file (bad magic)");
	close(fd);
	ck_assert_int_eq(prf_reader_open(&r, "/nonexistent/x.prf", &error), -ENOENT);
	ck_assert_str_eq(error.message, "/nonexistent/x.prf: No such file or directory");
}
END_TEST

/* Unknown record types in a chunk are the caller's to skip: framed, returned. */
START_TEST(unknown_record_types_are_framed)
{
	struct stream s;
	struct read_result result;

	stream_make(&s, 100, 300, 4096, 31);
	for (size_t i = 0; i < s.count; i += 3) {
		uint32_t type = i % 2 ? 0xfffe : PRF_RECORD_BASE + 0x1234;

		memcpy(s.records[i], &type, 4);
		if (type >= PRF_RECORD_BASE && s.sizes[i] < 16) {
			type = 77;
			memcpy(s.records[i], &type, 4);
		} else if (type >= PRF_RECORD_BASE) {
			uint32_t size = (uint32_t)s.sizes[i];
			uint16_t zero = 0;

			memcpy(s.records[i] + 6, &zero, 2);
			memcpy(s.records[i] + 8, &size, 4);
		}
	}
	int fd = write_file(&s, 0, 16384, 1);
	ck_assert_int_eq(read_file(fd, &s, &result), 0);
	ck_assert_uint_eq(result.records, s.count);
	close(fd);
	stream_free(&s);
}
END_TEST

/* ---- the writer under write errors ---------------------------------- */

START_TEST(write_error_keeps_the_file_whole)
{
	struct stream s;
	struct prf_event event = test_event(NULL, 0);
	struct prf_file_info info = { .events = &event, .event_count = 1,
				      .hostname = "h" };
	struct prf_writer_options options = { .zstd_level = -1, .chunk_size = 4096,
					      .name = "limited.prf" };
	struct prf_writer_stats stats;
	struct read_result result;
	struct prf_writer *w;
	struct prf_error error;
	struct rlimit limit = { 20000, RLIM_INFINITY };
	char path[] = "/tmp/prf-limit-XXXXXX";
	int fd = mkstemp(path);
	size_t failed = 0;

	unlink(path);
	stream_make(&s, 200, 400, 0, 37);
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(prf_writer_open(&w, fd, &info, &options, &error), 0);
	/* The file may grow to 20000 bytes: writes past that fail with EFBIG. */
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
	for (size_t i = 0; i < 140; i++)
		if (prf_writer_append(w, s.records[i], s.sizes[i], s.times[i]) < 0)
			failed++;
	ck_assert_uint_gt(failed, 0);
	ck_assert_ptr_nonnull(strstr(prf_writer_last_error(w), "limited.prf: writing chunk"));
	prf_writer_get_stats(w, &stats);
	ck_assert_uint_gt(stats.dropped_records, 0);
	ck_assert_uint_le(stats.file_bytes, 20000);
	ck_assert_int_eq(file_size(fd), (off_t)stats.file_bytes);

	/* Space returns: writing resumes where the last whole chunk ended. */
	limit.rlim_cur = RLIM_INFINITY;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
	for (size_t i = 140; i < s.count; i++)
		ck_assert_int_eq(prf_writer_append(w, s.records[i], s.sizes[i], s.times[i]), 0);
	ck_assert_int_eq(prf_writer_finish(w), 0);
	prf_writer_get_stats(w, &stats);
	prf_writer_close(w);

	ck_assert_int_eq(read_file(fd, &s, &result), 0);
	ck_assert_int_eq(result.diag.count, 0);
	ck_assert_int_eq(result.stats.complete, 1);
	ck_assert_uint_eq(result.records + stats.dropped_records, s.count);
	ck_assert_uint_eq(result.stats.trailer.dropped_records, stats.dropped_records);
	close(fd);
	stream_free(&s);
}
END_TEST

START_TEST(writer_rejects_malformed_records)
{
	struct prf_event event = test_event(NULL, 0);
	struct prf_file_info info = { .events = &event, .event_count = 1 };
	struct prf_writer *w;
	struct prf_error error;
	uint64_t record[4] = { 0 };
	struct perf_event_header h = { .type = 9, .size = 24 };
	int fd = memfd_create("prf", 0);

	ck_assert_int_eq(prf_writer_open(&w, fd, &info, NULL, &error), 0);
	memcpy(record, &h, sizeof(h));
	ck_assert_int_eq(prf_writer_append(w, record, 20, 0), -EINVAL);
	ck_assert_int_eq(prf_writer_append(w, record, 32, 0), -EINVAL);
	ck_assert_int_eq(prf_writer_append(w, record, 24, 0), 0);
	prf_writer_close(w);
	close(fd);
}
END_TEST

START_TEST(crc32c_known_answers)
{
	static const char check[] = "123456789";
	uint8_t zeros[32] = { 0 }, ones[32];

	memset(ones, 0xff, sizeof(ones));
	/* RFC 3720 B.4 test vectors and the catalogue check value. */
	ck_assert_uint_eq(prf_crc32c(0, check, 9), 0xE3069283u);
	ck_assert_uint_eq(prf_crc32c(0, zeros, 32), 0x8A9136AAu);
	ck_assert_uint_eq(prf_crc32c(0, ones, 32), 0x62A8AB43u);
	/* Chaining over pieces equals one pass, at every split and alignment. */
	for (size_t split = 0; split <= 9; split++)
		ck_assert_uint_eq(prf_crc32c(prf_crc32c(0, check, split), check + split,
					     9 - split), 0xE3069283u);
}
END_TEST

/* ---- the tracing records ------------------------------------------ */

static uint64_t tracing_buffer[1024];

START_TEST(off_cpu_round_trip)
{
	static const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
					  PERF_CONTEXT_USER, 0x401000, 0x401100 };
	static const uint64_t waker[] = { PERF_CONTEXT_USER, 0x402000 };
	static const uint64_t regs[] = { 7, 0x7ffe0000, 0x401000 };
	static const char stack[13] = "stack bytes!";
	struct prf_off_cpu in = {
		.time = 123456789, .duration = 5000000, .pid = 10, .tid = 11, .cpu = 1,
		.flags = PRF_OFF_CPU_WAKER, .cgroup = 77, .waker_pid = 20, .waker_tid = 21,
		.waker_comm = "answerer-thread!",	/* 16 characters: no NUL on disk */
		.callchain = chain, .callchain_nr = 5,
		.waker_callchain = waker, .waker_callchain_nr = 2,
		.user_regs = { .abi = PERF_SAMPLE_REGS_ABI_64, .mask = 0x10a, .regs = regs, .count = 3 },
		.user_stack = stack, .user_stack_size = sizeof(stack),
	}, out;
	ssize_t size = prf_encode_off_cpu(&in, tracing_buffer, sizeof(tracing_buffer));

	ck_assert_int_eq(size, (ssize_t)prf_off_cpu_record_size(&in));
	ck_assert_int_eq(size, 112 + 8 * (5 + 2 + 3) + 16);
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), 0);
	ck_assert_uint_eq(out.time, in.time);
	ck_assert_uint_eq(out.duration, in.duration);
	ck_assert_uint_eq(out.tid, 11);
	ck_assert_uint_eq(out.cgroup, 77);
	ck_assert_str_eq(out.waker_comm, "answerer-thread!");
	ck_assert_uint_eq(out.waker_tid, 21);
	ck_assert_uint_eq(out.callchain_nr, 5);
	ck_assert_mem_eq(out.callchain, chain, sizeof(chain));
	ck_assert_mem_eq(out.waker_callchain, waker, sizeof(waker));
	ck_assert_uint_eq(out.user_regs.count, 3);
	ck_assert_mem_eq(out.user_regs.regs, regs, sizeof(regs));
	ck_assert_uint_eq(out.user_stack_size, sizeof(stack));
	ck_assert_mem_eq(out.user_stack, stack, sizeof(stack));
	ck_assert_int_eq(prf_encode_off_cpu(&in, tracing_buffer, (size_t)size - 8), -ENOSPC);

	/* Without the waker flag its fields mean nothing and read as zero. */
	in.flags = 0;
	size = prf_encode_off_cpu(&in, tracing_buffer, sizeof(tracing_buffer));
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), 0);
	ck_assert_uint_eq(out.waker_tid, 0);
	ck_assert_str_eq(out.waker_comm, "");
}
END_TEST

/* Every count that a hostile file can set is checked against the bytes there. */
START_TEST(off_cpu_hostile_counts)
{
	static const uint64_t chain[] = { PERF_CONTEXT_USER, 0x401000 };
	struct prf_off_cpu in = { .callchain = chain, .callchain_nr = 2 }, out;
	struct prf_off_cpu_record *r = (void *)tracing_buffer;
	ssize_t size = prf_encode_off_cpu(&in, tracing_buffer, sizeof(tracing_buffer));
	const struct prf_off_cpu_record good = *r;

	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), 0);
	r->callchain_nr = 3;
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), -EBADMSG);
	*r = good;
	r->callchain_nr = UINT32_MAX;
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), -EBADMSG);
	*r = good;
	r->waker_callchain_nr = 1;
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), -EBADMSG);
	*r = good;
	r->user_regs_mask = 1;		/* registers without an ABI */
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), -EBADMSG);
	*r = good;
	r->user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
	r->user_regs_mask = ~0ull;	/* 64 registers in 16 bytes */
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), -EBADMSG);
	*r = good;
	r->user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
	r->user_stack_size = UINT32_MAX - 3;
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size, &out), -EBADMSG);
	*r = good;
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, (size_t)size - 8, &out), -EBADMSG);
	ck_assert_int_eq(prf_decode_off_cpu(tracing_buffer, 100, &out), -EBADMSG);
	ck_assert_int_eq(prf_decode_off_cpu((char *)tracing_buffer + 4, (size_t)size, &out), -EBADMSG);
	in.callchain_nr = PRF_OFF_CPU_CALLCHAIN_MAX + 1;
	ck_assert_int_eq(prf_encode_off_cpu(&in, tracing_buffer, sizeof(tracing_buffer)), -EINVAL);
}
END_TEST

START_TEST(tracepoint_format_round_trip_and_lies)
{
	static const char text[] = "name: sched_process_exec\nID: 312\nformat:\n"
				   "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n";
	struct prf_tracepoint_format_record *r = (void *)tracing_buffer;
	struct prf_tracepoint_format out;
	ssize_t size = prf_encode_tracepoint_format(312, "sched:sched_process_exec", text,
						    strlen(text), tracing_buffer,
						    sizeof(tracing_buffer));

	ck_assert_int_gt(size, 0);
	ck_assert_int_eq(size % 8, 0);
	ck_assert_int_eq(prf_decode_tracepoint_format(tracing_buffer, (size_t)size, &out), 0);
	ck_assert_uint_eq(out.config, 312);
	ck_assert_str_eq(out.name, "sched:sched_process_exec");
	ck_assert_str_eq(out.text, text);
	ck_assert_uint_eq(out.text_size, strlen(text));
	r->text_size += 64;
	ck_assert_int_eq(prf_decode_tracepoint_format(tracing_buffer, (size_t)size, &out), -EBADMSG);
	r->text_size -= 64;
	r->name_size = UINT32_MAX;
	ck_assert_int_eq(prf_decode_tracepoint_format(tracing_buffer, (size_t)size, &out), -EBADMSG);
	r->name_size = 5;		/* "sched" with no NUL at its end */
	ck_assert_int_eq(prf_decode_tracepoint_format(tracing_buffer, (size_t)size, &out), -EBADMSG);
	r->name_size = 0;
	ck_assert_int_eq(prf_decode_tracepoint_format(tracing_buffer, (size_t)size, &out), -EBADMSG);
	ck_assert_int_eq(prf_encode_tracepoint_format(1, "a:b", text, strlen(text),
						      tracing_buffer, 40), -ENOSPC);
}
END_TEST

static Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, crc32c_known_answers);
	tcase_add_test(tc, header_round_trip);
	tcase_add_test(tc, round_trip_zstd_default);
	tcase_add_test(tc, round_trip_zstd_level1_small_chunks);
	tcase_add_test(tc, round_trip_uncompressed);
	tcase_add_test(tc, samples_in_chunks_of_their_own);
	tcase_add_test(tc, file_without_trailer_reads_whole);
	tcase_add_test(tc, file_is_complete);
	tcase_add_test(tc, truncation_at_every_byte_of_the_last_chunks);
	tcase_add_test(tc, bit_flip_anywhere);
	tcase_add_test(tc, bit_flip_anywhere_read_ahead);
	tcase_add_test(tc, round_trip_read_ahead);
	tcase_add_test(tc, read_ahead_closed_early);
	tcase_add_loop_test(tc, length_lies_in_a_middle_chunk, 0, (int)(sizeof(lies) / sizeof(lies[0])));
	tcase_add_loop_test(tc, record_framing_lies, 0, 4);
	tcase_add_test(tc, garbage_between_chunks_is_skipped);
	tcase_add_test(tc, version_rules);
	tcase_add_test(tc, not_a_perfrec_file);
	tcase_add_test(tc, unknown_record_types_are_framed);
	tcase_add_test(tc, write_error_keeps_the_file_whole);
	tcase_add_test(tc, writer_rejects_malformed_records);
	tcase_add_test(tc, off_cpu_round_trip);
	tcase_add_test(tc, off_cpu_hostile_counts);
	tcase_add_test(tc, tracepoint_format_round_trip_and_lies);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(format_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
