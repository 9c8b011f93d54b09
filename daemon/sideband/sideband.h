/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libperfrec-sideband: the records a file needs beside the kernel's
 * samples, through a record_sink: /proc as records and build-ids
 * (synthesize.h), the binary cache (bincache.h), kernel symbols as hit
 * (ksyms.h), cgroups and pid namespaces (task-meta.h), JIT maps (jit.h).
 */
#ifndef PERFRECD_SIDEBAND_H
#define PERFRECD_SIDEBAND_H

#include "sink.h"
#include "synthesize.h"
#include "bincache.h"
#include "ksyms.h"
#include "task-meta.h"
#include "jit.h"

#endif
