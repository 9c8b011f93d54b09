/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's error messages. */
#include <stdio.h>
#include "internal.h"

int prf_set_error(struct prf_error *error, int code, const char *fmt, ...)
{
	va_list ap;

	if (error) {
		error->code = code;
		va_start(ap, fmt);
		vsnprintf(error->message, sizeof(error->message), fmt, ap);
		va_end(ap);
	}
	return code;
}
