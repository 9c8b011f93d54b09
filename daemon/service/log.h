/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_LOG_H
#define PERFRECD_LOG_H

/*
 * Syslog priorities; under systemd stderr lines carry "<N>" prefixes.
 * Each message is one line whatever its arguments hold: control
 * characters and invalid UTF-8 in it print as '?' (common's
 * prf_text_make_safe()), so callers pass paths and names as they are.
 */
enum log_level { LOG_LEVEL_ERROR = 3, LOG_LEVEL_WARNING = 4,
		 LOG_LEVEL_NOTICE = 5, LOG_LEVEL_INFO = 6, LOG_LEVEL_DEBUG = 7 };

void prd_log_init(const char *program, int verbosity);
__attribute__((format(printf, 2, 3)))
void prd_log_message(enum log_level level, const char *fmt, ...);

/*
 * A usage or configuration error, which may come before prd_log_init() has
 * the verbosity: "perfrecd: TEXT" at a terminal, as command-line tools say
 * them, and priority err in the journal, where an unlabelled line would be
 * info.
 */
__attribute__((format(printf, 1, 2)))
void prd_log_usage_error(const char *fmt, ...);

#define prd_log_error(...)   prd_log_message(LOG_LEVEL_ERROR, __VA_ARGS__)
#define prd_log_warning(...) prd_log_message(LOG_LEVEL_WARNING, __VA_ARGS__)
#define prd_log_notice(...)  prd_log_message(LOG_LEVEL_NOTICE, __VA_ARGS__)
#define prd_log_info(...)    prd_log_message(LOG_LEVEL_INFO, __VA_ARGS__)
#define prd_log_debug(...)   prd_log_message(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
