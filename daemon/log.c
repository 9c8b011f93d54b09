/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"

static const char *log_program = "perfrecd";
static int log_threshold = LOG_LEVEL_NOTICE;
static int log_to_journal;

void log_init(const char *program, int verbosity)
{
	log_program = program;
	log_to_journal = getenv("JOURNAL_STREAM") != NULL;
	log_threshold = (log_to_journal && verbosity >= 0 ? LOG_LEVEL_INFO :
			 LOG_LEVEL_NOTICE) + verbosity;
	if (log_threshold < LOG_LEVEL_ERROR)
		log_threshold = LOG_LEVEL_ERROR;
}

void log_message(enum log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if ((int)level > log_threshold)
		return;
	if (log_to_journal)
		n = snprintf(line, sizeof(line), "<%d>", level);
	else
		n = snprintf(line, sizeof(line), "%s: %s", log_program,
			     level == LOG_LEVEL_ERROR ? "error: " :
			     level == LOG_LEVEL_WARNING ? "warning: " : "");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line keeps lines whole when several processes log. */
	size_t length = strlen(line);
	if (length + 1 < sizeof(line)) {
		line[length++] = '\n';
		line[length] = '\0';
	}
	fputs(line, stderr);
	fflush(stderr);
}
