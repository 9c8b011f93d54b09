/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Times as perfrec-report takes them (report_time_parse()) against a
 * made-up capture: 10 s on the capture clock from 1000 s, started at
 * 2026-12-07T01:02:03Z (python3: calendar.timegm((2026, 12, 7, 1, 2, 3))
 * = 1796605323), under TZ set here: UTC, New York (DST; from tzdata and
 * as a POSIX rule, which needs no tzdata), Kolkata (+05:30, no DST).
 * Then the range's bounds (report_range_bounds()), written back as the
 * views write times (report_time_iso()), the filter's (report_range_filter())
 * and the header's range line and JSON field.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "report.h"
#include "views.h"

#define S		1000000000LL
#define START_WALL_S	1796605323LL	/* 2026-12-07T01:02:03Z */
#define START		(1000 * S)
#define END		(1010 * S)

static const struct session_summary capture = {
	.start_ns = START,
	.end_ns = END,
	.realtime_offset_ns = START_WALL_S * S - START,
};

static void zone(const char *tz)
{
	ck_assert_int_eq(setenv("TZ", tz, 1), 0);
	tzset();
}

/* text is a time: its nanoseconds on the capture clock, relative to its start. */
static int64_t at(const char *text)
{
	int64_t ns = INT64_MIN;
	int ret = report_time_parse(text, &capture, &ns);

	ck_assert_msg(ret == 0, "'%s': %d (TZ=%s)", text, ret, getenv("TZ"));
	return ns - START;
}

static void fails(const char *text, int error)
{
	int64_t ns = 12345;
	int ret = report_time_parse(text, &capture, &ns);

	ck_assert_msg(ret == error, "'%s': %d, expected %d (TZ=%s)", text, ret, error, getenv("TZ"));
	ck_assert_msg(ns == 12345, "'%s': the result written on an error", text);
}

START_TEST(test_zoned)
{
	/* The zone given: TZ does not matter. */
	static const char *const zones[] = { "UTC", "America/New_York", "Asia/Kolkata" };

	for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
		zone(zones[i]);
		ck_assert_int_eq(at("2026-12-07T01:02:05Z"), 2 * S);
		ck_assert_int_eq(at("2026-12-07t01:02:05z"), 2 * S);
		ck_assert_int_eq(at("2026-12-07 01:02:05Z"), 2 * S);
		ck_assert_int_eq(at("2026-12-07T01:02:03.5Z"), S / 2);
		ck_assert_int_eq(at("2026-12-07T01:02:03.250Z"), S / 4);
		ck_assert_int_eq(at("2026-12-07T01:02:03,25Z"), S / 4);
		ck_assert_int_eq(at("2026-12-07T01:02:03.000000001Z"), 1);
		/* Past nanoseconds: cut. */
		ck_assert_int_eq(at("2026-12-07T01:02:03.0000000019Z"), 1);
		ck_assert_int_eq(at("2026-12-07T01:02Z"), -3 * S);
		ck_assert_int_eq(at("2026-12-07T02:02:05+01:00"), 2 * S);
		ck_assert_int_eq(at("2026-12-07T02:02:05+0100"), 2 * S);
		ck_assert_int_eq(at("2026-12-07T02:02:05+01"), 2 * S);
		ck_assert_int_eq(at("2026-12-06T20:02:05-05:00"), 2 * S);
		ck_assert_int_eq(at("2026-12-07T06:32:05.5+05:30"), 2 * S + S / 2);
		/* A time of day on the capture's start day where the offset's clocks are. */
		ck_assert_int_eq(at("01:02:05Z"), 2 * S);
		ck_assert_int_eq(at("20:02:05-05:00"), 2 * S);	/* 2026-12-06 there */
		ck_assert_int_eq(at("06:32:05+05:30"), 2 * S);
		ck_assert_int_eq(at("17:30Z"), (17 * 3600 + 30 * 60 - 3723) * S);
		/* A leap day; before 1970; far before the capture: allowed. */
		ck_assert_int_eq(at("2028-02-29T01:02:03Z"), 449 * 86400 * S);
		ck_assert_int_eq(at("1969-12-31T23:59:59Z") + START, -S - capture.realtime_offset_ns);
		ck_assert_int_eq(at("2000-01-01T00:00:00Z") + START,
				 946684800LL * S - capture.realtime_offset_ns);
	}
}
END_TEST

