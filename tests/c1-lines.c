/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * c1-lines: code whose DWARF names its source file with a C1 control,
 * raw (0x9b, CSI to a terminal that takes 8-bit controls) and as UTF-8
 * (U+009B), and with bytes that are not UTF-8, as a hostile build's
 * could (tests/test-report-c1.sh).  Run, it prints the offset in its own
 * file of c1_function(), where the test's capture puts its samples.
 */
#include <stdint.h>
#include <stdio.h>

int c1_function(int x);

#line 100 "c1-\x9b[31m-\xc2\x9b[32m-\xff\xfe.c"
__attribute__((noinline)) int c1_function(int x)
{
	return x * 3 + 1;
}
#line 20 "tests/c1-lines.c"

int main(void)
{
	uintptr_t where = (uintptr_t)&c1_function;
	unsigned long long start, end, offset;
	char line[4096];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps) {
		perror("c1-lines: /proc/self/maps");
		return 1;
	}
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &offset) == 3 &&
		    where >= start && where < end) {
			printf("%llx\n", (unsigned long long)(where - start + offset));
			fclose(maps);
			return c1_function(0) == 1 ? 0 : 1;
		}
	}
	fclose(maps);
	fprintf(stderr, "c1-lines: c1_function() is in no map of /proc/self/maps\n");
	return 1;
}
