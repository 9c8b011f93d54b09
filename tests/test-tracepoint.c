/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoint formats (format/tracepoint-fields.c): tracefs' text parsed
 * into fields, and their values read from raw sample data, on the real
 * formats of Linux 6.18's sched_switch and sched_process_exec and on
 * hostile ones: offsets past the data, sizes of 0 and 4 GiB, dynamic
 * strings pointing outside, unterminated strings, a 64 KiB line, too many
 * fields, a text without its NUL.  Every buffer is allocated to its exact
 * size, so that a read past it is a sanitizer's report.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"

/* tracefs' events/sched/sched_switch/format on Linux 6.18, as perfrecd records it. */
static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid\n";

static const char sched_process_exec[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

/* The text in a buffer of its exact size, without a NUL: the parser reads size bytes only. */
static int parse(const char *text, size_t size, struct prf_tracepoint_fields **out)
{
	char *copy = malloc(size ? size : 1);
	int err;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, size);
	err = prf_tracepoint_fields_parse(copy, size, out);
	free(copy);
	return err;
}

static const struct prf_tracepoint_field *field(const struct prf_tracepoint_fields *f,
						const char *name)
{
	for (size_t i = 0; i < f->count; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	ck_abort_msg("no field %s", name);
	return NULL;
}

static void *raw_copy(const void *data, size_t size)
{
	void *raw = malloc(size ? size : 1);

	ck_assert_ptr_nonnull(raw);
	memcpy(raw, data, size);
	return raw;
}

START_TEST(sched_switch_fields)
{
	struct prf_tracepoint_fields *f;
	struct prf_tracepoint_value v;
	uint8_t data[64] = { 0 };
	int32_t pid = 123, prio = 120, next_pid = 0, next_prio = -20;
	int64_t state = 1;
	uint8_t *raw;

	ck_assert_int_eq(parse(sched_switch, strlen(sched_switch), &f), 0);
	ck_assert_uint_eq(f->count, 11);
	ck_assert(field(f, "common_pid")->is_common);
	ck_assert(!field(f, "prev_comm")->is_common);
	ck_assert_int_eq(field(f, "prev_comm")->kind, PRF_TP_STRING);
	ck_assert_uint_eq(field(f, "prev_comm")->offset, 8);
	ck_assert_uint_eq(field(f, "prev_comm")->size, 16);
	ck_assert_int_eq(field(f, "prev_pid")->kind, PRF_TP_INTEGER);
	ck_assert(field(f, "prev_pid")->is_signed);
	ck_assert_uint_eq(field(f, "prev_state")->size, 8);
	ck_assert_uint_eq(field(f, "common_type")->size, 2);
	ck_assert(!field(f, "common_type")->is_signed);

	memcpy(data + 8, "spin", 4);
	memcpy(data + 24, &pid, 4);
	memcpy(data + 28, &prio, 4);
	memcpy(data + 32, &state, 8);
	memcpy(data + 40, "swapper/0", 9);
	memcpy(data + 56, &next_pid, 4);
	memcpy(data + 60, &next_prio, 4);
	raw = raw_copy(data, sizeof(data));
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "prev_comm"), raw, 64, &v), 0);
	ck_assert_int_eq(v.kind, PRF_TP_STRING);
	ck_assert_uint_eq(v.length, 4);
	ck_assert(!memcmp(v.bytes, "spin", 4));
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "prev_pid"), raw, 64, &v), 0);
	ck_assert_int_eq(v.i, 123);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "prev_state"), raw, 64, &v), 0);
	ck_assert_int_eq(v.i, 1);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "next_prio"), raw, 64, &v), 0);
	ck_assert_int_eq(v.i, -20);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "next_comm"), raw, 64, &v), 0);
	ck_assert_uint_eq(v.length, 9);
	/* Cut short: the last fields are outside, the first still read. */
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "next_prio"), raw, 63, &v), -ERANGE);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "next_comm"), raw, 50, &v), -ERANGE);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "prev_comm"), raw, 24, &v), 0);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "prev_comm"), NULL, 0, &v), -ERANGE);
	free(raw);
	prf_tracepoint_fields_free(f);
}
END_TEST

/* sched_process_exec's raw data: the fixed part, then filename where its location says. */
static uint8_t *exec_raw(uint32_t location, const char *tail, size_t tail_size, size_t *size)
{
	uint8_t data[256] = { 0 };
	int32_t pid = 4242;

	memcpy(data + 8, &location, 4);
	memcpy(data + 12, &pid, 4);
	memcpy(data + 16, &pid, 4);
	memcpy(data + 20, tail, tail_size);
	*size = 20 + tail_size;
	return raw_copy(data, *size);
}

