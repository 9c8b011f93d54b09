/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfrec-push's command line.  perfrec-push(8) and --help say the same. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "push.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: perfrec-push --url URL [OPTIONS] DIR\n"
"Sends perfrecd's captures in DIR, symbolized here, as pprof to a\n"
"Pyroscope-compatible server (POST URL/ingest), one profile per series\n"
"(systemd unit, else process name) and interval.\n"
"\n"
"      --url URL             the server: http[s]://HOST[:PORT][/PREFIX]\n"
"      --once                send what is complete, then exit\n"
"      --current             also the file being written, to its last whole chunk\n"
"      --state FILE          what was sent (default " PUSH_STATE_DEFAULT ")\n"
"      --credentials FILE    basic-auth USER:PASSWORD, bearer-token TOKEN,\n"
"                            tenant ID (X-Scope-OrgID); mode 0600, yours\n"
"      --ca-file FILE        the CAs for https (default: the system's)\n"
"      --app NAME            the service of every series (default: its unit or comm)\n"
"      --label KEY=VALUE     a label of every series (repeatable)\n"
"      --interval SECONDS    a profile per series and this long (default %u)\n"
"      --connect-timeout S   (default %u)\n"
"      --timeout S           a whole request (default %u)\n"
"      --max-backoff S       retries wait at most this long (default %u)\n"
"      --poll S              without inotify, look this often (default %u)\n"
"      --max-age S           warn about older profiles (default %u)\n"
"  -v, --verbose             a line per profile sent\n"
"  -h, --help, -V, --version\n",
		PUSH_INTERVAL_DEFAULT, PUSH_CONNECT_TIMEOUT_DEFAULT, PUSH_TIMEOUT_DEFAULT,
		PUSH_MAX_BACKOFF_DEFAULT, PUSH_POLL_DEFAULT, PUSH_MAX_AGE_DEFAULT);
}

enum {
	OPT_URL = 256, OPT_ONCE, OPT_CURRENT, OPT_STATE, OPT_CREDENTIALS, OPT_CA_FILE, OPT_APP,
	OPT_LABEL, OPT_INTERVAL, OPT_CONNECT_TIMEOUT, OPT_TIMEOUT, OPT_MAX_BACKOFF, OPT_POLL,
	OPT_MAX_AGE,
};

static const struct option long_options[] = {
	{ "url", required_argument, NULL, OPT_URL },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "current", no_argument, NULL, OPT_CURRENT },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "credentials", required_argument, NULL, OPT_CREDENTIALS },
	{ "ca-file", required_argument, NULL, OPT_CA_FILE },
	{ "app", required_argument, NULL, OPT_APP },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-backoff", required_argument, NULL, OPT_MAX_BACKOFF },
	{ "poll", required_argument, NULL, OPT_POLL },
	{ "max-age", required_argument, NULL, OPT_MAX_AGE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int bad(const char *option, const char *value, const char *why)
{
	fprintf(stderr, "perfrec-push: --%s %s: %s\n", option, value, why);
	return 2;
}

static int parse_seconds(const char *option, const char *value, unsigned min, unsigned max,
			 unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || *end || end == value || *value == '-' || v < min || v > max) {
		char why[64];

		snprintf(why, sizeof(why), "not a number of seconds from %u to %u", min, max);
		return bad(option, value, why);
	}
	*out = (unsigned)v;
	return 0;
}

/*
 * The URL names the server only: credentials in it would be in argv for
 * every user to read, and in every message that names the URL.
 */
static int check_url(const char *url)
{
	const char *rest, *at, *slash;

	if (strncmp(url, "http://", 7) == 0)
		rest = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		rest = url + 8;
	else
		return bad("url", url, "not http:// nor https://");
	slash = rest + strcspn(rest, "/?#");
	at = memchr(rest, '@', (size_t)(slash - rest));
	if (at) {
		fprintf(stderr, "perfrec-push: --url: user or password in the URL: give them in --credentials FILE\n");
		return 2;
	}
	if (slash == rest)
		return bad("url", url, "no host");
	if (strpbrk(url, "?# \t\r\n"))
		return bad("url", url, "a query, fragment or space: give the server's base URL");
	return 0;
}