START_TEST(test_local)
{
	zone("UTC");
	ck_assert_int_eq(at("2026-12-07T01:02:05"), 2 * S);
	ck_assert_int_eq(at("01:02:05.5"), 2 * S + S / 2);
	ck_assert_int_eq(at("01:02"), -3 * S);
	ck_assert_int_eq(at("2026-12-07"), -3723 * S);

	/* New York in December: EST, 5 hours behind; the start day there is the 6th. */
	static const char *const new_york[] = { "America/New_York", "EST5EDT,M3.2.0,M11.1.0" };

	for (size_t i = 0; i < 2; i++) {
		if (i == 0 && access("/usr/share/zoneinfo/America/New_York", R_OK) != 0)
			continue;	/* no tzdata: the POSIX rule below stands for it */
		zone(new_york[i]);
		ck_assert_int_eq(at("2026-12-06T20:02:05"), 2 * S);
		ck_assert_int_eq(at("20:02:05"), 2 * S);
		ck_assert_int_eq(at("20:02:03.125"), S / 8);
		/* July: EDT, 4 hours behind. */
		ck_assert_int_eq(at("2026-07-01T12:00:00") + START,
				 (1782907200LL + 4 * 3600) * S - capture.realtime_offset_ns);
		/* 2026-03-08 02:30 never happened there (clocks went 02:00 -> 03:00). */
		fails("2026-03-08T02:30:00", -EDOM);
		ck_assert_int_eq(at("2026-03-08T03:30:00") + START,
				 (1772955000LL) * S - capture.realtime_offset_ns);
		/* With an offset, the local rules do not apply. */
		ck_assert_int_eq(at("2026-03-08T02:30:00-05:00") + START,
				 1772955000LL * S - capture.realtime_offset_ns);
	}

	/* Kolkata: +05:30, no DST; 06:32:05 is on the 7th there. */
	zone("Asia/Kolkata");
	if (access("/usr/share/zoneinfo/Asia/Kolkata", R_OK) != 0)
		zone("IST-5:30");
	ck_assert_int_eq(at("2026-12-07T06:32:05"), 2 * S);
	ck_assert_int_eq(at("06:32:05"), 2 * S);
	ck_assert_int_eq(at("2026-07-01T06:32:05") + START,
			 (1782867725LL) * S - capture.realtime_offset_ns);
}
END_TEST

START_TEST(test_relative)
{
	zone("America/New_York");	/* no part in relative times */
	ck_assert_int_eq(at("10s"), 10 * S);
	ck_assert_int_eq(at("+2.5"), 2 * S + S / 2);
	ck_assert_int_eq(at("2.5"), 2 * S + S / 2);
	ck_assert_int_eq(at("+.5s"), S / 2);
	ck_assert_int_eq(at("0"), 0);
	ck_assert_int_eq(at("+250ms"), S / 4);
	ck_assert_int_eq(at("+0.5ms"), 500000);
	ck_assert_int_eq(at("+1m"), 60 * S);
	ck_assert_int_eq(at("+1.5min"), 90 * S);
	ck_assert_int_eq(at("+2h"), 7200 * S);
	ck_assert_int_eq(at("+0.000000001"), 1);
	ck_assert_int_eq(at("+0.0001h"), 360000000);
	/* Before the end. */
	ck_assert_int_eq(at("-2s"), 8 * S);
	ck_assert_int_eq(at("-0.5"), 9 * S + S / 2);
	ck_assert_int_eq(at("-10m"), 10 * S - 600 * S);	/* before the capture: allowed */
	ck_assert_int_eq(at("-1h") + START, END - 3600 * S);
	/* Past the end: allowed, selects nothing. */
	ck_assert_int_eq(at("+1000000h"), 3600000000LL * S);
	/* Days, as --interval takes them: one parser of lengths for both. */
	ck_assert_int_eq(at("+1d"), 86400 * S);
	ck_assert_int_eq(at("-0.5d") + START, END - 43200 * S);
}
END_TEST

