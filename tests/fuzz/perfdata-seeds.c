/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data seeds for the reader's fuzz corpus (and so for
 * test-report-hostile.sh, which reads every seed in every view): two
 * valid files laid out as perf record writes them (perf's
 * perf.data-file-format.txt), one with its records in zstd-compressed
 * COMPRESSED records (perf record -z: one stream, a record split between
 * two of them), and copies of them that lie: sizes, counts and offsets
 * past the file or past any bound, attrs of a size that lies, features
 * whose lengths lie, records of impossible sizes, compressed data that is
 * garbage or that inflates beyond the bound its header gives, the other
 * byte order, and cuts; and a file in pipe mode (perf record -o -), whole,
 * cut and lying.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "fuzz-common.h"
#include "perfdata-seeds.h"

struct pd {
	uint8_t *data;
	size_t size, capacity;
	/* where the builder put things, for the forgeries */
	size_t attrs, ids, data_start, data_end, features, first_record;
	size_t hostname, event_desc, build_id, compressed_feature, compressed_record;
};

static void put(struct pd *f, const void *p, size_t n)
{
	if (f->size + n > f->capacity) {
		f->capacity = (f->size + n) * 2 + 4096;
		f->data = realloc(f->data, f->capacity);
		if (!f->data)
			abort();
	}
	memcpy(f->data + f->size, p, n);
	f->size += n;
}

static void put_u16(struct pd *f, uint16_t v) { put(f, &v, 2); }
static void put_u32(struct pd *f, uint32_t v) { put(f, &v, 4); }
static void put_u64(struct pd *f, uint64_t v) { put(f, &v, 8); }

static void put_at_u64(struct pd *f, size_t at, uint64_t v)
{
	memcpy(f->data + at, &v, 8);
}

static void put_at_u32(struct pd *f, size_t at, uint32_t v)
{
	memcpy(f->data + at, &v, 4);
}

/* perf's string: u32 length (NUL and padding to 8 included), the bytes. */
static void put_string(struct pd *f, const char *s)
{
	uint32_t length = (uint32_t)FUZZ_ALIGN8(strlen(s) + 1);
	char pad[8] = { 0 };

	put_u32(f, length);
	put(f, s, strlen(s));
	put(f, pad, length - strlen(s));
}

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
		     PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static struct perf_event_attr attr_of(int dummy)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = dummy ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 999,
		.sample_type = SAMPLE_TYPE,
		.freq = 1,
		.sample_id_all = 1,
	};

	if (dummy)
		a.mmap = a.comm = a.task = a.mmap2 = 1;
	return a;
}

/* A record's records, built in memory: header, body, the sample_id trailer. */
struct rec {
	uint8_t data[512];
	size_t size;
};

static void rec_put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->data + r->size, p, n);
	r->size += n;
}

static void rec_u64(struct rec *r, uint64_t v) { rec_put(r, &v, 8); }
static void rec_u32s(struct rec *r, uint32_t a, uint32_t b)
{
	rec_put(r, &a, 4);
	rec_put(r, &b, 4);
}

static void rec_begin(struct rec *r, uint32_t type)
{
	r->size = 0;
	rec_u32s(r, type, 0);
}

static void rec_end(struct rec *r, uint32_t pid, uint64_t time, uint64_t id, int trailer)
{
	uint16_t size;

	if (trailer) {
		rec_u32s(r, pid, pid);
		rec_u64(r, time);
		rec_u64(r, id);
		rec_u32s(r, 0, 0);	/* cpu, res */
	}
	r->size = FUZZ_ALIGN8(r->size);
	size = (uint16_t)r->size;
	memcpy(r->data + 6, &size, 2);
}

static void rec_string(struct rec *r, const char *s)
{
	size_t n = strlen(s) + 1;

	memset(r->data + r->size, 0, FUZZ_ALIGN8(n));
	memcpy(r->data + r->size, s, n);
	r->size += FUZZ_ALIGN8(n);
}

