/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_BUNDLE_H
#define PERFREC_BUNDLE_H

#include <stdint.h>
#include <stdio.h>
#include "format.h"

/*
 * The bundles of perfrec-archive: a POSIX ustar archive of regular files
 * under .build-id/xx/, optionally zstd-compressed as a whole.  The writer
 * streams into a FILE; the reader extracts an untrusted bundle into a
 * directory, refusing anything but such files.
 */
struct bundle_writer;

/* compress: zstd level, 0 for a plain tar.  NULL without memory. */
struct bundle_writer *bundle_writer_new(FILE *out, int compress);
/* Adds the file open at fd (size bytes) as name.  0 or a negative errno. */
int bundle_writer_add(struct bundle_writer *w, const char *name, int fd, uint64_t size);
/* Writes the end of the archive (and of the zstd frame); frees w. */
int bundle_writer_finish(struct bundle_writer *w);
void bundle_writer_abort(struct bundle_writer *w);

/*
 * Extracts the bundle at path (tar or zstd tar) under dir, which must
 * exist.  0, or a negative errno with a one-line cause in error.
 */
int bundle_extract(const char *path, const char *dir, struct prf_error *error);

/*
 * A private directory (0700, under $TMPDIR or /tmp) to extract bundles
 * into, removed when this process ends, however it ends (a signal, an
 * abort, SIGKILL): a child process waits for that end.  Call it before
 * any thread starts.  0 with *path to free, or a negative errno with a
 * one-line cause in error.
 */
int bundle_scratch_dir(char **path, struct prf_error *error);

/* Removes dir and what an extraction put there. */
void bundle_remove_tree(const char *dir);

#endif
