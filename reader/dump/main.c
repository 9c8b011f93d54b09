/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-dump: print what a perfrec file holds, as text, one item a line.
 *
 * It is the tool to reach for when a file looks wrong, so it prints
 * everything it can still read from a damaged file, says on stderr what it
 * could not, and tells the two apart in its exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dump.h"

#define PROGRAM "perfrec-dump"

enum section {
	SECTION_HEADER	= 1 << 0,	/* the header and the events */
	SECTION_CHUNKS	= 1 << 1,
	SECTION_RECORDS	= 1 << 2,
	SECTION_SUMMARY	= 1 << 3,
};

enum dump_status {
	DUMP_SOUND	= 0,
	DUMP_DAMAGED	= 1,		/* damaged or incomplete, partly printed */
	DUMP_UNUSABLE	= 2,		/* not readable at all, or bad usage */
};

/* Counts by key (record type, CPU), sorted by key for printing. */
#define TALLY_KEYS_MAX	1024

struct tally {
	struct {
		uint64_t key;
		uint64_t count;
	} entries[TALLY_KEYS_MAX];
	size_t used;
	uint64_t others;		/* keys past TALLY_KEYS_MAX */
};

struct dump_file {
	const char *path;
	unsigned int sections;
	struct prf_reader *reader;
	struct prf_read_stats stats;
	struct tally record_types;
	struct tally sample_cpus;
	uint64_t malformed_records;
	uint64_t unframed_chunks;	/* whose records did not tile the payload */
	uint64_t first_time, last_time;	/* of the chunks read */
};

/* ---- output -------------------------------------------------------- */

/* errno of the first failed write to stdout; EPIPE means nobody listens. */
static int output_error;

static int output_failed(void)
{
	if (!output_error && ferror(stdout))
		output_error = errno ? errno : EIO;
	return output_error != 0;
}

/* Diagnostics go after the output before them, for 2>&1. */
static void print_error_line(const char *message)
{
	fflush(stdout);
	fprintf(stderr, PROGRAM ": %s\n", message);
}

static void print_diag(void *context, uint64_t offset, const char *message)
{
	print_error_line(message);
}

/* ---- counting ------------------------------------------------------ */

static void tally_add(struct tally *tally, uint64_t key)
{
	size_t low = 0, high = tally->used;

	while (low < high) {
		size_t middle = low + (high - low) / 2;

		if (tally->entries[middle].key == key) {
			tally->entries[middle].count++;
			return;
		}
		if (tally->entries[middle].key < key)
			low = middle + 1;
		else
			high = middle;
	}
	/* Only a hostile file has this many record types or CPUs. */
	if (tally->used == TALLY_KEYS_MAX) {
		tally->others++;
		return;
	}
	memmove(&tally->entries[low + 1], &tally->entries[low],
		(tally->used - low) * sizeof(tally->entries[0]));
	tally->entries[low].key = key;
	tally->entries[low].count = 1;
	tally->used++;
}

static void count_record(struct dump_file *file,
			 const struct dump_record *decoded)
{
	const struct prf_sample *sample = &decoded->kernel.sample;

	tally_add(&file->record_types, decoded->record->type);
	if (decoded->status == -EBADMSG)
		file->malformed_records++;
	if (decoded->record->type == PERF_RECORD_SAMPLE &&
	    decoded->status > 0 && (sample->sample_type & PERF_SAMPLE_CPU))
		tally_add(&file->sample_cpus, sample->cpu);
}

/* Chunks hold 0 when they know no time. */
static void count_chunk_time(struct dump_file *file,
			     const struct prf_chunk *chunk)
{
	if (chunk->first_time &&
	    (!file->first_time || chunk->first_time < file->first_time))
		file->first_time = chunk->first_time;
	if (chunk->last_time > file->last_time)
		file->last_time = chunk->last_time;
}

/* ---- chunks and records -------------------------------------------- */

static double ratio(uint64_t raw, uint64_t stored)
{
	return stored ? (double)raw / (double)stored : 0.0;
}

