/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_TAR_H
#define PERFREC_TAR_H

#include <stdint.h>
#include <stdio.h>

/*
 * The bundles of perfrec-archive: a POSIX ustar archive of regular files
 * under .build-id/xx/, optionally zstd-compressed as a whole.  The writer
 * streams into a FILE; the reader extracts an untrusted bundle into a
 * directory, refusing anything but such files.
 */
struct tar_writer;

/* compress: zstd level, 0 for a plain tar.  NULL with errno on failure. */
struct tar_writer *tar_writer_new(FILE *out, int compress);
/* Adds the file open at fd (size bytes) as name.  0 or a negative errno. */
int tar_writer_add(struct tar_writer *w, const char *name, int fd, uint64_t size);
/* Writes the end of the archive (and of the zstd frame); frees w. */
int tar_writer_finish(struct tar_writer *w);
void tar_writer_abort(struct tar_writer *w);

/*
 * Extracts the bundle at path (tar or zstd tar) under dir, which must
 * exist.  0, or a negative errno with a one-line cause in why.
 */
int tar_extract_bundle(const char *path, const char *dir, char *why, size_t why_size);

/* Removes dir and what an extraction put there. */
void tar_remove_tree(const char *dir);

#endif
