/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_OUTPUT_H
#define PERFRECD_OUTPUT_H

#include <stdint.h>
#include "format.h"

/* The rotating files of one collector run in one directory. */
struct output;

struct output_config {
	const char *directory;
	const char *hostname;		/* for file names */
	uint64_t rotate_size;		/* bytes; 0: never by size */
	uint64_t rotate_age_ns;		/* 0: never by age */
	uint64_t retain_size;		/* bytes of all files; 0: unlimited */
	uint64_t retain_age_s;		/* 0: unlimited */
	int zstd_level;			/* 0: no compression */
	enum prf_sample_encoding sample_encoding;
	const char *group;		/* files readable by it (0640); NULL: 0600 */
};

struct output_totals {
	uint64_t files;
	uint64_t bytes;			/* written to disk, all files */
	uint64_t raw_bytes;
	uint64_t records;
	uint64_t dropped_records;	/* lost to write errors */
	uint64_t dropped_bytes;
	uint64_t deleted_files;		/* by retention */
};

/*
 * Checks that the directory can be written (creating it if needed) and
 * returns an output with no file open yet.  Fatal problems come back as a
 * negative errno with the message in error.
 */
/*
 * Whether directory, if it exists, may hold captures: ours (or root's) and
 * writable by no one else.  0, or -EPERM (-ENOTDIR, ...) with a message.
 * prd_output_open() checks it again, on the directory it opened.
 */
int prd_output_check_directory(const char *directory, struct prf_error *error);

int prd_output_open(struct output **output, const struct output_config *config,
		    struct prf_error *error);
void prd_output_close(struct output *output);

/*
 * Finishes the current file (if any) and starts the next one with this
 * header.  On failure the current file, if there is one, stays open.
 */
int prd_output_start_file(struct output *output, const struct prf_file_info *info,
			  uint64_t now_ns);

/* True when the current file has reached its size or age. */
int prd_output_rotation_due(const struct output *output, uint64_t now_ns);

/*
 * Appends a record to the current file.  Write errors are absorbed here:
 * the writer keeps the file whole, the loss is counted, logged once per
 * episode, and noted in the file once writing works again.  So are
 * records past the bound of a file held in memory while the directory is
 * gone.
 */
void prd_output_append(struct output *output, const void *record, size_t size,
		       uint64_t time);

/*
 * Writes what is buffered and makes it durable (fdatasync).  Like
 * prd_output_start_file() and _enforce_retention(), checks first that
 * the directory at the path is still the one in use (see output.c).
 */
void prd_output_flush(struct output *output, uint64_t now_ns);

/*
 * Finishes the current file: trailer, fsync, closed.  -ENOENT when the
 * directory is gone and a file held in memory (or the last file) did not
 * reach the directory at the path.
 */
int prd_output_finish(struct output *output);

/*
 * The directory is gone, and it is the service manager's
 * ($STATE_DIRECTORY): perfrecd should stop, to be started again with the
 * directory made again, rather than hold files in memory.
 */
int prd_output_must_stop(const struct output *output);

/* Counts the times the files went on in another directory at the path. */
unsigned prd_output_directory_changes(const struct output *output);

/* No directory perfrecd may use is at the path now (removed, moved, replaced). */
int prd_output_directory_gone(const struct output *output);

/* Deletes the oldest finished files beyond the size and age limits. */
void prd_output_enforce_retention(struct output *output, uint64_t realtime_s);

void prd_output_get_totals(const struct output *output, struct output_totals *totals);
const char *prd_output_current_path(const struct output *output);

#endif
