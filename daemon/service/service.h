/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libperfrec-service: what perfrecd is as a service, below everything
 * else it has: logging, options and the configuration file, the output
 * directory's files and retention, sd_notify.
 */
#ifndef PERFRECD_SERVICE_H
#define PERFRECD_SERVICE_H

#include "log.h"
#include "options.h"
#include "output.h"
#include "notify.h"

#endif
