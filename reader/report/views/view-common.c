/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the views share: the header, safe printing of names that come from
 * the recorded host, eliding them to a width, and percentages.
 *
 * Numbers are formatted with integer arithmetic only, so the output does
 * not depend on LC_NUMERIC even if the program ever calls setlocale().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "views.h"

/* ---- printable units ------------------------------------------------- */

size_t view_columns(const char *s)
{
	const char *unit;
	size_t size, n, columns = 0;

	while ((n = prf_text_unit(s, &unit, &size))) {
		s += n;
		columns++;
	}
	return columns;
}

size_t view_digits(uint64_t n)
{
	size_t count = 1;

	while (n >= 10)
		n /= 10, count++;
	return count;
}

int view_text_put(struct view_text *text, const char *s, size_t size)
{
	/* Nothing to copy: data may still be NULL, which memcpy() must not get. */
	if (!size)
		return 0;
	if (prf_ensure_mem((void **)&text->data, &text->capacity, 1, text->size + size) < 0)
		return -ENOMEM;
	memcpy(text->data + text->size, s, size);
	text->size += size;
	return 0;
}

size_t view_format_u64(char *out, uint64_t n, size_t width, char pad)
{
	char digits[20], *p = digits + sizeof(digits);
	size_t size, pads;

	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	size = (size_t)(digits + sizeof(digits) - p);
	pads = width > size ? width - size : 0;
	memset(out, pad, pads);
	memcpy(out + pads, p, size);
	return pads + size;
}

void view_put_hex(FILE *out, const char *prefix, uint64_t n, int width, const char *suffix)
{
	char text[96], *end = text + sizeof(text), *p = end;
	size_t prefix_size = strlen(prefix), suffix_size = strlen(suffix);

	if (prefix_size > 32 || suffix_size > 32 || width > 24) {
		fprintf(out, "%s%*" PRIx64 "%s", prefix, width, n, suffix);
		return;
	}
	p -= suffix_size;
	memcpy(p, suffix, suffix_size);
	do {
		*--p = "0123456789abcdef"[n & 15];
		n >>= 4;
	} while (n);
	while (end - suffix_size - p < width)
		*--p = ' ';
	p -= prefix_size;
	memcpy(p, prefix, prefix_size);
	fwrite(p, 1, (size_t)(end - p), out);
}

/* Where output goes: a stream, or a buffer that is never overrun. */
struct sink {
	FILE *out;
	char *buffer;
	size_t size, used;
	int full;
};

static void sink_write(struct sink *sink, const char *bytes, size_t n)
{
	if (sink->out) {
		fwrite(bytes, 1, n, sink->out);
		return;
	}
	/* Cut at the first unit that does not fit, never inside one. */
	if (sink->full || sink->used + n >= sink->size) {
		sink->full = 1;
		return;
	}
	memcpy(sink->buffer + sink->used, bytes, n);
	sink->used += n;
}

/*
 * Names keep 2/5 of the room for their head and the rest for the tail:
 * the end of a C++ name (the method) says more than its namespaces.
 * Paths keep only their tail, "..ng/memmove.S:312".
 */
static size_t put_units(struct sink *sink, const char *s, size_t width, int path)
{
	size_t columns, head, tail_from, index = 0, size, n, plain = 0;
	const char *unit;

	/* Most names are printable ASCII that fits: a column a byte, as they are. */
	while (s[plain] >= 0x20 && s[plain] < 0x7f)
		plain++;
	if (!s[plain] && (!width || plain <= width)) {
		sink_write(sink, s, plain);
		return plain;
	}
	columns = view_columns(s);
	head = tail_from = columns;

	if (width && columns > width) {
		if (width <= 2) {
			head = width;
		} else {
			head = path ? 0 : (width - 2) * 2 / 5;
			tail_from = columns - (width - 2 - head);
		}
	}
	if (head == columns) {
		/* Whole: the units that are as they were go out in runs, not one by one. */
		const char *run = s;

		for (; (n = prf_text_unit(s, &unit, &size)); s += n) {
			if (unit == s)
				continue;
			sink_write(sink, run, (size_t)(s - run));
			sink_write(sink, unit, size);
			run = s + n;
		}
		sink_write(sink, run, (size_t)(s - run));
		return columns;
	}
	for (; (n = prf_text_unit(s, &unit, &size)); s += n, index++) {
		if (index == head && head < columns)
			sink_write(sink, "..", width > 2 ? 2 : 0);
		if (index < head || index >= tail_from)
			sink_write(sink, unit, size);
	}
	return width && columns > width ? width : columns;
}