/* The lengths --interval and relative times share (report_duration_parse()). */
START_TEST(test_durations)
{
	static const struct { const char *text; int64_t ns; } lengths[] = {
		{ "1", S }, { "2.5", 2 * S + S / 2 }, { ".5s", S / 2 }, { "500ms", S / 2 },
		{ "1.5m", 90 * S }, { "1min", 60 * S }, { "1h", 3600 * S }, { "1d", 86400 * S },
		{ "366d", 366 * 86400 * S }, { "0.001", 1000000 }, { "0", 0 },
	};
	static const char *const not_lengths[] = {
		"", "+1s", "-1s", "1e3", "0x10", "inf", "nan", " 1s", "1s ", "1D", "1w", "1.s", "s",
	};
	int64_t ns;

	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		ck_assert_msg(report_duration_parse(lengths[i].text, &ns) == 0, "%s", lengths[i].text);
		ck_assert_int_eq(ns, lengths[i].ns);
	}
	for (size_t i = 0; i < sizeof(not_lengths) / sizeof(not_lengths[0]); i++)
		ck_assert_msg(report_duration_parse(not_lengths[i], &ns) == -EINVAL, "'%s' taken",
			      not_lengths[i]);
	ck_assert_int_eq(report_duration_parse("106752d", &ns), -ERANGE);
}
END_TEST

START_TEST(test_errors)
{
	static const char *const not_times[] = {
		"", "+", "-", ".", "+.", "s", "10x", "10 s", " 10s", "10s ", "+-1", "--1", "1e3",
		"nan", "inf", "0x10", "10ss", "5.", "1.2.3", "10S", "10sec", "1:", "17:3", "17:30:",
		"17:30:00.", "17:30:00Q", "17:30:00ZZ", "17:30:00+5", "17:30:00+05:3", "2026-12-07T",
		"2026-12-07T1:02:03Z", "2026-12-7T01:02:03Z", "26-12-07T01:02:03Z", "2026/12/07 01:02",
		"2026-12-07X01:02", "17h30", "today", "17:30:00 UTC",
	};
	static const char *const impossible[] = {
		"2026-02-29T00:00Z", "2026-13-01T00:00Z", "2026-00-10T00:00Z", "2026-04-31T00:00Z",
		"2026-12-00T00:00Z", "24:00", "23:60", "23:59:60", "12:00+24:00", "12:00+01:60",
		"2100-02-29T00:00Z",
	};
	static const char *const out_of_range[] = {
		"+99999999999999999999s", "+3000000h", "-3000000h", "9999-01-01T00:00Z",
		"1600-01-01T00:00Z", "+9223372036.854775808",
	};

	zone("UTC");
	for (size_t i = 0; i < sizeof(not_times) / sizeof(not_times[0]); i++)
		fails(not_times[i], -EINVAL);
	for (size_t i = 0; i < sizeof(impossible) / sizeof(impossible[0]); i++)
		fails(impossible[i], -EDOM);
	for (size_t i = 0; i < sizeof(out_of_range) / sizeof(out_of_range[0]); i++)
		fails(out_of_range[i], -ERANGE);
}
END_TEST

START_TEST(test_bounds)
{
	struct report_range range = { .since_ns = START + 2 * S, .since_given = 1 };
	char text[REPORT_TIME_ISO_MAX];
	int64_t since, until;

	/* A bound not given is the capture's. */
	ck_assert_int_eq(report_range_bounds(&range, &capture, &since, &until), 0);
	ck_assert_int_eq(since, START + 2 * S);
	ck_assert_int_eq(until, END);
	range = (struct report_range){ .until_ns = START + 1, .until_given = 1 };
	ck_assert_int_eq(report_range_bounds(&range, &capture, &since, &until), 0);
	ck_assert_int_eq(since, START);
	ck_assert_int_eq(until, START + 1);
	/* Parsed, then written back as the views write times. */
	zone("America/New_York");
	ck_assert_str_eq(report_time_iso((uint64_t)(at("2026-12-07T06:32:05.5+05:30") + START),
					 capture.realtime_offset_ns, text, sizeof(text)),
			 "2026-12-07T01:02:05.500Z");
	ck_assert_str_eq(report_time_iso((uint64_t)(at("20:02:03.999") + START),
					 capture.realtime_offset_ns, text, sizeof(text)),
			 "2026-12-07T01:02:03.999Z");
	/* No wall-clock time: said, not printed wrong. */
	range = (struct report_range){ .until_ns = INT64_MAX, .until_given = 1 };
	ck_assert_int_eq(report_range_bounds(&range, &capture, &since, &until), -ERANGE);
}
END_TEST

