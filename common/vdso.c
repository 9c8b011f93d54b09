/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The vDSO: code the kernel maps into every process, with no file behind
 * it.  Writer and reader both need its image: perfrecd to give each file
 * its build-id (and keep a copy), perfrec-report to name its frames when
 * the capture comes from a kernel with the same vDSO as its own.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <string.h>
#include "common.h"

int prf_notes_build_id(const void *notes, size_t size, uint8_t id[PRF_BUILD_ID_MAX],
		       uint8_t *id_size)
{
	const uint8_t *p = notes;
	size_t offset = 0;

	while (size - offset >= 12) {
		uint32_t word[3];
		size_t name, desc;

		memcpy(word, p + offset, sizeof(word));
		name = offset + 12;
		if (word[0] > size - name)
			break;
		desc = name + (((size_t)word[0] + 3) & ~(size_t)3);
		if (desc > size || word[1] > size - desc)
			break;
		if (word[2] == NT_GNU_BUILD_ID && word[0] == 4 &&
		    !memcmp(p + name, "GNU", 4) && word[1] > 0 &&
		    word[1] <= PRF_BUILD_ID_MAX) {
			memcpy(id, p + desc, word[1]);
			*id_size = (uint8_t)word[1];
			return 0;
		}
		offset = desc + (((size_t)word[1] + 3) & ~(size_t)3);
		if (offset > size)
			break;
	}
	return -ENODATA;
}

/* The length of the mapping that starts at base, from /proc/self/maps. */
static size_t mapping_size(uintptr_t base)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	uintmax_t start, end;
	char line[512];
	size_t size = 0;

	if (!maps)
		return 0;
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%jx-%jx", &start, &end) == 2 && start == base && end > start) {
			size = (size_t)(end - start);
			break;
		}
	fclose(maps);
	return size;
}

int prf_vdso_image(const void **image, size_t *size, uint8_t build_id[PRF_BUILD_ID_MAX],
		   uint8_t *build_id_size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *ehdr = (const ElfW(Ehdr) *)base;
	size_t length;

	if (!base)
		return -ENOENT;
	/* Only what is mapped is read: the ELF's own offsets are not trusted. */
	length = mapping_size(base);
	if (length < sizeof(*ehdr) || memcmp(ehdr->e_ident, ELFMAG, SELFMAG))
		return -ENOENT;
	if (ehdr->e_phentsize != sizeof(ElfW(Phdr)) || ehdr->e_phoff > length ||
	    (size_t)ehdr->e_phnum * sizeof(ElfW(Phdr)) > length - ehdr->e_phoff)
		return -ENOEXEC;
	for (size_t i = 0; i < ehdr->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + ehdr->e_phoff) + i;

		if (ph->p_type != PT_NOTE || ph->p_offset > length ||
		    ph->p_filesz > length - ph->p_offset)
			continue;
		if (!prf_notes_build_id((const void *)(base + ph->p_offset), ph->p_filesz,
					build_id, build_id_size)) {
			*image = (const void *)base;
			*size = length;
			return 0;
		}
	}
	return -ENODATA;
}
