/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libsymbolize-lib.so for test-symbolize: a shared library (so file
 * offsets and addresses follow a DSO's layout) with an inline chain.
 */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

unsigned lib_checksum(const unsigned *values, int count);

ALWAYS_INLINE unsigned rotate(unsigned x, unsigned by)
{
	return (x << (by & 31)) | (x >> ((32 - by) & 31));
}

ALWAYS_INLINE unsigned step(unsigned sum, unsigned value, int i)
{
	return rotate(sum, (unsigned)i) + value * 2654435761u;
}

static __attribute__((noinline)) unsigned finish(unsigned sum)
{
	return rotate(sum ^ (sum >> 16), 7);
}

unsigned lib_checksum(const unsigned *values, int count)
{
	unsigned sum = 0x12345678u;

	for (int i = 0; i < count; i++)
		sum = step(sum, values[i], i);
	return finish(sum);
}
