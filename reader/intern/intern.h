/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_INTERN_H
#define PERFREC_INTERN_H

#include <stddef.h>

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

#endif
