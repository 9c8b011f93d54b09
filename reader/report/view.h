/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_VIEW_H
#define PERFREC_REPORT_VIEW_H

/* What the view-*.c files share: safe printing, columns, percentages. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report.h"

/* Length of the valid UTF-8 character at s, its code point in *code; 0: none. */
size_t view_utf8_char(const char *s, uint32_t *code);

/*
 * Steps over one printable unit of s: a UTF-8 character as it is, or '?'
 * for a control character or an invalid byte.  Returns the bytes of s
 * consumed (0 at the end); *unit and *unit_size are what to print.
 */
size_t view_next_unit(const char *s, const char **unit, size_t *unit_size);

/* Columns s takes when printed (a unit is a column). */
size_t view_columns(const char *s);

/* Prints s safely, elided to width columns (0: whole); returns the columns. */
size_t view_put(FILE *out, const char *s, size_t width);
/* The same for a path or file:line, elided at its start to keep the end. */
size_t view_put_tail(FILE *out, const char *s, size_t width);
void view_pad(FILE *out, size_t columns);

/* part / total as a percentage scaled by 10^decimals, rounded; 0 if total is 0. */
uint64_t view_percent_fixed(uint64_t part, uint64_t total, unsigned decimals);
/* "59.21%" into buffer (at least 16 bytes), locale-free. */
const char *view_percent(char *buffer, size_t size, uint64_t part, uint64_t total);
/* Whether part is below limit percent of total (never when limit <= 0). */
int view_below_limit(uint64_t part, uint64_t total, double limit);
/* The limit as "0.50%", locale-free. */
const char *view_limit_text(char *buffer, size_t size, double limit);

/* A frame's label: "[k] name (inlined)", "[.] [unknown]". */
size_t view_symbol_columns(const struct report_symbol *symbol);
/* Prints it within width columns (0: whole), eliding only the name. */
size_t view_put_symbol(FILE *out, const struct report_symbol *symbol, size_t width);
/* Its name, "[unknown]" when there is none. */
const char *view_symbol_name(const struct report_symbol *symbol);

/* The wall-clock start of the capture, in UTC; -1 when unknown. */
struct tm;
int view_start_time(const struct session_summary *header, struct tm *tm,
		    uint32_t *nanoseconds);

/* 0, or -1 with errno when out has failed. */
int view_finish(FILE *out);

#endif