/* The kernel's records of one small run: maps, names, samples, user and kernel. */
static void make_records(struct pd *records)
{
	struct rec r;
	uint64_t time = 1000000000;

	rec_begin(&r, PERF_RECORD_COMM);
	rec_u32s(&r, 42, 42);
	rec_string(&r, "seed");
	rec_end(&r, 42, 0, 0, 1);	/* synthesized: id 0, time 0 */
	put(records, r.data, r.size);
	rec_begin(&r, PERF_RECORD_MMAP2);
	rec_u32s(&r, 42, 42);
	rec_u64(&r, 0x400000);
	rec_u64(&r, 0x10000);
	rec_u64(&r, 0);
	rec_u32s(&r, 8, 1);
	rec_u64(&r, 1234);
	rec_u64(&r, 0);
	rec_u32s(&r, 5, 2);
	rec_string(&r, "/usr/bin/seed");
	rec_end(&r, 42, time, 21, 1);
	put(records, r.data, r.size);
	rec_begin(&r, PERF_RECORD_FORK);
	rec_u32s(&r, 43, 42);
	rec_u32s(&r, 43, 42);
	rec_u64(&r, time + 10);
	rec_end(&r, 43, time + 10, 22, 1);
	put(records, r.data, r.size);
	for (unsigned i = 0; i < 24; i++) {
		int kernel = i % 4 == 3;

		rec_begin(&r, PERF_RECORD_SAMPLE);
		memcpy(r.data + 4, &(uint16_t){ kernel ? PERF_RECORD_MISC_KERNEL :
						    PERF_RECORD_MISC_USER }, 2);
		rec_u64(&r, kernel ? 0xffffffff81000100ull + i : 0x401000 + 16 * i);
		rec_u32s(&r, 42 + i % 2, 42 + i % 2);
		rec_u64(&r, time + 100 * i);
		rec_u64(&r, 11 + i % 2);
		rec_u32s(&r, i % 2, 0);
		rec_u64(&r, 1001001);
		rec_u64(&r, 4);
		rec_u64(&r, kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER);
		rec_u64(&r, kernel ? 0xffffffff81000100ull + i : 0x401000 + 16 * i);
		rec_u64(&r, kernel ? PERF_CONTEXT_USER : 0x402000);
		rec_u64(&r, 0x403000);
		rec_end(&r, 0, 0, 0, 0);
		put(records, r.data, r.size);
	}
	rec_begin(&r, PERF_RECORD_EXIT);
	rec_u32s(&r, 43, 42);
	rec_u32s(&r, 43, 42);
	rec_u64(&r, time + 5000);
	rec_end(&r, 43, time + 5000, 22, 1);
	put(records, r.data, r.size);
}

/* perf -z: the records as one zstd stream, flushed twice, mid-record. */
static void put_compressed(struct pd *f, const struct pd *records)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t cut = records->size / 2 + 4, at = 0;

	for (int part = 0; part < 2; part++) {
		uint8_t out[65536];
		ZSTD_inBuffer in = { records->data + at, (part ? records->size : cut) - at, 0 };
		ZSTD_outBuffer o = { out, sizeof(out), 0 };
		size_t left;

		do
			left = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_flush);
		while (left && !ZSTD_isError(left));
		if (ZSTD_isError(left) || o.pos + 8 > 65535)
			abort();
		if (!part)
			f->compressed_record = f->size;
		put_u32(f, 81);		/* PERF_RECORD_COMPRESSED */
		put_u16(f, 0);
		put_u16(f, (uint16_t)(o.pos + 8));
		put(f, out, o.pos);	/* not padded, as perf writes it */
		at += in.pos;
	}
	ZSTD_freeCCtx(cctx);
}

enum { FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5,
       FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_EVENT_DESC = 12, FEAT_SAMPLE_TIME = 21,
       FEAT_COMPRESSED = 27 };