size_t view_put(FILE *out, const char *s, size_t width)
{
	struct sink sink = { .out = out };

	return put_units(&sink, s ? s : "", width, 0);
}

size_t view_put_tail(FILE *out, const char *s, size_t width)
{
	struct sink sink = { .out = out };

	return put_units(&sink, s ? s : "", width, 1);
}

void view_pad(FILE *out, size_t columns)
{
	while (columns--)
		fputc(' ', out);
}

const char *view_elide(const char *s, int width, char *buffer, size_t size)
{
	struct sink sink = { .buffer = buffer, .size = size };

	if (!s)
		s = "";
	if (width < 0)
		width = 0;
	if ((!width || view_columns(s) <= (size_t)width) && prf_text_is_safe(s))
		return s;
	if (!size)
		return "";
	put_units(&sink, s, width, 0);
	buffer[sink.used] = '\0';
	return buffer;
}

/*
 * The locale's character set as setlocale(LC_CTYPE, "") would take it,
 * without calling it (the views stay locale-free): the first of LC_ALL,
 * LC_CTYPE and LANG that is set names it.
 */
int view_locale_utf8(void)
{
	static const char *const names[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i]);

		if (value && *value)
			return strcasestr(value, "utf-8") || strcasestr(value, "utf8");
	}
	return 0;
}

int view_terminal_width(FILE *out)
{
	const char *columns = getenv("COLUMNS");
	struct winsize size;

	if (!isatty(fileno(out)))
		return 0;
	if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col)
		return size.ws_col;
	return columns && atoi(columns) > 0 ? atoi(columns) : 0;
}

/* ---- percentages ----------------------------------------------------- */

uint64_t view_percent_fixed(uint64_t part, uint64_t total, unsigned decimals)
{
	uint64_t scale = 100;

	if (!total)
		return 0;
	while (decimals--)
		scale *= 10;
#ifdef __SIZEOF_INT128__
	return (uint64_t)(((unsigned __int128)part * scale + total / 2) / total);
#else
	return (uint64_t)((long double)part * scale / total + 0.5L);
#endif
}

const char *view_percent(char *buffer, size_t size, uint64_t part, uint64_t total)
{
	uint64_t hundredths = view_percent_fixed(part, total, 2);

	snprintf(buffer, size, "%" PRIu64 ".%02" PRIu64 "%%", hundredths / 100,
		 hundredths % 100);
	return buffer;
}

int view_below_limit(uint64_t part, uint64_t total, double limit)
{
	if (!(limit > 0))
		return 0;
	return (long double)part * 100 < (long double)limit * total;
}

const char *view_limit_text(char *buffer, size_t size, double limit)
{
	uint64_t hundredths = limit > 0 && limit < 1e15 ? (uint64_t)(limit * 100 + 0.5) : 0;

	snprintf(buffer, size, "%" PRIu64 ".%02" PRIu64 "%%", hundredths / 100,
		 hundredths % 100);
	return buffer;
}

/* ---- symbols --------------------------------------------------------- */

#define INLINED_MARK	" (inlined)"

const char *view_symbol_name(const struct report_symbol *symbol)
{
	return symbol && symbol->name && *symbol->name ? symbol->name : "[unknown]";
}

/* perf's marks: [k] for the kernel, [.] for user space. */
static const char *symbol_mark(const struct report_symbol *symbol)
{
	return symbol && symbol->kernel ? "[k] " : "[.] ";
}