static void print_chunk(const struct prf_chunk *chunk)
{
	printf("CHUNK sequence=%" PRIu64 " offset=%" PRIu64, chunk->sequence,
	       chunk->offset);
	if (chunk->codec == PRF_CODEC_NONE)
		field_string(stdout, "codec", "none");
	else if (chunk->codec == PRF_CODEC_ZSTD)
		field_string(stdout, "codec", "zstd");
	else
		field_u64(stdout, "codec", chunk->codec);
	field_u64(stdout, "raw", chunk->raw_size);
	field_u64(stdout, "stored", chunk->stored_size);
	printf(" ratio=%.2f", ratio(chunk->raw_size, chunk->stored_size));
	field_u64(stdout, "records", chunk->record_count);
	field_time(stdout, "first_time", chunk->first_time);
	field_time(stdout, "last_time", chunk->last_time);
	field_string(stdout, "holds", chunk->flags & PRF_CHUNK_SAMPLES ? "samples" : "records");
	/* Compact samples: records counts them expanded, raw is the table and columns. */
	if (chunk->stacks) {
		field_string(stdout, "encoding", "compact");
		field_u64(stdout, "stacks", chunk->stack_count);
	}
	putchar('\n');
}

static void walk_records(struct dump_file *file, struct prf_chunk *chunk)
{
	struct prf_record record;
	struct dump_record decoded;
	char message[512];
	int ret;

	while ((ret = prf_chunk_next_record(chunk, &record)) > 0) {
		dump_record_decode(file->reader, &record, &decoded);
		count_record(file, &decoded);
		if (file->sections & SECTION_RECORDS) {
			dump_record_print(stdout, chunk, &decoded);
			if (output_failed())
				return;
		}
	}
	/* The reader checks framing before it returns a chunk: a library bug. */
	if (ret < 0) {
		file->unframed_chunks++;
		snprintf(message, sizeof(message),
			 "%s: chunk %" PRIu64 " at offset %" PRIu64 ": record framing broken at payload offset %zu; skipped the rest of the chunk",
			 file->path, chunk->sequence, chunk->offset, chunk->position);
		print_error_line(message);
	}
}

static int read_chunks(struct dump_file *file)
{
	struct prf_chunk chunk;
	int ret;

	while ((ret = prf_reader_next_chunk(file->reader, &chunk)) > 0) {
		count_chunk_time(file, &chunk);
		if (file->sections & SECTION_CHUNKS)
			print_chunk(&chunk);
		if (file->sections & (SECTION_RECORDS | SECTION_SUMMARY))
			walk_records(file, &chunk);
		if (output_failed())
			return 0;
	}
	return ret;
}

/* ---- verdict and summary ------------------------------------------- */

/* Without damage to explain it, a trailer that disagrees is damage itself. */
static int trailer_disagrees(const struct dump_file *file)
{
	const struct prf_read_stats *stats = &file->stats;

	return stats->complete && !stats->damaged_chunks &&
	       (stats->trailer.chunk_count != stats->chunks ||
		stats->trailer.record_count != stats->records);
}

/* Damaged: something inside the file is wrong, not merely missing. */
static int is_damaged(const struct dump_file *file)
{
	return file->stats.damaged_chunks || file->malformed_records ||
	       file->unframed_chunks || trailer_disagrees(file);
}

/* A file cut short has no trailer either; an end is missing. */
static int is_incomplete(const struct dump_file *file)
{
	return !file->stats.complete || file->stats.truncated_bytes;
}

static const char *verdict(const struct dump_file *file)
{
	if (is_damaged(file))
		return "damaged";
	return is_incomplete(file) ? "incomplete" : "sound";
}