static void put_feature(struct pd *f, unsigned feature, size_t table_slot)
{
	size_t start = f->size;
	struct perf_event_attr a0 = attr_of(0), a1 = attr_of(1);

	switch (feature) {
	case FEAT_HOSTNAME:
		f->hostname = f->size;
		put_string(f, "seedhost");
		break;
	case FEAT_OSRELEASE:
		put_string(f, "6.1.0-seed");
		break;
	case FEAT_VERSION:
		put_string(f, "6.1.0");
		break;
	case FEAT_ARCH:
		put_string(f, "x86_64");
		break;
	case FEAT_NRCPUS:
		put_u32(f, 2);
		put_u32(f, 2);
		break;
	case FEAT_EVENT_DESC:
		f->event_desc = f->size;
		put_u32(f, 2);
		put_u32(f, sizeof(a0));
		put(f, &a0, sizeof(a0));
		put_u32(f, 2);
		put_string(f, "cpu-clock:ppp");
		put_u64(f, 11);
		put_u64(f, 12);
		put(f, &a1, sizeof(a1));
		put_u32(f, 2);
		put_string(f, "dummy:HG");
		put_u64(f, 21);
		put_u64(f, 22);
		break;
	case FEAT_SAMPLE_TIME:
		put_u64(f, 1000000000);
		put_u64(f, 1000005000);
		break;
	case FEAT_COMPRESSED:
		f->compressed_feature = f->size;
		put_u32(f, 1);		/* version */
		put_u32(f, 1);		/* zstd */
		put_u32(f, 1);		/* level */
		put_u32(f, 4);		/* ratio */
		put_u32(f, 528384);	/* mmap_len */
		break;
	case FEAT_BUILD_ID: {
		uint8_t id[24] = { 0xb1, 0xd0, 0x5e, 0xed };
		const char path[16] = "/usr/bin/seed";

		f->build_id = f->size;
		put_u32(f, 67);		/* PERF_RECORD_HEADER_BUILD_ID */
		put_u16(f, 1u << 15);	/* the size is in id[20] */
		put_u16(f, 8 + 4 + 24 + sizeof(path));
		put_u32(f, 42);
		id[20] = 4;
		put(f, id, sizeof(id));
		put(f, path, sizeof(path));
		break;
	}
	}
	put_at_u64(f, table_slot, start);
	put_at_u64(f, table_slot + 8, f->size - start);
}

static struct pd build(int compressed)
{
	static const unsigned features[] = { FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE,
					     FEAT_VERSION, FEAT_ARCH, FEAT_NRCPUS,
					     FEAT_EVENT_DESC, FEAT_SAMPLE_TIME, FEAT_COMPRESSED };
	struct perf_event_attr attrs[2] = { attr_of(0), attr_of(1) };
	struct pd f = { 0 }, records = { 0 };
	uint64_t bits[4] = { 0 };
	size_t count = 0;

	put(&f, "PERFILE2", 8);
	put_u64(&f, 104);
	put_u64(&f, sizeof(attrs[0]) + 16);
	while (f.size < 104)
		put_u64(&f, 0);
	f.ids = f.size;
	for (int i = 0; i < 4; i++)
		put_u64(&f, i < 2 ? 11 + i : 21 + i - 2);
	f.attrs = f.size;
	for (int i = 0; i < 2; i++) {
		put(&f, &attrs[i], sizeof(attrs[i]));
		put_u64(&f, f.ids + 16 * i);
		put_u64(&f, 16);
	}
	put_at_u64(&f, 24, f.attrs);
	put_at_u64(&f, 32, f.size - f.attrs);
	f.data_start = f.first_record = f.size;
	make_records(&records);
	if (compressed)
		put_compressed(&f, &records);
	else
		put(&f, records.data, records.size);
	put_u32(&f, 68);		/* PERF_RECORD_FINISHED_ROUND */
	put_u16(&f, 0);
	put_u16(&f, 8);
	free(records.data);
	f.data_end = f.size;
	put_at_u64(&f, 40, f.data_start);
	put_at_u64(&f, 48, f.data_end - f.data_start);
	for (size_t i = 0; i < FUZZ_ARRAY_SIZE(features); i++)
		if (compressed || features[i] != FEAT_COMPRESSED) {
			bits[features[i] / 64] |= 1ull << (features[i] % 64);
			count++;
		}
	memcpy(f.data + 72, bits, sizeof(bits));
	f.features = f.size;
	for (size_t i = 0; i < count; i++) {
		put_u64(&f, 0);
		put_u64(&f, 0);
	}
	count = 0;
	for (size_t i = 0; i < FUZZ_ARRAY_SIZE(features); i++)
		if (compressed || features[i] != FEAT_COMPRESSED)
			put_feature(&f, features[i], f.features + 16 * count++);
	return f;
}

/* Pipe mode: the description as records before the data, as perf record -o - writes it. */
static struct pd build_pipe(void)
{
	struct pd f = { 0 }, records = { 0 };

	put(&f, "PERFILE2", 8);
	put_u64(&f, 16);
	f.attrs = f.size;
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a = attr_of(i);

