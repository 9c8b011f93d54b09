/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc32c (Castagnoli, reflected polynomial 0x82F63B78).  Chunks are
 * checksummed on every write and read, so the hardware instruction is used
 * where the CPU has it; the table version (slicing by 8) is the fallback
 * and the reference the tests compare against.
 */
#include <pthread.h>
#include "internal.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc32c_table[8][256];

static void crc32c_init_table(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t crc = n;

		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (CRC32C_POLY & (0u - (crc & 1)));
		crc32c_table[0][n] = crc;
	}
	for (uint32_t n = 0; n < 256; n++)
		for (int k = 1; k < 8; k++)
			crc32c_table[k][n] = (crc32c_table[k - 1][n] >> 8) ^
					     crc32c_table[0][crc32c_table[k - 1][n] & 0xff];
}

static uint32_t crc32c_software(uint32_t crc, const uint8_t *p, size_t size)
{
	while (size && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
		size--;
	}
	while (size >= 8) {
		uint64_t word;

		memcpy(&word, p, 8);
		word ^= crc;
		crc = crc32c_table[7][word & 0xff] ^
		      crc32c_table[6][(word >> 8) & 0xff] ^
		      crc32c_table[5][(word >> 16) & 0xff] ^
		      crc32c_table[4][(word >> 24) & 0xff] ^
		      crc32c_table[3][(word >> 32) & 0xff] ^
		      crc32c_table[2][(word >> 40) & 0xff] ^
		      crc32c_table[1][(word >> 48) & 0xff] ^
		      crc32c_table[0][word >> 56];
		p += 8;
		size -= 8;
	}
	while (size--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t size)
{
	uint64_t crc64 = crc;

	while (size && ((uintptr_t)p & 7)) {
		crc64 = __builtin_ia32_crc32qi((uint32_t)crc64, *p++);
		size--;
	}
	while (size >= 8) {
		uint64_t word;

		memcpy(&word, p, 8);
		crc64 = __builtin_ia32_crc32di(crc64, word);
		p += 8;
		size -= 8;
	}
	while (size--)
		crc64 = __builtin_ia32_crc32qi((uint32_t)crc64, *p++);
	return (uint32_t)crc64;
}
#endif

static uint32_t (*crc32c_implementation)(uint32_t, const uint8_t *, size_t);
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

/* PRF_CRC32C_SOFTWARE in the environment forces the table version. */
static void crc32c_pick(void)
{
	crc32c_init_table();
	crc32c_implementation = crc32c_software;
#if defined(__x86_64__)
	if (getenv("PRF_CRC32C_SOFTWARE") == NULL &&
	    __builtin_cpu_supports("sse4.2"))
		crc32c_implementation = crc32c_sse42;
#endif
}

uint32_t prf_crc32c(uint32_t crc, const void *data, size_t size)
{
	pthread_once(&crc32c_once, crc32c_pick);
	return ~crc32c_implementation(~crc, data, size);
}
