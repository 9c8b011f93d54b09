/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flat profile, as perf report prints it: one row per entry, heaviest
 * first, in the columns the sort keys ask for, aligned on the rows shown.
 * When a width is given, long symbols and source lines are elided in
 * their middle; the DSO is never cut, since it is what tells two
 * same-named functions apart.  Without a width, the DSO column is
 * aligned on the symbols of up to ALIGN_MAX columns, so that one huge C++
 * name does not pad every row: a longer one pushes its own row's DSO to
 * the right.  With a width, they all align within it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "views.h"

#define GAP		2	/* spaces between columns */
#define SOURCE_MIN	16	/* columns an elided Source keeps */
#define SYMBOL_MIN	24	/* ... and an elided Symbol */
#define SOURCE_LAST	12	/* Source's last resort, "..file.c:42" */
#define ALIGN_MAX	60	/* longer symbols push their DSO right */

enum column {
	COL_SELF, COL_TOTAL, COL_MS, COL_TOTAL_MS, COL_SAMPLES, COL_HOST, COL_UNIT, COL_CONTAINER, COL_CGROUP,
	COL_COMM, COL_PID, COL_TID, COL_SYMBOL, COL_DSO, COL_SOURCE, COL_COUNT
};

static const char *const titles[COL_COUNT] = {
	"Self%", "Total%", "ms", "Total ms", "Samples", "Host", "Unit", "Container", "Cgroup", "Command", "Pid", "Tid",
	"Symbol", "DSO", "Source",
};

struct layout {
	int present[COL_COUNT];
	size_t width[COL_COUNT];
	int last;			/* printed without padding */
	size_t fit;			/* the width to fit, 0 for none */
	uint64_t total;			/* what percentages are of */
	int blocks;			/* an off-CPU profile counts blocks */
};

static const char *title(const struct layout *layout, enum column column)
{
	return column == COL_SAMPLES && layout->blocks ? "Blocks" : titles[column];
}

/* Rows in order, without those below the limit or past the top N. */
struct rows {
	const struct report_data *data;
	const struct view_options *options;
	size_t next, shown, below, beyond;
};

static const struct flat_entry *next_row(struct rows *rows)
{
	const struct report_data *data = rows->data;

	while (rows->next < data->flat_count) {
		const struct flat_entry *e = &data->flat[rows->next++];

		if (view_below_limit(e->self_period, data->total_period,
				     rows->options->percent_limit))
			rows->below++;
		else if (rows->options->top && rows->shown >= rows->options->top)
			rows->beyond++;
		else
			return rows->shown++, e;
	}
	return NULL;
}

static const char *entry_dso(const struct flat_entry *e)
{
	return e->symbol && e->symbol->dso && *e->symbol->dso ? e->symbol->dso : "[unknown]";
}

static const char *entry_source(const struct flat_entry *e)
{
	return e->symbol && e->symbol->srcline ? e->symbol->srcline : "[unknown]";
}

static const char *entry_host(const struct flat_entry *e)
{
	return e->host && *e->host ? e->host : "[unknown]";
}

static const char *entry_comm(const struct flat_entry *e)
{
	return e->comm && *e->comm ? e->comm : "[unknown]";
}

/* A unit or cgroup the file does not tell is unknown; no container is "-". */
static const char *entry_text(const struct flat_entry *e, enum column column)
{
	switch (column) {
	case COL_UNIT:		return e->unit ? e->unit : "[unknown]";
	case COL_CONTAINER:	return e->container ? e->container : "-";
	case COL_CGROUP:	return e->cgroup ? e->cgroup : "[unknown]";
	default:		return entry_comm(e);
	}
}

/* An unresolved address is worth its offset, next to the DSO it is in. */
static int has_offset(const struct layout *layout, const struct flat_entry *e)
{
	return layout->present[COL_SYMBOL] && e->symbol && !e->symbol->resolved;
}

static size_t dso_columns(const struct layout *layout, const struct flat_entry *e)
{
	size_t columns = view_columns(entry_dso(e));
	char offset[24];

	if (has_offset(layout, e))
		columns += snprintf(offset, sizeof(offset), "+0x%" PRIx64,
				    e->symbol->unknown_offset);
	return columns;
}

static size_t percent_columns(const struct layout *layout, const struct flat_entry *e,
			      enum column column)
{
	char text[32];

	return strlen(view_percent(text, sizeof(text), column == COL_SELF ?
				   e->self_period : e->total_period, layout->total));
}

static size_t cell_columns(const struct layout *layout, const struct flat_entry *e,
			   enum column column)
{
	char text[32];

