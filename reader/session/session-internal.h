/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SESSION_INTERNAL_H
#define PERFREC_SESSION_INTERNAL_H

/*
 * What the session's files share: the session itself, its inputs, the
 * side-band records of pass 1 (sideband.c), the process timelines they
 * are replayed into (replay.c), and what the sample stream (samples.c)
 * reads of them.
 */
#include <stdint.h>
#include "perfrec-format.h"
#include "session.h"

#define NO_END UINT64_MAX		/* a map or process not ended */

struct map {
	uint64_t start, end, pgoff;
	uint64_t from, to;		/* valid for from <= time < to */
	struct dso *dso;
};

struct name_change {
	uint64_t time;
	uint32_t tid;
	const char *comm;
};

struct process {
	uint32_t pid;
	uint64_t born;
	struct map *maps;
	size_t map_count, map_capacity;
	uint64_t longest_map;
	uint64_t *changes;		/* times the live maps change, sorted, unique */
	size_t change_count;
	struct name_change *names;
	size_t name_count, name_capacity;
	struct process *older;		/* an earlier process with this pid */
	struct process *next_in_table;
};

enum sideband_kind { SIDEBAND_MMAP, SIDEBAND_FORK, SIDEBAND_COMM };

struct sideband {
	uint64_t time;
	uint64_t order;			/* file and position: ties keep file order */
	uint8_t kind;
	uint8_t snapshot;
	uint8_t exec;
	uint8_t build_id_size;
	uint16_t host;
	uint32_t pid, tid, ppid, ptid;
	uint64_t start, length, pgoff;
	uint32_t major, minor;
	uint64_t inode;
	const char *name;		/* file name or comm, interned */
	uint8_t build_id[PRF_BUILD_ID_MAX];
};

struct build_id_entry {
	uint16_t host;
	uint32_t major, minor;
	uint64_t inode;
	const char *path;		/* interned: also looked up by path */
	uint8_t size;
	uint8_t build_id[PRF_BUILD_ID_MAX];
};

struct input {
	char *path;
	int fd;				/* open from the header to the samples: -1 before */
	uint64_t start_ns;
	uint16_t host;
	int damaged;
	uint64_t damaged_chunks;	/* as pass 1 found them */
	int samples_damage_told;
};

struct session {
	struct session_options options;
	struct string_table *strings;

	struct input *inputs;
	size_t input_count, input_capacity;
	const char **input_names;

	struct sideband *sideband;
	size_t sideband_count, sideband_capacity;
	struct build_id_entry *build_ids;
	size_t build_id_count, build_id_capacity;

	struct process **table;		/* by pid: the newest process */
	size_t table_capacity;

	const char **hosts;		/* as many as the inputs name */
	struct dso **kernels;		/* by host */
	size_t host_count, host_capacity, kernel_capacity;

	struct session_summary facts;	/* samples_total counted, samples not */
	struct session_event *events;
	size_t event_count, event_capacity;
};

/* Grows array (of capacity elements) to hold need; 0 or -ENOMEM. */
int session_grow(void **array, size_t *capacity, size_t need, size_t element);
#define GROW(array, capacity, need) \
	session_grow((void **)&(array), &(capacity), (need), sizeof(*(array)))

/*
 * The side-band records (maps, forks, names, build-ids) a file may bring:
 * SIDEBAND_PER_BYTE for each byte it has on disk, at least
 * SIDEBAND_FLOOR, at most SIDEBAND_MAX.  A real file holds far fewer (it
 * would take zstd compressing 48-byte records 192:1); past that, the
 * file is called hostile and the rest of its side-band is skipped, so a
 * few kilobytes of repeated records cannot ask for gigabytes.
 * perfrec-report(1) states these.
 */
#define SIDEBAND_FLOOR		65536u
#define SIDEBAND_PER_BYTE	4u
#define SIDEBAND_MAX		(4u << 20)

/* sideband.c: pass 1 over input index; its damage warned about once. */
int session_read_sideband(struct session *s, size_t index, struct prf_error *error);
/* Sorts the build-ids the files recorded, for session_mapping_dso(). */
void session_sort_build_ids(struct session *s);
/* The symbolizer's DSO of a mapping, with the build-id the file recorded for it. */
struct dso *session_mapping_dso(struct session *s, const struct sideband *m);

/* replay.c: the sorted side-band applied to the process timelines. */
void session_replay(struct session *s);
void session_process_free(struct process *p);
/* The process pid was at time, and its thread tid's name then. */
const struct process *session_process_at(struct session *s, uint32_t pid, uint64_t time);
const char *session_comm_at(const struct process *p, uint32_t tid, uint64_t time);

static inline int map_live(const struct map *m, uint64_t time)
{
	return m->from <= time && time < m->to;
}

#endif
