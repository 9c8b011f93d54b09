/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Series: what the profile store files a profile under.  A service is a
 * systemd unit where the capture records units, else a process name; the
 * name perfrec-push sends is "SERVICE{host=H,unit=U,...}" or
 * "SERVICE{host=H,comm=C,...}" with the configured labels after them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "push-internal.h"
#include "session.h"

/*
 * The one place that chooses a sample's series: its systemd unit where
 * the capture recorded its cgroup (perfrec 1.2 files), else its process
 * name.  Kernel threads and the idle task are in the root cgroup, the
 * unit "-.slice".
 */
const char *push_series_of(const struct session_sample *sample, int *is_unit)
{
	*is_unit = sample->unit != NULL;
	if (sample->unit)
		return sample->unit;
	return sample->comm && *sample->comm ? sample->comm : "[unknown]";
}

/*
 * Names and values from a capture are a remote host's: anything that
 * could end a label ('}' ',' '='), open one, or be no printable ASCII
 * (space included, which the state file separates nothing with but
 * which servers treat unevenly) becomes '_'.
 */
static void put_clean(FILE *f, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++, n++) {
		unsigned char c = (unsigned char)*s;

		fputc(c <= ' ' || c >= 0x7f || strchr("{},=\"\\", c) ? '_' : c, f);
	}
	if (!n)
		fputc('_', f);
}

char *push_series_name(const struct push_options *o, const char *host, const char *series,
		       int is_unit)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	put_clean(f, o->app ? o->app : series, 256);
	fputs("{host=", f);
	put_clean(f, host ? host : "[unknown]", 256);
	fputs(is_unit ? ",unit=" : ",comm=", f);
	put_clean(f, series, 256);
	for (size_t i = 0; i < o->label_count; i++) {
		fputc(',', f);
		put_clean(f, o->labels[i].key, 256);
		fputc('=', f);
		put_clean(f, o->labels[i].value, 256);
	}
	fputc('}', f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