size_t view_symbol_columns(const struct report_symbol *symbol)
{
	return 4 + view_columns(view_symbol_name(symbol)) +
	       (symbol && symbol->inlined ? strlen(INLINED_MARK) : 0);
}

void view_symbol_label(FILE *out, const struct report_symbol *symbol)
{
	fputs(symbol_mark(symbol), out);
	fputs(view_symbol_name(symbol), out);
	if (symbol && symbol->inlined)
		fputs(INLINED_MARK, out);
}

size_t view_put_symbol(FILE *out, const struct report_symbol *symbol, size_t width)
{
	size_t fixed = 4 + (symbol && symbol->inlined ? strlen(INLINED_MARK) : 0);
	size_t room = 0, columns;

	if (width)
		room = width > fixed + 4 ? width - fixed : 4;
	fputs(symbol_mark(symbol), out);
	columns = view_put(out, view_symbol_name(symbol), room);
	if (symbol && symbol->inlined)
		fputs(INLINED_MARK, out);
	return fixed + columns;
}

int view_finish(FILE *out)
{
	/* A stream that failed before this flush may not have kept its errno. */
	if (fflush(out) == EOF || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- the header ------------------------------------------------------ */

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static void print_field(FILE *out, const char *label, const char *value)
{
	fprintf(out, "# %s: ", label);
	view_put(out, or_unknown(value), 0);
}

int view_start_time(const struct session_summary *header, struct tm *tm,
		    uint32_t *nanoseconds)
{
	int64_t wall;
	time_t seconds;

	if (!header->start_ns && !header->end_ns)
		return -1;
	if (header->start_ns > INT64_MAX ||
	    __builtin_add_overflow((int64_t)header->start_ns,
				   header->realtime_offset_ns, &wall) || wall < 0)
		return -1;
	seconds = (time_t)(wall / 1000000000);
	*nanoseconds = (uint32_t)(wall % 1000000000);
	return gmtime_r(&seconds, tm) ? 0 : -1;
}

/* Wall-clock start in UTC; the raw clock when the offset makes no sense. */
static void print_time(const struct session_summary *header, FILE *out)
{
	uint64_t span = header->end_ns > header->start_ns ?
			header->end_ns - header->start_ns : 0;
	uint32_t nanoseconds;
	char text[64];
	struct tm tm;

	fputs("# time: ", out);
	if (!header->start_ns && !header->end_ns) {
		fputs("unknown\n", out);
		return;
	}
	if (!view_start_time(header, &tm, &nanoseconds) &&
	    strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm))
		fputs(text, out);
	else
		fprintf(out, "%" PRIu64 " ns on the capture clock", header->start_ns);
	fprintf(out, ", duration %" PRIu64 ".%03" PRIu64 " s\n", span / 1000000000,
		span % 1000000000 / 1000000);
}

void view_print_range(const char *label, const struct report_data *data, FILE *out)
{
	char since[REPORT_TIME_ISO_MAX], until[REPORT_TIME_ISO_MAX];
	const struct report_range *range = &data->range;
	int64_t offset = data->header.realtime_offset_ns, from, to;
	uint64_t span;

	if (!range->since_given && !range->until_given)
		return;
	fprintf(out, "# %s: ", label);
	if (report_range_bounds(range, &data->header, &from, &to) < 0) {
		fputs("unknown\n", out);
		return;
	}
	/* A range past the capture's end, or one bound given past the other, is empty. */
	span = to > from ? (uint64_t)to - (uint64_t)from : 0;
	/* A bound before the clock's 0 (the machine's boot) still prints as the time it is. */
	fprintf(out, "%s to %s (%" PRIu64 ".%03" PRIu64 " s)\n",
		report_time_iso((uint64_t)from, offset, since, sizeof(since)),
		report_time_iso((uint64_t)to, offset, until, sizeof(until)),
		span / 1000000000, span % 1000000000 / 1000000);
}

const char *view_milliseconds(char *buffer, size_t size, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	snprintf(buffer, size, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	return buffer;
}

/*
 * What an off-CPU profile counts are blocks, of the files' OFF_CPU
 * records; a wall profile's both samples and blocks.
 */
static void print_counts(const struct report_data *data, FILE *out)
{
	const struct session_summary *header = &data->header;
	uint64_t in_files = header->samples_total;
	const char *what = "samples";

	if (data->kind == REPORT_PROFILE_OFF_CPU) {
		in_files = header->off_cpu_total;
		what = "off-CPU blocks";
	} else if (data->kind == REPORT_PROFILE_WALL) {
		in_files += header->off_cpu_total;
		what = "samples and off-CPU blocks";
	}
	fprintf(out, "# %s: %" PRIu64, what, header->samples);
	if (header->samples != in_files)
		fprintf(out, " of %" PRIu64 " (filtered)", in_files);
	fprintf(out, "\n# lost: %" PRIu64 " samples, ", header->lost);
	if (data->kind != REPORT_PROFILE_CPU)
		fprintf(out, "%" PRIu64 " off-CPU blocks, ", header->off_cpu_lost);
	fprintf(out, "%" PRIu64 " records dropped\n", header->dropped);
	fprintf(out, "# files: %zu", header->files);
	if (header->damaged_files)
		fprintf(out, ", %zu damaged", header->damaged_files);
	if (header->incomplete_files)
		fprintf(out, ", %zu incomplete", header->incomplete_files);
	if (header->files == 1 && header->file_names && header->file_names[0]) {
		fputs(" (", out);
		view_put(out, header->file_names[0], 0);
		fputc(')', out);
	}
	fputc('\n', out);
}

/* Captures of many hosts: all of them, the line above being the first file's. */
static void print_hosts(const struct session_summary *header, FILE *out)
{
	if (header->host_count < 2)
		return;
	fprintf(out, "# hosts: %zu: ", header->host_count);
	for (size_t i = 0; i < header->host_count; i++) {
		if (i)
			fputs(", ", out);
		view_put(out, header->hosts[i], 0);
	}
	fputc('\n', out);
}

/* Lost data skews every percentage: say so where nobody can miss it. */
static void print_warnings(const struct session_summary *header, FILE *out)
{
	if (header->lost)
		fprintf(out, "# WARNING: %" PRIu64 " samples were lost\n", header->lost);
	if (header->dropped)
		fprintf(out, "# WARNING: %" PRIu64 " records were dropped by the collector\n",
			header->dropped);
	if (header->damaged_files)
		fprintf(out, "# WARNING: %zu of %zu files were damaged or cut short;"
			" only their readable parts were used\n",
			header->damaged_files, header->files);
}

/* Off-CPU and wall: what the weights are, and their total. */
static void print_profile(const struct report_data *data, FILE *out)
{
	char ms[32];

	if (data->kind == REPORT_PROFILE_CPU)
		return;
	fprintf(out, "# profile: %s, weights in nanoseconds\n", report_profile_kind_name(data->kind));
	view_milliseconds(ms, sizeof(ms), data->total_period);
	if (data->kind == REPORT_PROFILE_OFF_CPU)
		fprintf(out, "# blocked: %s ms in %" PRIu64 " blocks\n", ms, data->total_samples);
	else
		fprintf(out, "# wall time: %s ms, on-CPU (samples x period) and off-CPU\n", ms);
}

void view_print_header(const struct report_data *data, FILE *out)
{
	const struct session_summary *header = &data->header;
	char buffer[REPORT_SAMPLING_TEXT_MAX];
	const char *sampling = report_sampling_text(&header->sampling, buffer, sizeof(buffer));

	print_field(out, "host", header->hostname);
	fputs(", kernel ", out);
	view_put(out, or_unknown(header->kernel_release), 0);
	fputs(", ", out);
	view_put(out, or_unknown(header->machine), 0);
	fputc('\n', out);
	print_hosts(header, out);
	print_field(out, "event", header->event);
	if (sampling) {
		fputs(", ", out);
		view_put(out, sampling, 0);
	}
	fputc('\n', out);
	print_time(header, out);
	view_print_range("range", data, out);
	print_profile(data, out);
	print_counts(data, out);
	print_warnings(header, out);
	fputs("#\n", out);
}
