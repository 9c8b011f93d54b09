/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Times as people write them (--since, --until, --baseline-since,
 * --baseline-until), on a capture's clock, and the range they make.  See
 * perfrec-report(1), TIMES.  (Times are printed by report_time_iso().)
 *
 * The calendar is computed here in 64-bit integers, never through time_t:
 * where time_t has 32 bits, a time after 2038 with a zone still reads.
 * Only a local time (no zone given) goes through mktime(3) and
 * localtime_r(3), the C library being where TZ's rules are.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "report.h"

#define NS_PER_S	1000000000LL
#define S_PER_DAY	86400

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t year, unsigned month, unsigned day)
{
	int64_t era, yoe, doy, doe;

	year -= month <= 2;
	era = (year >= 0 ? year : year - 399) / 400;
	yoe = year - era * 400;
	doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
	int64_t era, doe, yoe, doy, mp;

	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*year = yoe + era * 400 + (*month <= 2);
}

static unsigned days_in_month(int64_t year, unsigned month)
{
	static const unsigned char days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);

	return days[month - 1] + (month == 2 && leap);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Exactly n digits at *p, into *value; *p moves past them. */
static int take_digits(const char **p, int n, unsigned *value)
{
	unsigned v = 0;

	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)((*p)[i] - '0');
	}
	*p += n;
	*value = v;
	return 0;
}

/* Digits of a fraction after a '.' as nanoseconds, digits past the ninth cut. */
static int take_fraction(const char **p, uint32_t *ns)
{
	const char *s = *p;
	uint32_t v = 0;
	int n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++)
		if (n < 9)
			v = v * 10 + (uint32_t)(*s - '0');
	if (!n)
		return -EINVAL;
	for (int i = n; i < 9; i++)
		v *= 10;
	*p = s;
	*ns = v;
	return 0;
}

/* What an absolute time says; zone 0: local time. */
struct written_time {
	int has_date;
	int64_t year;
	unsigned month, day, hour, minute, second;
	uint32_t ns;
	int zone;
	int32_t offset_s;		/* east of UTC */
};

/*
 * [YYYY-MM-DD[(T|t| )]]HH:MM[:SS[.F]][Z|(+|-)HH[[:]MM]], or the date alone
 * (midnight).  -EINVAL for the syntax, -EDOM for a field out of its range.
 */
static int parse_written(const char *s, struct written_time *t)
{
	unsigned year, zh = 0, zm = 0;
	int has_time = 1, sign;

	*t = (struct written_time){ 0 };
	if (strlen(s) >= 5 && s[4] == '-') {
		if (take_digits(&s, 4, &year) || *s++ != '-' || take_digits(&s, 2, &t->month) ||
		    *s++ != '-' || take_digits(&s, 2, &t->day))
			return -EINVAL;
		t->has_date = 1;
		t->year = year;
		if (*s == 'T' || *s == 't' || *s == ' ')
			s++;
		else
			has_time = 0;
	}
	if (has_time) {
		if (take_digits(&s, 2, &t->hour) || *s++ != ':' || take_digits(&s, 2, &t->minute))
			return -EINVAL;
		if (*s == ':') {
			s++;
			if (take_digits(&s, 2, &t->second))
				return -EINVAL;
			if (*s == '.' || *s == ',') {
				s++;
				if (take_fraction(&s, &t->ns))
					return -EINVAL;
			}
		}
	}
	if (*s == 'Z' || *s == 'z') {
		t->zone = 1;
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if (take_digits(&s, 2, &zh))
			return -EINVAL;
		if (*s == ':')
			s++;
		if (*s && take_digits(&s, 2, &zm))
			return -EINVAL;
		if (zh > 23 || zm > 59)
			return -EDOM;
		t->zone = 1;
		t->offset_s = sign * (int32_t)(zh * 3600 + zm * 60);
	}
	if (*s)
		return -EINVAL;
	if (t->has_date && (t->month < 1 || t->month > 12 || t->day < 1 ||
			    t->day > days_in_month(t->year, t->month)))
		return -EDOM;
	if (t->hour > 23 || t->minute > 59 || t->second > 59)
		return -EDOM;
	return 0;
}

/* The UTC second of t, whose date is given, east of UTC by t->offset_s. */
static int64_t zoned_seconds(const struct written_time *t)
{
	return days_from_civil(t->year, t->month, t->day) * S_PER_DAY + t->hour * 3600 +
	       t->minute * 60 + t->second - t->offset_s;
}

/*
 * A local time under TZ: mktime(3), and back through localtime_r(3) to
 * find a time the clocks skipped (spring forward).  A time that happens
 * twice is the one mktime() takes.
 */
static int local_seconds(struct written_time *t, int64_t start_s, int64_t *seconds)
{
	struct tm tm = { 0 }, back;
	time_t when = (time_t)start_s;

	if (!t->has_date) {
		if ((int64_t)when != start_s || !localtime_r(&when, &tm))
			return -ERANGE;
		t->year = (int64_t)tm.tm_year + 1900;
		t->month = (unsigned)tm.tm_mon + 1;
		t->day = (unsigned)tm.tm_mday;
	}
	tm = (struct tm){
		.tm_year = (int)(t->year - 1900), .tm_mon = (int)t->month - 1, .tm_mday = (int)t->day,
		.tm_hour = (int)t->hour, .tm_min = (int)t->minute, .tm_sec = (int)t->second,
		.tm_isdst = -1,
	};
	when = mktime(&tm);
	if (!localtime_r(&when, &back) || back.tm_year != (int)(t->year - 1900) ||
	    back.tm_mon != (int)t->month - 1 || back.tm_mday != (int)t->day ||
	    back.tm_hour != (int)t->hour || back.tm_min != (int)t->minute ||
	    back.tm_sec != (int)t->second)
		/* -1 is an error too, unless it is the time asked for. */
		return when == (time_t)-1 ? -ERANGE : -EDOM;
	*seconds = (int64_t)when;
	return 0;
}

