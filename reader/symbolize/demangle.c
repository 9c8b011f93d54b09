/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C++ and Rust names, demangled by libiberty as c++filt and gdb do, once
 * per distinct name.
 */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "symbolize-internal.h"

struct demangled {
	const char *mangled;	/* interned: the key */
	const char *shown;	/* interned, NULL when it does not demangle */
};

static int demangled_equal(const void *context, uint32_t id, const void *key)
{
	return ((const struct symbolizer *)context)->demangled[id - 1].mangled == key;
}

/*
 * Style flags select one demangler: DMGL_RUST alone never falls back to
 * C++, so each style gets its own call.  Legacy Rust names are valid
 * Itanium names ending in a hash segment ("17h" and 16 hex digits) that
 * libiberty drops without DMGL_VERBOSE, as perf shows them: Rust first.
 */
static char *demangle(const char *name)
{
	char *shown = cplus_demangle(name, DMGL_RUST);

	if (shown || name[1] == 'R')
		return shown;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
}

const char *symbolizer_demangle(struct symbolizer *s, const char *name)
{
	struct prf_index_slot *slot;
	struct demangled *d;
	const char *key;
	char *shown;
	uint64_t h;

	if (!s || !name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	key = symbolizer_intern(s, name);
	if (!key)
		return name;
	h = prf_hash_mix((uintptr_t)key);
	slot = prf_index_place(&s->demangled_index, h, demangled_equal, s, key);
	if (!slot || (!slot->id && prf_ensure_mem((void **)&s->demangled, &s->demangled_capacity,
						   sizeof(*s->demangled),
						   s->demangled_count + 1) < 0))
		return name;
	if (!slot->id) {
		shown = demangle(name);
		s->demangled[s->demangled_count++] = (struct demangled){
			.mangled = key,
			.shown = symbolizer_intern_shown(s, shown),
		};
		free(shown);
		prf_index_insert(&s->demangled_index, slot, h, (uint32_t)s->demangled_count);
	}
	d = &s->demangled[slot->id - 1];
	return d->shown ? d->shown : name;
}

void symbolizer_demangle_release(struct symbolizer *s)
{
	prf_index_free(&s->demangled_index);
	free(s->demangled);
	s->demangled = NULL;
	s->demangled_count = s->demangled_capacity = 0;
}