		put_u32(&f, 64);	/* PERF_RECORD_HEADER_ATTR */
		put_u16(&f, 0);
		put_u16(&f, (uint16_t)(8 + sizeof(a) + 16));
		put(&f, &a, sizeof(a));
		put_u64(&f, i ? 21 : 11);
		put_u64(&f, i ? 22 : 12);
	}
	f.features = f.size;
	put_u32(&f, 80);		/* PERF_RECORD_HEADER_FEATURE */
	put_u16(&f, 0);
	put_u16(&f, 8 + 8 + 4 + 16);
	put_u64(&f, FEAT_HOSTNAME);
	f.hostname = f.size;
	put_string(&f, "pipehost");
	f.event_desc = f.size;
	put_u32(&f, 78);		/* PERF_RECORD_EVENT_UPDATE */
	put_u16(&f, 0);
	put_u16(&f, 8 + 16 + 16);
	put_u64(&f, 1);			/* its name */
	put_u64(&f, 11);
	put(&f, "cpu-clock:pipe\0\0", 16);
	f.data_start = f.first_record = f.size;
	make_records(&records);
	put(&f, records.data, records.size);
	free(records.data);
	put_u32(&f, 68);
	put_u16(&f, 0);
	put_u16(&f, 8);
	f.data_end = f.size;
	return f;
}

/* A copy of f with width bytes at offset set to value, saved. */
static void forge(const struct pd *f, perfdata_save_fn save, const char *name, size_t offset,
		  size_t width, uint64_t value)
{
	uint8_t *copy = malloc(f->size);
	char full[128];

	if (!copy)
		abort();
	memcpy(copy, f->data, f->size);
	if (offset + width <= f->size)
		memcpy(copy + offset, &value, width);
	snprintf(full, sizeof(full), "perfdata-forged-%s.data", name);
	save(full, copy, f->size);
	free(copy);
}

/* The first record made an AUXTRACE, whose u64 at +8 is the size of the data after it. */
static void save_auxtrace(const struct pd *f, perfdata_save_fn save, const char *name,
			  uint64_t size)
{
	struct pd copy = { 0 };
	char full[128];

	put(&copy, f->data, f->size);
	put_at_u32(&copy, f->first_record, 71);
	put_at_u64(&copy, f->first_record + 8, size);
	snprintf(full, sizeof(full), "perfdata-forged-%s.data", name);
	save(full, copy.data, copy.size);
	free(copy.data);
}

/* A COMPRESSED record whose data inflates to 1 MiB, beyond mmap_len 64 KiB. */
static void save_inflating(const struct pd *f, perfdata_save_fn save)
{
	struct pd copy = { 0 };
	size_t bomb_size = 1u << 20, z;
	uint8_t *zeros = calloc(1, bomb_size), out[65536];

	if (!zeros)
		abort();
	z = ZSTD_compress(out, sizeof(out), zeros, bomb_size, 19);
	if (ZSTD_isError(z) || z + 8 > 65535)
		abort();
	put(&copy, f->data, f->compressed_record);
	put_u32(&copy, 81);
	put_u16(&copy, 0);
	put_u16(&copy, (uint16_t)(z + 8));
	put(&copy, out, z);
	put_at_u64(&copy, 48, copy.size - f->data_start);
	put_at_u64(&copy, 72, 0);	/* no features: the default bound, 16 MiB */
	save("perfdata-inflates-1mib-default-bound.data", copy.data, copy.size);
	free(copy.data);
	/* The same behind the features, HEADER_COMPRESSED's mmap_len set to 64 KiB. */
	copy = (struct pd){ 0 };
	put(&copy, f->data, f->size);
	put_at_u32(&copy, f->compressed_feature + 16, 65536);
	{
		/* Replace the first compressed record's data by the bomb, kept at its size. */
		uint16_t size;

		memcpy(&size, f->data + f->compressed_record + 6, 2);
		if (z + 8 <= size) {
			memcpy(copy.data + f->compressed_record + 8, out, z);
			memset(copy.data + f->compressed_record + 8 + z, 0, size - 8 - z);
		}
	}
	save("perfdata-inflates-beyond-mmap-len.data", copy.data, copy.size);
	free(copy.data);
	free(zeros);
}

static void save_cuts(const struct pd *f, perfdata_save_fn save, const char *base)
{
	const size_t cuts[] = { 8, 50, f->attrs + 20, f->data_start + 3, f->data_start + 40,
				(f->data_start + f->data_end) / 2, f->data_end,
				f->features + 8, f->size - 5 };
	char name[128];

	for (size_t i = 0; i < FUZZ_ARRAY_SIZE(cuts); i++) {
		snprintf(name, sizeof(name), "perfdata-cut-%s-%zu.data", base, cuts[i]);
		save(name, f->data, cuts[i] < f->size ? cuts[i] : f->size);
	}
}

