/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Debug files with compressed DWARF (SHF_COMPRESSED: libc6-dbg, and
 * every Debian -dbgsym package) are inflated by libdw all at once, on one
 * thread, when a module's DWARF is first asked for, .debug_info the
 * largest part (bench/README.md has the figures).  Before
 * libdwfl sees such a file, its sections are inflated here on two
 * threads into an uncompressed copy in memory (a memfd), which libdwfl
 * then reads as it would the file: the same bytes, in the time of the
 * largest section.  Anything unexpected keeps the file as it is.
 *
 * libdwfl's own lookup (dwfl_standard_find_debuginfo) keeps the Elf it
 * opened to check the build-id and uses that, whatever fd it returns: so
 * the build-id trees of the debug directories, which it searches first,
 * are searched here first, and only the .gnu_debuglink places are left
 * to it.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "common.h"
#include "symbolize-internal.h"

/* Past this the copy is not worth its memory: libdw inflates as usual. */
#define UNCOMPRESSED_MAX	(256ull << 20)

struct inflate_job {
	Elf *elf;			/* its own handle: libelf objects are per thread */
	const uint8_t *compressed;	/* per section index */
	const uint8_t *on_second;	/* per section index: inflated by the second job */
	size_t count;
	uint8_t second;			/* which job this is */
	int failed;
};

static void *inflate_sections(void *arg)
{
	struct inflate_job *job = arg;

	for (size_t i = 1; i < job->count; i++) {
		Elf_Scn *scn;

		if (!job->compressed[i] || job->on_second[i] != job->second)
			continue;
		scn = elf_getscn(job->elf, i);
		if (!scn || elf_compress(scn, 0, 0) < 0)
			job->failed = 1;
	}
	return NULL;
}

/* in's headers and sections, each from the handle that inflated it. */
static int write_copy(int out_fd, Elf *in, Elf *const handles[2], const uint8_t *on_second,
		      size_t count)
{
	Elf *out = elf_begin(out_fd, ELF_C_WRITE, NULL);
	size_t phnum, shstrndx;
	GElf_Ehdr ehdr;
	int ok = 0;

	if (!out || !gelf_getehdr(in, &ehdr) || elf_getphdrnum(in, &phnum) < 0 ||
	    elf_getshdrstrndx(in, &shstrndx) < 0 || !gelf_newehdr(out, gelf_getclass(in)))
		goto out;
	ehdr.e_shstrndx = (Elf64_Half)shstrndx;
	if (!gelf_update_ehdr(out, &ehdr) || (phnum && !gelf_newphdr(out, phnum)))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(in, (int)i, &phdr) || !gelf_update_phdr(out, (int)i, &phdr))
			goto out;
	}
	for (size_t i = 1; i < count; i++) {
		Elf_Scn *from = elf_getscn(handles[on_second[i]], i), *to = elf_newscn(out);
		Elf_Data *data = from ? elf_getdata(from, NULL) : NULL, *copy;
		GElf_Shdr shdr;

		if (!to || !gelf_getshdr(from, &shdr))
			goto out;
		/* One Elf_Data a section of a file just read; an empty one may have none. */
		if (data) {
			copy = elf_newdata(to);
			if (!copy)
				goto out;
			*copy = *data;
			copy->d_off = 0;
		}
		if (!gelf_update_shdr(to, &shdr))
			goto out;
	}
	ok = elf_update(out, ELF_C_WRITE) >= 0;
out:
	elf_end(out);
	return ok ? 0 : -1;
}

/* The compressed sections of in, and the largest of them put on the second job. */
static uint64_t plan(Elf *in, size_t count, uint8_t *compressed, uint8_t *on_second)
{
	uint64_t total = 0, largest = 0;
	size_t at = 0;

	for (size_t i = 1; i < count; i++) {
		Elf_Scn *scn = elf_getscn(in, i);
		GElf_Shdr shdr;
		GElf_Chdr chdr;

		if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_COMPRESSED))
			continue;
		if (!gelf_getchdr(scn, &chdr))
			return 0;
		compressed[i] = 1;
		total += chdr.ch_size;
		if (chdr.ch_size > largest) {
			largest = chdr.ch_size;
			at = i;
		}
	}
	if (at)
		on_second[at] = 1;
	return total;
}