	switch (column) {
	case COL_MS:		return strlen(view_milliseconds(text, sizeof(text), e->self_period));
	case COL_TOTAL_MS:	return strlen(view_milliseconds(text, sizeof(text), e->total_period));
	case COL_SAMPLES:	return view_digits(e->self_samples);
	case COL_HOST:		return view_columns(entry_host(e));
	case COL_COMM:
	case COL_UNIT:
	case COL_CONTAINER:
	case COL_CGROUP:	return view_columns(entry_text(e, column));
	case COL_PID:		return view_digits(e->pid);
	case COL_TID:		return view_digits(e->tid);
	case COL_SYMBOL:	return view_symbol_columns(e->symbol);
	case COL_DSO:		return dso_columns(layout, e);
	case COL_SOURCE:	return view_columns(entry_source(e));
	default:		return percent_columns(layout, e, column);
	}
}

static void choose_columns(struct layout *layout, const struct report_data *data,
			   const struct view_options *options)
{
	unsigned keys = data->sort_keys ? data->sort_keys : SORT_SYM | SORT_DSO;

	layout->total = data->total_period;
	layout->fit = options->width > 0 ? (size_t)options->width : 0;
	layout->present[COL_SELF] = 1;
	layout->present[COL_TOTAL] = options->show_children;
	/* Time profiles: the milliseconds of self time beside each share. */
	layout->present[COL_MS] = data->weight_unit != NULL;
	layout->present[COL_TOTAL_MS] = data->weight_unit && options->show_children;
	layout->present[COL_SAMPLES] = 1;
	layout->blocks = data->kind == REPORT_PROFILE_OFF_CPU;
	layout->present[COL_HOST] = !!(keys & SORT_HOST);
	layout->present[COL_COMM] = !!(keys & SORT_COMM);
	layout->present[COL_UNIT] = !!(keys & SORT_UNIT);
	layout->present[COL_CONTAINER] = !!(keys & SORT_CONTAINER);
	layout->present[COL_CGROUP] = !!(keys & SORT_CGROUP);
	layout->present[COL_PID] = !!(keys & SORT_PID);
	layout->present[COL_TID] = !!(keys & SORT_TID);
	layout->present[COL_SYMBOL] = !!(keys & SORT_SYM);
	layout->present[COL_DSO] = !!(keys & (SORT_SYM | SORT_DSO));
	layout->present[COL_SOURCE] = !!(keys & SORT_SRCLINE);
	for (int c = 0; c < COL_COUNT; c++) {
		layout->width[c] = strlen(title(layout, c));
		if (layout->present[c])
			layout->last = c;
	}
}

static size_t line_columns(const struct layout *layout)
{
	size_t columns = 0;

	for (int c = 0; c < COL_COUNT; c++)
		if (layout->present[c])
			columns += layout->width[c] + (columns ? GAP : 0);
	return columns;
}

static void shrink(struct layout *layout, enum column column, size_t min, size_t width)
{
	size_t line = line_columns(layout);
	size_t room;

	if (!layout->present[column] || line <= width || layout->width[column] <= min)
		return;
	room = layout->width[column] - min;
	layout->width[column] -= line - width < room ? line - width : room;
}

static void fit(struct layout *layout, const struct report_data *data,
		const struct view_options *options)
{
	struct rows rows = { .data = data, .options = options };
	const struct flat_entry *e;

	/* "# Self%": the title needs the column's seven. */
	layout->width[COL_SELF] = 7;
	while ((e = next_row(&rows)))
		for (int c = 0; c < COL_COUNT; c++) {
			size_t columns = cell_columns(layout, e, c);

			/* One huge cell (a hostile name) must not pad every row. */
			if (columns > ALIGN_MAX) {
				if (!layout->fit)
					continue;
				columns = ALIGN_MAX;
			}
			if (layout->present[c] && columns > layout->width[c])
				layout->width[c] = columns;
		}
	if (!layout->fit)
		return;
	shrink(layout, COL_SOURCE, SOURCE_MIN, layout->fit);
	shrink(layout, COL_SYMBOL, SYMBOL_MIN, layout->fit);
	shrink(layout, COL_SOURCE, SOURCE_LAST, layout->fit);
}

/* Columns the cells after column take, with their gaps. */
static size_t columns_after(const struct layout *layout, enum column column)
{
	size_t columns = 0;

	for (int c = column + 1; c < COL_COUNT; c++)
		if (layout->present[c])
			columns += GAP + layout->width[c];
	return columns;
}

/* An elided cell's room: what the row leaves it of the width to fit. */
static size_t room(const struct layout *layout, enum column column, size_t used)
{
	size_t after = columns_after(layout, column), min = layout->width[column];

	if (!layout->fit)
		return 0;
	if (column == COL_SYMBOL && min > SYMBOL_MIN)
		min = SYMBOL_MIN;
	return layout->fit > used + after + min ? layout->fit - used - after : min;
}

static void print_dso(FILE *out, const struct layout *layout, const struct flat_entry *e)
{
	view_put(out, entry_dso(e), 0);
	if (has_offset(layout, e))
		fprintf(out, "+0x%" PRIx64, e->symbol->unknown_offset);
}