__attribute__((format(printf, 4, 5)))
static void append(char *text, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(text + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n;
}

static const char *plural(uint64_t count)
{
	return count == 1 ? "" : "s";
}

/* One line on stderr that sums up what reading the file lost. */
static void report_loss(const struct dump_file *file)
{
	const struct prf_read_stats *stats = &file->stats;
	char text[1024];
	size_t used = 0;

	append(text, sizeof(text), &used, "%s: %s:", file->path, verdict(file));
	if (stats->damaged_chunks)
		append(text, sizeof(text), &used, " skipped %" PRIu64 " damaged chunk%s (%" PRIu64 " bytes);",
		       stats->damaged_chunks, plural(stats->damaged_chunks),
		       stats->skipped_bytes);
	if (stats->truncated_bytes)
		append(text, sizeof(text), &used, " discarded %" PRIu64 " bytes of a chunk cut short at the end;",
		       stats->truncated_bytes);
	if (file->malformed_records)
		append(text, sizeof(text), &used, " %" PRIu64 " malformed record%s;",
		       file->malformed_records, plural(file->malformed_records));
	if (file->unframed_chunks)
		append(text, sizeof(text), &used, " %" PRIu64 " chunk%s with broken record framing;",
		       file->unframed_chunks, plural(file->unframed_chunks));
	if (trailer_disagrees(file))
		append(text, sizeof(text), &used, " the trailer counts %" PRIu64 " chunks and %" PRIu64 " records, %" PRIu64 " and %" PRIu64 " were read;",
		       stats->trailer.chunk_count, stats->trailer.record_count,
		       stats->chunks, stats->records);
	if (!stats->complete)
		append(text, sizeof(text), &used, " no trailer: the file was not finished or was cut short;");
	if (used < sizeof(text) && text[used - 1] == ';')
		text[used - 1] = '\0';
	print_error_line(text);
}

static void print_tally(const char *label, const struct tally *tally,
			const char *key_prefix)
{
	printf("%-17s", label);
	if (!tally->used)
		fputs(" none", stdout);
	for (size_t i = 0; i < tally->used; i++)
		printf(" %s%" PRIu64 "=%" PRIu64, key_prefix,
		       tally->entries[i].key, tally->entries[i].count);
	if (tally->others)
		printf(" others=%" PRIu64, tally->others);
	putchar('\n');
}

static void print_record_types(const struct tally *types)
{
	for (size_t i = 0; i < types->used; i++) {
		uint32_t type = (uint32_t)types->entries[i].key;
		const char *name = prf_record_type_name(type);
		char label[64];

		if (name)
			snprintf(label, sizeof(label), "  %s:", name);
		else
			snprintf(label, sizeof(label), "  type=%" PRIu32 ":", type);
		printf("%-17s %" PRIu64 "\n", label, types->entries[i].count);
	}
	if (types->others)
		printf("%-17s %" PRIu64 "\n", "  other types:", types->others);
}

static void print_summary(const struct dump_file *file)
{
	const struct prf_read_stats *stats = &file->stats;
	const struct prf_trailer *trailer = &stats->trailer;

	printf("%-17s %s\n", "file:", file->path);
	printf("%-17s %" PRIu64 " bytes\n", "size:", stats->file_size);
	printf("%-17s %s\n", "complete:", stats->complete ? "yes" : "no");
	printf("%-17s %" PRIu64 "\n", "chunks:", stats->chunks);
	printf("%-17s %" PRIu64 "\n", "records:", stats->records);
	print_record_types(&file->record_types);
	printf("%-17s raw=%" PRIu64 " stored=%" PRIu64 " ratio=%.2f\n", "bytes:",
	       stats->raw_bytes, stats->stored_bytes,
	       ratio(stats->raw_bytes, stats->stored_bytes));
	printf("%-17s ", "time span:");
	print_time(stdout, file->last_time > file->first_time ?
			   file->last_time - file->first_time : 0);
	fputs(" s (first=", stdout);
	print_time(stdout, file->first_time);
	fputs(" last=", stdout);
	print_time(stdout, file->last_time);
	fputs(")\n", stdout);
	print_tally("samples per cpu:", &file->sample_cpus, "cpu");
	printf("%-17s damaged_chunks=%" PRIu64 " skipped_bytes=%" PRIu64 " truncated_bytes=%" PRIu64 " malformed_records=%" PRIu64 " verdict=%s\n",
	       "integrity:", stats->damaged_chunks, stats->skipped_bytes,
	       stats->truncated_bytes, file->malformed_records,
	       verdict(file));
	if (stats->complete)
		printf("%-17s chunks=%" PRIu64 " records=%" PRIu64 " dropped_records=%" PRIu64 " dropped_bytes=%" PRIu64 "\n",
		       "trailer:", trailer->chunk_count, trailer->record_count,
		       trailer->dropped_records, trailer->dropped_bytes);
	else
		printf("%-17s none\n", "trailer:");
}

/* ---- one file ------------------------------------------------------ */

static int dump_opened(struct dump_file *file)
{
	const struct prf_file_info *info = prf_reader_info(file->reader);
	char message[600];
	int ret;

	prf_reader_get_stats(file->reader, &file->stats);
	if (file->sections & SECTION_HEADER) {
		dump_header(stdout, file->path, file->stats.file_size, info);
		dump_events(stdout, info);
	}
	/* The header alone says nothing about the chunks: do not judge them. */
	if (!(file->sections & ~SECTION_HEADER))
		return DUMP_SOUND;

	ret = read_chunks(file);
	if (ret < 0) {
		snprintf(message, sizeof(message), "%s: reading: %s", file->path,
			 strerror(-ret));
		print_error_line(message);
		return DUMP_UNUSABLE;
	}
	if (output_failed())
		return DUMP_SOUND;	/* stopped early: no verdict */
	prf_reader_get_stats(file->reader, &file->stats);
	if (file->sections & SECTION_SUMMARY)
		print_summary(file);
	if (is_damaged(file) || is_incomplete(file)) {
		report_loss(file);
		return DUMP_DAMAGED;
	}
	return DUMP_SOUND;
}

static int dump_path(const char *path, unsigned int sections)
{
	struct dump_file *file = calloc(1, sizeof(*file));
	struct prf_error error = { 0 };
	int status;

	if (!file) {
		print_error_line("out of memory");
		return DUMP_UNUSABLE;
	}
	file->path = path;
	file->sections = sections;
	if (prf_reader_open(&file->reader, path, &error) < 0) {
		print_error_line(error.message);
		free(file);
		return DUMP_UNUSABLE;
	}
	prf_reader_set_diag(file->reader, print_diag, NULL);
	status = dump_opened(file);
	prf_reader_close(file->reader);
	free(file);
	return status;
}

/* ---- the command line ---------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROGRAM " [OPTION]... FILE...\n"
		"Print the contents of perfrec capture files as text.\n"
		"\n"
		"      --header     print only the file header and the events\n"
		"      --chunks     print only the chunk table\n"
		"      --summary    print only totals and integrity findings\n"
		"  -h, --help       print this help and exit\n"
		"  -V, --version    print the version and exit\n"
		"\n"
		"With no option, print the header, the events, and each chunk\n"
		"followed by its records.  --header, --chunks and --summary combine.\n"
		"\n"
		"Exit status: 0 when every file is complete and sound, 1 when one is\n"
		"damaged or incomplete (what is readable is still printed), 2 when one\n"
		"cannot be read at all or the command line is wrong.\n");
}

__attribute__((format(printf, 1, 2)))
static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs(PROGRAM ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROGRAM " --help' for more information.\n", stderr);
	return DUMP_UNUSABLE;
}

/*
 * getopt's own messages name argv[0], which may be a build path, so they
 * are off (opterr = 0) and this says what was wrong instead.
 */
static int bad_option(char **argv)
{
	const char *argument = argv[optind - 1];
	char option[3] = { '-', (char)optopt, '\0' };
	char name[64];

	if (strncmp(argument, "--", 2) != 0)
		return bad_usage("unknown option '%s'", option);
	if (optopt && strchr(argument, '=')) {
		snprintf(name, sizeof(name), "%.*s",
			 (int)(strchr(argument, '=') - argument), argument);
		return bad_usage("option '%s' takes no argument", name);
	}
	return bad_usage("unknown option '%s'", argument);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "header",	no_argument,	NULL, 'H' },
		{ "chunks",	no_argument,	NULL, 'C' },
		{ "summary",	no_argument,	NULL, 'S' },
		{ "help",	no_argument,	NULL, 'h' },
		{ "version",	no_argument,	NULL, 'V' },
		{ NULL,		0,		NULL, 0 },
	};
	unsigned int sections = 0;
	int status = DUMP_SOUND;
	int option;

	opterr = 0;
	while ((option = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		switch (option) {
		case 'H':
			sections |= SECTION_HEADER;
			break;
		case 'C':
			sections |= SECTION_CHUNKS;
			break;
		case 'S':
			sections |= SECTION_SUMMARY;
			break;
		case 'h':
			usage(stdout);
			return DUMP_SOUND;
		case 'V':
			printf(PROGRAM " (" PACKAGE_NAME ") " PACKAGE_VERSION "\n");
			return DUMP_SOUND;
		default:
			return bad_option(argv);
		}
	}
	if (optind == argc)
		return bad_usage("no file given");
	if (!sections)
		sections = SECTION_HEADER | SECTION_CHUNKS | SECTION_RECORDS;

	/* A closed pipe (| head) shows up as EPIPE, handled quietly below. */
	signal(SIGPIPE, SIG_IGN);
	for (int i = optind; i < argc && !output_failed(); i++) {
		int file_status;

		if (i > optind)
			putchar('\n');
		file_status = dump_path(argv[i], sections);
		if (file_status > status)
			status = file_status;
	}
	if (fflush(stdout) != 0 || output_failed()) {
		if (!output_error)
			output_error = errno;
		if (output_error != EPIPE) {
			fprintf(stderr, PROGRAM ": writing the output: %s\n",
				strerror(output_error));
			return DUMP_UNUSABLE;
		}
	}
	return status;
}
