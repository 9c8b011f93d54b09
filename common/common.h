/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libperfrec-common: the rules every other library shares, written once.
 * It depends on libc alone and knows nothing of the file format, the
 * kernel's perf records or ELF beyond its notes.
 *
 * Errors are negative errno values; nothing here prints.
 */
#ifndef PRF_COMMON_H
#define PRF_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PRF_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define PRF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- memory --------------------------------------------------------- */

/*
 * Room for need elements of elem_size in *data, which holds *capacity:
 * grows by half again (at least to need, at least 16), the byte count
 * checked for overflow.  0, or -ENOMEM with *data and *capacity as they
 * were.  As libbpf_ensure_mem(): pass (void **)&array.
 */
int prf_grow_mem(void **data, size_t *capacity, size_t elem_size, size_t need);

/* Inline where there is room, so that hot paths need no check of their own. */
static inline int prf_ensure_mem(void **data, size_t *capacity, size_t elem_size, size_t need)
{
	return need <= *capacity ? 0 : prf_grow_mem(data, capacity, elem_size, need);
}

/*
 * Memory that lives until prf_arena_free(), handed out from blocks of at
 * least 64 KiB: many small objects, one free.  Zeroed, aligned to 16.
 */
struct prf_arena_block;
struct prf_arena {
	struct prf_arena_block *blocks;
};
void *prf_arena_alloc(struct prf_arena *arena, size_t size);
/* A NUL-terminated copy of the first length bytes of s. */
char *prf_arena_strndup(struct prf_arena *arena, const char *s, size_t length);
void prf_arena_free(struct prf_arena *arena);

/* ---- hashing -------------------------------------------------------- */

/* 64-bit mixing (murmur3's finalizer): every bit of x moves every bit. */
static inline uint64_t prf_hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/*
 * A random seed, the same for the whole process: a table keyed by what a
 * file says mixes it in first, so that a file cannot choose keys that
 * all fall in one slot (prf_hash_mix() alone can be inverted).
 */
uint64_t prf_hash_seed(void);

/*
 * Bytes (names, paths, build-ids), seeded: a word at a time mixed onto
 * the seed and the size.  Names come from captures and binaries; an
 * unseeded hash (FNV-1a was used) lets them be chosen to share a slot.
 * Equal bytes hash equal within a process only.
 */
uint64_t prf_hash_bytes(const void *data, size_t size);

/*
 * A callchain's hash, built from the root out: a frame onto the hash of
 * its callers, so that each node of a tree of stacks has the hash of its
 * whole chain.  The writer's stack table and the reader's share it.
 */
