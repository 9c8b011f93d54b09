/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Errors with a message, as the format's reader gives them. */
#include <stdarg.h>
#include <stdio.h>
#include "report.h"

int report_set_error(struct prf_error *error, int code, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	vsnprintf(error->message, sizeof(error->message), format, ap);
	va_end(ap);
	error->code = code;
	return code;
}
