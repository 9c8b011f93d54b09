/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_COLLECTOR_H
#define PERFRECD_COLLECTOR_H

#include "service.h"

/*
 * Runs perfrecd as the options say, until the duration ends, a signal
 * asks it to stop, or the profiled command exits.  Returns the exit
 * status: 0, 1 for a failure at run time, 2 for a setting that cannot work.
 */
int prd_collector_run(const struct perfrecd_options *options);

#endif
