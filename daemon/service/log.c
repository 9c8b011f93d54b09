/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging to stderr.  Under systemd (JOURNAL_STREAM set) each line gets a
 * "<N>" priority prefix, which the journal turns into the priority; at a
 * terminal the program name stands first, as for any Unix tool.
 *
 * The journal also gets the informational lines (the start, each new file,
 * each deletion, the signal that stopped us) unless -q: it keeps their
 * priority, so `journalctl -p notice` still hides them, whereas a
 * terminal, which keeps nothing, shows only what needs reading.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "log.h"

static const char *log_program = "perfrecd";
static int log_threshold = LOG_LEVEL_NOTICE;
static int log_to_journal;

void prd_log_init(const char *program, int verbosity)
{
	log_program = program;
	log_to_journal = getenv("JOURNAL_STREAM") != NULL;
	log_threshold = (log_to_journal && verbosity >= 0 ? LOG_LEVEL_INFO :
			 LOG_LEVEL_NOTICE) + verbosity;
	if (log_threshold < LOG_LEVEL_ERROR)
		log_threshold = LOG_LEVEL_ERROR;
}

/*
 * label: "error: " and the like after the program's name at a terminal.
 *
 * The arguments carry paths and names that others chose (a jitdump's
 * directory, a deleted binary's path): a newline there would start a
 * line of the attacker's, "<0>" at its head an emergency in the journal,
 * and an escape sequence would drive the terminal.  perfrecd's own
 * formats have no control characters, so the formatted line is made safe
 * whole, here, as the report's views make names safe: one line, one
 * record, whatever the arguments hold.
 */
__attribute__((format(printf, 3, 0)))
static void log_write(enum log_level level, const char *label,
		      const char *fmt, va_list ap)
{
	char line[1024];
	size_t length;
	int n;

	if (log_to_journal)
		n = snprintf(line, sizeof(line), "<%d>", level);
	else
		n = snprintf(line, sizeof(line), "%s: %s", log_program, label);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		n = 0;
	/* Room kept for the newline, which a cut message must still end in. */
	vsnprintf(line + n, sizeof(line) - 1 - (size_t)n, fmt, ap);
	length = prf_text_make_safe(line);
	line[length++] = '\n';
	line[length] = '\0';
	/* One write per line keeps lines whole when several processes log. */
	fputs(line, stderr);
	fflush(stderr);
}

void prd_log_message(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if ((int)level > log_threshold)
		return;
	va_start(ap, fmt);
	log_write(level, level == LOG_LEVEL_ERROR ? "error: " :
			 level == LOG_LEVEL_WARNING ? "warning: " : "", fmt, ap);
	va_end(ap);
}

void prd_log_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write(LOG_LEVEL_ERROR, "", fmt, ap);
	va_end(ap);
}
