/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JIT-compiled code: a DSO whose symbols are the ranges a runtime named
 * (perf maps, jitdump), given by the caller already without overlaps.
 * Addresses are the process's own: no file behind them to open.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbolize-internal.h"

struct jit_symbol {
	uint64_t start, end;
	const char *name;		/* interned, shown */
};

struct dso *symbolizer_jit(struct symbolizer *s, const char *name,
			   const struct symbolizer_jit_symbol *symbols, size_t count)
{
	struct dso *dso;
	struct jit_symbol *kept;

	if (!s || !name || (count && !symbols)) {
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < count; i++)
		if (symbols[i].end <= symbols[i].start ||
		    (i && symbols[i].start < symbols[i - 1].end)) {
			errno = EINVAL;
			return NULL;
		}
	dso = symbolizer_alloc(s, 1, sizeof(*dso));
	kept = count ? symbolizer_alloc(s, count, sizeof(*kept)) : NULL;
	if (!dso || (count && !kept))
		goto nomem;
	dso->symbolizer = s;
	dso->kind = DSO_JIT;
	dso->state = DSO_OPEN;
	dso->path = symbolizer_intern(s, name);
	dso->short_name = symbolizer_intern_shown(s, name);
	if (!dso->path || !dso->short_name)
		goto nomem;
	for (size_t i = 0; i < count; i++) {
		kept[i].start = symbols[i].start;
		kept[i].end = symbols[i].end;
		kept[i].name = symbolizer_intern_shown(s, symbols[i].name);
		if (!kept[i].name)
			goto nomem;
	}
	dso->jit_symbols = kept;
	dso->jit_symbol_count = count;
	return dso;
nomem:
	errno = ENOMEM;
	return NULL;
}

size_t dso_jit_resolve(const struct dso *dso, uint64_t address, struct symbol_frame *frame)
{
	size_t lo = 0, hi = dso->jit_symbol_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dso->jit_symbols[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || address >= dso->jit_symbols[lo - 1].end)
		return 0;
	memset(frame, 0, sizeof(*frame));
	frame->function = dso->jit_symbols[lo - 1].name;
	frame->symbol_offset = address - dso->jit_symbols[lo - 1].start;
	return 1;
}

int dso_is_jit(const struct dso *dso)
{
	return dso->kind == DSO_JIT;
}