int debug_file_uncompressed(int fd)
{
	Elf *in = elf_begin(fd, ELF_C_READ_MMAP, NULL), *handles[2] = { in, NULL };
	uint8_t *compressed = NULL, *on_second = NULL;
	struct inflate_job jobs[2];
	uint64_t total;
	size_t count = 0;
	pthread_t thread;
	int out_fd = -1;

	if (!in || elf_kind(in) != ELF_K_ELF || elf_getshdrnum(in, &count) < 0 ||
	    count < 2 || count >= SHN_LORESERVE)
		goto keep;
	compressed = calloc(count, 1);
	on_second = calloc(count, 1);
	if (!compressed || !on_second)
		goto keep;
	total = plan(in, count, compressed, on_second);
	if (!total || total > UNCOMPRESSED_MAX)
		goto keep;
	handles[1] = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!handles[1])
		goto keep;
	for (int j = 0; j < 2; j++)
		jobs[j] = (struct inflate_job){ handles[j], compressed, on_second, count,
						(uint8_t)j, 0 };
	if (pthread_create(&thread, NULL, inflate_sections, &jobs[1]) == 0) {
		inflate_sections(&jobs[0]);
		pthread_join(thread, NULL);
	} else {
		inflate_sections(&jobs[0]);
		inflate_sections(&jobs[1]);
	}
	if (jobs[0].failed || jobs[1].failed)
		goto keep;
	out_fd = memfd_create("perfrec-debug", MFD_CLOEXEC);
	if (out_fd >= 0 && write_copy(out_fd, in, handles, on_second, count) < 0) {
		close(out_fd);
		out_fd = -1;
	}
keep:
	elf_end(handles[1]);
	elf_end(in);
	free(compressed);
	free(on_second);
	if (out_fd < 0)
		return fd;
	close(fd);
	return out_fd;
}

/* Whether the ELF file at fd has this build-id. */
static int has_build_id(int fd, const void *id, int size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *found;
	int ok = 0;

	if (elf) {
		ssize_t n = dwelf_elf_gnu_build_id(elf, &found);

		ok = n == size && !memcmp(found, id, (size_t)size);
		elf_end(elf);
	}
	return ok;
}

/*
 * The copy pays only where DWARF is read for most addresses: lines or
 * inlined frames.  Otherwise the symbol table is all a debug file gives,
 * and libdw inflates a section only if an address without a symbol asks.
 */
int debug_file_for(const struct symbolizer *s, int fd)
{
	return s->want_lines || s->want_inlines ? debug_file_uncompressed(fd) : fd;
}

int debug_file_by_build_id(const struct symbolizer *s, Dwfl_Module *module, char **name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char hex[2 * PRF_BUILD_ID_MAX + 1], path[PATH_MAX];
	int size = dwfl_module_build_id(module, &id, &vaddr);

	if (size < 2 || size > PRF_BUILD_ID_MAX)
		return -1;
	build_id_to_hex(hex, id, (size_t)size);
	for (size_t i = 0; i < s->debug_dir_count; i++) {
		int fd;

		if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug",
				     s->debug_dirs[i], hex, hex + 2) >= sizeof(path))
			continue;
		fd = prf_open_regular(path);
		if (fd < 0)
			continue;
		if (!has_build_id(fd, id, size)) {
			close(fd);
			continue;
		}
		*name = strdup(path);
		if (!*name) {
			close(fd);
			return -1;
		}
		return debug_file_for(s, fd);
	}
	return -1;
}

/* path, if it is a regular file with the build-id: its fd (as debug_file_for()). */
static int debug_candidate(const struct symbolizer *s, const char *path, const char *file_name,
			   const unsigned char *id, int size, char **name)
{
	int fd;

	if (!strcmp(path, file_name))
		return -1;	/* the binary itself */
	fd = prf_open_regular(path);
	if (fd < 0)
		return -1;
	if (!has_build_id(fd, id, size) || !(*name = strdup(path))) {
		close(fd);
		return -1;
	}
	return debug_file_for(s, fd);
}

int debug_file_by_debuglink(const struct symbolizer *s, Dwfl_Module *module,
			    const char *file_name, const char *debuglink, char **name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char path[PATH_MAX], link[NAME_MAX + 1];
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	int size = dwfl_module_build_id(module, &id, &vaddr), fd;
	int dir_length;

	if (size < 2 || size > PRF_BUILD_ID_MAX || !slash || (debuglink && strchr(debuglink, '/')))
		return -2;
	/* No link: the binary's name with .debug, as libdwfl tries. */
	if ((size_t)snprintf(link, sizeof(link), debuglink ? "%s" : "%s.debug",
			     debuglink ? debuglink : slash + 1) >= sizeof(link))
		return -2;
	dir_length = (int)(slash - file_name);
	if ((size_t)snprintf(path, sizeof(path), "%.*s/%s", dir_length, file_name, link) <
		    sizeof(path) &&
	    (fd = debug_candidate(s, path, file_name, id, size, name)) >= 0)
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%.*s/.debug/%s", dir_length, file_name,
			     link) < sizeof(path) &&
	    (fd = debug_candidate(s, path, file_name, id, size, name)) >= 0)
		return fd;
	for (size_t i = 0; i < s->debug_dir_count; i++)
		if ((size_t)snprintf(path, sizeof(path), "%s%.*s/%s", s->debug_dirs[i],
				     dir_length, file_name, link) < sizeof(path) &&
		    (fd = debug_candidate(s, path, file_name, id, size, name)) >= 0)
			return fd;
	return -1;
}
