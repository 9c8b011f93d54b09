/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A profile against a baseline (--baseline): what changed between two
 * captures, say before and after a deploy.  Each side is normalised by
 * its own total, so a longer or busier capture does not look like growth.
 *
 * The flat view matches rows by what the sort keys print (names, not the
 * symbolizers' pointers: the two captures were read apart) and orders
 * them by the size of the change, largest first:
 *
 *   # Base%    New%   Delta  Symbol         DSO
 *    20.12%  50.03%  +29.91  [.] burn_hot   workload
 *
 * The folded view gives each stack both counts, "stack BASE NEW", the
 * input of flamegraph.pl's differential graphs; BASE is scaled to NEW's
 * total (as difffolded.pl -n does), so equal counts mean an equal share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views.h"

#define SYMBOL_ALIGN	60	/* longer symbols push their DSO right */

/* ---- flat ------------------------------------------------------------- */

struct diff_row {
	char *key;			/* what the sort keys print, fields apart */
	const struct flat_entry *base, *now;
	double base_share, now_share;	/* percent of each side's total */
};

static char *entry_key(const struct flat_entry *e, unsigned keys)
{
	const struct report_symbol *symbol = e->symbol;
	char *key = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&key, &size);

	if (!f)
		return NULL;
	/* 0x1f, the unit separator, cannot be in a name a view prints. */
	if (keys & SORT_HOST)
		fprintf(f, "%s\x1f", e->host ? e->host : "");
	if (keys & SORT_COMM)
		fprintf(f, "%s\x1f", e->comm ? e->comm : "");
	if (keys & SORT_PID)
		fprintf(f, "%" PRIu32 "\x1f", e->pid);
	if (keys & SORT_TID)
		fprintf(f, "%" PRIu32 "\x1f", e->tid);
	if (keys & SORT_SYM)
		fprintf(f, "%s\x1f%d\x1f", view_symbol_name(symbol), symbol && symbol->kernel);
	if (keys & (SORT_SYM | SORT_DSO))
		fprintf(f, "%s\x1f", symbol && symbol->dso ? symbol->dso : "");
	if ((keys & SORT_SYM) && symbol && !symbol->resolved)
		fprintf(f, "%" PRIx64 "\x1f", symbol->unknown_offset);
	if (keys & SORT_SRCLINE)
		fprintf(f, "%s\x1f", symbol && symbol->srcline ? symbol->srcline : "");
	if (fclose(f)) {
		free(key);
		return NULL;
	}
	return key;
}

static int compare_keys(const void *x, const void *y)
{
	return strcmp(((const struct diff_row *)x)->key, ((const struct diff_row *)y)->key);
}

static int compare_changes(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double da = a->now_share - a->base_share, db = b->now_share - b->base_share;

	da = da < 0 ? -da : da;
	db = db < 0 ? -db : db;
	if (da != db)
		return da > db ? -1 : 1;
	if (a->now_share != b->now_share)
		return a->now_share > b->now_share ? -1 : 1;
	return strcmp(a->key, b->key);
}