#define PRF_STACK_HASH_ROOT	0x5bd1e9955bd1e995ull
static inline uint64_t prf_stack_hash_step(uint64_t parent, uint64_t frame)
{
	uint64_t h = (parent ^ frame) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

/* ---- the hash index ------------------------------------------------- */

/*
 * Open addressing over ids: the caller keeps its entries in an array of
 * its own (so they stay in insertion order and may be any size); the
 * index maps a hash to an id, which is the entry's index + 1.  A slot is
 * 8 bytes: the hash's upper half, which also places it, and the id.
 * Linear probing; the table doubles at half full.
 *
 *	struct prf_index_slot *slot = prf_index_place(&t->index, h, equal, t, key);
 *	if (!slot)
 *		return -ENOMEM;
 *	if (!slot->id) {
 *		... append the entry at t->count ...
 *		prf_index_insert(&t->index, slot, h, ++t->count);
 *	}
 *	return slot->id - 1;
 *
 * The hash must be mixed (prf_hash_mix(), prf_hash_bytes()): the slot
 * comes from its upper 32 bits.  Lookups are inline so that a constant
 * equal() is inlined at each call site.
 */
struct prf_index_slot {
	uint32_t tag;		/* hash >> 32 */
	uint32_t id;		/* 0: empty */
};

struct prf_index {
	struct prf_index_slot *slots;
	size_t capacity;	/* a power of 2, or 0 */
	size_t count;
};

/* Whether the entry whose id is given holds key. */
typedef int (*prf_index_equal_fn)(const void *context, uint32_t id, const void *key);

static inline struct prf_index_slot *prf_index_probe(const struct prf_index *x, uint64_t hash,
						     prf_index_equal_fn equal,
						     const void *context, const void *key)
{
	uint32_t tag = (uint32_t)(hash >> 32);
	size_t mask = x->capacity - 1, k = tag & mask;

	while (x->slots[k].id) {
		if (x->slots[k].tag == tag && equal(context, x->slots[k].id, key))
			break;
		k = (k + 1) & mask;
	}
	return &x->slots[k];
}

/* The id of the entry that holds key, or 0. */
static inline uint32_t prf_index_lookup(const struct prf_index *x, uint64_t hash,
					prf_index_equal_fn equal, const void *context,
					const void *key)
{
	return x->capacity ? prf_index_probe(x, hash, equal, context, key)->id : 0;
}

int prf_index_grow(struct prf_index *x);

/* Room for one more id: 0 or -ENOMEM.  Slots found before are stale after. */
static inline int prf_index_reserve(struct prf_index *x)
{
	return (x->count + 1) * 2 <= x->capacity ? 0 : prf_index_grow(x);
}

/*
 * The slot of the entry that holds key, or the empty slot where it goes
 * (valid until the next insertion); NULL without memory.
 */
static inline struct prf_index_slot *prf_index_place(struct prf_index *x, uint64_t hash,
						     prf_index_equal_fn equal,
						     const void *context, const void *key)
{
	if (prf_index_reserve(x) < 0)
		return NULL;
	return prf_index_probe(x, hash, equal, context, key);
}

/* Fills the empty slot prf_index_place() gave (id != 0). */
static inline void prf_index_insert(struct prf_index *x, struct prf_index_slot *slot,
				    uint64_t hash, uint32_t id)
{
	slot->tag = (uint32_t)(hash >> 32);
	slot->id = id;
	x->count++;
}

/* Empty again, its slots kept. */
void prf_index_clear(struct prf_index *x);
void prf_index_free(struct prf_index *x);

/* ---- varints: LEB128, as the compact sample columns store them ------- */

#define PRF_VARINT_MAX	10	/* bytes of a 64-bit value at most */

static inline size_t prf_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes v at p (room for PRF_VARINT_MAX bytes); the byte after it. */
static inline uint8_t *prf_varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads a value from *p, never past end: 0, or -1 (cut short, too long). */
static inline int prf_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *value)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (*p == end)
			return -1;
		byte = *(*p)++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*value = v;
			return 0;
		}
	}
	return -1;
}

