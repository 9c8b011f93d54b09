/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared library of the archive tests' workload: lib_spin is hot;
 * built with -DIDLE it is a library that is mapped but never called.
 */
volatile unsigned long archive_lib_sink;

#ifdef IDLE
void idle_never(void)
{
	archive_lib_sink = 0;
}
#else
__attribute__((noinline)) void lib_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		archive_lib_sink += i * i;
#ifdef REBUILD
	archive_lib_sink ^= 1;
#endif
}
#endif
