/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_ARCHIVE_H
#define PERFREC_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

struct prf_error;

#define ARCHIVE_MAX_DEBUG_DIRS 32
/* It runs on production hosts: level 19 costs far more CPU for little. */
#define ARCHIVE_ZSTD_LEVEL 9

struct archive_options {
	int debug_only;
	int quiet;
	const char *debug_dirs[ARCHIVE_MAX_DEBUG_DIRS];
	size_t debug_dir_count;
};

/* One file to store, open and checked against its build-id. */
struct archive_entry {
	char name[64];			/* .build-id/xx/rest[.debug] */
	char *source;			/* where it was read */
	int fd;
	uint64_t size;
};

struct archive_set {
	struct archive_entry *entries;
	size_t count, capacity;
	size_t binaries, debug_files, modules;
	uint64_t bytes;
};

/*
 * Replays the captures and finds, for each DSO at least one sample
 * address (leaf or callchain frame) falls in, its ELF and debug file
 * whose build-ids match the capture's.  What is left out is said on
 * stderr, one line each.  0, or a negative errno and *error.
 */
int archive_collect(const struct archive_options *options, char **inputs, int input_count,
		    struct archive_set *set, struct prf_error *error);
void archive_set_free(struct archive_set *set);

#endif