/* Signed deltas as small unsigned values: 0, -1, 1, -2, ... */
static inline uint64_t prf_zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t prf_unzigzag(uint64_t v)
{
	return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

/* ---- clocks --------------------------------------------------------- */

/* clock's time in ns (CLOCK_MONOTONIC for intervals, CLOCK_REALTIME). */
uint64_t prf_clock_ns(clockid_t clock);

/* ---- text from elsewhere -------------------------------------------- */

/* The code point of the UTF-8 character at s and its bytes; 0 at the end or if invalid. */
size_t prf_utf8_char(const char *s, uint32_t *code);

/* C0, DEL and C1: what a terminal or a log must not get raw. */
static inline int prf_is_control(uint32_t code)
{
	return code < 0x20 || (code >= 0x7f && code < 0xa0);
}

/*
 * Steps over one printable unit of s: a UTF-8 character as it is, or "?"
 * for a control character or an invalid byte.  Returns the bytes of s
 * consumed (0 at the end); *unit and *unit_size are what to print.
 */
size_t prf_text_unit(const char *s, const char **unit, size_t *unit_size);

/* s with every unit prf_text_unit() would replace made '?', in place; its length. */
size_t prf_text_make_safe(char *s);
/* Whether s is printable as it is: prf_text_unit() would replace none of it. */
int prf_text_is_safe(const char *s);

/* ---- files named by others ------------------------------------------ */

/*
 * Opens a path that came from elsewhere (a capture, a process's maps, the
 * command line) read-only, without blocking on a FIFO or a device and
 * refusing all but a regular file: the fd, or -errno (-EINVAL: not
 * regular).
 */
int prf_open_regular(const char *path);

/* ---- /proc/PID/mountinfo -------------------------------------------- */

struct prf_mount_line {
	const char *root;	/* the part of its filesystem mounted there */
	const char *point;	/* where */
	const char *type;	/* "cgroup2", "tracefs", ... */
};

/*
 * "36 25 0:31 ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER" split
 * in place, the octal escapes of ROOT and POINT (" " is "\040") undone:
 * 0, or -EINVAL for a line that is none (a piece of a long one).
 */
int prf_mountinfo_parse(char *line, struct prf_mount_line *out);

/* ---- this host ------------------------------------------------------ */

struct prf_host {
	char hostname[65], kernel_release[65], kernel_version[65], machine[65];
	char boot_id[40];		/* "" where /proc does not say */
	uint32_t nr_cpus_online, nr_cpus_configured;
	uint32_t page_size;
};

/* Fills host from uname(2), /proc and sysconf(3): 0 or -errno. */
int prf_host_read(struct prf_host *host);

/* The kernel writes at most 20 bytes of build-id (BUILD_ID_SIZE_MAX). */
#define PRF_BUILD_ID_MAX	20

/*
 * The GNU build-id in a run of ELF notes (a PT_NOTE segment, or
 * /sys/kernel/notes): 0, or -ENODATA when there is none of 1 to 20 bytes.
 */
int prf_notes_build_id(const void *notes, size_t size, uint8_t id[PRF_BUILD_ID_MAX],
		       uint8_t *id_size);

/*
 * This process's vDSO, the image the kernel maps into every process of
 * the host's native ABI: where it is mapped, how long, and its build-id.
 * 0; -ENOENT without one; -ENODATA when it has no build-id.
 */
int prf_vdso_image(const void **image, size_t *size, uint8_t build_id[PRF_BUILD_ID_MAX],
		   uint8_t *build_id_size);

/* ---- /proc/kallsyms ------------------------------------------------- */

/* A line of /proc/kallsyms that names a text symbol (t, T, w or W). */
#define PRF_KSYM_NAME_MAX	512	/* the kernel's KSYM_NAME_LEN */
#define PRF_MODULE_NAME_MAX	64	/* "[name]" with its brackets; MODULE_NAME_LEN is 56 */
struct prf_kallsyms_line {
	uint64_t address;		/* never 0: hidden addresses are no symbol */
	const char *name;		/* in the line, name_length bytes */
	size_t name_length;		/* 1 to PRF_KSYM_NAME_MAX - 1 */
	const char *module;		/* "ext4" in the line; NULL: the kernel proper */
	size_t module_length;
	char type;
	/* Lower wins among symbols at one address: global, weak, local; fewer '_'. */
	unsigned rank;
};

/* 1 and *line for a text symbol with an address; 0 for any other line. */
int prf_kallsyms_parse_line(const char *p, const char *end, struct prf_kallsyms_line *line);

/*
 * The one kallsyms table: perfrecd's symbols as hit and the reader's
 * kernel are built by it, so that both name an address alike.  Symbols
 * go in as listed (prf_ksym_table_add()); prf_ksym_table_finish() sorts
 * them, keeps the best name at each address (lowest rank, then the first
 * listed) and sets each one's end: the next symbol within 1 MiB, or at
 * the end of a module (or of the table) the next page boundary past its
 * start and one page more, as perf bounds the last kallsyms symbol.
 */
struct prf_ksym {
	uint64_t start, end;
	uint32_t name;		/* offset of the NUL-terminated name in names */
	uint32_t index;		/* order added, the last tie-break */
	uint16_t module;	/* 1 + index in modules; 0: the kernel proper */
	uint8_t type;
	uint8_t rank;
};

struct prf_ksym_table {
	struct prf_ksym *syms;
	size_t count, capacity;
	char *names;
	size_t names_used, names_capacity;
	char (*modules)[PRF_MODULE_NAME_MAX];	/* "ext4", without brackets */
	size_t module_count, module_capacity;
};

/*
 * Adds line's symbol; end: 0 to have finish() set it, else the end the
 * symbol was recorded with.  0, -ENOMEM, or -E2BIG past 2^32 symbols or
 * name bytes (the table is as it was).
 */
int prf_ksym_table_add(struct prf_ksym_table *t, const struct prf_kallsyms_line *line,
		       uint64_t end);
/* Every text symbol of a whole kallsyms text: 0 or -ENOMEM. */
int prf_ksym_table_parse(struct prf_ksym_table *t, const char *text, size_t size);
void prf_ksym_table_finish(struct prf_ksym_table *t);
void prf_ksym_table_free(struct prf_ksym_table *t);

static inline const char *prf_ksym_name(const struct prf_ksym_table *t, const struct prf_ksym *k)
{
	return t->names + k->name;
}

/* "ext4", or "" for the kernel proper. */
static inline const char *prf_ksym_module(const struct prf_ksym_table *t, const struct prf_ksym *k)
{
	return k->module ? t->modules[k->module - 1] : "";
}

#endif
