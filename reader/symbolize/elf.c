/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding a DSO's ELF on this host.  The capture names a path and a
 * build-id from another host (or this one, earlier): a local file is used
 * only when its build-id is the capture's, so a rebuilt binary never
 * lends its symbols to old samples.  Candidates, in order: the recorded
 * path (under --symfs when given), then each debug directory's
 * .build-id/xx/rest (the binary) and .build-id/xx/rest.debug (its debug
 * file, used alone when the binary is nowhere), then the source's
 * (debuginfod's) executable and, failing that, its debug file alone.  libdwfl then finds
 * the binary's separate debug file through symbolizer_find_debuginfo()
 * (build-id, .gnu_debuglink, then debuginfod) and reads .gnu_debugdata.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "symbolize-internal.h"

#define PAGE_SIZE_GUESS 4096u

enum candidate {
	CANDIDATE_MISSING,	/* no such regular file */
	CANDIDATE_MATCH,
	CANDIDATE_OTHER_ID,	/* an ELF with another build-id, or none */
	CANDIDATE_NOT_ELF,	/* not an executable or shared object */
};

struct found_elf {
	int fd;
	int debug_only;		/* a .debug file: no code, rewritten phdrs */
	char path[PATH_MAX];
	enum candidate recorded;	/* what the recorded path held */
	char host_id_hex[2 * PRF_BUILD_ID_MAX + 1];
};

/*
 * The kernel records at most 20 bytes of a longer build-id: a prefix
 * then is a match.
 */
static int build_id_matches(const struct dso *dso, const uint8_t *id, size_t size)
{
	if (size != dso->build_id_size &&
	    !(size > PRF_BUILD_ID_MAX && dso->build_id_size == PRF_BUILD_ID_MAX))
		return 0;
	return !memcmp(id, dso->build_id, dso->build_id_size);
}

static enum candidate check_elf(const struct dso *dso, int fd, char *host_id_hex)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	enum candidate verdict = CANDIDATE_NOT_ELF;
	const void *id;
	GElf_Ehdr ehdr;
	ssize_t size;

	if (!elf)
		return CANDIDATE_NOT_ELF;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) ||
	    (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN))
		goto out;
	verdict = CANDIDATE_MATCH;
	if (!dso->build_id_size)
		goto out;
	size = dwelf_elf_gnu_build_id(elf, &id);
	if (size > 0 && build_id_matches(dso, id, (size_t)size))
		goto out;
	verdict = CANDIDATE_OTHER_ID;
	if (host_id_hex && size > 0)	/* a longer one shows its first 20 bytes */
		build_id_to_hex(host_id_hex, id,
				size > PRF_BUILD_ID_MAX ? PRF_BUILD_ID_MAX : (size_t)size);
	else if (host_id_hex)
		strcpy(host_id_hex, "none");
out:
	elf_end(elf);
	return verdict;
}

/*
 * Opens path if it is a regular file holding the DSO's ELF.  O_NONBLOCK:
 * a recorded path may name a FIFO on this host.
 */
static enum candidate try_candidate(const struct dso *dso, const char *path,
				    struct found_elf *found, char *host_id_hex)
{
	enum candidate verdict;
	int fd = prf_open_regular(path);

	if (fd < 0)
		return CANDIDATE_MISSING;
	verdict = check_elf(dso, fd, host_id_hex);
	if (verdict != CANDIDATE_MATCH) {
		close(fd);
		return verdict;
	}
	found->fd = fd;
	snprintf(found->path, sizeof(found->path), "%s", path);
	return verdict;
}

/* A recorded path may climb out of the symfs root; such paths are refused. */
static int has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return 1;
	return 0;
}

/*
 * The recorded path as a file on this host, or -ENOENT for names that
 * are no files ("[vdso]", "//anon") or climb out of the symfs root.
 */
