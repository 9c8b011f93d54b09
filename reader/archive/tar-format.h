/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_BUNDLE_TAR_FORMAT_H
#define PERFREC_BUNDLE_TAR_FORMAT_H

#include <assert.h>

#define TAR_BLOCK 512
/*
 * A bundle's members are ELF files and their debug files, by build-id:
 * anything larger is a lie, and an extraction stops before it would pass
 * the totals (perfrec-report(1) says so).
 */
#define TAR_MAX_FILE_SIZE (4ull << 30)
#define TAR_MAX_MEMBERS 65536u
#define TAR_MAX_TOTAL_SIZE (32ull << 30)

/* The POSIX ustar header (IEEE Std 1003.1, pax "ustar Interchange Format"). */
struct tar_header {
	char name[100];
	char mode[8];
	char uid[8];
	char gid[8];
	char size[12];
	char mtime[12];
	char checksum[8];
	char typeflag;
	char linkname[100];
	char magic[6];
	char version[2];
	char uname[32];
	char gname[32];
	char devmajor[8];
	char devminor[8];
	char prefix[155];
	char pad[12];
};
static_assert(sizeof(struct tar_header) == TAR_BLOCK, "ustar header is one block");

#endif
