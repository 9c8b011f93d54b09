/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which event a profile is of, and how it samples as the headers say it:
 * the one choice perfrec-report and perfrec-push both make.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

const char *report_sampling_text(const struct session_sampling *sampling, char *buffer,
				 size_t size)
{
	if (sampling->frequency)
		snprintf(buffer, size, "%" PRIu64 " Hz", sampling->frequency);
	else if (sampling->period)
		snprintf(buffer, size, "period %" PRIu64, sampling->period);
	else
		return NULL;
	return buffer;
}

/* "a, b, c": the events' names, cut to size. */
static void event_list(const struct session_summary *summary, char *list, size_t size)
{
	size_t used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < summary->event_count; i++) {
		int n = snprintf(list + used, size - used, "%s%s", i ? ", " : "",
				 summary->events[i].name);

		if (n > 0 && used + (size_t)n < size)
			used += (size_t)n;
	}
}

/* wanted whole, or without its terms: "page-faults" for "page-faults/period=64/". */
static const struct session_event *find_event(const struct session_summary *summary,
					      const char *wanted, size_t *fits)
{
	const struct session_event *found = NULL;
	size_t length = strlen(wanted);

	*fits = 0;
	for (size_t i = 0; i < summary->event_count; i++)
		if (strcmp(wanted, summary->events[i].name) == 0) {
			*fits = 1;
			return &summary->events[i];
		}
	for (size_t i = 0; i < summary->event_count; i++) {
		const char *name = summary->events[i].name;

		if (!strncmp(name, wanted, length) && (name[length] == '/' || name[length] == ':')) {
			found = &summary->events[i];
			(*fits)++;
		}
	}
	return found;
}

/* Whether the events count different things (time and faults). */
static int mixed_events(const struct session_summary *summary)
{
	for (size_t i = 1; i < summary->event_count; i++)
		if (summary->events[i].type != summary->events[0].type ||
		    summary->events[i].config != summary->events[0].config)
			return 1;
	return 0;
}

int report_choose_event(struct session_summary *summary, const char *wanted,
			const char **filter, struct prf_error *message)
{
	const struct session_event *chosen = NULL;
	char list[1024];
	size_t fits = 0;
	int ret = 0;

	event_list(summary, list, sizeof(list));
	*filter = NULL;
	if (wanted) {
		chosen = find_event(summary, wanted, &fits);
		if (fits > 1)
			return prf_set_error(message, -EINVAL,
					     "--event %s fits %zu of the capture's events (%s): give one whole",
					     wanted, fits, list);
		if (!chosen && summary->event_count)
			return prf_set_error(message, -EINVAL,
					     "--event %s: the capture has no such event; it has: %s",
					     wanted, list);
		if (!chosen)
			*filter = wanted;	/* no events at all: nothing passes */
	} else if (mixed_events(summary)) {
		chosen = &summary->events[0];
		prf_set_error(message, 0,
			      "the capture has %zu events (%s): this is %s; --event NAME for another",
			      summary->event_count, list, chosen->name);
		ret = 1;
	}
	if (chosen) {
		*filter = chosen->name;
		summary->event = chosen->name;
		summary->sampling = chosen->sampling;
	}
	return ret;
}
