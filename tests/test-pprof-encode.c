/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-report's pprof output below the samples: the protobuf wire
 * format byte for byte (varints at their edges, negative int64, strings,
 * packed fields, nested messages), the gzip stream read back with zlib
 * and its write errors (/dev/full), the string table (entry 0 "",
 * interning, bytes that are not UTF-8 as U+FFFD), and the profile of no
 * samples.  Whole profiles of real captures are checked by protoc and
 * pprof in test-report-pprof*.sh.
 */
#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "pprof-internal.h"

static void expect_bytes(const struct pprof_buffer *b, const char *hex)
{
	char text[512] = "";

	ck_assert_int_eq(b->error, 0);
	for (size_t i = 0; i < b->size && strlen(text) + 3 < sizeof(text); i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%02x", i ? " " : "",
			 b->data[i]);
	ck_assert_str_eq(text, hex);
}

START_TEST(test_varints)
{
	struct pprof_buffer b = { 0 };

	pprof_put_uint(&b, 1, 0);	/* proto3: zero is the default, left out */
	expect_bytes(&b, "");
	pprof_put_uint(&b, 1, 1);
	pprof_put_uint(&b, 2, 150);
	expect_bytes(&b, "08 01 10 96 01");
	pprof_buffer_reset(&b);
	pprof_put_uint(&b, 3, 127);
	pprof_put_uint(&b, 3, 128);
	expect_bytes(&b, "18 7f 18 80 01");
	pprof_buffer_reset(&b);
	pprof_put_uint(&b, 1, UINT64_MAX);
	expect_bytes(&b, "08 ff ff ff ff ff ff ff ff ff 01");
	pprof_buffer_reset(&b);
	pprof_put_int(&b, 2, -1);	/* int64: two's complement, ten bytes */
	expect_bytes(&b, "10 ff ff ff ff ff ff ff ff ff 01");
	pprof_buffer_reset(&b);
	pprof_put_uint(&b, 14, 5);	/* default_sample_type: tag 14 << 3 */
	pprof_put_uint(&b, 16, 1);	/* a tag of two bytes */
	expect_bytes(&b, "70 05 80 01 01");
	pprof_buffer_free(&b);
}
END_TEST

START_TEST(test_length_delimited)
{
	struct pprof_buffer b = { 0 }, inner = { 0 };
	uint64_t values[] = { 1, 300, 0 };
	uint32_t ids[] = { 3, 270 };

	pprof_put_bytes(&b, 6, "", 0);	/* string_table[0]: written though empty */
	pprof_put_bytes(&b, 6, "ab", 2);
	expect_bytes(&b, "32 00 32 02 61 62");
	pprof_buffer_reset(&b);
	pprof_put_packed(&b, 2, values, 3);
	pprof_put_packed(&b, 2, values, 0);	/* nothing at all */
	pprof_put_packed32(&b, 1, ids, 2);
	expect_bytes(&b, "12 04 01 ac 02 00 0a 03 03 8e 02");
	pprof_buffer_reset(&b);
	pprof_put_uint(&inner, 1, 7);
	pprof_put_int(&inner, 2, 42);
	pprof_put_message(&b, 4, &inner);
	pprof_buffer_reset(&inner);
	pprof_put_message(&b, 4, &inner);	/* an empty message is still there */
	expect_bytes(&b, "22 04 08 07 10 2a 22 00");
	pprof_buffer_free(&b);
	pprof_buffer_free(&inner);
}
END_TEST

/* The gzip member in file, inflated into out (size bytes at most); its length. */
static size_t gunzip(FILE *file, uint8_t *out, size_t size)
{
	static uint8_t in[1 << 20];
	size_t n;
	z_stream z = { 0 };

	rewind(file);
	n = fread(in, 1, sizeof(in), file);
	ck_assert_uint_gt(n, 18);
	ck_assert_uint_eq(in[0], 0x1f);	/* gzip's magic, not zlib's */
	ck_assert_uint_eq(in[1], 0x8b);
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)size;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_uint_eq(z.avail_in, 0);	/* one member, nothing after it */
	n = size - z.avail_out;
	inflateEnd(&z);
	return n;
}

START_TEST(test_stream)
{
	static uint8_t big[300000], out[400000];
	FILE *file = tmpfile();
	struct pprof_stream *stream;
	struct pprof_buffer b = { 0 };
	size_t n;

	ck_assert_ptr_nonnull(file);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	ck_assert_int_eq(pprof_stream_open(&stream, file), 0);
	pprof_put_uint(&b, 9, 1);
	ck_assert_int_eq(pprof_stream_write(stream, b.data, b.size), 0);
	ck_assert_int_eq(pprof_stream_field(stream, 6, "", 0), 0);
	/* Larger than the stream's output buffer: drained on the way. */
	ck_assert_int_eq(pprof_stream_field(stream, 6, big, sizeof(big)), 0);
	ck_assert_int_eq(pprof_stream_close(stream, 1), 0);
	fflush(file);
	n = gunzip(file, out, sizeof(out));
	/* 48 01, 32 00, then 32 and 300000 as a varint (e0 a7 12). */
	ck_assert_uint_eq(n, 2 + 2 + 4 + sizeof(big));
	ck_assert_mem_eq(out, "\x48\x01\x32\x00\x32\xe0\xa7\x12", 8);
	ck_assert_mem_eq(out + 8, big, sizeof(big));
	pprof_buffer_free(&b);
	fclose(file);
}
END_TEST

