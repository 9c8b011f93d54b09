/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Times as the time views print them, and the steps they take (report.h). */
#include <stdio.h>
#include <time.h>
#include "report.h"

uint64_t report_time_step(uint64_t duration_ns, uint64_t max_steps)
{
	/* Steps a reader counts in: 1-2-5 below a second, then the clock's. */
	static const uint64_t steps[] = {
		1000000ull, 2000000ull, 5000000ull, 10000000ull, 20000000ull, 50000000ull,
		100000000ull, 200000000ull, 500000000ull,
		1ull * 1000000000, 2ull * 1000000000, 5ull * 1000000000, 10ull * 1000000000,
		15ull * 1000000000, 30ull * 1000000000,
		60ull * 1000000000, 120ull * 1000000000, 300ull * 1000000000,
		600ull * 1000000000, 900ull * 1000000000, 1800ull * 1000000000,
		3600ull * 1000000000, 7200ull * 1000000000, 3 * 3600ull * 1000000000,
		6 * 3600ull * 1000000000, 12 * 3600ull * 1000000000, 24 * 3600ull * 1000000000,
	};
	size_t last = sizeof(steps) / sizeof(steps[0]) - 1;

	if (!max_steps)
		max_steps = 1;
	for (size_t i = 0; i < last; i++)
		if (duration_ns / steps[i] < max_steps)
			return steps[i];
	/* Longer than a day each: whole days. */
	return (duration_ns / max_steps / steps[last] + 1) * steps[last];
}

const char *report_time_iso(uint64_t time_ns, int64_t realtime_offset_ns, char *buffer,
			    size_t size)
{
	int64_t wall, seconds, ms;
	time_t t;
	struct tm tm;

	/* A hostile capture's time (or offset) past what 64 bits of wall clock hold. */
	if (time_ns > INT64_MAX || __builtin_add_overflow((int64_t)time_ns, realtime_offset_ns, &wall)) {
		snprintf(buffer, size, "?");
		return buffer;
	}
	seconds = wall / 1000000000;
	ms = wall % 1000000000 / 1000000;
	if (ms < 0) {
		ms += 1000;
		seconds--;
	}
	t = (time_t)seconds;
	if (!gmtime_r(&t, &tm) ||
	    snprintf(buffer, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     (int)ms) >= (int)size)
		snprintf(buffer, size, "?");
	return buffer;
}
