/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common.h"

uint64_t prf_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