static double share(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* Rows of one side, keyed and sorted by key; NULL on ENOMEM. */
static struct diff_row *side_rows(const struct report_data *data, unsigned keys, int is_base)
{
	struct diff_row *rows = calloc(data->flat_count + 1, sizeof(*rows));

	if (!rows)
		return NULL;
	for (size_t i = 0; i < data->flat_count; i++) {
		const struct flat_entry *e = &data->flat[i];

		rows[i].key = entry_key(e, keys);
		if (!rows[i].key) {
			while (i--)
				free(rows[i].key);
			free(rows);
			return NULL;
		}
		if (is_base) {
			rows[i].base = e;
			rows[i].base_share = share(e->self_period, data->total_period);
		} else {
			rows[i].now = e;
			rows[i].now_share = share(e->self_period, data->total_period);
		}
	}
	qsort(rows, data->flat_count, sizeof(*rows), compare_keys);
	return rows;
}

/* The two sides merged on their keys: one row per key of either. */
static struct diff_row *merge_rows(const struct report_data *base, const struct report_data *now,
				   unsigned keys, size_t *count)
{
	struct diff_row *b = side_rows(base, keys, 1), *n = side_rows(now, keys, 0), *out = NULL;
	size_t i = 0, j = 0, k = 0;

	if (b && n)
		out = calloc(base->flat_count + now->flat_count + 1, sizeof(*out));
	while (out && (i < base->flat_count || j < now->flat_count)) {
		int order = i == base->flat_count ? 1 : j == now->flat_count ? -1 :
			    strcmp(b[i].key, n[j].key);

		if (order < 0) {
			out[k++] = b[i++];
		} else if (order > 0) {
			out[k++] = n[j++];
		} else {
			out[k] = b[i++];
			out[k].now = n[j].now;
			out[k++].now_share = n[j].now_share;
			free(n[j++].key);
		}
	}
	if (!out) {
		for (i = 0; b && i < base->flat_count; i++)
			free(b[i].key);
		for (j = 0; n && j < now->flat_count; j++)
			free(n[j].key);
	}
	free(b);
	free(n);
	*count = k;
	return out;
}

/* A row's columns come from whichever side has it; their keys agree. */
static const struct flat_entry *row_entry(const struct diff_row *row)
{
	return row->now ? row->now : row->base;
}

static void put_label(FILE *out, const struct diff_row *row, unsigned keys, size_t align)
{
	const struct flat_entry *e = row_entry(row);
	const struct report_symbol *symbol = e->symbol;
	size_t columns = 0;

	if (keys & SORT_HOST) {
		view_put(out, e->host && *e->host ? e->host : "[unknown]", 0);
		fputs("  ", out);
	}
	if (keys & SORT_COMM) {
		view_put(out, e->comm && *e->comm ? e->comm : "[unknown]", 0);
		fputs("  ", out);
	}
	if (keys & SORT_PID)
		fprintf(out, "%" PRIu32 "  ", e->pid);
	if (keys & SORT_TID)
		fprintf(out, "%" PRIu32 "  ", e->tid);
	if (keys & SORT_SYM) {
		columns = view_put_symbol(out, symbol, 0);
		view_pad(out, columns < align ? align - columns + 2 : 2);
	}
	if (keys & (SORT_SYM | SORT_DSO)) {
		view_put(out, symbol && symbol->dso && *symbol->dso ? symbol->dso : "[unknown]", 0);
		if ((keys & SORT_SYM) && symbol && !symbol->resolved)
			fprintf(out, "+0x%" PRIx64, symbol->unknown_offset);
	}
	if (keys & SORT_SRCLINE) {
		fputs("  ", out);
		view_put(out, symbol && symbol->srcline ? symbol->srcline : "[unknown]", 0);
	}
	fputc('\n', out);
}

static void print_baseline_line(const struct report_data *base, FILE *out)
{
	const struct session_summary *h = &base->header;
	char ms[32];

	fprintf(out, "# baseline: %" PRIu64 " %s", h->samples,
		base->kind == REPORT_PROFILE_OFF_CPU ? "off-CPU blocks" :
		base->kind == REPORT_PROFILE_WALL ? "samples and off-CPU blocks" : "samples");
	if (base->weight_unit)
		fprintf(out, ", %s ms", view_milliseconds(ms, sizeof(ms), base->total_period));
	if (h->hostname)
		fputs(" of ", out), view_put(out, h->hostname, 0);
	fprintf(out, ", %zu file%s", h->files, h->files == 1 ? "" : "s");
	if (h->file_names && h->files)
		fputs(" (", out), view_put(out, h->file_names[0], 0),
		fputs(h->files > 1 ? ", ...)" : ")", out);
	fputc('\n', out);
	view_print_range("baseline range", base, out);
	fputs("#\n", out);
}

int view_flat_diff(const struct report_data *base, const struct report_data *data,
		   const struct view_options *options, FILE *out)
{
	unsigned keys = data->sort_keys ? data->sort_keys : SORT_SYM | SORT_DSO;
	size_t count, shown = 0, below = 0, beyond = 0, align = strlen("Symbol");
	struct diff_row *rows;
	char limit[32];

	view_print_header(data, out);
	print_baseline_line(base, out);
	if (!data->total_period && !base->total_period) {
		fputs("# no samples\n", out);
		return view_finish(out);
	}
	rows = merge_rows(base, data, keys, &count);
	if (!rows)
		return -ENOMEM;
	qsort(rows, count, sizeof(*rows), compare_changes);
	for (size_t i = 0; i < count; i++) {
		size_t columns = view_symbol_columns(row_entry(&rows[i])->symbol);

		if (columns > align && columns <= SYMBOL_ALIGN)
			align = columns;
	}
	fputs("#  Base%    New%   Delta  ", out);
	if (keys & SORT_HOST)
		fputs("Host  ", out);
	if (keys & SORT_COMM)
		fputs("Command  ", out);
	if (keys & SORT_PID)
		fputs("Pid  ", out);
	if (keys & SORT_TID)
		fputs("Tid  ", out);
	if (keys & SORT_SYM)
		fprintf(out, "%-*s  ", (int)align, "Symbol");
	fputs(keys & (SORT_SYM | SORT_DSO) ? "DSO" : "", out);
	fputs(keys & SORT_SRCLINE ? "  Source\n" : "\n", out);
	for (size_t i = 0; i < count; i++) {
		const struct diff_row *row = &rows[i];

		if (options->percent_limit > 0 && row->base_share < options->percent_limit &&
		    row->now_share < options->percent_limit)
			below++;
		else if (options->top && shown >= options->top)
			beyond++;
		else {
			fprintf(out, "%7.2f%% %6.2f%% %+7.2f  ", row->base_share, row->now_share,
				row->now_share - row->base_share);
			put_label(out, row, keys, align);
			shown++;
		}
	}
	if (below)
		fprintf(out, "# %zu entries below %s in both not shown\n", below,
			view_limit_text(limit, sizeof(limit), options->percent_limit));
	if (beyond)
		fprintf(out, "# %zu entries beyond the top %zu not shown\n", beyond, options->top);
	for (size_t i = 0; i < count; i++)
		free(rows[i].key);
	free(rows);
	return view_finish(out);
}

/* ---- folded ----------------------------------------------------------- */

struct stack_count {
	const char *stack;		/* into the side's buffer, NUL-ended */
	uint64_t count;
};

static int compare_stacks(const void *x, const void *y)
{
	return strcmp(((const struct stack_count *)x)->stack, ((const struct stack_count *)y)->stack);
}

/*
 * The side's collapsed stacks, as view_folded() prints them, split in
 * place into (stack, count) pairs sorted by stack.  0 or a negative errno.
 */
static int side_stacks(const struct report_data *data, char **buffer,
		       struct stack_count **stacks, size_t *count)
{
	size_t size = 0, n = 0, capacity = 0;
	FILE *f = open_memstream(buffer, &size);
	char *line, *next;
	int ret;

	*stacks = NULL;
	*count = 0;
	if (!f)
		return -errno;
	ret = view_folded(data, f);
	if (ret < 0) {
		fclose(f);
		return ret;
	}
	if (fclose(f))
		return -errno;
	for (line = *buffer; *line; line = next) {
		char *space, *end;

		next = strchr(line, '\n');
		*next++ = '\0';		/* view_folded() ends every line */
		space = strrchr(line, ' ');
		if (!space)
			continue;
		*space = '\0';
		if (n == capacity) {
			size_t grown = capacity ? 2 * capacity : 256;
			struct stack_count *p = reallocarray(*stacks, grown, sizeof(*p));

			if (!p)
				return -ENOMEM;
			*stacks = p;
			capacity = grown;
		}
		(*stacks)[n].stack = line;
		(*stacks)[n++].count = strtoull(space + 1, &end, 10);
	}
	if (n)
		qsort(*stacks, n, sizeof(**stacks), compare_stacks);
	*count = n;
	return 0;
}

int view_folded_diff(const struct report_data *base, const struct report_data *data, FILE *out)
{
	char *base_text = NULL, *text = NULL;
	struct stack_count *b = NULL, *n = NULL;
	size_t bn = 0, nn = 0, i = 0, j = 0;
	double scale;
	int ret;

	ret = side_stacks(base, &base_text, &b, &bn);
	if (!ret)
		ret = side_stacks(data, &text, &n, &nn);
	if (ret < 0)
		goto out;
	/* Time profiles fold nanoseconds: scaled by their totals of time. */
	if (data->weight_unit)
		scale = base->total_period ? (double)data->total_period / (double)base->total_period : 0;
	else
		scale = base->total_samples ? (double)data->total_samples /
					      (double)base->total_samples : 0;
	while (i < bn || j < nn) {
		int order = i == bn ? 1 : j == nn ? -1 : strcmp(b[i].stack, n[j].stack);
		const char *stack = order <= 0 ? b[i].stack : n[j].stack;
		uint64_t before = order <= 0 ? (uint64_t)((double)b[i++].count * scale + 0.5) : 0;
		uint64_t after = order >= 0 ? n[j++].count : 0;

		fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", stack, before, after);
	}
	ret = view_finish(out);
out:
	free(b);
	free(n);
	free(base_text);
	free(text);
	return ret;
}