static size_t print_cell(FILE *out, const struct layout *layout,
			 const struct flat_entry *e, enum column column, size_t used)
{
	int width = (int)layout->width[column];
	char text[32];

	switch (column) {
	case COL_SELF:
	case COL_TOTAL:
		view_percent(text, sizeof(text), column == COL_SELF ? e->self_period :
			     e->total_period, layout->total);
		return fprintf(out, "%*s", width, text);
	case COL_MS:
	case COL_TOTAL_MS:
		return fprintf(out, "%*s", width, view_milliseconds(text, sizeof(text),
			column == COL_MS ? e->self_period : e->total_period));
	case COL_SAMPLES:
		return fprintf(out, "%*" PRIu64, width, e->self_samples);
	case COL_PID:
		return fprintf(out, "%*" PRIu32, width, e->pid);
	case COL_TID:
		return fprintf(out, "%*" PRIu32, width, e->tid);
	case COL_HOST:
		return view_put(out, entry_host(e), width);
	case COL_COMM:
	case COL_UNIT:
	case COL_CONTAINER:
	case COL_CGROUP:
		return view_put(out, entry_text(e, column), width);
	case COL_SYMBOL:
		return view_put_symbol(out, e->symbol, room(layout, column, used));
	case COL_DSO:
		print_dso(out, layout, e);
		return dso_columns(layout, e);
	default:
		return view_put_tail(out, entry_source(e), room(layout, column, used));
	}
}

static void print_row(FILE *out, const struct layout *layout, const struct flat_entry *e)
{
	size_t used = 0;

	for (int c = 0; c < COL_COUNT; c++) {
		size_t columns;

		if (!layout->present[c])
			continue;
		columns = print_cell(out, layout, e, c, used);
		if (c == layout->last)
			break;
		if (columns < layout->width[c])
			view_pad(out, layout->width[c] - columns);
		view_pad(out, GAP);
		used += (columns > layout->width[c] ? columns : layout->width[c]) + GAP;
	}
	fputc('\n', out);
}

static int right_aligned(enum column column)
{
	return column <= COL_SAMPLES || column == COL_PID || column == COL_TID;
}

/* The titles, in a "# " line so that scripts can skip it with the header. */
static void print_titles(FILE *out, const struct layout *layout)
{
	for (int c = 0; c < COL_COUNT; c++) {
		int width = (int)layout->width[c];

		if (!layout->present[c])
			continue;
		if (c == COL_SELF)
			fprintf(out, "#%*s", width - 1, title(layout, c));
		else if (right_aligned(c) || c == layout->last)
			fprintf(out, "%*s", right_aligned(c) ? width : 0, title(layout, c));
		else
			fprintf(out, "%-*s", width, title(layout, c));
		if (c != layout->last)
			view_pad(out, GAP);
	}
	fputc('\n', out);
}

static void print_hidden(FILE *out, const struct rows *rows)
{
	char limit[32];

	if (rows->below)
		fprintf(out, "# %zu entries below %s not shown\n", rows->below,
			view_limit_text(limit, sizeof(limit), rows->options->percent_limit));
	if (rows->beyond)
		fprintf(out, "# %zu entries beyond the top %zu not shown\n", rows->beyond,
			rows->options->top);
}

int view_flat(const struct report_data *data, const struct view_options *options,
	      FILE *out)
{
	struct rows rows = { .data = data, .options = options };
	struct layout layout = { 0 };
	const struct flat_entry *e;

	view_print_header(data, out);
	if (!data->total_period) {
		fputs("# no samples\n", out);
		return view_finish(out);
	}
	choose_columns(&layout, data, options);
	fit(&layout, data, options);
	print_titles(out, &layout);
	while ((e = next_row(&rows)))
		print_row(out, &layout, e);
	print_hidden(out, &rows);
	return view_finish(out);
}

char *view_flat_key(const struct report_data *data, const struct flat_entry *e)
{
	static const struct view_options none;
	struct layout layout = { 0 };
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	int first = 1;

	if (!out)
		return NULL;
	choose_columns(&layout, data, &none);
	for (int c = COL_HOST; c < COL_COUNT; c++) {
		if (!layout.present[c])
			continue;
		if (!first)
			fputc(' ', out);
		first = 0;
		switch (c) {
		case COL_HOST:		fputs(entry_host(e), out); break;
		case COL_PID:		fprintf(out, "%" PRIu32, e->pid); break;
		case COL_TID:		fprintf(out, "%" PRIu32, e->tid); break;
		case COL_SYMBOL:	view_symbol_label(out, e->symbol); break;
		case COL_SOURCE:	fputs(entry_source(e), out); break;
		case COL_DSO:
			fputs(entry_dso(e), out);
			if (has_offset(&layout, e))
				fprintf(out, "+0x%" PRIx64, e->symbol->unknown_offset);
			break;
		default:		fputs(entry_text(e, c), out); break;
		}
	}
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}