START_TEST(test_filter)
{
	struct session_filter filter = { 0 };
	struct report_range range = { 0 };

	report_range_filter(&range, &filter);
	ck_assert_uint_eq(filter.since_ns, 0);
	ck_assert_uint_eq(filter.until_ns, 0);
	range = (struct report_range){ .since_ns = START + 1, .until_ns = END - 1,
				       .since_given = 1, .until_given = 1 };
	report_range_filter(&range, &filter);
	ck_assert_uint_eq(filter.since_ns, START + 1);
	ck_assert_uint_eq(filter.until_ns, END - 1);
	/* Before the clock's 0: a start takes everything, an end nothing (0 would be none). */
	range = (struct report_range){ .since_ns = -5, .until_ns = -3, .since_given = 1,
				       .until_given = 1 };
	report_range_filter(&range, &filter);
	ck_assert_uint_eq(filter.since_ns, 0);
	ck_assert_uint_eq(filter.until_ns, 1);
}
END_TEST

static char *header_of(const struct report_data *data, int json)
{
	struct view_options options = { 0 };
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	if (json)
		ck_assert_int_eq(view_flat_json(data, &options, out), 0);
	else
		view_print_header(data, out);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

START_TEST(test_header)
{
	struct report_data data = { .header = capture };
	char *text, *json;

	data.header.event = "cpu-clock";
	/* No range: no line, no field. */
	text = header_of(&data, 0);
	json = header_of(&data, 1);
	ck_assert_ptr_null(strstr(text, "range"));
	ck_assert_ptr_null(strstr(json, "range"));
	free(text);
	free(json);

	data.range = (struct report_range){ .since_ns = START + 2 * S + S / 4,
					    .until_ns = START + 4 * S + 1, .since_given = 1,
					    .until_given = 1 };
	text = header_of(&data, 0);
	ck_assert_msg(strstr(text, "\n# range: 2026-12-07T01:02:05.250Z to 2026-12-07T01:02:07.000Z (1.750 s)\n"),
		      "%s", text);
	json = header_of(&data, 1);
	ck_assert_msg(strstr(json, "\"range\":{\"since\":\"2026-12-07T01:02:05.250Z\",\"until\":\"2026-12-07T01:02:07.000Z\",\"since_ns\":1002250000000,\"until_ns\":1004000000001},"),
		      "%s", json);
	free(text);
	free(json);

	/* One bound: the other is the capture's; past the end: empty, 0 s. */
	data.range = (struct report_range){ .since_ns = START + 2 * S, .since_given = 1 };
	text = header_of(&data, 0);
	ck_assert_msg(strstr(text, "\n# range: 2026-12-07T01:02:05.000Z to 2026-12-07T01:02:13.000Z (8.000 s)\n"),
		      "%s", text);
	free(text);
	data.range = (struct report_range){ .since_ns = END + S, .since_given = 1 };
	text = header_of(&data, 0);
	ck_assert_msg(strstr(text, "\n# range: 2026-12-07T01:02:14.000Z to 2026-12-07T01:02:13.000Z (0.000 s)\n"),
		      "%s", text);
	free(text);
}
END_TEST

static Suite *time_suite(void)
{
	Suite *s = suite_create("time");
	TCase *parse = tcase_create("parse");
	TCase *print = tcase_create("print");

	tcase_add_test(parse, test_zoned);
	tcase_add_test(parse, test_local);
	tcase_add_test(parse, test_relative);
	tcase_add_test(parse, test_durations);
	tcase_add_test(parse, test_errors);
	suite_add_tcase(s, parse);
	tcase_add_test(print, test_bounds);
	tcase_add_test(print, test_filter);
	tcase_add_test(print, test_header);
	suite_add_tcase(s, print);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(time_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
