/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_SYNTHESIZE_H
#define PERFRECD_SYNTHESIZE_H

#include <stdint.h>
#include <sys/types.h>
#include "sink.h"

struct buildid_cache;

struct synth_stats {
	uint64_t processes;
	uint64_t threads;
	uint64_t mappings;
	uint64_t build_ids;		/* BUILD_ID records emitted */
};

/*
 * Describes the processes of proc_root (normally "/proc") as records:
 * for every process a COMM and FORK-equivalent PERF_RECORD_FORK per
 * thread, and a PERF_RECORD_MMAP2 for every executable mapping (with
 * dev/ino/prot/flags), plus a PRF_RECORD_BUILD_ID for each mapped file
 * whose build-id this file has not carried yet (prd_buildid_emit()).
 * only_pid > 0 limits it to that process and its descendants.
 * Bracketed by PRF_RECORD_SNAPSHOT_BEGIN/END.  Processes vanishing while
 * they are read are skipped silently; returns 0 or the sink's error.
 */
int prd_synthesize_processes(const char *proc_root, pid_t only_pid,
			     const struct synth_layout *layout,
			     struct buildid_cache *cache, unsigned generation,
			     const struct record_sink *sink,
			     struct synth_stats *stats);

struct kernel_stats {
	int kallsyms_hidden;		/* kptr_restrict zeroed the addresses */
	uint64_t symbols;		/* in the KALLSYMS (--kernel-symbols=all), else 0 */
	uint64_t modules;
	int have_build_id;
};

/*
 * The kernel's part of a file: a PRF_RECORD_KALLSYMS with /proc/kallsyms,
 * a PRF_RECORD_KERNEL_MODULE per line of /proc/modules with the module's
 * build-id from /sys/module/NAME/notes/.note.gnu.build-id, and a
 * PRF_RECORD_BUILD_ID (flags KERNEL) for the kernel from /sys/kernel/notes.
 * Also a PERF_RECORD_MMAP for the kernel image ([kernel.kallsyms]_text)
 * as perf writes it, so readers know the kernel's text range.
 */
int prd_synthesize_kernel(const char *proc_root, const char *sys_root,
			  const struct synth_layout *layout,
			  const struct record_sink *sink,
			  struct kernel_stats *stats);
/* The same without the KALLSYMS and the KERNEL_MODULEs (--kernel-symbols=hit, none). */
int prd_synthesize_kernel_without_symbols(const char *proc_root, const char *sys_root,
					  const struct synth_layout *layout,
					  const struct record_sink *sink,
					  struct kernel_stats *stats);
/* The PRF_RECORD_KERNEL_MODULE of the loaded module name; -ENOENT if none. */
int prd_synthesize_kernel_module(const char *proc_root, const char *sys_root,
				 const char *name, const struct record_sink *sink,
				 uint64_t time);

/* ---- build-ids of mapped files, cached per (device, inode) --------- */

struct buildid_entry {
	uint8_t build_id[20];
	uint8_t size;			/* 0: the file has none or is unreadable */
	unsigned written;		/* generation of the file that has it */
};

struct buildid_cache *prd_buildid_cache_new(void);
void prd_buildid_cache_free(struct buildid_cache *cache);
/*
 * From now on, each file read for its build-id is offered to binaries
 * (bincache.h), which keeps those not found at their path here.
 */
struct bincache;
void prd_buildid_cache_keep_binaries(struct buildid_cache *cache, struct bincache *binaries);

/*
 * The build-id of the file pid maps at [start, end) from path with this
 * device and inode: read once from .note.gnu.build-id through
 * /proc/PID/map_files/START-END, else /proc/PID/root/PATH (so files in
 * containers resolve), else PATH; then cached, failures included.
 */
struct buildid_entry *prd_buildid_lookup(struct buildid_cache *cache,
					 const char *proc_root, pid_t pid,
					 uint64_t start, uint64_t end,
					 const char *path, uint32_t major,
					 uint32_t minor, uint64_t inode);

/*
 * Emits a PRF_RECORD_BUILD_ID for entry unless the file of this generation
 * already has it.  Returns 1 if emitted, 0 if not needed, or an error.
 */
int prd_buildid_emit(struct buildid_entry *entry, unsigned generation,
		     pid_t pid, const char *path, uint32_t major, uint32_t minor,
		     uint64_t inode, uint64_t inode_generation,
		     const struct record_sink *sink, uint64_t time);

/*
 * The vDSO has no file, so neither MMAP2 nor /proc gives its build-id:
 * emits this host's under the name its mappings carry, for each file, and
 * offers its image to the binary cache once.  0 or a negative errno.
 */
#define VDSO_NAME "[vdso]"
int prd_buildid_emit_vdso(struct buildid_cache *cache, const struct record_sink *sink,
			  uint64_t time);

/* Reads the GNU build-id note of an ELF file; 0 and size, or -errno. */
int prd_buildid_read_file(int fd, uint8_t build_id[20], uint8_t *size);

#endif
