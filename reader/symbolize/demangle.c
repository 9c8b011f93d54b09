/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C++ and Rust names, demangled by libiberty as c++filt and gdb do, once
 * per distinct name.
 */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "symbolize-internal.h"

struct demangled {
	const char *mangled;	/* interned: the key, NULL in empty slots */
	const char *shown;	/* interned, NULL when it does not demangle */
};

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

static int grow_demangled(struct symbolizer *s)
{
	size_t capacity = s->demangled_capacity ? 2 * s->demangled_capacity : 1024;
	struct demangled *slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < s->demangled_capacity; i++) {
		const struct demangled *d = &s->demangled[i];
		size_t k;

		if (!d->mangled)
			continue;
		k = hash_mix((uintptr_t)d->mangled) & (capacity - 1);
		while (slots[k].mangled)
			k = (k + 1) & (capacity - 1);
		slots[k] = *d;
	}
	free(s->demangled);
	s->demangled = slots;
	s->demangled_capacity = capacity;
	return 0;
}

const char *symbolizer_demangle(struct symbolizer *s, const char *name)
{
	const char *key;
	char *shown;
	size_t k;

	if (!s || !name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	key = symbolizer_intern(s, name);
	if (!key || (s->demangled_count * 2 >= s->demangled_capacity && grow_demangled(s) < 0))
		return name;
	k = hash_mix((uintptr_t)key) & (s->demangled_capacity - 1);
	for (; s->demangled[k].mangled; k = (k + 1) & (s->demangled_capacity - 1))
		if (s->demangled[k].mangled == key)
			return s->demangled[k].shown ? s->demangled[k].shown : name;
	shown = demangle(name);
	s->demangled[k].mangled = key;
	s->demangled[k].shown = symbolizer_intern_shown(s, shown);
	s->demangled_count++;
	free(shown);
	return s->demangled[k].shown ? s->demangled[k].shown : name;
}

void demangle_release(struct symbolizer *s)
{
	free(s->demangled);
	s->demangled = NULL;
	s->demangled_count = s->demangled_capacity = 0;
}
