/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_BINCACHE_H
#define PERFRECD_BINCACHE_H

/*
 * Binaries that the capture's readers could not find later: ones mapped
 * from another mount namespace (a container's) or deleted while mapped.
 * perfrecd copies each, once, into the output directory's build-id tree,
 * DIR/.build-id/xx/rest as perfrec-archive's bundles lay it out, where
 * perfrec-report and perfrec-archive look.  The tree is capped in bytes:
 * the least recently seen binaries go first, and one bigger than the cap
 * is not kept (a line says so).  Any user can have binaries considered:
 * the copies are made by the polls, a slice of time at a time, and the
 * binaries of one file owner other than root take a quarter of the cap
 * at most, and as much copied within a capture file.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bincache;

/*
 * The tree under output_dir (made if missing, mode 0700, or 0750 and the
 * group's when group is not NULL); the files already there count against
 * max_bytes.  0 and *out, or a negative errno (the caller says it).
 */
int prd_bincache_open(struct bincache **out, const char *output_dir, uint64_t max_bytes,
		      const char *group);
void prd_bincache_close(struct bincache *cache);

/*
 * A mapped file, open as fd (from /proc/PID/map_files), whose build-id is
 * build_id: queued to be copied into the tree (fd is duplicated) unless
 * path, opened here, is the same file (device and inode), or the tree has
 * the build-id already.  Each build-id is considered once.  Failures are
 * logged, never fatal.
 */
void prd_bincache_consider(struct bincache *cache, int fd, const char *path, uint32_t major,
			   uint32_t minor, uint64_t inode, const uint8_t *build_id, size_t size);

/* Each drain interval: the queued copies, for 20 ms at most. */
void prd_bincache_poll(struct bincache *cache);

/* At the end, sampling stopped: the copies left, for 10 seconds at most. */
void prd_bincache_finish(struct bincache *cache);

/* A new capture file: the owners' budgets of copies begin again. */
void prd_bincache_file_started(struct bincache *cache);

#endif
