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
#include "common.h"
#include "format.h"
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

/* A cgroup and what it names; interned. */
struct cgroup_names {
	const char *path, *unit, *container;
};

/* Where the kernel could not tag samples: the process's cgroup from time on. */
struct task_cgroup {
	uint64_t time;
	struct cgroup_names names;
};

/* A thread's ids in its own pid namespace; seq orders a tid's records. */
struct ns_ids {
	uint32_t tid, ns_pid, ns_tid, seq;
};

/* A PERF_RECORD_CGROUP: the path of the cgroup id on a host. */
struct cgroup_entry {
	uint32_t host;
	uint64_t id;
	uint64_t order;			/* file and position: a later file's path wins */
	struct cgroup_names names;
};

struct process {
	uint32_t host;			/* pids are per host: the session's index */
	uint32_t pid;
	uint64_t born;
	struct map *maps;
	size_t map_count, map_capacity;
	uint64_t longest_map;
	uint64_t *changes;		/* times the live maps change, sorted, unique */
	size_t change_count;
	struct name_change *names;
	size_t name_count, name_capacity;
	struct task_cgroup *cgroups;	/* by time, as replayed */
	size_t cgroup_count, cgroup_capacity;
	struct ns_ids *ns;		/* threads in another pid namespace; by tid */
	size_t ns_count, ns_capacity;
	struct jit_table *jit;		/* its JIT symbols (jit.c), or NULL */
	struct process *older;		/* an earlier process with this pid */
};

enum sideband_kind { SIDEBAND_MMAP, SIDEBAND_FORK, SIDEBAND_COMM, SIDEBAND_CGROUP,
		     SIDEBAND_NSPID };

struct sideband {
	uint64_t time;
	uint64_t order;			/* file and position: ties keep file order */
	uint8_t kind;
	uint8_t snapshot;
	uint8_t exec;
	uint8_t build_id_size;
	uint32_t host;
	uint32_t pid, tid, ppid, ptid;	/* NSPID: ppid, ptid are the namespace's pid, tid */
	uint64_t start, length, pgoff;
	uint32_t major, minor;
	uint64_t inode;
	const char *name;		/* file name, comm or cgroup path, interned */
	uint8_t build_id[PRF_BUILD_ID_MAX];
};

struct build_id_entry {
	uint32_t host;
	uint32_t major, minor;
	uint64_t inode;
	const char *path;		/* interned: also looked up by path */
	uint8_t size;
	uint8_t build_id[PRF_BUILD_ID_MAX];
};

struct input_tracepoint {
	uint64_t config;
	struct prf_tracepoint_fields *fields;
};

/* A file names at most this many tracepoints; perfrecd writes at most 32 events. */
#define INPUT_TRACEPOINTS_MAX	256

struct input {
	char *path;
	int fd;				/* open from the header to the samples: -1 before */
	uint64_t start_ns;
	uint32_t host;
	int damaged;
	int incomplete;			/* no trailer, and not damaged */
	uint64_t damaged_chunks;	/* as pass 1 found them */
	int samples_damage_told;
	int perf_data;			/* a perf.data file (prf_file_info's) */
	int local;			/* of this machine's hostname and kernel release */
	/* Its TRACEPOINT_FORMATs, parsed (pass 1): a tracepoint sample's fields. */
	struct input_tracepoint *tracepoints;
	size_t tracepoint_count, tracepoint_capacity;
};

struct session {
	struct session_options options;
	struct string_table *strings;
	const char *swapper;		/* interned "swapper" */

	struct input *inputs;
	size_t input_count, input_capacity;
	const char **input_names;

	struct sideband *sideband;
	size_t sideband_count, sideband_capacity;
	struct build_id_entry *build_ids;
	size_t build_id_count, build_id_capacity;
	struct cgroup_entry *cgroup_ids;	/* sorted by host and id after the replay */
	size_t cgroup_id_count, cgroup_id_capacity;

	struct process **processes;	/* the newest of each (host, pid), in process_index */
	size_t process_count, process_capacity;
	struct prf_index process_index;

	const char **hosts;		/* as many as the inputs name, in the order met */
	struct dso **kernels;		/* by host */
	struct session_host_info *host_infos;	/* by host: its first file's facts */
	/* by host: the first file whose kernel symbols pass 1 keeps (atomic) */
	size_t *kernel_claims;
	size_t host_count, host_capacity, kernel_capacity, host_info_capacity;
	const char **sorted_hosts;	/* the summary's: by name */
	struct prf_index host_index;	/* hosts by name pointer */
	struct session_ksym *ksyms;	/* hit kernel symbols, until the kernels are made */
	size_t ksym_count, ksym_capacity;

	struct session_summary facts;	/* samples_total counted, samples not */
	struct session_event *events;
	size_t event_count, event_capacity;
	struct session_jit *jit;	/* JIT lines of pass 1, until attached */
};

/* prf_ensure_mem() of an array and its capacity: room for need; 0 or -ENOMEM. */
#define GROW(array, capacity, need) \
	prf_ensure_mem((void **)&(array), &(capacity), sizeof(*(array)), (need))

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

/*
 * ksyms.c: a PRF_RECORD_KERNEL_SYMBOL of host taken on any thread (0,
 * or -ENOMEM), order as the side-band's; after pass 1, each host without
 * a whole kallsyms gets its kernel made of them.
 */
