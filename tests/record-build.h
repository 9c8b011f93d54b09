/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records built field by field, for the fixtures that write files of
 * known contents (offcpu-fixture, unwind-fixture): one copy of what each
 * repeated.  A fixture defines REC_WORDS, its longest record in 8-byte
 * words, and REC_PROGRAM, its name for the error, before including this.
 * A record past its bound ends the program: the fixture is wrong.
 */
#ifndef PERFREC_TESTS_RECORD_BUILD_H
#define PERFREC_TESTS_RECORD_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	uint64_t words[REC_WORDS];
	size_t size;
};

static inline void put(struct rec *r, const void *data, size_t size)
{
	if (size > sizeof(r->words) - r->size) {
		fprintf(stderr, "%s: record over %zu bytes\n", REC_PROGRAM, sizeof(r->words));
		exit(1);
	}
	memcpy((uint8_t *)r->words + r->size, data, size);
	r->size += size;
}

static inline void put_u64(struct rec *r, uint64_t v)
{
	put(r, &v, sizeof(v));
}

static inline void put_u32s(struct rec *r, uint32_t a, uint32_t b)
{
	put(r, &a, sizeof(a));
	put(r, &b, sizeof(b));
}

/* NUL-terminated and padded to 8 bytes, as perf's records hold names. */
static inline void put_string(struct rec *r, const char *s)
{
	static const uint8_t zeros[8];

	put(r, s, strlen(s) + 1);
	put(r, zeros, (8 - r->size % 8) % 8);
}

/* A record of the kernel's: its header filled in by the fixture's finish(). */
static inline void begin(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->size = 8;	/* struct perf_event_header */
}

#endif
