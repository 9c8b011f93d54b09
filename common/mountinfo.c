/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /proc/PID/mountinfo's lines, for whoever looks for a filesystem's mount
 * (cgroup2, tracefs): one parser, since a mount point may hold any byte
 * and the kernel escapes the ones that would split a field.
 */
#include <errno.h>
#include <string.h>
#include "common.h"

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo: undone in place. */
static char *unescape(char *s)
{
	char *out = s, *start = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
	return start;
}

int prf_mountinfo_parse(char *line, struct prf_mount_line *out)
{
	char *field[5], *save = NULL, *dash = strstr(line, " - "), *p = line;

	if (!dash)
		return -EINVAL;
	*dash = '\0';
	for (size_t i = 0; i < 5; i++, p = NULL)
		if (!(field[i] = strtok_r(p, " ", &save)))
			return -EINVAL;
	out->type = strtok_r(dash + 3, " \n", &save);
	if (!out->type)
		return -EINVAL;
	out->root = unescape(field[3]);
	out->point = unescape(field[4]);
	return 0;
}
