/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_INTERN_H
#define PERFREC_REPORT_INTERN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Interned strings: equal strings share one copy, so the rest of the
 * reader compares and hashes names by pointer.
 */
struct string_table;

struct string_table *string_table_new(void);
void string_table_free(struct string_table *table);
/* The interned copy of the first length bytes of s, or NULL without memory. */
const char *string_intern_n(struct string_table *table, const char *s, size_t length);
const char *string_intern(struct string_table *table, const char *s);
/*
 * While shared is set, interning takes a lock, for threads that intern
 * into one table at once (the session's files read in parallel); off,
 * it costs nothing.  Set and cleared while no other thread uses it.
 */
void string_table_shared(struct string_table *table, int shared);

/* 64-bit mixing for hash tables keyed by pointers and integers. */
static inline uint64_t hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

#endif