START_TEST(test_stream_full)
{
	static uint8_t big[1 << 20];
	FILE *full = fopen("/dev/full", "w");
	struct pprof_stream *stream;
	int ret;

	ck_assert_ptr_nonnull(full);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 2654435761u >> 13);
	ck_assert_int_eq(pprof_stream_open(&stream, full), 0);
	ret = pprof_stream_field(stream, 6, big, sizeof(big));
	if (ret == 0)
		ret = pprof_stream_close(stream, 1);
	else
		pprof_stream_close(stream, 0);
	if (ret == 0)		/* still in stdio's buffer: the flush fails */
		ret = fflush(full) ? -errno : 0;
	ck_assert_int_eq(ret, -ENOSPC);
	fclose(full);
}
END_TEST

START_TEST(test_strings)
{
	struct pprof_options options = { 0 };
	struct pprof_builder *b = pprof_new(NULL, NULL, &options);
	const struct pprof_tables *t;
	uint32_t a, again, bad, empty;

	ck_assert_ptr_nonnull(b);
	t = &b->t;
	ck_assert_uint_ge(t->string_count, 1);
	ck_assert_str_eq(t->strings[0], "");
	ck_assert_int_eq(pprof_string(b, "", &empty), 0);
	ck_assert_uint_eq(empty, 0);
	ck_assert_int_eq(pprof_string(b, "burn_hot", &a), 0);
	ck_assert_int_eq(pprof_string(b, "burn_hot", &again), 0);
	ck_assert_uint_eq(a, again);
	ck_assert_uint_ne(a, 0);
	/* A lone 0xff, a cut 3-byte character, a surrogate; valid ones kept. */
	ck_assert_int_eq(pprof_string(b, "a\xff" "b\xe2\x82" "c\xed\xa0\x80" "d\xc3\xa9", &bad), 0);
	t = &b->t;
	ck_assert_str_eq(t->strings[bad],
			 "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c"
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "d\xc3\xa9");
	ck_assert_int_eq(pprof_string(b, "a\xef\xbf\xbd" "b", &again), 0);
	ck_assert_int_eq(pprof_string(b, "a\xff" "b", &a), 0);
	ck_assert_uint_eq(a, again);	/* the same string once repaired */
	pprof_free(b);
}
END_TEST

START_TEST(test_empty_profile)
{
	static uint8_t out[4096];
	struct session_event event = { "cpu-clock", { .frequency = 999, .clock = 1 },
				       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK };
	struct session_summary header = {
		.event = "cpu-clock", .events = &event, .event_count = 1,
		.start_ns = 5000000000ull, .end_ns = 7000000000ull,
		.realtime_offset_ns = 1000000000,
	};
	struct pprof_options options = { 0 };
	struct pprof_builder *b = pprof_new(NULL, NULL, &options);
	FILE *file = tmpfile();
	size_t n;

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(file);
	ck_assert_int_eq(pprof_write(b, &header, file), 0);
	fflush(file);
	n = gunzip(file, out, sizeof(out));
	/* The first sample type: samples/count, strings 2 and 3 after "" and "[unknown]". */
	ck_assert_mem_eq(out, "\x0a\x04\x08\x02\x10\x03", 6);
	/* period 1e9 / 999 rounded (a9 8c 3d), time_nanos 6e9 (start + offset), duration 2e9. */
	ck_assert_ptr_nonnull(memmem(out, n, "\x60\xa9\x8c\x3d", 4));
	ck_assert_ptr_nonnull(memmem(out, n, "\x48\x80\xf8\x82\xad\x16", 6));
	ck_assert_ptr_nonnull(memmem(out, n, "\x50\x80\xa8\xd6\xb9\x07", 6));
	ck_assert_ptr_nonnull(memmem(out, n, "\x32\x0bnanoseconds", 13));
	pprof_free(b);
	fclose(file);
}
END_TEST

static Suite *pprof_suite(void)
{
	Suite *s = suite_create("pprof-encode");
	TCase *wire = tcase_create("wire");
	TCase *tables = tcase_create("tables");

	tcase_add_test(wire, test_varints);
	tcase_add_test(wire, test_length_delimited);
	tcase_add_test(wire, test_stream);
	tcase_add_test(wire, test_stream_full);
	suite_add_tcase(s, wire);
	tcase_add_test(tables, test_strings);
	tcase_add_test(tables, test_empty_profile);
	suite_add_tcase(s, tables);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(pprof_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