START_TEST(data_loc_strings)
{
	struct prf_tracepoint_fields *f;
	struct prf_tracepoint_value v;
	const struct prf_tracepoint_field *filename;
	size_t size;
	uint8_t *raw;

	ck_assert_int_eq(parse(sched_process_exec, strlen(sched_process_exec), &f), 0);
	ck_assert_uint_eq(f->count, 7);
	filename = field(f, "filename");
	ck_assert(filename->dynamic && !filename->relative);
	ck_assert_int_eq(filename->kind, PRF_TP_STRING);

	raw = exec_raw(14u << 16 | 20, "/usr/bin/true", 14, &size);
	ck_assert_int_eq(prf_tracepoint_field_value(filename, raw, size, &v), 0);
	ck_assert_uint_eq(v.length, 13);
	ck_assert(!memcmp(v.bytes, "/usr/bin/true", 13));
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "old_pid"), raw, size, &v), 0);
	ck_assert_int_eq(v.i, 4242);
	free(raw);

	/* Unterminated: the location's length bounds it. */
	raw = exec_raw(5u << 16 | 20, "AAAAA", 5, &size);
	ck_assert_int_eq(prf_tracepoint_field_value(filename, raw, size, &v), 0);
	ck_assert_uint_eq(v.length, 5);
	free(raw);

	/* Pointing past the data, or running past it. */
	raw = exec_raw(4u << 16 | 0xfff0, "abc", 4, &size);
	ck_assert_int_eq(prf_tracepoint_field_value(filename, raw, size, &v), -ERANGE);
	free(raw);
	raw = exec_raw(0xffffu << 16 | 20, "abc", 4, &size);
	ck_assert_int_eq(prf_tracepoint_field_value(filename, raw, size, &v), -ERANGE);
	free(raw);
	raw = exec_raw(5u << 16 | 20, "abc", 4, &size);
	ck_assert_int_eq(prf_tracepoint_field_value(filename, raw, size, &v), -ERANGE);
	free(raw);
	/* Empty at the very end: fine, and empty. */
	raw = exec_raw(0u << 16 | 20, "", 0, &size);
	ck_assert_int_eq(prf_tracepoint_field_value(filename, raw, size, &v), 0);
	ck_assert_uint_eq(v.length, 0);
	free(raw);
	prf_tracepoint_fields_free(f);
}
END_TEST

START_TEST(rel_loc_and_kinds)
{
	static const char text[] =
		"\tfield:__rel_loc char[] name;\toffset:0;\tsize:4;\tsigned:0;\n"
		"\tfield:void * ptr;\toffset:4;\tsize:8;\tsigned:0;\n"
		"\tfield:signed char small;\toffset:12;\tsize:1;\tsigned:1;\n"
		"\tfield:u32 values[2];\toffset:13;\tsize:8;\tsigned:0;\n"
		"\tfield:struct odd blob;\toffset:21;\tsize:3;\tsigned:0;\n"
		"\tfield:int nothing;\toffset:24;\tsize:0;\tsigned:0;\n";
	struct prf_tracepoint_fields *f;
	struct prf_tracepoint_value v;
	uint8_t data[32] = { 0 };
	uint32_t location = 3u << 16 | 20;	/* 4 + 20 = 24: from the field's end */
	uint64_t pointer = 0xffff888012345678u;
	uint8_t *raw;

	ck_assert_int_eq(parse(text, strlen(text), &f), 0);
	ck_assert_uint_eq(f->count, 6);
	ck_assert(field(f, "name")->relative);
	ck_assert_int_eq(field(f, "ptr")->kind, PRF_TP_POINTER);
	ck_assert_int_eq(field(f, "values")->kind, PRF_TP_BYTES);
	ck_assert_int_eq(field(f, "blob")->kind, PRF_TP_BYTES);
	ck_assert_int_eq(field(f, "nothing")->kind, PRF_TP_BYTES);
	memcpy(data, &location, 4);
	memcpy(data + 4, &pointer, 8);
	data[12] = 0xff;
	memcpy(data + 24, "ab", 3);
	raw = raw_copy(data, 27);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "name"), raw, 27, &v), 0);
	ck_assert_uint_eq(v.length, 2);
	ck_assert(!memcmp(v.bytes, "ab", 2));
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "ptr"), raw, 27, &v), 0);
	ck_assert_uint_eq(v.u, pointer);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "small"), raw, 27, &v), 0);
	ck_assert_int_eq(v.i, -1);
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "values"), raw, 27, &v), 0);
	ck_assert_uint_eq(v.length, 8);
	/* Size 0 at the data's end: an empty value, no read. */
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "nothing"), raw, 24, &v), 0);
	ck_assert_uint_eq(v.length, 0);
	/* The relative location now runs past the end. */
	ck_assert_int_eq(prf_tracepoint_field_value(field(f, "name"), raw, 26, &v), -ERANGE);
	free(raw);
	prf_tracepoint_fields_free(f);
}
END_TEST

