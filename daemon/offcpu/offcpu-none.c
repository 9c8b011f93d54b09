/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfrecd built without libbpf: --off-cpu says so. */
#include <errno.h>
#include "offcpu.h"

int prd_offcpu_open(struct prd_offcpu **out, const struct prd_offcpu_config *config,
		    struct prf_error *error)
{
	(void)config;
	*out = NULL;
	return prf_set_error(error, -EOPNOTSUPP,
			     "--off-cpu: this perfrecd was built without libbpf (configure --enable-off-cpu)");
}

const char *prd_offcpu_resume_hook(const struct prd_offcpu *o)
{
	(void)o;
	return "none";
}

int prd_offcpu_fd(const struct prd_offcpu *o)
{
	(void)o;
	return -1;
}

int prd_offcpu_drain(struct prd_offcpu *o, prd_offcpu_emit_fn emit, void *context)
{
	(void)o;
	(void)emit;
	(void)context;
	return 0;
}

uint64_t prd_offcpu_lost(const struct prd_offcpu *o)
{
	(void)o;
	return 0;
}

void prd_offcpu_close(struct prd_offcpu *o)
{
	(void)o;
}
