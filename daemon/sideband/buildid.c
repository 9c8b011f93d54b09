/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Build-ids of mapped files.  Reading one means opening the file and
 * parsing its ELF headers, so each (device, inode) is read once for the
 * collector's lifetime, failures included: a hash index of entries whose
 * addresses stay put, since callers keep them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "bincache.h"
#include "synth-internal.h"

/* buildid_entry.written of a file no generation has carried yet */
#define NEVER_WRITTEN		(~0u)

struct buildid_node {
	uint64_t inode;
	uint32_t major, minor;
	struct buildid_entry entry;
};

struct buildid_cache {
	struct prf_index index;		/* (device, inode) -> 1 + index in nodes */
	struct buildid_node **nodes;	/* each allocated alone: callers keep entries */
	size_t count, capacity;
	struct bincache *binaries;	/* NULL: none kept */
	int vdso_offered;		/* the vDSO's image went to binaries */
};

void prd_buildid_cache_keep_binaries(struct buildid_cache *cache, struct bincache *binaries)
{
	cache->binaries = binaries;
	cache->vdso_offered = 0;	/* another cache (directory) needs it too */
}

struct buildid_cache *prd_buildid_cache_new(void)
{
	return calloc(1, sizeof(struct buildid_cache));
}

void prd_buildid_cache_free(struct buildid_cache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < cache->count; i++)
		free(cache->nodes[i]);
	free(cache->nodes);
	prf_index_free(&cache->index);
	free(cache);
}

/* Inode numbers of one file system are dense: mixed. */
static uint64_t key_hash(const struct buildid_node *key)
{
	return prf_hash_mix(key->inode ^ ((uint64_t)key->major << 44 | (uint64_t)key->minor << 24));
}

static int node_equal(const void *context, uint32_t id, const void *key)
{
	const struct buildid_node *node = ((const struct buildid_cache *)context)->nodes[id - 1];
	const struct buildid_node *k = key;

	return node->inode == k->inode && node->major == k->major && node->minor == k->minor;
}

static int scan_notes(Elf_Data *data, uint8_t build_id[20], uint8_t *size)
{
	size_t offset = 0, next, name_offset, desc_offset;
	GElf_Nhdr note;

	if (!data)
		return -ENODATA;
	while ((next = gelf_getnote(data, offset, &note, &name_offset,
				    &desc_offset)) > 0) {
		const char *name = (const char *)data->d_buf + name_offset;

		if (note.n_type == NT_GNU_BUILD_ID &&
		    note.n_namesz == sizeof("GNU") && !memcmp(name, "GNU", 4) &&
		    note.n_descsz > 0 && note.n_descsz <= PRF_BUILD_ID_MAX) {
			memcpy(build_id, (const uint8_t *)data->d_buf +
			       desc_offset, note.n_descsz);
			*size = (uint8_t)note.n_descsz;
			return 0;
		}
		offset = next;
	}
	return -ENODATA;
}

/* Program headers first: they sit at the start, sections at the end. */
static int find_in_segments(Elf *elf, uint8_t build_id[20], uint8_t *size)
{
	size_t count;

	if (elf_getphdrnum(elf, &count))
		return -ENODATA;
	for (size_t i = 0; i < count; i++) {
		GElf_Phdr phdr;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset,
					    phdr.p_filesz,
					    phdr.p_align == 8 ? ELF_T_NHDR8 :
								ELF_T_NHDR);
		if (!scan_notes(data, build_id, size))
			return 0;
	}
	return -ENODATA;
}

/* Separate debug files and objects without program headers. */
static int find_in_sections(Elf *elf, uint8_t build_id[20], uint8_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		if (!scan_notes(elf_getdata(scn, NULL), build_id, size))
			return 0;
	}
	return -ENODATA;
}

int prd_buildid_read_file(int fd, uint8_t build_id[20], uint8_t *size)
{
	Elf *elf;
	int err;

	*size = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EIO;
	if (elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
	} else {
		err = find_in_segments(elf, build_id, size);
		if (err)
			err = find_in_sections(elf, build_id, size);
	}
	elf_end(elf);
	return err;
}

