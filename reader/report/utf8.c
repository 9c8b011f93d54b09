/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 as the views, the flame graphs and pprof's strings read names from captures. */
#include "report.h"

size_t report_utf8_char(const char *s, uint32_t *code)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c, min;
	size_t n;

	if (p[0] < 0x80) {
		*code = p[0];
		return p[0] ? 1 : 0;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2, c = p[0] & 0x1f, min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3, c = p[0] & 0x0f, min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4, c = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	/* A NUL is not a continuation byte, so this stops at the end. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*code = c;
	return n;
}