static int recorded_file(const struct symbolizer *s, const struct dso *dso,
			 char *file, size_t size)
{
	static const char deleted[] = " (deleted)";
	size_t length = strlen(dso->path);
	int n;

	if (dso->path[0] != '/')
		return -ENOENT;
	if (length > sizeof(deleted) - 1 &&
	    !strcmp(dso->path + length - (sizeof(deleted) - 1), deleted))
		length -= sizeof(deleted) - 1;
	if (s->symfs && has_dotdot(dso->path))
		return -ENOENT;
	n = snprintf(file, size, "%s%.*s", s->symfs ? s->symfs : "", (int)length, dso->path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int build_id_file(const char *dir, const struct dso *dso, const char *suffix,
			 char *file, size_t size)
{
	int n = snprintf(file, size, "%s/.build-id/%.2s/%s%s", dir, dso->build_id_hex,
			 dso->build_id_hex + 2, suffix);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int find_in_debug_dirs(const struct symbolizer *s, const struct dso *dso,
			      const char *suffix, struct found_elf *found)
{
	char file[PATH_MAX];

	for (size_t i = 0; i < s->debug_dir_count; i++)
		if (!build_id_file(s->debug_dirs[i], dso, suffix, file, sizeof(file)) &&
		    try_candidate(dso, file, found, NULL) == CANDIDATE_MATCH)
			return 0;
	return -ENOENT;
}

/*
 * The source's file of dso's build-id (debuginfo 0: the executable, 1:
 * its debug file): an open fd and its path (interned), or -ENOENT.
 */
static int symbolizer_fetch(struct symbolizer *s, const struct dso *dso, int debuginfo,
			    const char **path)
{
	const char *fetched;
	int fd;

	*path = NULL;
	if (!s->source || dso->build_id_size < 2)
		return -ENOENT;
	fd = s->source->fetch(s->source, dso->build_id, dso->build_id_size, debuginfo, &fetched);
	if (fd < 0)
		return fd;
	*path = symbolizer_intern(s, fetched);
	if (!*path) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/* The source's file is checked like a local one: it comes from elsewhere. */
static int find_elsewhere(struct symbolizer *s, const struct dso *dso, int debuginfo,
			  struct found_elf *found)
{
	const char *path;
	int fd = symbolizer_fetch(s, dso, debuginfo, &path);

	if (fd < 0)
		return fd;
	close(fd);
	return try_candidate(dso, path, found, NULL) == CANDIDATE_MATCH ? 0 : -ENOENT;
}

/* This host's vDSO image as a file, made once: -1 when there is none. */
static int own_vdso(struct symbolizer *s)
{
	uint8_t id[PRF_BUILD_ID_MAX], id_size;
	const void *image;
	size_t size, done = 0;
	int fd;

	if (s->vdso_tried)
		return s->vdso_fd;
	s->vdso_tried = 1;
	if (prf_vdso_image(&image, &size, id, &id_size))
		return -1;
	fd = memfd_create("perfrec-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, (const char *)image + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	s->vdso_fd = fd;
	return fd;
}

/*
 * The vDSO has no file: perfrecd records its build-id under the name of
 * its mappings.  A capture from a kernel with this host's vDSO is named
 * from this process's own; others need the build-id trees (perfrecd's
 * binary cache keeps a copy).
 */
static int find_own_vdso(struct symbolizer *s, const struct dso *dso,
			 struct found_elf *found)
{
	char file[64];
	int fd;

	if (strcmp(dso->path, "[vdso]") || dso->build_id_size < 2)
		return -ENOENT;
	fd = own_vdso(s);
	if (fd < 0)
		return -ENOENT;
	snprintf(file, sizeof(file), "/proc/self/fd/%d", fd);
	return try_candidate(dso, file, found, NULL) == CANDIDATE_MATCH ? 0 : -ENOENT;
}

static int find_elf(struct symbolizer *s, const struct dso *dso, struct found_elf *found)
{
	char file[PATH_MAX];

	found->recorded = CANDIDATE_MISSING;
	if (!recorded_file(s, dso, file, sizeof(file))) {
		found->recorded = try_candidate(dso, file, found, found->host_id_hex);
		if (found->recorded == CANDIDATE_MATCH)
			return 0;
	}
	/* Build-id trees only hold files of known build-id. */
	if (dso->build_id_size < 2)
		return -ENOENT;
	if (!find_own_vdso(s, dso, found))
		return 0;
	if (!find_in_debug_dirs(s, dso, "", found))
		return 0;
	if (!find_in_debug_dirs(s, dso, ".debug", found)) {
		found->debug_only = 1;
		return 0;
	}
	if (!find_elsewhere(s, dso, 0, found))
		return 0;
	if (!find_elsewhere(s, dso, 1, found)) {
		found->debug_only = 1;
		return 0;
	}
	return -ENOENT;
}

static void warn_not_found(struct symbolizer *s, const struct dso *dso,
			   const struct found_elf *found)
{
	if (!dso->build_id_size)
		return;		/* nothing to check against: nothing to tell */
	switch (found->recorded) {
	case CANDIDATE_OTHER_ID:
		symbolizer_warn(s, "%s: build-id on this host is %s, the capture's is %s: not used",
				dso->path, found->host_id_hex, dso->build_id_hex);
		break;
	case CANDIDATE_NOT_ELF:
		symbolizer_warn(s, "%s: not an ELF executable or library on this host: not used",
				dso->path);
		break;
	case CANDIDATE_MISSING:
		if (dso->path[0] == '/')
			symbolizer_warn(s, "%s: no ELF with build-id %s found", dso->path,
					dso->build_id_hex);
		break;
	case CANDIDATE_MATCH:
		break;
	}
}

/* ---- file offsets to addresses ------------------------------------------ */

/*
 * objcopy --only-keep-debug zeroes p_filesz and moves p_offset in a debug
 * file's PT_LOADs, so the original offsets are gone (eu-strip keeps them).
 * Linkers place each segment at the first offset past the previous one
 * congruent to its vaddr modulo its alignment (mmap needs the congruence):
 * redo that layout.  Only the last segment has .bss past its file part, so
 * p_memsz stands in for p_filesz.
 */
static int rewritten_phdrs(const GElf_Phdr *phdrs, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (phdrs[i].p_type == PT_LOAD && (phdrs[i].p_flags & PF_X) &&
		    !phdrs[i].p_filesz && phdrs[i].p_memsz)
			return 1;
	return 0;
}

static void relayout(struct load_segment *segments, size_t count, const uint64_t *aligns)
{
	uint64_t end = 0;

	for (size_t i = 0; i < count; i++) {
		uint64_t align = aligns[i];

		if (align < PAGE_SIZE_GUESS || (align & (align - 1)))
			align = PAGE_SIZE_GUESS;
		segments[i].offset = end + ((segments[i].vaddr - end) & (align - 1));
		if (segments[i].offset < end || segments[i].offset + segments[i].filesz < end)
			segments[i].filesz = 0;		/* wrapped: a nonsense header */
		end = segments[i].offset + segments[i].filesz;
	}
}

static int read_segments(struct dso *dso, Elf *elf, int debug_only)
{
	GElf_Phdr phdrs[64];
	uint64_t aligns[64];
	size_t count, loads = 0;

	if (elf_getphdrnum(elf, &count) < 0)
		return -EINVAL;
	if (count > 64)
		count = 64;
	for (size_t i = 0; i < count; i++)
		if (!gelf_getphdr(elf, (int)i, &phdrs[i]))
			return -EINVAL;
	dso->segments = calloc(count ? count : 1, sizeof(*dso->segments));
	if (!dso->segments)
		return -ENOMEM;
	debug_only = debug_only && rewritten_phdrs(phdrs, count);
	for (size_t i = 0; i < count; i++) {
		const GElf_Phdr *p = &phdrs[i];

		if (p->p_type != PT_LOAD)
			continue;
		dso->segments[loads] = (struct load_segment){
			.offset = p->p_offset,
			.filesz = debug_only ? p->p_memsz : p->p_filesz,
			.vaddr = p->p_vaddr,
		};
		aligns[loads++] = p->p_align;
	}
	if (debug_only)
		relayout(dso->segments, loads, aligns);
	dso->segment_count = loads;
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

static int report_module(struct symbolizer *s, struct dso *dso, struct found_elf *found)
{
	void **userdata;
	Elf *elf;
	int err;

	dso->dwfl = dwfl_begin(&s->callbacks);
	if (!dso->dwfl)
		return -ENOMEM;
	dwfl_report_begin(dso->dwfl);
	/* Base 0 relative to p_vaddr: module addresses are the ELF's vaddrs. */
	dso->module = dwfl_report_elf(dso->dwfl, dso->short_name, found->path, found->fd, 0, true);
	dwfl_report_end(dso->dwfl, NULL, NULL);
	if (!dso->module)
		return -EINVAL;
	/* For symbolizer_find_debuginfo(). */
	dwfl_module_info(dso->module, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = dso;
	found->fd = -1;		/* libdwfl's now */
	elf = dwfl_module_getelf(dso->module, &dso->bias);
	if (!elf)
		return -EINVAL;
	err = read_segments(dso, elf, found->debug_only);
	return err < 0 ? err : 0;
}

void dso_open(struct symbolizer *s, struct dso *dso)
{
	struct found_elf *found = calloc(1, sizeof(*found));

	dso->state = DSO_UNUSABLE;
	if (!found)
		return;
	found->fd = -1;
	if (find_elf(s, dso, found) < 0) {
		warn_not_found(s, dso, found);
		goto out;
	}
	if (report_module(s, dso, found) < 0) {
		if (dso->build_id_size)
			symbolizer_warn(s, "%s: cannot read %s: %s", dso->path, found->path,
					dwfl_errmsg(-1));
		dso_close(dso);
		goto out;
	}
	dso->elf_path = symbolizer_intern(s, found->path);
	dso->state = DSO_OPEN;
out:
	if (found->fd >= 0)
		close(found->fd);
	free(found);
}

void dso_close(struct dso *dso)
{
	symtab_free(dso->symtab);
	dso->symtab = NULL;
	dwarf_index_free(dso->dwarf);
	dso->dwarf = NULL;
	cfi_extents_free(dso->cfi);
	dso->cfi = NULL;
	if (dso->dwfl)
		dwfl_end(dso->dwfl);
	dso->dwfl = NULL;
	dso->module = NULL;
	free(dso->segments);
	dso->segments = NULL;
	dso->segment_count = 0;
}

/*
 * The build-id trees of the debug directories, then the .gnu_debuglink
 * places (both in uncompress.c), then the source (debuginfod) for the
 * module's build-id.  The same callback finds dwz's .gnu_debugaltlink
 * files (another name than the binary's own debuglink): those are left
 * to libdwfl, locally only, as they have a build-id of their own.
 */
int symbolizer_find_debuginfo(Dwfl_Module *module, void **userdata, const char *module_name,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct dso *dso = *userdata;
	const char *own_link = NULL, *path;
	GElf_Word own_crc;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(module, &bias);
	int own, fd = -1;

	if (elf)
		own_link = dwelf_elf_gnu_debuglink(elf, &own_crc);
	own = !debuglink_file || (own_link && !strcmp(own_link, debuglink_file));
	if (own && dso) {
		fd = debug_file_by_build_id(dso->symbolizer, module, debuginfo_file_name);
		if (fd < 0)
			fd = debug_file_by_debuglink(dso->symbolizer, module, file_name,
						     debuglink_file, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	/*
	 * libdwfl's search: for dwz files and binaries without a build-id.
	 * Not for the others, which it would search again and then load
	 * libdebuginfod (with libcurl) to ask servers the source above asks.
	 */
	if (!own || !dso || fd == -2)
		fd = dwfl_standard_find_debuginfo(module, userdata, module_name, base, file_name,
						  debuglink_file, debuglink_crc,
						  debuginfo_file_name);
	if (fd >= 0 || !own || !dso || !dso->symbolizer->source)
		return fd;
	fd = symbolizer_fetch(dso->symbolizer, dso, 1, &path);
	if (fd < 0)
		return -1;
	*debuginfo_file_name = strdup(path);
	if (!*debuginfo_file_name) {
		close(fd);
		return -1;
	}
	return debug_file_for(dso->symbolizer, fd);
}
