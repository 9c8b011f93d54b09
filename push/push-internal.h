/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_PUSH_INTERNAL_H
#define PERFREC_PUSH_INTERNAL_H

/*
 * What perfrec-push's files share: the state file (state.c), a capture
 * cut into profiles (capture.c, series.c), the HTTP request (http.c);
 * run.c follows the directory and drives them.
 */
#include <stddef.h>
#include <stdint.h>
#include "push.h"

void push_log(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* ---- state.c: what was sent ------------------------------------------- */

/*
 * The state file holds a line per file sent whole ("done NAME") and,
 * for the file being sent, a line per profile sent ("sent NAME WINDOW
 * SERIES"), then a line with the checksum of those ("end CRC32C").
 * Every change is written to a temporary file, synced and renamed over
 * the old one, so that a crash leaves the old state or the new, never a
 * mix: a profile is sent again only when the crash came between the
 * server's answer and the rename (at least once).
 */
struct push_state;

/*
 * Opens the state at path: its directory made (0700) when missing and
 * refused when others could change it, locked (PATH.lock: -EBUSY while
 * another perfrec-push has it), the file read (a missing file is an
 * empty state; a damaged one, another user's or a link is refused),
 * then written back, so that a state that cannot be written is said
 * before anything is sent.  0 or a negative errno (message in error).
 */
int push_state_open(struct push_state **state, const char *path, struct prf_error *error);
void push_state_free(struct push_state *state);
int push_state_file_done(const struct push_state *state, const char *name);
int push_state_sent(const struct push_state *state, const char *name, uint64_t window,
		    const char *series);
/* Each records and saves; 0 or a negative errno. */
int push_state_mark_sent(struct push_state *state, const char *name, uint64_t window,
			 const char *series);
int push_state_mark_done(struct push_state *state, const char *name);
/* Forgets the files for which keep() says 0 (deleted by retention); saves. */
int push_state_prune(struct push_state *state, int (*keep)(void *context, const char *name),
		     void *context);
const char *push_state_path(const struct push_state *state);

/* ---- series.c: which series a sample is of --------------------------- */

struct session_sample;

/*
 * The series a sample belongs to: its systemd unit where the capture
 * records units, else its process name; interned by the session, so
 * compared by pointer.  *is_unit says which.
 */
const char *push_series_of(const struct session_sample *sample, int *is_unit);

/*
 * The ingest name of a series: "SERVICE{host=H,unit=U|comm=C,K=V,...}",
 * with the characters Pyroscope gives a meaning ({ } , = and controls)
 * and any byte outside printable ASCII made '_'.  malloc'd, or NULL.
 */
char *push_series_name(const struct push_options *options, const char *host,
		       const char *series, int is_unit);

/* ---- capture.c: one file into profiles -------------------------------- */

struct push_profile {
	uint64_t window;		/* realtime seconds / interval */
	char *name;			/* push_series_name() */
	int off_cpu;			/* the series' off-CPU profile: off_cpu/nanoseconds */
	char *key;			/* the state's name of it: name, " off_cpu" after it
					   for the off-CPU one */
	uint64_t from, until;		/* realtime seconds */
	uint64_t samples;
	char *body;			/* gzipped profile.proto */
	size_t body_size;
};

struct push_capture {
	struct push_profile *profiles;	/* by window, then name */
	size_t count;
	unsigned sample_rate;		/* Hz, 0 when sampled by period */
	const char *sample_type;	/* pprof's: "cpu", or the event's name */
	const char *sample_unit;	/* "nanoseconds", "count" */
	int partial;			/* the file being written: complete windows only */
};

struct symbolizer;

/*
 * The symbolizer captures are read with: it keeps what it opened (ELF and
 * DWARF of the binaries, each file's kernel symbols) for the next files,
 * so a run pays for a binary once, not once a file.  NULL without memory.
 */
struct symbolizer *push_symbolizer_new(const struct push_options *options);

/*
 * Reads path (symbolizing with symbolizer, this host's files) into
 * profiles, those of state's sent ones left out.  With partial, only
 * windows that end before the file's last whole chunk.  0, or a negative
 * errno with a message in error naming the file.
 */
int push_capture_read(struct push_capture *capture, const struct push_options *options,
		      struct symbolizer *symbolizer, const char *path, const char *name,
		      const struct push_state *state, int partial, struct prf_error *error);
void push_capture_free(struct push_capture *capture);

/* ---- http.c: one request ---------------------------------------------- */

enum push_result {
	PUSH_SENT,			/* 2xx */
	PUSH_RETRY,			/* no answer, timeout, 5xx, 408, 429, a header too
					   large: try again later */
	PUSH_REFUSED,			/* another 4xx: this profile will never do */
	PUSH_BLOCKED,			/* 401, 403, 404, 3xx: nothing will do until the
					   credentials or the URL change */
};

struct push_http;

struct push_http *push_http_new(const struct push_options *options,
				const struct push_credentials *credentials);
void push_http_free(struct push_http *http);

/*
 * POSTs one profile to URL/ingest.  message receives what to say when it
 * was not sent: the status and the server's own words, or curl's error
 * (never a credential).
 */
enum push_result push_http_send(struct push_http *http, const struct push_capture *capture,
				const struct push_profile *profile, char *message,
				size_t message_size);
/*
 * The seconds the last answer asked to wait (Retry-After, seconds or an
 * HTTP-date; saturated, never negative) when it was a 429 or a 503; -1
 * otherwise.  Bounding it is the caller's business.
 */
long push_http_retry_after(const struct push_http *http);

#endif