/* A label's key as Pyroscope takes it: [A-Za-z_][A-Za-z0-9_]*; not one of ours. */
static int parse_label(struct push_options *o, char *arg)
{
	char *equal = strchr(arg, '=');
	struct push_label *grown;

	if (!equal || equal == arg || !equal[1])
		return bad("label", arg, "not KEY=VALUE");
	*equal = 0;
	for (const char *c = arg; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
		      (c > arg && *c >= '0' && *c <= '9'))) {
			*equal = '=';
			return bad("label", arg, "a key is letters, digits and _, not starting with a digit");
		}
	if (!strcmp(arg, "host") || !strcmp(arg, "unit") || !strcmp(arg, "comm")) {
		*equal = '=';
		return bad("label", arg, "host, unit and comm are perfrec-push's own labels");
	}
	grown = reallocarray(o->labels, o->label_count + 1, sizeof(*grown));
	if (!grown) {
		fprintf(stderr, "perfrec-push: %s\n", strerror(ENOMEM));
		return 2;
	}
	o->labels = grown;
	o->labels[o->label_count++] = (struct push_label){ arg, equal + 1 };
	return 0;
}

int push_options_parse(struct push_options *o, int argc, char **argv)
{
	int c, ret = 0;

	*o = (struct push_options){
		.state_path = PUSH_STATE_DEFAULT,
		.interval_s = PUSH_INTERVAL_DEFAULT,
		.connect_timeout_s = PUSH_CONNECT_TIMEOUT_DEFAULT,
		.timeout_s = PUSH_TIMEOUT_DEFAULT,
		.max_backoff_s = PUSH_MAX_BACKOFF_DEFAULT,
		.poll_s = PUSH_POLL_DEFAULT,
		.max_age_s = PUSH_MAX_AGE_DEFAULT,
	};
	while (!ret && (c = getopt_long(argc, argv, "vhV", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_URL: o->url = optarg; ret = check_url(optarg); break;
		case OPT_ONCE: o->once = 1; break;
		case OPT_CURRENT: o->current = 1; break;
		case OPT_STATE: o->state_path = optarg; break;
		case OPT_CREDENTIALS: o->credentials_path = optarg; break;
		case OPT_CA_FILE: o->ca_file = optarg; break;
		case OPT_APP: o->app = optarg; break;
		case OPT_LABEL: ret = parse_label(o, optarg); break;
		case OPT_INTERVAL:
			ret = parse_seconds("interval", optarg, 1, 86400, &o->interval_s);
			break;
		case OPT_CONNECT_TIMEOUT:
			ret = parse_seconds("connect-timeout", optarg, 1, 3600, &o->connect_timeout_s);
			break;
		case OPT_TIMEOUT:
			ret = parse_seconds("timeout", optarg, 1, 3600, &o->timeout_s);
			break;
		case OPT_MAX_BACKOFF:
			ret = parse_seconds("max-backoff", optarg, 1, 86400, &o->max_backoff_s);
			break;
		case OPT_POLL: ret = parse_seconds("poll", optarg, 1, 3600, &o->poll_s); break;
		case OPT_MAX_AGE:
			ret = parse_seconds("max-age", optarg, 1, 365 * 86400, &o->max_age_s);
			break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return 1;
		case 'V': printf("perfrec-push %s\n", PACKAGE_VERSION); return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (ret)
		return ret;
	if (!o->url) {
		fprintf(stderr, "perfrec-push: --url URL is needed\n");
		return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "perfrec-push: %s\n", optind == argc ? "which directory? (perfrecd's -o DIR)" :
			"one directory only");
		return 2;
	}
	o->dir = argv[optind];
	return 0;
}

void push_options_free(struct push_options *o)
{
	free(o->labels);
	o->labels = NULL;
	o->label_count = 0;
}