void perfdata_seeds(perfdata_save_fn save)
{
	struct pd plain = build(0), z = build(1), pipe;
	const uint64_t huge = 1ull << 62;

	save("perfdata-valid.data", plain.data, plain.size);
	save("perfdata-valid-zstd.data", z.data, z.size);
	save_cuts(&plain, save, "plain");
	save_cuts(&z, save, "zstd");
	pipe = build_pipe();
	save("perfdata-valid-pipe.data", pipe.data, pipe.size);
	save_cuts(&pipe, save, "pipe");
	forge(&pipe, save, "pipe-attr-record-size-huge", pipe.attrs + 6, 2, 0xffff);
	forge(&pipe, save, "pipe-attr-size-lies", pipe.attrs + 8 + 4, 4, 0xfff8);
	forge(&pipe, save, "pipe-feature-string-lies", pipe.hostname, 4, 0xffffffffu);
	forge(&pipe, save, "pipe-feature-number-huge", pipe.features + 8, 8, ~0ull);
	forge(&pipe, save, "pipe-update-size-zero", pipe.event_desc + 6, 2, 0);
	free(pipe.data);

	forge(&plain, save, "attr-size-huge", 16, 8, 0xffffffffu);
	forge(&plain, save, "attr-size-small", 16, 8, 24);
	forge(&plain, save, "attr-size-odd", 16, 8, sizeof(struct perf_event_attr) + 16 + 8);
	forge(&plain, save, "attr-own-size-lies", plain.attrs + 4, 4, 0xfffff);
	forge(&plain, save, "attrs-offset-past-end", 24, 8, huge);
	forge(&plain, save, "attrs-size-huge", 32, 8, huge);
	forge(&plain, save, "attrs-none", 32, 8, 0);
	forge(&plain, save, "ids-offset-past-end", plain.attrs + sizeof(struct perf_event_attr),
	      8, huge);
	forge(&plain, save, "ids-count-huge", plain.attrs + sizeof(struct perf_event_attr) + 8, 8,
	      huge);
	forge(&plain, save, "data-offset-past-end", 40, 8, huge);
	forge(&plain, save, "data-size-huge", 48, 8, huge);
	forge(&plain, save, "data-size-zero", 48, 8, 0);
	forge(&plain, save, "features-all", 72, 8, ~0ull);
	forge(&plain, save, "feature-offset-past-end", plain.features + 16, 8, huge);
	forge(&plain, save, "feature-size-huge", plain.features + 24, 8, huge);
	forge(&plain, save, "string-length-huge", plain.hostname, 4, 0xffffffffu);
	forge(&plain, save, "string-length-zero", plain.hostname, 4, 0);
	forge(&plain, save, "event-desc-count-huge", plain.event_desc, 4, 0x40000000u);
	forge(&plain, save, "event-desc-attr-size-lies", plain.event_desc + 4, 4, 0xffffu);
	forge(&plain, save, "event-desc-ids-huge",
	      plain.event_desc + 8 + sizeof(struct perf_event_attr), 4, 0xffffffffu);
	forge(&plain, save, "build-id-size-lies", plain.build_id + 6, 2, 0xffff);
	forge(&plain, save, "build-id-id-size-lies", plain.build_id + 8 + 4 + 20, 1, 0xff);
	forge(&plain, save, "record-size-zero", plain.first_record + 6, 2, 0);
	forge(&plain, save, "record-size-odd", plain.first_record + 6, 2, 12);
	forge(&plain, save, "record-size-past-end", plain.first_record + 6, 2, 0xffff);
	save_auxtrace(&plain, save, "auxtrace-size-wraps", ~0ull - 4);
	save_auxtrace(&plain, save, "auxtrace-size-past-end", 1ull << 40);
	save_auxtrace(&plain, save, "auxtrace-size-small", 16);
	forge(&plain, save, "big-endian", 0, 8, 0x50455246494c4532ull);
	forge(&plain, save, "pipe-mode-header-on-file-mode", 8, 8, 16);
	forge(&plain, save, "header-size-lies", 8, 8, 4096);
	forge(&z, save, "compressed-garbage", z.compressed_record + 8, 8, 0x0123456789abcdefull);
	forge(&z, save, "compressed-size-short", z.compressed_record + 6, 2, 4);
	forge(&z, save, "compressed-mmap-len-tiny", z.compressed_feature + 16, 4, 1);
	save_inflating(&z, save);
	free(plain.data);
	free(z.data);
}
