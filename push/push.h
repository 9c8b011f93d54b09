/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_PUSH_H
#define PERFREC_PUSH_H

#include <stddef.h>
#include <stdint.h>
#include "format.h"

/*
 * perfrec-push: perfrecd's captures, symbolized on this host, sent as
 * pprof to a Pyroscope-compatible server (POST /ingest), one profile per
 * series (a systemd unit, else a process name) and interval.  What was
 * sent is kept in a state file, so that a restart sends nothing twice.
 * perfrec-push(8) is the user's side of all this.
 */

struct push_label {
	const char *key, *value;
};

struct push_options {
	const char *url;		/* the server: http[s]://host[:port][/prefix] */
	const char *dir;		/* perfrecd's output directory */
	const char *state_path;		/* what was sent */
	const char *credentials_path;	/* NULL: none */
	const char *ca_file;		/* NULL: the system's CAs */
	const char *app;		/* the service of every series; NULL: the unit or comm */
	struct push_label *labels;	/* --label K=V, in the order given */
	size_t label_count;
	unsigned interval_s;		/* a profile per series and interval */
	unsigned connect_timeout_s, timeout_s;
	unsigned max_backoff_s;		/* retries wait at most this long */
	unsigned poll_s;		/* the directory is looked at this often without inotify */
	unsigned max_age_s;		/* older intervals are warned about (the server's window) */
	int once;			/* send what is complete, then exit */
	int current;			/* also the file being written, to its last whole chunk */
	int verbose;			/* a line per request sent */
};

#define PUSH_INTERVAL_DEFAULT		60
#define PUSH_CONNECT_TIMEOUT_DEFAULT	10
#define PUSH_TIMEOUT_DEFAULT		60
#define PUSH_MAX_BACKOFF_DEFAULT	300
#define PUSH_POLL_DEFAULT		10
#define PUSH_MAX_AGE_DEFAULT		3600
#define PUSH_STATE_DEFAULT		"/var/lib/perfrec-push/state"

/*
 * The command line into options (which point into argv; free with
 * push_options_free()).  0; 1 after --help or --version (printed); or 2
 * after a message naming the bad argument.
 */
int push_options_parse(struct push_options *options, int argc, char **argv);
void push_options_free(struct push_options *options);

/*
 * Credentials, from a file that only its owner (root, or the user
 * perfrec-push runs as) may read or write: lines "basic-auth USER:PASSWORD",
 * "bearer-token TOKEN" and "tenant ID" (X-Scope-OrgID), '#' comments.
 * Never printed; wiped when freed.
 */
struct push_credentials {
	char *basic_auth;		/* "user:password" */
	char *bearer_token;
	char *tenant;
};

/* 0, or a negative errno with a message naming path and the cause in error. */
int push_credentials_load(struct push_credentials *credentials, const char *path,
			  struct prf_error *error);
void push_credentials_free(struct push_credentials *credentials);

/*
 * Runs until done (--once: everything complete sent or refused) or until
 * *stop is set (a signal).  0 when everything was sent; 1 after an error
 * that was said (a server that refused, a state file that cannot be
 * written, credentials refused by the server with --once).
 */
int push_run(const struct push_options *options, const struct push_credentials *credentials,
	     volatile int *stop);

#endif
