/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program test-symbolize resolves but never runs: its addresses are
 * symbolized by the symbolizer and by eu-addr2line and the answers must
 * agree.  Built -O2 -g with functions forced inline into a noinline
 * caller (inline chains), a static function GCC clones (a symbol named
 * "local_sum.constprop.0", DWARF's "local_sum"), names mangled as C++
 * and Rust compilers would (demangling) and a call into
 * libsymbolize-lib.so.  VARIANT makes a rebuilt binary with another
 * build-id.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef VARIANT
#define VARIANT 0
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))

unsigned lib_checksum(const unsigned *values, int count);

ALWAYS_INLINE unsigned mix_inner(unsigned x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	return x ^ (x >> 15);
}

ALWAYS_INLINE unsigned mix_middle(unsigned x, unsigned y)
{
	unsigned a = mix_inner(x + VARIANT);

	return a ^ mix_inner(y * 31);
}

NOINLINE unsigned mix_outer(const unsigned *values, int count)
{
	unsigned hash = 0;

	for (int i = 0; i < count; i++) {
		hash = mix_middle(hash, values[i]);
		if (__builtin_expect(hash == 0xdeadbeef, 0)) {
			fprintf(stderr, "unlucky hash at %d\n", i);
			abort();
		}
	}
	return hash;
}

static NOINLINE unsigned local_sum(const unsigned *values, int count)
{
	unsigned sum = 0;

	for (int i = 0; i < count; i++)
		sum += values[i] * (unsigned)i;
	return sum;
}

/* C++ ns::klass::method(int) and Rust functions, legacy and v0 mangling. */
NOINLINE int cxx_method(int x) __asm__("_ZN2ns5klass6methodEi");
NOINLINE int rust_legacy(int x) __asm__("_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE");
NOINLINE int rust_v0(int x) __asm__("_RNvCs15kBYyAo9fc_7mycrate7example");

NOINLINE int cxx_method(int x)
{
	return x * 3 + 1;
}

NOINLINE int rust_legacy(int x)
{
	return x * 5 + 2;
}

NOINLINE int rust_v0(int x)
{
	return x * 7 + 3;
}

int main(int argc, char **argv)
{
	unsigned values[64];

	for (int i = 0; i < 64; i++)
		values[i] = (unsigned)(i * argc) + (unsigned)(size_t)argv[0][0];
	printf("%u %u %u %d\n", mix_outer(values, 64), local_sum(values, 64),
	       lib_checksum(values, 64),
	       cxx_method(argc) + rust_legacy(argc) + rust_v0(argc));
	return 0;
}