int session_take_kernel_symbol(struct session *s, uint32_t host, uint64_t order,
			       const struct prf_record *record);
int session_make_hit_kernels(struct session *s);
/* The running kernel for perf.data inputs of this machine (ksyms.c). */
int session_local_kernels(struct session *s);

/*
 * What pass 1 finds in one file, kept apart so that files can be read on
 * several threads (session_read_sideband() touches nothing shared but
 * the string table, locked meanwhile, and its own input), then merged in
 * file order (session_sideband_merge(), on one thread): the same
 * side-band, warnings, kernel symbols and facts as one thread reading
 * the files in turn.
 */
#define SIDEBAND_PART_WARNINGS	4

struct sideband_part {
	struct sideband *sideband;
	size_t sideband_count, sideband_capacity;
	struct build_id_entry *build_ids;
	size_t build_id_count, build_id_capacity;
	char *kallsyms;			/* the file's first kernel symbol table */
	size_t kallsyms_size;
	uint64_t samples_total, lost, dropped, start_ns, end_ns;
	uint64_t off_cpu_total, off_cpu_lost;
	int off_cpu_stacks;		/* an OFF_CPU record has a user stack copy */
	char warnings[SIDEBAND_PART_WARNINGS][1024];
	size_t warning_count;
	struct prf_error error;		/* error.code < 0: the file is unreadable */
};

/* sideband.c: pass 1 over input index into part; 0 or a negative errno (in part->error). */
int session_read_sideband(struct session *s, size_t index, struct sideband_part *part);
/* Pass 1 over every file, on the options' jobs threads, merged. */
int session_read_sidebands(struct session *s, struct prf_error *error);
/* Then part into the session, on one thread, in file order; frees part's arrays. */
int session_sideband_merge(struct session *s, size_t index, struct sideband_part *part,
			   struct prf_error *error);

/*
 * samples.c: pass 2 over input index, on any thread: what went wrong is
 * kept in the result and said by session_samples_told(), on one thread,
 * in file order (-EIO when the file was not read to its end).
 */
struct samples_result {
	int unread;			/* not read to its end: cause says why */
	char cause[sizeof(((struct prf_error *)0)->message)];
	uint64_t undecodable;
	uint64_t undecodable_off_cpu;	/* OFF_CPU records past their bounds */
	uint64_t damaged_chunks;
};

/* read_ahead: decompress on a thread of the reader's own (reading one file at a time). */
void session_read_samples(struct session *s, size_t index, const struct session_filter *filter,
			  int read_ahead, session_sample_fn fn, void *context,
			  struct samples_result *result);
int session_samples_told(struct session *s, size_t index, const struct samples_result *result);
void session_undecodable_told(struct session *s, uint64_t undecodable, uint64_t off_cpu);
/* Sorts the build-ids the files recorded, for session_mapping_dso(). */
void session_sort_build_ids(struct session *s);
/* The symbolizer's DSO of a mapping, with the build-id the file recorded for it. */
struct dso *session_mapping_dso(struct session *s, const struct sideband *m);

/* cgroup.c: a PERF_RECORD_CGROUP kept (0 or -ENOMEM); the table sorted and named; a sample's. */
int session_add_cgroup(struct session *s, uint32_t host, uint64_t order, uint64_t id,
		       const char *path);
void session_finish_cgroups(struct session *s);
void session_cgroup_names(struct session *s, const char *path, struct cgroup_names *out);
/* The last cgroup id a file's samples named: the next one names it again, mostly. */
struct cgroup_hint {
	uint32_t host;
	uint64_t id;
	const struct cgroup_entry *entry;
	int used;
};
void session_sample_cgroup(struct session *s, struct session_sample *sample,
			   struct cgroup_hint *hint);
/* Whether a sample of p without a cgroup id is in one cgroup at both times. */
int session_cgroup_same(const struct process *p, uint64_t from, uint64_t to);

/* replay.c: the sorted side-band applied to the process timelines. */
void session_replay(struct session *s);
void session_process_free(struct process *p);
/*
 * The process pid was at time, and its thread tid's name then; each with
 * the span of times around it that give the same answer (a sample's
 * neighbours in time ask again only past it).
 */
struct session_span {
	uint64_t from, until;		/* from <= time < until */
};
const struct process *session_process_at(struct session *s, uint32_t host, uint32_t pid,
					 uint64_t time, struct session_span *span);
const char *session_comm_at(const struct process *p, uint32_t tid, uint64_t time,
			    struct session_span *span);

/*
 * jit.c: the JIT_MAP/JIT_DUMP records of pass 1, at most *room lines
 * (a file's budget; -E2BIG when it runs out), taken on any thread, given
 * to their processes after the replay; a process's JIT DSO
 * for an address no file covers (map_dso NULL or anonymous): 1 and out
 * filled, else 0.
 */
int session_jit_take(struct session *s, uint32_t host, uint64_t order, uint64_t *room,
		     const struct prf_record *record);
void session_jit_attach(struct session *s);
int session_jit_resolve(const struct process *p, const struct dso *map_dso, uint64_t address,
			struct resolved_address *out);
void session_jit_free(struct session *s);
/* A process's JIT symbols as attached: sorted, without overlaps; their count. */
size_t session_jit_symbols(const struct process *p, const struct symbolizer_jit_symbol **out);
void session_jit_free_process(struct process *p);

static inline int map_live(const struct map *m, uint64_t time)
{
	return m->from <= time && time < m->to;
}

#endif