/* A path's file counts only if it is the one mapped: it may be replaced. */
static int open_checked(const char *path, uint32_t major, uint32_t minor,
			uint64_t inode)
{
	struct stat st;
	int fd;

	/* Any user can leave a FIFO where a file was mapped: never block on it. */
	fd = prf_open_regular(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || st.st_ino != inode ||
	    major(st.st_dev) != major || minor(st.st_dev) != minor) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * map_files/ opens the mapped file itself, even deleted or in another
 * mount namespace (it needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN, and
 * CAP_SYS_PTRACE; for another user's process CAP_DAC_READ_SEARCH too);
 * the paths are fallbacks.
 */
static int open_mapped_file(const char *proc_root, pid_t pid, uint64_t start,
			    uint64_t end, const char *path, uint32_t major,
			    uint32_t minor, uint64_t inode)
{
	char buf[PATH_MAX + 64];
	int fd, n;

	n = snprintf(buf, sizeof(buf), "%s/%d/map_files/%llx-%llx", proc_root,
		     (int)pid, (unsigned long long)start,
		     (unsigned long long)end);
	if (n > 0 && (size_t)n < sizeof(buf)) {
		fd = prf_open_regular(buf);
		if (fd >= 0)
			return fd;
	}
	n = snprintf(buf, sizeof(buf), "%s/%d/root%s", proc_root, (int)pid,
		     path);
	if (n > 0 && (size_t)n < sizeof(buf)) {
		fd = open_checked(buf, major, minor, inode);
		if (fd >= 0)
			return fd;
	}
	return open_checked(path, major, minor, inode);
}

struct buildid_entry *prd_buildid_lookup(struct buildid_cache *cache,
					 const char *proc_root, pid_t pid,
					 uint64_t start, uint64_t end,
					 const char *path, uint32_t major,
					 uint32_t minor, uint64_t inode)
{
	struct buildid_node key = { .inode = inode, .major = major, .minor = minor }, *node;
	struct prf_index_slot *slot;
	uint64_t hash = key_hash(&key);
	int fd;

	slot = prf_index_place(&cache->index, hash, node_equal, cache, &key);
	if (!slot)
		return NULL;
	if (slot->id)
		return &cache->nodes[slot->id - 1]->entry;
	if (prf_ensure_mem((void **)&cache->nodes, &cache->capacity, sizeof(*cache->nodes),
			   cache->count + 1) < 0)
		return NULL;
	node = malloc(sizeof(*node));
	if (!node)
		return NULL;
	*node = key;
	node->entry = (struct buildid_entry){ .written = NEVER_WRITTEN };
	fd = open_mapped_file(proc_root, pid, start, end, path, major, minor,
			      inode);
	if (fd >= 0) {
		if (prd_buildid_read_file(fd, node->entry.build_id,
					  &node->entry.size))
			node->entry.size = 0;
		else if (cache->binaries)
			prd_bincache_consider(cache->binaries, fd, path, major, minor,
					      inode, node->entry.build_id,
					      node->entry.size);
		close(fd);
	}
	/* the slot stands: nothing was added since prf_index_place() */
	cache->nodes[cache->count++] = node;
	prf_index_insert(&cache->index, slot, hash, (uint32_t)cache->count);
	return &node->entry;
}

int prd_buildid_emit_record(const struct record_sink *sink, uint64_t time,
			    uint32_t pid, uint32_t flags, uint32_t major,
			    uint32_t minor, uint64_t inode,
			    uint64_t inode_generation, const uint8_t *build_id,
			    uint8_t size, const char *path)
{
	union {
		struct prf_build_id_record record;
		char bytes[sizeof(struct prf_build_id_record) + PATH_MAX];
	} u;
	struct prf_build_id_record *record = &u.record;
	size_t path_len = strnlen(path, PATH_MAX - 1), total;

	if (size > PRF_BUILD_ID_MAX)
		return -EINVAL;
	memset(record, 0, sizeof(*record));
	total = sizeof(*record) + synth_put_string(u.bytes + sizeof(*record),
						   path, path_len);
	record->header.type = PRF_RECORD_BUILD_ID;
	record->header.size = (uint32_t)total;
	record->pid = pid;
	record->flags = flags;
	record->major = major;
	record->minor = minor;
	record->inode = inode;
	record->inode_generation = inode_generation;
	record->build_id_size = size;
	memcpy(record->build_id, build_id, size);
	return sink->emit(sink->context, record, total, time);
}

/* Files without a build-id get no record: there is nothing to say. */
int prd_buildid_emit(struct buildid_entry *entry, unsigned generation,
		     pid_t pid, const char *path, uint32_t major, uint32_t minor,
		     uint64_t inode, uint64_t inode_generation,
		     const struct record_sink *sink, uint64_t time)
{
	int err;

	if (!entry->size || entry->written == generation)
		return 0;
	err = prd_buildid_emit_record(sink, time, (uint32_t)pid, 0, major, minor,
				      inode, inode_generation, entry->build_id,
				      entry->size, path);
	if (err)
		return err;
	entry->written = generation;
	return 1;
}

/* A copy of the vDSO's image in a file, for the binary cache. */
static void offer_vdso(struct bincache *binaries, const void *image, size_t size,
		       const uint8_t *build_id, uint8_t build_id_size)
{
	int fd = memfd_create("perfrecd-vdso", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return;
	while (done < size) {
		ssize_t n = write(fd, (const char *)image + done, size - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (done == size)
		prd_bincache_consider(binaries, fd, VDSO_NAME, 0, 0, 0, build_id, build_id_size);
	close(fd);
}

int prd_buildid_emit_vdso(struct buildid_cache *cache, const struct record_sink *sink, uint64_t time)
{
	uint8_t id[PRF_BUILD_ID_MAX], id_size;
	const void *image;
	size_t size;

	/* None, or none with a build-id: its frames stay unnamed, as before. */
	if (prf_vdso_image(&image, &size, id, &id_size))
		return 0;
	if (cache && cache->binaries && !cache->vdso_offered) {
		cache->vdso_offered = 1;
		offer_vdso(cache->binaries, image, size, id, id_size);
	}
	return prd_buildid_emit_record(sink, time, UINT32_MAX, 0, 0, 0, 0, 0, id, id_size, VDSO_NAME);
}