static int absolute_time(const char *text, const struct session_summary *capture, int64_t *ns)
{
	struct written_time t;
	int64_t start_wall, seconds, wall;
	int ret = parse_written(text, &t);

	if (ret < 0)
		return ret;
	if (capture->start_ns > INT64_MAX ||
	    __builtin_add_overflow((int64_t)capture->start_ns, capture->realtime_offset_ns,
				   &start_wall))
		return -ERANGE;
	if (!t.zone) {
		ret = local_seconds(&t, floor_div(start_wall, NS_PER_S), &seconds);
		if (ret < 0)
			return ret;
	} else {
		if (!t.has_date) {
			/* The capture's start day where the offset's clocks are. */
			int64_t days = floor_div(floor_div(start_wall, NS_PER_S) + t.offset_s,
						 S_PER_DAY);

			civil_from_days(days, &t.year, &t.month, &t.day);
		}
		seconds = zoned_seconds(&t);
	}
	if (__builtin_mul_overflow(seconds, NS_PER_S, &wall) ||
	    __builtin_add_overflow(wall, (int64_t)t.ns, &wall) ||
	    __builtin_sub_overflow(wall, capture->realtime_offset_ns, ns))
		return -ERANGE;
	return 0;
}

int report_duration_parse(const char *s, int64_t *ns)
{
	static const struct { const char *name; int64_t ns; } units[] = {
		{ "", NS_PER_S }, { "s", NS_PER_S }, { "ms", 1000000 },
		{ "m", 60 * NS_PER_S }, { "min", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S },
		{ "d", S_PER_DAY * NS_PER_S },
	};
	int64_t whole = 0, unit = 0, fraction;
	uint32_t fraction_ns = 0;
	int digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *s - '0', &whole))
			return -ERANGE;
	if (*s == '.') {
		s++;
		if (take_fraction(&s, &fraction_ns) < 0)
			return -EINVAL;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s, units[i].name) == 0)
			unit = units[i].ns;
	if (!unit)
		return -EINVAL;
	/* The fraction (nanoseconds of a unit) in ns: units are whole ms, F < 10^9, a day 8.64e7 ms. */
	fraction = (int64_t)fraction_ns * (unit / 1000000) / 1000;
	if (__builtin_mul_overflow(whole, unit, ns) || __builtin_add_overflow(*ns, fraction, ns))
		return -ERANGE;
	return 0;
}

/* [+|-]DURATION: after the capture's start, or with '-' before its end. */
static int relative_time(const char *s, const struct session_summary *capture, int64_t *ns)
{
	int from_end = *s == '-';
	uint64_t base_ns;
	int64_t value;
	int ret;

	if (*s == '+' || *s == '-')
		s++;
	ret = report_duration_parse(s, &value);
	if (ret < 0)
		return ret;
	base_ns = from_end ? capture->end_ns : capture->start_ns;
	if (base_ns > INT64_MAX ||
	    (from_end ? __builtin_sub_overflow((int64_t)base_ns, value, ns) :
			__builtin_add_overflow((int64_t)base_ns, value, ns)))
		return -ERANGE;
	return 0;
}

int report_time_parse(const char *text, const struct session_summary *capture, int64_t *ns)
{
	/* A date (YYYY-) or a clock (HH:MM) is absolute; anything else a duration. */
	if (strchr(text, ':') || (strlen(text) >= 5 && text[4] == '-'))
		return absolute_time(text, capture, ns);
	return relative_time(text, capture, ns);
}

int report_range_bounds(const struct report_range *range, const struct session_summary *capture,
			int64_t *since_ns, int64_t *until_ns)
{
	int64_t wall;

	*since_ns = range->since_ns;
	*until_ns = range->until_ns;
	if (!range->since_given)
		*since_ns = capture->start_ns <= INT64_MAX ? (int64_t)capture->start_ns : INT64_MAX;
	if (!range->until_given)
		*until_ns = capture->end_ns <= INT64_MAX ? (int64_t)capture->end_ns : INT64_MAX;
	if (__builtin_add_overflow(*since_ns, capture->realtime_offset_ns, &wall) ||
	    __builtin_add_overflow(*until_ns, capture->realtime_offset_ns, &wall))
		return -ERANGE;
	return 0;
}

void report_range_filter(const struct report_range *range, struct session_filter *filter)
{
	/*
	 * The filter's 0 is "unbounded", and samples' times are positive: a
	 * start at or before 0 takes them all, an end before 1 none.
	 */
	if (range->since_given)
		filter->since_ns = range->since_ns > 0 ? (uint64_t)range->since_ns : 0;
	if (range->until_given)
		filter->until_ns = range->until_ns > 1 ? (uint64_t)range->until_ns : 1;
}
