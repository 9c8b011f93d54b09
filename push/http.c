/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One profile to the server: POST URL/ingest?name=...&from=&until=
 * &format=pprof&sampleRate=HZ, the body a multipart form with the
 * profile (field "profile") and the sample types' units and aggregation
 * (field "sample_type_config"), as Pyroscope's ingest API takes pprof.
 * libcurl does HTTP and TLS: certificates verified, connect and total
 * timeouts, no redirects (a 3xx is an answer, not a place to send
 * credentials to), no proxy from the environment unless it says so
 * (curl's own *_proxy variables, as every curl program).  The answer's
 * header is bounded, and its Retry-After kept for the caller's wait.
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "push-internal.h"

/* What of an answer is kept for the message: the server's first words. */
#define ANSWER_MAX		512
/* An /ingest answer's header is a few hundred bytes: more is no answer of a server's. */
#define RESPONSE_HEADER_MAX	(64u << 10)

struct push_http {
	const struct push_options *options;
	const struct push_credentials *credentials;
	CURL *curl;
	struct curl_slist *headers;
	char answer[ANSWER_MAX + 1];
	size_t answer_size;
	/* The last answer's header, as it comes. */
	size_t header_bytes;		/* all its lines, 1xx answers' included */
	int header_begun, header_ended, header_too_large;
	long retry_after_s;		/* -1: none */
	long status;
};

struct push_http *push_http_new(const struct push_options *options,
				const struct push_credentials *credentials)
{
	struct push_http *h = calloc(1, sizeof(*h));
	char *header = NULL;

	if (!h || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(h);
		return NULL;
	}
	h->options = options;
	h->credentials = credentials;
	h->curl = curl_easy_init();
	if (!h->curl)
		goto fail;
	if (credentials && credentials->tenant) {
		if (asprintf(&header, "X-Scope-OrgID: %s", credentials->tenant) < 0)
			goto fail;
		h->headers = curl_slist_append(h->headers, header);
		explicit_bzero(header, strlen(header));
		free(header);
		header = NULL;
		if (!h->headers)
			goto fail;
	}
	if (credentials && credentials->bearer_token) {
		if (asprintf(&header, "Authorization: Bearer %s", credentials->bearer_token) < 0)
			goto fail;
		struct curl_slist *with = curl_slist_append(h->headers, header);

		explicit_bzero(header, strlen(header));
		free(header);
		if (!with)
			goto fail;
		h->headers = with;
	}
	/* "Expect: 100-continue" costs a round trip for nothing here. */
	h->headers = curl_slist_append(h->headers, "Expect:");
	if (!h->headers)
		goto fail;
	return h;
fail:
	push_http_free(h);
	return NULL;
}

void push_http_free(struct push_http *h)
{
	if (!h)
		return;
	/* The slist holds the secrets' copies: wipe them before freeing. */
	for (struct curl_slist *l = h->headers; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
	curl_slist_free_all(h->headers);
	if (h->curl)
		curl_easy_cleanup(h->curl);
	curl_global_cleanup();
	free(h);
}

static size_t keep_answer(char *data, size_t size, size_t count, void *context)
{
	struct push_http *h = context;
	size_t n = size * count, room = ANSWER_MAX - h->answer_size;

	memcpy(h->answer + h->answer_size, data, n < room ? n : room);
	h->answer_size += n < room ? n : room;
	return n;
}

/*
 * Retry-After's value: delay-seconds (saturated: a hostile server's
 * thousand digits are just "long") or an HTTP-date; -1 when it is
 * neither.  A date in the past is 0.
 */
static long parse_retry_after(const char *value, size_t length)
{
	char date[64];
	size_t digits = 0;
	long seconds = 0;
	uint64_t delta;
	time_t when, now;

	while (length && (*value == ' ' || *value == '\t'))
		value++, length--;
	while (length && strchr(" \t\r\n", value[length - 1]))
		length--;
	while (digits < length && value[digits] >= '0' && value[digits] <= '9') {
		int digit = value[digits++] - '0';

		seconds = seconds > (LONG_MAX - digit) / 10 ? LONG_MAX : seconds * 10 + digit;
	}
	if (digits && digits == length)
		return seconds;
	if (!length || length >= sizeof(date))
		return -1;
	memcpy(date, value, length);
	date[length] = 0;
	when = curl_getdate(date, NULL);
	now = time(NULL);
	if (when == -1)
		return -1;
	if (when <= now)
		return 0;
	delta = (uint64_t)(when - now);
	return delta > LONG_MAX ? LONG_MAX : (long)delta;
}

/* Each line of the answer's header: counted against the bound, Retry-After kept. */
static size_t read_header(char *data, size_t size, size_t count, void *context)
{
	static const char retry_after[] = "Retry-After:";
	struct push_http *h = context;
	size_t n = size * count, name = sizeof(retry_after) - 1;

	h->header_bytes += n;
	if (h->header_bytes > RESPONSE_HEADER_MAX) {
		h->header_too_large = 1;
		return 0;	/* ends the request */
	}
	if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* A status line: the answer after a 1xx starts anew. */
		h->header_begun = 1;
		h->header_ended = 0;
		h->retry_after_s = -1;
	} else if ((n == 2 && data[0] == '\r' && data[1] == '\n') || (n == 1 && data[0] == '\n')) {
		h->header_ended = 1;
	} else if (n > name && strncasecmp(data, retry_after, name) == 0) {
		h->retry_after_s = parse_retry_after(data + name, n - name);
	}
	return n;
}

/*
 * Whether the request failed on an answer's header too large: over our
 * bound, or a line over libcurl's own (100 KiB), which libcurl 7.88 says
 * as "Out of memory" and later ones as CURLE_TOO_LARGE.  That line may
 * be the status line, before any line reached read_header(): then the
 * request went out whole.
 */
static int header_too_large(const struct push_http *h, CURLcode code)
{
	long request_size = 0;

	if (h->header_too_large)
		return 1;
	if (h->header_ended)
		return 0;
	if (!h->header_begun &&
	    (curl_easy_getinfo(h->curl, CURLINFO_REQUEST_SIZE, &request_size) != CURLE_OK ||
	     request_size <= 0))
		return 0;
#if LIBCURL_VERSION_NUM >= 0x080600
	if (code == CURLE_TOO_LARGE)
		return 1;
#endif
	return code == CURLE_OUT_OF_MEMORY;
}

long push_http_retry_after(const struct push_http *h)
{
	return h->status == 429 || h->status == 503 ? h->retry_after_s : -1;
}

/* The server's words on one line, its controls made '?'. */
static void answer_text(struct push_http *h)
{
	h->answer[h->answer_size] = 0;
	for (size_t i = 0; i < h->answer_size; i++)
		if ((unsigned char)h->answer[i] < 0x20 || h->answer[i] == 0x7f)
			h->answer[i] = h->answer[i] == '\n' || h->answer[i] == '\t' ? ' ' : '?';
	while (h->answer_size && h->answer[h->answer_size - 1] == ' ')
		h->answer[--h->answer_size] = 0;
}

static char *request_url(struct push_http *h, const struct push_capture *capture,
			 const struct push_profile *p)
{
	const char *base = h->options->url;
	size_t length = strlen(base);
	char *name = curl_easy_escape(h->curl, p->name, 0), *url = NULL, rate[32] = "";

	if (!name)
		return NULL;
	while (length && base[length - 1] == '/')
		length--;
	/* Blocks are not sampled: their weights are their durations. */
	if (capture->sample_rate && !p->off_cpu)
		snprintf(rate, sizeof(rate), "&sampleRate=%u", capture->sample_rate);
	if (asprintf(&url, "%.*s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64
		     "&format=pprof%s&spyName=perfrec", (int)length, base, name, p->from, p->until,
		     rate) < 0)
		url = NULL;
	curl_free(name);
	return url;
}

/*
 * The units and aggregation of the profile's sample types, by their pprof
 * names: pprof-write.c's, "off_cpu" in nanoseconds for the off-CPU one.
 */
static void sample_type_config(const struct push_capture *capture,
			       const struct push_profile *p, char *out, size_t size)
{
	const char *type = p->off_cpu ? "off_cpu" : capture->sample_type;
	const char *unit = p->off_cpu ? "nanoseconds" : capture->sample_unit;
	int n = snprintf(out, size, "{\"samples\":{\"units\":\"samples\",\"aggregation\":\"sum\","
			 "\"display-name\":\"samples\"}");

	if (type && n > 0 && (size_t)n < size)
		n += snprintf(out + n, size - (size_t)n, ",\"%s\":{\"units\":\"%s\","
			      "\"aggregation\":\"sum\",\"display-name\":\"%s\"}",
			      type, unit, type);
	if (n > 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, "}");
}

static enum push_result classify(long status)
{
	if (status >= 200 && status < 300)
		return PUSH_SENT;
	/* Wrong credentials or URL: every profile would get the same answer. */
	if (status == 401 || status == 403 || status == 404 || status < 400)
		return PUSH_BLOCKED;
	/* Timeouts, "too many requests": the server asks to be asked again. */
	if (status == 408 || status == 429 || status >= 500)
		return PUSH_RETRY;
	return PUSH_REFUSED;
}

enum push_result push_http_send(struct push_http *h, const struct push_capture *capture,
				const struct push_profile *p, char *message, size_t message_size)
{
	char errors[CURL_ERROR_SIZE] = "", config[512];
	char *url = request_url(h, capture, p);
	curl_mime *form = NULL;
	curl_mimepart *part;
	enum push_result result = PUSH_RETRY;
	long status = 0;
	CURLcode code;

	if (!url) {
		snprintf(message, message_size, "out of memory");
		return PUSH_RETRY;
	}
	sample_type_config(capture, p, config, sizeof(config));
	form = curl_mime_init(h->curl);
	if (!form || !(part = curl_mime_addpart(form)) ||
	    curl_mime_name(part, "profile") != CURLE_OK ||
	    curl_mime_filename(part, "profile.pprof") != CURLE_OK ||
	    curl_mime_type(part, "application/octet-stream") != CURLE_OK ||
	    curl_mime_data(part, p->body, p->body_size) != CURLE_OK ||
	    !(part = curl_mime_addpart(form)) ||
	    curl_mime_name(part, "sample_type_config") != CURLE_OK ||
	    curl_mime_filename(part, "sample_type_config.json") != CURLE_OK ||
	    curl_mime_type(part, "application/json") != CURLE_OK ||
	    curl_mime_data(part, config, CURL_ZERO_TERMINATED) != CURLE_OK) {
		snprintf(message, message_size, "out of memory");
		goto out;
	}
	curl_easy_reset(h->curl);
	h->answer_size = 0;
	h->header_bytes = 0;
	h->header_begun = h->header_ended = h->header_too_large = 0;
	h->retry_after_s = -1;
	h->status = 0;
	curl_easy_setopt(h->curl, CURLOPT_URL, url);
	curl_easy_setopt(h->curl, CURLOPT_MIMEPOST, form);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "perfrec-push/" PACKAGE_VERSION);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, errors);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, keep_answer);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, read_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, (long)h->options->connect_timeout_s);
	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT, (long)h->options->timeout_s);
	curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h->curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h->curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (h->options->ca_file)
		curl_easy_setopt(h->curl, CURLOPT_CAINFO, h->options->ca_file);
	if (h->credentials && h->credentials->basic_auth) {
		curl_easy_setopt(h->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h->curl, CURLOPT_USERPWD, h->credentials->basic_auth);
	}
	code = curl_easy_perform(h->curl);
	if (header_too_large(h, code)) {
		snprintf(message, message_size, "response header too large (more than %u KiB)",
			 RESPONSE_HEADER_MAX >> 10);
		goto out;
	}
	if (code != CURLE_OK) {
		snprintf(message, message_size, "%s", *errors ? errors : curl_easy_strerror(code));
		goto out;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	h->status = status;
	result = classify(status);
	answer_text(h);
	if (result != PUSH_SENT)
		snprintf(message, message_size, "HTTP %ld%s%s", status,
			 h->answer_size ? ": " : " (no message)", h->answer);
out:
	/* libcurl keeps the password it was given: drop it with the handle's options. */
	curl_easy_setopt(h->curl, CURLOPT_USERPWD, NULL);
	curl_mime_free(form);
	free(url);
	return result;
}