START_TEST(hostile_formats)
{
	struct prf_tracepoint_fields *f = NULL;
	struct prf_tracepoint_value v;
	uint8_t *raw = raw_copy("0123456789abcdef", 16);
	char *text, *p;
	size_t size;

	/* Offsets and sizes past any data, up to 2^32 - 1: parsed, never read. */
	static const char huge[] =
		"field:char comm[4294967295];\toffset:0;\tsize:4294967295;\tsigned:0;\n"
		"field:int far;\toffset:4294967295;\tsize:4;\tsigned:1;\n"
		"field:long wrap;\toffset:4294967292;\tsize:8;\tsigned:1;\n";
	ck_assert_int_eq(parse(huge, strlen(huge), &f), 0);
	for (size_t i = 0; i < f->count; i++)
		ck_assert_int_eq(prf_tracepoint_field_value(&f->fields[i], raw, 16, &v), -ERANGE);
	prf_tracepoint_fields_free(f);

	/* Numbers past 32 bits, missing, or not numbers; a dynamic field not 4 bytes. */
	static const char *const bad[] = {
		"field:int a;\toffset:4294967296;\tsize:4;\tsigned:1;\n",
		"field:int a;\tsize:4;\tsigned:1;\n",
		"field:int a;\toffset:x;\tsize:4;\n",
		"field:int a;\toffset:0;\tsize:4",
		"field:int a\toffset:0;\tsize:4;\n",
		"field:;\toffset:0;\tsize:4;\n",
		"field:__data_loc char[] s;\toffset:0;\tsize:8;\tsigned:0;\n",
		"field:char s[;\toffset:0;\tsize:8;\n",
		"name: nothing\nID: 1\nformat:\nprint fmt: \"\"\n",
		"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i], strlen(bad[i]), &f) == -EBADMSG, "accepted: %s", bad[i]);
		ck_assert_ptr_null(f);
	}

	/* An unterminated char array: its size bounds it. */
	static const char comm[] = "field:char comm[16];\toffset:0;\tsize:16;\tsigned:0;\n";
	ck_assert_int_eq(parse(comm, strlen(comm), &f), 0);
	ck_assert_int_eq(prf_tracepoint_field_value(&f->fields[0], raw, 16, &v), 0);
	ck_assert_uint_eq(v.length, 16);
	prf_tracepoint_fields_free(f);

	/* A 64 KiB line: as a field's name it is too long; as anything else, skipped. */
	size = 65536 + 64;
	text = malloc(size);
	ck_assert_ptr_nonnull(text);
	p = text + sprintf(text, "field:int ");
	memset(p, 'a', 65536);
	p += 65536;
	memcpy(p, ";offset:0;size:4;\n", 18);
	ck_assert_int_eq(parse(text, (size_t)(p + 18 - text), &f), -EBADMSG);
	memset(text, 'x', size);
	memcpy(text + size - strlen(comm), comm, strlen(comm));
	text[size - strlen(comm) - 1] = '\n';
	ck_assert_int_eq(parse(text, size, &f), 0);
	ck_assert_uint_eq(f->count, 1);
	prf_tracepoint_fields_free(f);
	/* The same text cut anywhere: never a read past it. */
	for (size_t cut = size - strlen(comm); cut < size; cut++) {
		if (!parse(text, cut, &f))
			prf_tracepoint_fields_free(f);
	}
	free(text);

	/* More fields than any tracepoint has. */
	size = (PRF_TRACEPOINT_FIELDS_MAX + 1) * 64;
	text = malloc(size);
	ck_assert_ptr_nonnull(text);
	p = text;
	for (unsigned i = 0; i <= PRF_TRACEPOINT_FIELDS_MAX; i++)
		p += sprintf(p, "field:int f%u;\toffset:0;\tsize:4;\n", i);
	ck_assert_int_eq(parse(text, (size_t)(p - text), &f), -E2BIG);
	free(text);
	free(raw);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("tracepoint");
	TCase *tc = tcase_create("fields");
	SRunner *runner;
	int failed;

	tcase_add_test(tc, sched_switch_fields);
	tcase_add_test(tc, data_loc_strings);
	tcase_add_test(tc, rel_loc_and_kinds);
	tcase_add_test(tc, hostile_formats);
	suite_add_tcase(suite, tc);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
