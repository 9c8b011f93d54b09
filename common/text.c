/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Text from elsewhere (names and paths from a process, a capture or
 * another host) as it may reach a terminal or a log.  C0, DEL and C1
 * controls could move a terminal's cursor, start an escape sequence or,
 * in a log, begin a forged line; a lone byte >= 0x80 could be taken as
 * C1 by a terminal that is not in UTF-8 mode.  All of them print as '?'.
 */
#include <string.h>
#include "common.h"

size_t prf_utf8_char(const char *s, uint32_t *code)
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

size_t prf_text_unit(const char *s, const char **unit, size_t *unit_size)
{
	uint32_t code;
	size_t n;

	if (!*s)
		return 0;
	n = prf_utf8_char(s, &code);
	if (!n || prf_is_control(code)) {
		*unit = "?";
		*unit_size = 1;
		return n ? n : 1;
	}
	*unit = s;
	*unit_size = n;
	return n;
}

int prf_text_is_safe(const char *s)
{
	const char *unit;
	size_t size, n;

	for (; (n = prf_text_unit(s, &unit, &size)); s += n)
		if (unit != s)
			return 0;
	return 1;
}

size_t prf_text_make_safe(char *s)
{
	const char *unit;
	size_t size, n;
	char *out = s;

	/* A unit is never shorter than what replaces it: in place. */
	for (const char *in = s; (n = prf_text_unit(in, &unit, &size)); in += n) {
		if (unit != in)
			*out = *unit;
		else if (out != in)
			memmove(out, in, n);
		out += size;
	}
	*out = '\0';
	return (size_t)(out - s);
}
