/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PRF_FUZZ_PERFDATA_SEEDS_H
#define PRF_FUZZ_PERFDATA_SEEDS_H

#include <stddef.h>

typedef void (*perfdata_save_fn)(const char *name, const void *data, size_t size);

/* Writes the perf.data seeds (perfdata-seeds.c) through save. */
void perfdata_seeds(perfdata_save_fn save);

#endif
