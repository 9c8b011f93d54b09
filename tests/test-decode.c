/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoder of kernel records: every sample field in the kernel's order,
 * every side-band record with and without its sample_id_all trailer,
 * hostile records that must be refused without a read out of bounds, and
 * the kernel's own records from a sampling event on this very thread.
 *
 * Records are built here byte by byte, little-endian, independently of the
 * decoder's structs, so that a layout mistake cannot cancel itself out.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "format.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8), missing from older headers. */
#define BRANCH_COUNTERS (1ULL << 19)

/* Every sample_type bit the decoder knows, PERF_SAMPLE_IP ... WEIGHT_STRUCT. */
#define SAMPLE_BITS 25
#define ALL_SAMPLE_TYPES ((1ULL << SAMPLE_BITS) - 1)

#define ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |		 \
		   PERF_SAMPLE_IDENTIFIER)

struct rng {
	uint64_t state;
};

static uint64_t rng_next(struct rng *rng)
{
	rng->state ^= rng->state << 13;
	rng->state ^= rng->state >> 7;
	rng->state ^= rng->state << 17;
	return rng->state;
}

static uint64_t rng_pick(struct rng *rng, const uint64_t *choices, size_t count)
{
	return choices[rng_next(rng) % count];
}

/* ---- records built byte by byte ----------------------------------- */

struct builder {
	uint64_t words[2048];		/* uint64_t: 8-byte aligned */
	size_t size;
};

static uint8_t *builder_bytes(struct builder *b)
{
	return (uint8_t *)b->words;
}

static void put_u8(struct builder *b, uint8_t value)
{
	ck_assert_uint_lt(b->size, sizeof(b->words));
	builder_bytes(b)[b->size++] = value;
}

/* Little-endian one byte at a time, as the file holds it. */
static void put_le(struct builder *b, uint64_t value, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		put_u8(b, (uint8_t)(value >> (8 * i)));
}

static void put_u16(struct builder *b, uint16_t value) { put_le(b, value, 2); }
static void put_u32(struct builder *b, uint32_t value) { put_le(b, value, 4); }
static void put_u64(struct builder *b, uint64_t value) { put_le(b, value, 8); }

static uint8_t pattern_byte(unsigned seed, size_t index)
{
	return (uint8_t)(seed * 37 + index * 11 + 1);
}

static void put_pattern(struct builder *b, unsigned seed, size_t count)
{
	for (size_t i = 0; i < count; i++)
		put_u8(b, pattern_byte(seed, i));
}

/* As the kernel writes strings: NUL, then zeros to the next 8 bytes. */
static void put_string(struct builder *b, const char *string)
{
	for (size_t i = 0; i <= strlen(string); i++)
		put_u8(b, (uint8_t)string[i]);
	while (b->size % 8)
		put_u8(b, 0);
}

static void begin_record(struct builder *b, uint32_t type, uint16_t misc)
{
	b->size = 0;
	put_u32(b, type);
	put_u16(b, misc);
	put_u16(b, 0);			/* size, set by end_record() */
}

static void set_header_size(uint8_t *record, size_t size)
{
	record[6] = (uint8_t)size;
	record[7] = (uint8_t)(size >> 8);
}

static void end_record(struct builder *b)
{
	ck_assert_uint_eq(b->size % 8, 0);
	ck_assert_uint_le(b->size, UINT16_MAX);
	set_header_size(builder_bytes(b), b->size);
}

/* An exact-size heap copy, so that AddressSanitizer sees any overread. */
static uint8_t *exact_copy(const void *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, data, size);
	return copy;
}

/* Asserts [pointer, pointer + bytes) lies inside the record. */
static void assert_inside(const void *record, size_t size, const void *pointer,
			  uint64_t bytes, const char *what)
{
	uintptr_t start = (uintptr_t)record, at = (uintptr_t)pointer;

	if (!pointer) {
		ck_assert_msg(bytes == 0, "%s: NULL with %" PRIu64 " bytes",
			      what, bytes);
		return;
	}
	ck_assert_msg(at >= start && at <= start + size &&
		      bytes <= start + size - at,
		      "%s: %" PRIu64 " bytes at offset %td, record of %zu",
		      what, bytes, (ptrdiff_t)(at - start), size);
}

/* ---- samples of every shape ---------------------------------------- */

enum field {
	F_IDENTIFIER = 1, F_IP, F_PID, F_TID, F_TIME, F_ADDR, F_ID,
	F_STREAM_ID, F_CPU, F_PERIOD, F_READ, F_CALLCHAIN, F_RAW, F_BRANCH,
	F_HW_INDEX, F_COUNTERS, F_REGS_USER, F_STACK, F_WEIGHT, F_DATA_SRC,
	F_TRANSACTION, F_REGS_INTR, F_PHYS_ADDR, F_CGROUP, F_DATA_PAGE_SIZE,
	F_CODE_PAGE_SIZE, F_AUX,
};

/* Distinct for every field and index: a field read from the wrong place shows. */
static uint64_t value_of(enum field field, uint64_t index)
{
	return (uint64_t)field << 56 | (index + 1) << 16 | 0x5a5a;
}

static uint32_t value32_of(enum field field)
{
	return (uint32_t)field << 24 | 0xa5a5;
}

/* A callchain with a kernel part and a user part, markers included. */
static uint64_t callchain_entry(uint64_t index, uint64_t nr)
{
	if (nr >= 4 && index == 0)
		return PERF_CONTEXT_KERNEL;
	if (nr >= 4 && index == nr / 2)
		return PERF_CONTEXT_USER;
	return value_of(F_CALLCHAIN, index);
}

/* What the attr and the variable-length parts of a sample look like. */
struct shape {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t group_nr;
	uint64_t callchain_nr;
	uint32_t raw_size;
	uint64_t branch_sample_type;
	uint64_t branch_nr;
	uint64_t regs_user_abi, regs_user_mask;
	uint64_t stack_size, stack_dyn_size;
	uint64_t regs_intr_abi, regs_intr_mask;
	uint64_t aux_size;
};

static void shape_attr(const struct shape *s, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_type = s->sample_type;
	attr->read_format = s->read_format;
	attr->branch_sample_type = s->branch_sample_type;
	attr->sample_regs_user = s->regs_user_mask;
	attr->sample_regs_intr = s->regs_intr_mask;
}

/* The shape of variant 0 is plain; others pick their sizes at random. */
static void shape_make(struct shape *s, uint64_t sample_type, unsigned variant)
{
	static const uint64_t masks[] = { 0, 1, 0x7, 0xff00ff, ~0ULL };
	static const uint64_t abis[] = { PERF_SAMPLE_REGS_ABI_64,
		PERF_SAMPLE_REGS_ABI_NONE, PERF_SAMPLE_REGS_ABI_32 };
	static const uint64_t branch_types[] = { 0, PERF_SAMPLE_BRANCH_HW_INDEX,
		BRANCH_COUNTERS | PERF_SAMPLE_BRANCH_ANY,
		PERF_SAMPLE_BRANCH_HW_INDEX | BRANCH_COUNTERS };
	static const uint64_t stack_sizes[] = { 0, 8, 64 };
	static const uint64_t small[] = { 0, 1, 3 };
	static const uint64_t chains[] = { 0, 1, 4, 9 };
	static const uint64_t raws[] = { 4, 12, 20, 60 };
	static const uint64_t auxes[] = { 0, 8, 24 };
	struct rng rng = { 0x9e3779b97f4a7c15ULL ^ variant };

	memset(s, 0, sizeof(*s));
	s->sample_type = sample_type;
	s->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	s->callchain_nr = 5;
	s->raw_size = 12;
	s->branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	s->branch_nr = 2;
	s->regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
	s->regs_user_mask = 0x7;
	s->stack_size = 16;
	s->stack_dyn_size = 8;
	s->regs_intr_abi = PERF_SAMPLE_REGS_ABI_64;
	s->regs_intr_mask = 0x3;
	s->aux_size = 16;
	if (!variant)
		return;
	s->read_format = variant % 32;	/* every read_format in 32 variants */
	s->group_nr = rng_pick(&rng, small, ARRAY_SIZE(small));
	s->callchain_nr = rng_pick(&rng, chains, ARRAY_SIZE(chains));
	s->raw_size = (uint32_t)rng_pick(&rng, raws, ARRAY_SIZE(raws));
	s->branch_sample_type = rng_pick(&rng, branch_types, ARRAY_SIZE(branch_types));
	s->branch_nr = rng_pick(&rng, small, ARRAY_SIZE(small));
	s->regs_user_abi = rng_pick(&rng, abis, ARRAY_SIZE(abis));
	s->regs_user_mask = rng_pick(&rng, masks, ARRAY_SIZE(masks));
	s->stack_size = rng_pick(&rng, stack_sizes, ARRAY_SIZE(stack_sizes));
	s->stack_dyn_size = rng_next(&rng) % (s->stack_size + 1);
	s->regs_intr_abi = rng_pick(&rng, abis, ARRAY_SIZE(abis));
	s->regs_intr_mask = rng_pick(&rng, masks, ARRAY_SIZE(masks));
	s->aux_size = rng_pick(&rng, auxes, ARRAY_SIZE(auxes));
}

static void put_read_values(struct builder *b, const struct shape *s)
{
	unsigned times = !!(s->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(s->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	unsigned extras = !!(s->read_format & PERF_FORMAT_ID) +
			  !!(s->read_format & PERF_FORMAT_LOST);
	uint64_t words = s->read_format & PERF_FORMAT_GROUP ?
		times + s->group_nr * (1 + extras) : times + 1 + extras;
	uint64_t index = 0;

	if (s->read_format & PERF_FORMAT_GROUP) {
		put_u64(b, s->group_nr);
		index = 1;
		words++;
	}
	for (; index < words; index++)
		put_u64(b, value_of(F_READ, index));
}

static void put_regs(struct builder *b, enum field field, uint64_t abi,
		     uint64_t mask)
{
	put_u64(b, abi);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	for (int i = 0; i < __builtin_popcountll(mask); i++)
		put_u64(b, value_of(field, i));
}

static void put_branch_stack(struct builder *b, const struct shape *s)
{
	put_u64(b, s->branch_nr);
	if (s->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		put_u64(b, value_of(F_HW_INDEX, 0));
	for (uint64_t i = 0; i < 3 * s->branch_nr; i++)
		put_u64(b, value_of(F_BRANCH, i));	/* from, to, flags */
	if (s->branch_sample_type & BRANCH_COUNTERS)
		for (uint64_t i = 0; i < s->branch_nr; i++)
			put_u64(b, value_of(F_COUNTERS, i));
}

/* The order of perf_output_sample() in kernel/events/core.c. */
static void build_sample(struct builder *b, const struct shape *s)
{
	uint64_t type = s->sample_type;

	begin_record(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(b, value_of(F_IDENTIFIER, 0));
	if (type & PERF_SAMPLE_IP)
		put_u64(b, value_of(F_IP, 0));
	if (type & PERF_SAMPLE_TID) {
		put_u32(b, value32_of(F_PID));
		put_u32(b, value32_of(F_TID));
	}
	if (type & PERF_SAMPLE_TIME)
		put_u64(b, value_of(F_TIME, 0));
	if (type & PERF_SAMPLE_ADDR)
		put_u64(b, value_of(F_ADDR, 0));
	if (type & PERF_SAMPLE_ID)
		put_u64(b, value_of(F_ID, 0));
	if (type & PERF_SAMPLE_STREAM_ID)
		put_u64(b, value_of(F_STREAM_ID, 0));
	if (type & PERF_SAMPLE_CPU) {
		put_u32(b, value32_of(F_CPU));
		put_u32(b, 0xdeadbeef);		/* res: must be ignored */
	}
	if (type & PERF_SAMPLE_PERIOD)
		put_u64(b, value_of(F_PERIOD, 0));
	if (type & PERF_SAMPLE_READ)
		put_read_values(b, s);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		put_u64(b, s->callchain_nr);
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			put_u64(b, callchain_entry(i, s->callchain_nr));
	}
	if (type & PERF_SAMPLE_RAW) {
		put_u32(b, s->raw_size);
		put_pattern(b, F_RAW, s->raw_size);
	}
	if (type & PERF_SAMPLE_BRANCH_STACK)
		put_branch_stack(b, s);
	if (type & PERF_SAMPLE_REGS_USER)
		put_regs(b, F_REGS_USER, s->regs_user_abi, s->regs_user_mask);
	if (type & PERF_SAMPLE_STACK_USER) {
		put_u64(b, s->stack_size);
		if (s->stack_size) {
			put_pattern(b, F_STACK, s->stack_size);
			put_u64(b, s->stack_dyn_size);
		}
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put_u64(b, value_of(F_WEIGHT, 0));
	if (type & PERF_SAMPLE_DATA_SRC)
		put_u64(b, value_of(F_DATA_SRC, 0));
	if (type & PERF_SAMPLE_TRANSACTION)
		put_u64(b, value_of(F_TRANSACTION, 0));
	if (type & PERF_SAMPLE_REGS_INTR)
		put_regs(b, F_REGS_INTR, s->regs_intr_abi, s->regs_intr_mask);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		put_u64(b, value_of(F_PHYS_ADDR, 0));
	if (type & PERF_SAMPLE_CGROUP)
		put_u64(b, value_of(F_CGROUP, 0));
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(b, value_of(F_DATA_PAGE_SIZE, 0));
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(b, value_of(F_CODE_PAGE_SIZE, 0));
	if (type & PERF_SAMPLE_AUX) {
		put_u64(b, s->aux_size);
		put_pattern(b, F_AUX, s->aux_size);
	}
	end_record(b);
}

#define EXPECT(actual, expected)					\
	ck_assert_msg((uint64_t)(actual) == (uint64_t)(expected),	\
		      "%s: %s is %#" PRIx64 ", expected %#" PRIx64,	\
		      context, #actual, (uint64_t)(actual),		\
		      (uint64_t)(expected))

#define IF_SET(bit, value) (s->sample_type & (bit) ? (value) : 0)

static void expect_pattern(const char *context, const void *data, uint64_t size,
			   unsigned seed)
{
	const uint8_t *bytes = data;

	for (uint64_t i = 0; i < size; i++)
		ck_assert_msg(bytes[i] == pattern_byte(seed, i),
			      "%s: byte %" PRIu64 " of field %u", context, i, seed);
}

static void expect_regs(const char *context, const struct prf_regs *regs,
			enum field field, uint64_t abi, uint64_t mask, int present)
{
	uint64_t count = present && abi ? __builtin_popcountll(mask) : 0;

	EXPECT(regs->abi, present ? abi : 0);
	EXPECT(regs->mask, present ? mask : 0);
	EXPECT(regs->count, count);
	if (!count)
		return;
	ck_assert_uint_eq((uintptr_t)regs->regs % 8, 0);
	for (uint64_t i = 0; i < count; i++)
		EXPECT(regs->regs[i], value_of(field, i));
}

static void expect_read_values(const char *context, const struct shape *s,
			       const struct prf_sample *sample)
{
	uint64_t words = 0, first = 0;
	unsigned times = !!(s->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(s->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	unsigned extras = !!(s->read_format & PERF_FORMAT_ID) +
			  !!(s->read_format & PERF_FORMAT_LOST);

	if (!(s->sample_type & PERF_SAMPLE_READ)) {
		ck_assert_ptr_null(sample->read_values);
	} else if (s->read_format & PERF_FORMAT_GROUP) {
		words = 1 + times + s->group_nr * (1 + extras);
		EXPECT(sample->read_values[0], s->group_nr);
		first = 1;
	} else {
		words = times + 1 + extras;
	}
	EXPECT(sample->read_size, words);
	for (uint64_t i = first; i < words; i++)
		EXPECT(sample->read_values[i], value_of(F_READ, i));
}

static void expect_branches(const char *context, const struct shape *s,
			    const struct prf_sample *sample)
{
	int present = !!(s->sample_type & PERF_SAMPLE_BRANCH_STACK);
	int hw_index = s->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;

	EXPECT(sample->branch_nr, present ? s->branch_nr : 0);
	EXPECT(sample->branch_hw_index,
	       present && hw_index ? value_of(F_HW_INDEX, 0) : 0);
	if (!present || !s->branch_nr)
		return;
	ck_assert_uint_eq((uintptr_t)sample->branches % 8, 0);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		uint64_t words[3];

		memcpy(words, &sample->branches[i], sizeof(words));
		for (int k = 0; k < 3; k++)
			EXPECT(words[k], value_of(F_BRANCH, 3 * i + k));
	}
}

static void expect_stack_and_aux(const char *context, const struct shape *s,
				 const struct prf_sample *sample)
{
	int stack = !!(s->sample_type & PERF_SAMPLE_STACK_USER);
	int aux = !!(s->sample_type & PERF_SAMPLE_AUX);

	EXPECT(sample->stack_user_size, stack ? s->stack_size : 0);
	EXPECT(sample->stack_user_dyn_size, stack ? s->stack_dyn_size : 0);
	expect_pattern(context, sample->stack_user, sample->stack_user_size, F_STACK);
	EXPECT(sample->aux_size, aux ? s->aux_size : 0);
	expect_pattern(context, sample->aux, sample->aux_size, F_AUX);
}

/* Every field of struct prf_sample: present ones equal, absent ones 0. */
static void expect_sample(const struct shape *s, const void *record,
			  size_t size, const struct prf_sample *sample)
{
	char context[160];

	snprintf(context, sizeof(context),
		 "sample_type %#" PRIx64 " read_format %#" PRIx64
		 " branch_sample_type %#" PRIx64, s->sample_type,
		 s->read_format, s->branch_sample_type);
	EXPECT(sample->sample_type, s->sample_type);
	EXPECT(sample->misc, PERF_RECORD_MISC_USER);
	EXPECT(sample->identifier, IF_SET(PERF_SAMPLE_IDENTIFIER, value_of(F_IDENTIFIER, 0)));
	EXPECT(sample->ip, IF_SET(PERF_SAMPLE_IP, value_of(F_IP, 0)));
	EXPECT(sample->pid, IF_SET(PERF_SAMPLE_TID, value32_of(F_PID)));
	EXPECT(sample->tid, IF_SET(PERF_SAMPLE_TID, value32_of(F_TID)));
	EXPECT(sample->time, IF_SET(PERF_SAMPLE_TIME, value_of(F_TIME, 0)));
	EXPECT(sample->addr, IF_SET(PERF_SAMPLE_ADDR, value_of(F_ADDR, 0)));
	EXPECT(sample->id, IF_SET(PERF_SAMPLE_ID, value_of(F_ID, 0)));
	EXPECT(sample->stream_id, IF_SET(PERF_SAMPLE_STREAM_ID, value_of(F_STREAM_ID, 0)));
	EXPECT(sample->cpu, IF_SET(PERF_SAMPLE_CPU, value32_of(F_CPU)));
	EXPECT(sample->period, IF_SET(PERF_SAMPLE_PERIOD, value_of(F_PERIOD, 0)));
	expect_read_values(context, s, sample);
	EXPECT(sample->callchain_nr, IF_SET(PERF_SAMPLE_CALLCHAIN, s->callchain_nr));
	for (uint64_t i = 0; i < sample->callchain_nr; i++)
		EXPECT(sample->callchain[i], callchain_entry(i, s->callchain_nr));
	EXPECT(sample->raw_size, IF_SET(PERF_SAMPLE_RAW, s->raw_size));
	expect_pattern(context, sample->raw, sample->raw_size, F_RAW);
	expect_branches(context, s, sample);
	expect_regs(context, &sample->regs_user, F_REGS_USER, s->regs_user_abi,
		    s->regs_user_mask, !!(s->sample_type & PERF_SAMPLE_REGS_USER));
	expect_stack_and_aux(context, s, sample);
	EXPECT(sample->weight, IF_SET(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
				      value_of(F_WEIGHT, 0)));
	EXPECT(sample->data_src, IF_SET(PERF_SAMPLE_DATA_SRC, value_of(F_DATA_SRC, 0)));
	EXPECT(sample->transaction, IF_SET(PERF_SAMPLE_TRANSACTION, value_of(F_TRANSACTION, 0)));
	expect_regs(context, &sample->regs_intr, F_REGS_INTR, s->regs_intr_abi,
		    s->regs_intr_mask, !!(s->sample_type & PERF_SAMPLE_REGS_INTR));
	EXPECT(sample->phys_addr, IF_SET(PERF_SAMPLE_PHYS_ADDR, value_of(F_PHYS_ADDR, 0)));
	EXPECT(sample->cgroup, IF_SET(PERF_SAMPLE_CGROUP, value_of(F_CGROUP, 0)));
	EXPECT(sample->data_page_size, IF_SET(PERF_SAMPLE_DATA_PAGE_SIZE, value_of(F_DATA_PAGE_SIZE, 0)));
	EXPECT(sample->code_page_size, IF_SET(PERF_SAMPLE_CODE_PAGE_SIZE, value_of(F_CODE_PAGE_SIZE, 0)));
	assert_inside(record, size, sample->callchain, sample->callchain_nr * 8, "callchain");
	assert_inside(record, size, sample->read_values, sample->read_size * 8ULL, "read");
	assert_inside(record, size, sample->branches, sample->branch_nr * 24, "branches");
}

/* Builds the shape, decodes it both ways, checks every field. */
/*
 * prf_sample_callchain() finds what the whole decode found, and no
 * record cut short of the callchain's end passes (each cut an exact
 * copy, so that ASan sees a read past it).
 */
static void expect_callchain_found(const struct perf_event_attr *attr, const uint8_t *record,
				   size_t size, const struct prf_sample *sample)
{
	uint64_t type = attr->sample_type, ip, nr;
	const uint64_t *chain;
	size_t end;

	ck_assert_int_eq(prf_sample_callchain(attr, record, size, &ip, &chain, &nr), 0);
	ck_assert_uint_eq(ip, type & PERF_SAMPLE_IP ? sample->ip : 0);
	ck_assert_uint_eq(nr, type & PERF_SAMPLE_CALLCHAIN ? sample->callchain_nr : 0);
	if (nr)
		ck_assert_ptr_eq(chain, sample->callchain);
	if (!nr)
		return;
	end = (size_t)((const uint8_t *)(chain + nr) - record);
	for (size_t cut = 8; cut < end; cut += 8) {
		uint8_t *copy = exact_copy(record, cut);

		ck_assert_int_eq(prf_sample_callchain(attr, copy, cut, &ip, &chain, &nr), -EBADMSG);
		free(copy);
	}
}

static void round_trip_shape(const struct shape *s)
{
	struct perf_event_attr attr;
	struct prf_decoded decoded;
	struct prf_sample sample;
	struct builder b;
	uint8_t *copy;
	int err;

	shape_attr(s, &attr);
	build_sample(&b, s);
	copy = exact_copy(b.words, b.size);
	err = prf_decode_sample(&attr, copy, b.size, &sample);
	ck_assert_msg(err == 0, "sample_type %#" PRIx64 ": %d", s->sample_type, err);
	expect_sample(s, copy, b.size, &sample);
	expect_callchain_found(&attr, copy, b.size, &sample);

	ck_assert_int_eq(prf_decode_record(&attr, copy, b.size, &decoded), 1);
	ck_assert_uint_eq(decoded.type, PERF_RECORD_SAMPLE);
	expect_sample(s, copy, b.size, &decoded.sample);
	ck_assert_uint_eq(decoded.id.sample_type, 0);
	free(copy);
}

START_TEST(each_sample_bit_alone)
{
	struct shape s;

	for (unsigned variant = 0; variant < 16; variant++) {
		shape_make(&s, 1ULL << _i, variant);
		round_trip_shape(&s);
	}
}
END_TEST

START_TEST(all_sample_bits_together)
{
	struct shape s;

	for (unsigned variant = 0; variant < 256; variant++) {
		shape_make(&s, ALL_SAMPLE_TYPES, variant);
		round_trip_shape(&s);
	}
}
END_TEST

START_TEST(random_sample_bit_sets)
{
	struct rng rng = { 0x5eed };
	struct shape s;

	for (unsigned variant = 0; variant < 3000; variant++) {
		shape_make(&s, rng_next(&rng) & ALL_SAMPLE_TYPES, variant);
		round_trip_shape(&s);
	}
}
END_TEST

/* The live test's layout, written out by hand from perf_event_open(2). */
START_TEST(literal_callchain_sample)
{
	_Alignas(8) static const uint8_t record[] = {
		0x09, 0x00, 0x00, 0x00, 0x02, 0x40, 0x58, 0x00, /* SAMPLE, USER|EXACT_IP, 88 */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* identifier */
		0xb0, 0xa0, 0x55, 0x55, 0x55, 0x55, 0x00, 0x00, /* ip */
		0x34, 0x12, 0x00, 0x00, 0x35, 0x12, 0x00, 0x00, /* pid, tid */
		0x01, 0x00, 0x00, 0x00, 0x7f, 0x01, 0x00, 0x00, /* time */
		0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* cpu, res */
		0xa0, 0x86, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* period */
		0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* nr */
		0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* PERF_CONTEXT_USER */
		0xb0, 0xa0, 0x55, 0x55, 0x55, 0x55, 0x00, 0x00,
		0x23, 0xa1, 0x55, 0x55, 0x55, 0x55, 0x00, 0x00,
	};
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			       PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN,
	};
	struct prf_sample sample;

	ck_assert_int_eq(prf_decode_sample(&attr, record, sizeof(record), &sample), 0);
	ck_assert_uint_eq(sample.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
	ck_assert_uint_eq(sample.identifier, 0x1122334455667788ULL);
	ck_assert_uint_eq(sample.ip, 0x55555555a0b0ULL);
	ck_assert_uint_eq(sample.pid, 0x1234);
	ck_assert_uint_eq(sample.tid, 0x1235);
	ck_assert_uint_eq(sample.time, 0x17f00000001ULL);
	ck_assert_uint_eq(sample.cpu, 3);
	ck_assert_uint_eq(sample.period, 100000);
	ck_assert_uint_eq(sample.callchain_nr, 3);
	ck_assert_ptr_eq(sample.callchain, (const void *)(record + 64));
	ck_assert_uint_eq(sample.callchain[0], PERF_CONTEXT_USER);
	ck_assert_uint_eq(sample.callchain[1], 0x55555555a0b0ULL);
	ck_assert_uint_eq(sample.callchain[2], 0x55555555a123ULL);
}
END_TEST

/* RAW's odd alignment, a branch with hw_idx and its flag bits, regs. */
START_TEST(literal_raw_branch_regs_sample)
{
	_Alignas(8) static const uint8_t record[] = {
		0x09, 0x00, 0x00, 0x00, 0x02, 0x00, 0x50, 0x00, /* SAMPLE, 80 */
		0x04, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, /* raw size 4, data */
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* bnr */
		0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* hw_idx */
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* from */
		0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* to */
		0x52, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* predicted, cycles 5 */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* abi 64 */
		0xaa, 0xaa, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xbb, 0xbb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
			       PERF_SAMPLE_REGS_USER,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				      PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0x5,
	};
	struct prf_sample sample;

	ck_assert_int_eq(prf_decode_sample(&attr, record, sizeof(record), &sample), 0);
	ck_assert_uint_eq(sample.raw_size, 4);
	ck_assert_int_eq(memcmp(sample.raw, "\xde\xad\xbe\xef", 4), 0);
	ck_assert_uint_eq(sample.branch_nr, 1);
	ck_assert_uint_eq(sample.branch_hw_index, 7);
	ck_assert_uint_eq(sample.branches[0].from, 0x1000);
	ck_assert_uint_eq(sample.branches[0].to, 0x2000);
	ck_assert_uint_eq(sample.branches[0].mispred, 0);
	ck_assert_uint_eq(sample.branches[0].predicted, 1);
	ck_assert_uint_eq(sample.branches[0].cycles, 5);
	ck_assert_uint_eq(sample.regs_user.abi, PERF_SAMPLE_REGS_ABI_64);
	ck_assert_uint_eq(sample.regs_user.mask, 0x5);
	ck_assert_uint_eq(sample.regs_user.count, 2);
	ck_assert_uint_eq(sample.regs_user.regs[0], 0xaaaa);
	ck_assert_uint_eq(sample.regs_user.regs[1], 0xbbbb);
}
END_TEST

/* The kernel's order at the end, which the uapi comment gets wrong. */
START_TEST(literal_tail_order_sample)
{
	_Alignas(8) static const uint8_t record[] = {
		0x09, 0x00, 0x00, 0x00, 0x01, 0x00, 0x40, 0x00, /* SAMPLE, 64 */
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* phys_addr */
		0x01, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* cgroup */
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* data_page_size */
		0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, /* code_page_size */
		0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* aux size 16 */
		'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H',
		'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P',
	};
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			       PERF_SAMPLE_DATA_PAGE_SIZE |
			       PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX,
	};
	struct prf_sample sample;

	ck_assert_int_eq(prf_decode_sample(&attr, record, sizeof(record), &sample), 0);
	ck_assert_uint_eq(sample.phys_addr, 0x1000);
	ck_assert_uint_eq(sample.cgroup, 0x2001);
	ck_assert_uint_eq(sample.data_page_size, 4096);
	ck_assert_uint_eq(sample.code_page_size, 0x200000);
	ck_assert_uint_eq(sample.aux_size, 16);
	ck_assert_int_eq(memcmp(sample.aux, "ABCDEFGHIJKLMNOP", 16), 0);
}
END_TEST

/* ---- side-band records, with and without trailers ----------------- */

/* The trailer configurations every side-band record is tried with. */
struct trailer_case {
	int attr_given;
	int sample_id_all;
	uint64_t sample_type;
};

static const struct trailer_case trailer_cases[] = {
	{ 0, 0, 0 },					/* attr NULL */
	{ 1, 0, PERF_SAMPLE_TID | PERF_SAMPLE_TIME },	/* no sample_id_all */
	{ 1, 1, 0 },					/* empty trailer */
	{ 1, 1, PERF_SAMPLE_TID },
	{ 1, 1, PERF_SAMPLE_TIME },
	{ 1, 1, PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID },
	{ 1, 1, PERF_SAMPLE_CPU },
	{ 1, 1, PERF_SAMPLE_IDENTIFIER },
	{ 1, 1, PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER },
	{ 1, 1, ALL_SAMPLE_TYPES },			/* id fields and others */
};

static const struct prf_sample_id trailer_values = {
	.pid = 0x51, .tid = 0x52, .time = 0x5300000000000053ULL,
	.id = 0x5400000000000054ULL, .stream_id = 0x5500000000000055ULL,
	.cpu = 0x56, .identifier = 0x5700000000000057ULL,
};

static const struct perf_event_attr *trailer_attr(const struct trailer_case *t,
						  struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_type = t->sample_type;
	attr->sample_id_all = t->sample_id_all;
	attr->build_id = 1;	/* the MMAP2 cases include build-id bodies */
	return t->attr_given ? attr : NULL;
}

/* The trailer in the order of struct sample_id in linux/perf_event.h. */
static void put_trailer(struct builder *b, const struct perf_event_attr *attr)
{
	const struct prf_sample_id *v = &trailer_values;
	uint64_t type;

	if (!attr || !attr->sample_id_all)
		return;
	type = attr->sample_type;
	if (type & PERF_SAMPLE_TID) {
		put_u32(b, v->pid);
		put_u32(b, v->tid);
	}
	if (type & PERF_SAMPLE_TIME)
		put_u64(b, v->time);
	if (type & PERF_SAMPLE_ID)
		put_u64(b, v->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		put_u64(b, v->stream_id);
	if (type & PERF_SAMPLE_CPU) {
		put_u32(b, v->cpu);
		put_u32(b, 0xffffffff);		/* res */
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(b, v->identifier);
}

static void expect_trailer(const struct perf_event_attr *attr,
			   const struct prf_sample_id *id)
{
	const char *context = "trailer";
	uint64_t type = attr && attr->sample_id_all ?
			attr->sample_type & ID_FIELDS : 0;
	const struct prf_sample_id *v = &trailer_values;

	EXPECT(id->sample_type, type);
	EXPECT(id->pid, type & PERF_SAMPLE_TID ? v->pid : 0);
	EXPECT(id->tid, type & PERF_SAMPLE_TID ? v->tid : 0);
	EXPECT(id->time, type & PERF_SAMPLE_TIME ? v->time : 0);
	EXPECT(id->id, type & PERF_SAMPLE_ID ? v->id : 0);
	EXPECT(id->stream_id, type & PERF_SAMPLE_STREAM_ID ? v->stream_id : 0);
	EXPECT(id->cpu, type & PERF_SAMPLE_CPU ? v->cpu : 0);
	EXPECT(id->identifier, type & PERF_SAMPLE_IDENTIFIER ? v->identifier : 0);
}

static const uint8_t build_id_bytes[PRF_BUILD_ID_MAX] = {
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19,
	0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23,
};

static void make_mmap(struct builder *b)
{
	begin_record(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put_u32(b, 100);
	put_u32(b, 101);
	put_u64(b, 0x7f0000001000ULL);
	put_u64(b, 0x2000);
	put_u64(b, 0x1000);
	put_string(b, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

static void check_mmap(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->mmap.pid, 100);
	ck_assert_uint_eq(d->mmap.tid, 101);
	ck_assert_uint_eq(d->mmap.start, 0x7f0000001000ULL);
	ck_assert_uint_eq(d->mmap.length, 0x2000);
	ck_assert_uint_eq(d->mmap.page_offset, 0x1000);
	ck_assert_int_eq(d->mmap.has_build_id, 0);
	ck_assert_uint_eq(d->mmap.major + d->mmap.minor + d->mmap.inode, 0);
	ck_assert_uint_eq(d->mmap.prot + d->mmap.flags, 0);
	ck_assert_str_eq(d->mmap.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

static void put_mmap2_head(struct builder *b, uint16_t misc)
{
	begin_record(b, PERF_RECORD_MMAP2, misc);
	put_u32(b, 200);
	put_u32(b, 201);
	put_u64(b, 0x400000);
	put_u64(b, 0x3000);
	put_u64(b, 0);
}

static void make_mmap2_inode(struct builder *b)
{
	put_mmap2_head(b, PERF_RECORD_MISC_USER);
	put_u32(b, 259);		/* major */
	put_u32(b, 3);			/* minor */
	put_u64(b, 0x123456789ULL);
	put_u64(b, 42);
	put_u32(b, PROT_READ | PROT_EXEC);
	put_u32(b, MAP_PRIVATE);
	put_string(b, "/bin/true");
}

static void check_mmap2_common(const struct prf_decoded *d, const char *name)
{
	ck_assert_uint_eq(d->mmap.pid, 200);
	ck_assert_uint_eq(d->mmap.tid, 201);
	ck_assert_uint_eq(d->mmap.start, 0x400000);
	ck_assert_uint_eq(d->mmap.length, 0x3000);
	ck_assert_uint_eq(d->mmap.page_offset, 0);
	ck_assert_uint_eq(d->mmap.prot, PROT_READ | PROT_EXEC);
	ck_assert_uint_eq(d->mmap.flags, MAP_PRIVATE);
	ck_assert_str_eq(d->mmap.filename, name);
}

static void check_mmap2_inode(const struct prf_decoded *d)
{
	check_mmap2_common(d, "/bin/true");
	ck_assert_int_eq(d->mmap.has_build_id, 0);
	ck_assert_uint_eq(d->mmap.major, 259);
	ck_assert_uint_eq(d->mmap.minor, 3);
	ck_assert_uint_eq(d->mmap.inode, 0x123456789ULL);
	ck_assert_uint_eq(d->mmap.inode_generation, 42);
	ck_assert_uint_eq(d->mmap.build_id_size, 0);
}

static void put_mmap2_build_id(struct builder *b, uint8_t size,
			       const char *name)
{
	put_mmap2_head(b, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_u8(b, size);
	put_u8(b, 0xee);		/* __reserved_1 */
	put_u16(b, 0xeeee);		/* __reserved_2 */
	for (int i = 0; i < PRF_BUILD_ID_MAX; i++)
		put_u8(b, build_id_bytes[i]);
	put_u32(b, PROT_READ | PROT_EXEC);
	put_u32(b, MAP_PRIVATE);
	put_string(b, name);
}

static void make_mmap2_build_id(struct builder *b)
{
	put_mmap2_build_id(b, PRF_BUILD_ID_MAX, "/usr/bin/perfrecd");
}

static void check_mmap2_build_id(const struct prf_decoded *d)
{
	check_mmap2_common(d, "/usr/bin/perfrecd");
	ck_assert_int_eq(d->mmap.has_build_id, 1);
	ck_assert_uint_eq(d->mmap.build_id_size, PRF_BUILD_ID_MAX);
	ck_assert_int_eq(memcmp(d->mmap.build_id, build_id_bytes, PRF_BUILD_ID_MAX), 0);
	ck_assert_uint_eq(d->mmap.major + d->mmap.minor + d->mmap.inode, 0);
}

/* A 16-byte build-id (MD5-style): the 4 bytes after it are not part of it. */
static void make_mmap2_short_build_id(struct builder *b)
{
	put_mmap2_build_id(b, 16, "x");
}

static void check_mmap2_short_build_id(const struct prf_decoded *d)
{
	static const uint8_t zeros[4];

	check_mmap2_common(d, "x");
	ck_assert_uint_eq(d->mmap.build_id_size, 16);
	ck_assert_int_eq(memcmp(d->mmap.build_id, build_id_bytes, 16), 0);
	ck_assert_int_eq(memcmp(d->mmap.build_id + 16, zeros, 4), 0);
}

static void make_comm(struct builder *b)
{
	begin_record(b, PERF_RECORD_COMM, 0);
	put_u32(b, 300);
	put_u32(b, 301);
	put_string(b, "bash");
}

static void check_comm(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->comm.pid, 300);
	ck_assert_uint_eq(d->comm.tid, 301);
	ck_assert_int_eq(d->comm.exec, 0);
	ck_assert_str_eq(d->comm.comm, "bash");
}

/* 15 characters and the NUL fill 16 bytes exactly: no padding. */
static void make_comm_exec(struct builder *b)
{
	begin_record(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put_u32(b, 302);
	put_u32(b, 302);
	put_string(b, "perfrec-test-15");
	ck_assert_uint_eq(b->size, 32);
}

static void check_comm_exec(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->comm.pid, 302);
	ck_assert_int_eq(d->comm.exec, 1);
	ck_assert_str_eq(d->comm.comm, "perfrec-test-15");
}

static void put_task(struct builder *b, uint32_t type)
{
	begin_record(b, type, 0);
	put_u32(b, 400);
	put_u32(b, 401);
	put_u32(b, 402);
	put_u32(b, 403);
	put_u64(b, 0x4040404040ULL);
}

static void make_fork(struct builder *b) { put_task(b, PERF_RECORD_FORK); }
static void make_exit(struct builder *b) { put_task(b, PERF_RECORD_EXIT); }

static void check_task(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->task.pid, 400);
	ck_assert_uint_eq(d->task.ppid, 401);
	ck_assert_uint_eq(d->task.tid, 402);
	ck_assert_uint_eq(d->task.ptid, 403);
	ck_assert_uint_eq(d->task.time, 0x4040404040ULL);
}

static void make_lost(struct builder *b)
{
	begin_record(b, PERF_RECORD_LOST, 0);
	put_u64(b, 0x500);
	put_u64(b, 17);
}

static void check_lost(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->lost.id, 0x500);
	ck_assert_uint_eq(d->lost.lost, 17);
}

static void make_lost_samples(struct builder *b)
{
	begin_record(b, PERF_RECORD_LOST_SAMPLES, 0);
	put_u64(b, 99);
}

static void check_lost_samples(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->lost.id, 0);
	ck_assert_uint_eq(d->lost.lost, 99);
}

static void put_throttle(struct builder *b, uint32_t type)
{
	begin_record(b, type, 0);
	put_u64(b, 0x600000000006ULL);
	put_u64(b, 0x601);
	put_u64(b, 0x602);
}

static void make_throttle(struct builder *b) { put_throttle(b, PERF_RECORD_THROTTLE); }
static void make_unthrottle(struct builder *b) { put_throttle(b, PERF_RECORD_UNTHROTTLE); }

static void check_throttle(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->throttle.time, 0x600000000006ULL);
	ck_assert_uint_eq(d->throttle.id, 0x601);
	ck_assert_uint_eq(d->throttle.stream_id, 0x602);
}

static void make_ksymbol(struct builder *b)
{
	begin_record(b, PERF_RECORD_KSYMBOL, 0);
	put_u64(b, 0xffffffffc0001000ULL);
	put_u32(b, 0x140);
	put_u16(b, PERF_RECORD_KSYMBOL_TYPE_BPF);
	put_u16(b, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
	put_string(b, "bpf_prog_6deef7357e7b4530_sd_devices");
}

static void check_ksymbol(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->ksymbol.addr, 0xffffffffc0001000ULL);
	ck_assert_uint_eq(d->ksymbol.length, 0x140);
	ck_assert_uint_eq(d->ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	ck_assert_uint_eq(d->ksymbol.flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
	ck_assert_str_eq(d->ksymbol.name, "bpf_prog_6deef7357e7b4530_sd_devices");
}

static void make_cgroup(struct builder *b)
{
	begin_record(b, PERF_RECORD_CGROUP, 0);
	put_u64(b, 0x1234);
	put_string(b, "/system.slice/perfrecd.service");
}

static void check_cgroup(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->cgroup.id, 0x1234);
	ck_assert_str_eq(d->cgroup.path, "/system.slice/perfrecd.service");
}

static void make_switch_in(struct builder *b)
{
	begin_record(b, PERF_RECORD_SWITCH, 0);
}

static void check_switch_in(const struct prf_decoded *d)
{
	ck_assert_int_eq(d->context_switch.out, 0);
	ck_assert_int_eq(d->context_switch.preempt, 0);
	ck_assert_uint_eq(d->context_switch.next_prev_pid, 0);
}

static void make_switch_preempted(struct builder *b)
{
	begin_record(b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT |
		     PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
}

static void check_switch_preempted(const struct prf_decoded *d)
{
	ck_assert_int_eq(d->context_switch.out, 1);
	ck_assert_int_eq(d->context_switch.preempt, 1);
}

static void make_switch_cpu_wide(struct builder *b)
{
	begin_record(b, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	put_u32(b, 700);
	put_u32(b, 701);
}

static void check_switch_cpu_wide(const struct prf_decoded *d)
{
	ck_assert_int_eq(d->context_switch.out, 1);
	ck_assert_int_eq(d->context_switch.preempt, 0);
	ck_assert_uint_eq(d->context_switch.next_prev_pid, 700);
	ck_assert_uint_eq(d->context_switch.next_prev_tid, 701);
}

static void make_namespaces(struct builder *b)
{
	begin_record(b, PERF_RECORD_NAMESPACES, 0);
	put_u32(b, 800);
	put_u32(b, 801);
	put_u64(b, NR_NAMESPACES);
	for (int i = 0; i < NR_NAMESPACES; i++) {
		put_u64(b, 0x80 + i);		/* dev */
		put_u64(b, 0xf0000000ULL + i);	/* ino */
	}
}

static void check_namespaces(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->namespaces.pid, 800);
	ck_assert_uint_eq(d->namespaces.tid, 801);
	ck_assert_uint_eq(d->namespaces.count, NR_NAMESPACES);
	ck_assert_uint_eq((uintptr_t)d->namespaces.links % 8, 0);
	for (int i = 0; i < NR_NAMESPACES; i++) {
		ck_assert_uint_eq(d->namespaces.links[i].dev, 0x80 + i);
		ck_assert_uint_eq(d->namespaces.links[i].ino, 0xf0000000ULL + i);
	}
}

static void make_no_namespaces(struct builder *b)
{
	begin_record(b, PERF_RECORD_NAMESPACES, 0);
	put_u32(b, 802);
	put_u32(b, 803);
	put_u64(b, 0);
}

static void check_no_namespaces(const struct prf_decoded *d)
{
	ck_assert_uint_eq(d->namespaces.pid, 802);
	ck_assert_uint_eq(d->namespaces.count, 0);
}

struct side_band_case {
	const char *name;
	uint32_t type;
	void (*make)(struct builder *b);	/* header and body */
	void (*check)(const struct prf_decoded *decoded);
};

static const struct side_band_case side_band_cases[] = {
	{ "mmap", PERF_RECORD_MMAP, make_mmap, check_mmap },
	{ "mmap2 inode", PERF_RECORD_MMAP2, make_mmap2_inode, check_mmap2_inode },
	{ "mmap2 build-id", PERF_RECORD_MMAP2, make_mmap2_build_id, check_mmap2_build_id },
	{ "mmap2 short build-id", PERF_RECORD_MMAP2, make_mmap2_short_build_id,
	  check_mmap2_short_build_id },
	{ "comm", PERF_RECORD_COMM, make_comm, check_comm },
	{ "comm exec", PERF_RECORD_COMM, make_comm_exec, check_comm_exec },
	{ "fork", PERF_RECORD_FORK, make_fork, check_task },
	{ "exit", PERF_RECORD_EXIT, make_exit, check_task },
	{ "lost", PERF_RECORD_LOST, make_lost, check_lost },
	{ "lost samples", PERF_RECORD_LOST_SAMPLES, make_lost_samples, check_lost_samples },
	{ "throttle", PERF_RECORD_THROTTLE, make_throttle, check_throttle },
	{ "unthrottle", PERF_RECORD_UNTHROTTLE, make_unthrottle, check_throttle },
	{ "ksymbol", PERF_RECORD_KSYMBOL, make_ksymbol, check_ksymbol },
	{ "cgroup", PERF_RECORD_CGROUP, make_cgroup, check_cgroup },
	{ "switch in", PERF_RECORD_SWITCH, make_switch_in, check_switch_in },
	{ "switch preempted", PERF_RECORD_SWITCH, make_switch_preempted,
	  check_switch_preempted },
	{ "switch cpu-wide", PERF_RECORD_SWITCH_CPU_WIDE, make_switch_cpu_wide,
	  check_switch_cpu_wide },
	{ "namespaces", PERF_RECORD_NAMESPACES, make_namespaces, check_namespaces },
	{ "no namespaces", PERF_RECORD_NAMESPACES, make_no_namespaces,
	  check_no_namespaces },
};

static void build_side_band(struct builder *b, const struct side_band_case *c,
			    const struct perf_event_attr *attr)
{
	c->make(b);
	put_trailer(b, attr);
	end_record(b);
}

START_TEST(side_band_records)
{
	const struct trailer_case *t = &trailer_cases[_i];
	struct perf_event_attr attr_storage;
	const struct perf_event_attr *attr = trailer_attr(t, &attr_storage);

	for (size_t k = 0; k < ARRAY_SIZE(side_band_cases); k++) {
		const struct side_band_case *c = &side_band_cases[k];
		struct prf_decoded decoded;
		struct prf_sample_id id;
		size_t body_size, trailer;
		struct builder b;
		uint8_t *copy;
		int err;

		c->make(&b);
		body_size = b.size;
		put_trailer(&b, attr);
		end_record(&b);
		trailer = b.size - body_size;
		copy = exact_copy(b.words, b.size);

		err = prf_decode_record(attr, copy, b.size, &decoded);
		ck_assert_msg(err == 1, "%s, trailer case %d: %d", c->name, _i, err);
		ck_assert_uint_eq(decoded.type, c->type);
		c->check(&decoded);
		expect_trailer(attr, &decoded.id);

		ck_assert_int_eq(prf_decode_sample_id(attr, copy, b.size, &id,
						      &body_size), 0);
		ck_assert_uint_eq(body_size, b.size - trailer);
		expect_trailer(attr, &id);
		free(copy);
	}
}
END_TEST

/* Without its attr, a record's trailer is just more body: still decodes. */
START_TEST(side_band_without_attr_keeps_trailer_in_body)
{
	struct perf_event_attr attr;

	trailer_attr(&trailer_cases[ARRAY_SIZE(trailer_cases) - 1], &attr);
	for (size_t k = 0; k < ARRAY_SIZE(side_band_cases); k++) {
		const struct side_band_case *c = &side_band_cases[k];
		struct prf_decoded decoded;
		struct builder b;

		build_side_band(&b, c, &attr);
		ck_assert_int_eq(prf_decode_record(NULL, b.words, b.size, &decoded), 1);
		c->check(&decoded);
		ck_assert_uint_eq(decoded.id.sample_type, 0);
		ck_assert_uint_eq(decoded.id.time, 0);
	}
}
END_TEST

/*
 * Linux 6.18 sets MMAP_BUILD_ID in the MMAP2 records of every event once
 * one event on the machine asks for build-ids, over a body of device and
 * inode for the events that did not: their attr says which body it is.
 */
START_TEST(mmap2_build_id_flag_without_attr_build_id)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct prf_decoded decoded;
	struct builder b;

	put_mmap2_head(&b, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_u32(&b, 254);		/* major: not a build-id size */
	put_u32(&b, 3);
	put_u64(&b, 0x123456789ULL);
	put_u64(&b, 42);
	put_u32(&b, PROT_READ | PROT_EXEC);
	put_u32(&b, MAP_PRIVATE);
	put_string(&b, "/bin/true");
	end_record(&b);
	ck_assert_int_eq(prf_decode_record(&attr, b.words, b.size, &decoded), 1);
	check_mmap2_common(&decoded, "/bin/true");
	ck_assert_int_eq(decoded.mmap.has_build_id, 0);
	ck_assert_uint_eq(decoded.mmap.major, 254);
	ck_assert_uint_eq(decoded.mmap.minor, 3);
	ck_assert_uint_eq(decoded.mmap.inode, 0x123456789ULL);
	ck_assert_uint_eq(decoded.mmap.inode_generation, 42);

	/* An event that asked: the same flag means a build-id, and 254 is no size. */
	attr.build_id = 1;
	ck_assert_int_eq(prf_decode_record(&attr, b.words, b.size, &decoded), -EBADMSG);

	/* And a real build-id body under an attr that asked is still one. */
	make_mmap2_build_id(&b);
	end_record(&b);
	ck_assert_int_eq(prf_decode_record(&attr, b.words, b.size, &decoded), 1);
	check_mmap2_build_id(&decoded);
}
END_TEST

/* Types struct prf_decoded has no member for: 0, framing still checked. */
START_TEST(unknown_types_are_skipped)
{
	static const uint32_t types[] = {
		0, PERF_RECORD_READ, PERF_RECORD_AUX, PERF_RECORD_ITRACE_START,
		PERF_RECORD_BPF_EVENT, PERF_RECORD_TEXT_POKE,
		PERF_RECORD_AUX_OUTPUT_HW_ID, PERF_RECORD_MAX, 1000,
	};
	struct prf_decoded decoded;
	struct builder b;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		begin_record(&b, types[i], 0);
		put_u64(&b, 1);
		put_u64(&b, 2);
		end_record(&b);
		ck_assert_int_eq(prf_decode_record(NULL, b.words, b.size, &decoded), 0);
		ck_assert_uint_eq(decoded.type, types[i]);
		set_header_size(builder_bytes(&b), 12);
		ck_assert_int_eq(prf_decode_record(NULL, b.words, b.size, &decoded),
				 -EBADMSG);
	}

	/* perfrec's records: a prf_record_header, whose u16 slot is 0. */
	b.size = 0;
	put_u32(&b, PRF_RECORD_STATS);
	put_u16(&b, 0);
	put_u16(&b, 0);
	put_u32(&b, sizeof(struct prf_stats_record));
	put_u32(&b, 0);
	while (b.size < sizeof(struct prf_stats_record))
		put_u8(&b, 0);
	ck_assert_int_eq(prf_decode_record(NULL, b.words, b.size, &decoded), 0);
	ck_assert_uint_eq(decoded.type, PRF_RECORD_STATS);
}
END_TEST

/* ---- hostile records ----------------------------------------------- */

/* Decodes an exact heap copy: must be refused with err, and leave nothing. */
static void expect_refused_as(const struct perf_event_attr *attr,
			      const void *record, size_t size, int expected,
			      const char *what)
{
	static const struct prf_decoded empty;
	uint8_t *copy = exact_copy(record, size);
	struct prf_decoded decoded;
	int err;

	err = prf_decode_record(attr, copy, size, &decoded);
	ck_assert_msg(err == expected, "%s: %d, expected %d", what, err, expected);
	if (size >= 8 && copy[0] == PERF_RECORD_SAMPLE)
		ck_assert_int_eq(prf_decode_sample(attr, copy, size, &decoded.sample),
				 expected);
	decoded.type = 0;
	ck_assert_msg(!memcmp(&decoded, &empty, sizeof(decoded)),
		      "%s: refused but decoded fields left", what);
	free(copy);
}

static void expect_refused(const struct perf_event_attr *attr,
			   const struct builder *b, const char *what)
{
	expect_refused_as(attr, b->words, b->size, -EBADMSG, what);
}

static void expect_accepted(const struct perf_event_attr *attr,
			    const struct builder *b, const char *what)
{
	uint8_t *copy = exact_copy(b->words, b->size);
	struct prf_decoded decoded;
	int err = prf_decode_record(attr, copy, b->size, &decoded);

	ck_assert_msg(err == 1, "%s: control case refused with %d", what, err);
	free(copy);
}

/* Cut to every shorter length, header size made to agree or not. */
static void expect_every_truncation_refused(const struct perf_event_attr *attr,
					    const struct builder *b,
					    const char *what)
{
	for (size_t length = 0; length < b->size; length++) {
		uint8_t *copy = exact_copy(b->words, length);
		struct prf_decoded decoded;
		int err;

		err = prf_decode_record(attr, copy, length, &decoded);
		ck_assert_msg(err == -EBADMSG, "%s cut to %zu: %d", what, length, err);
		if (length >= 8) {
			set_header_size(copy, length);
			err = prf_decode_record(attr, copy, length, &decoded);
			ck_assert_msg(err == -EBADMSG, "%s cut to %zu, size agreeing: %d",
				      what, length, err);
		}
		free(copy);
	}
}

START_TEST(truncated_samples)
{
	struct perf_event_attr attr;
	struct builder b;
	struct shape s;

	for (unsigned variant = 0; variant < 64; variant++) {
		shape_make(&s, variant % 2 ? ALL_SAMPLE_TYPES :
			   ALL_SAMPLE_TYPES & ~(uint64_t)PERF_SAMPLE_AUX, variant);
		shape_attr(&s, &attr);
		build_sample(&b, &s);
		expect_every_truncation_refused(&attr, &b, "sample");
	}
	for (unsigned bit = 0; bit < SAMPLE_BITS; bit++) {
		shape_make(&s, 1ULL << bit, 0);
		shape_attr(&s, &attr);
		build_sample(&b, &s);
		expect_every_truncation_refused(&attr, &b, "one-field sample");
	}
}
END_TEST

START_TEST(truncated_side_band_records)
{
	struct perf_event_attr attr_storage;

	for (size_t t = 0; t < ARRAY_SIZE(trailer_cases); t++) {
		const struct perf_event_attr *attr =
			trailer_attr(&trailer_cases[t], &attr_storage);

		for (size_t k = 0; k < ARRAY_SIZE(side_band_cases); k++) {
			struct builder b;

			build_side_band(&b, &side_band_cases[k], attr);
			expect_every_truncation_refused(attr, &b,
							side_band_cases[k].name);
		}
	}
}
END_TEST

/* A sample with a single variable field whose count lies. */
static void lying_sample(struct builder *b, uint64_t count, size_t words_after)
{
	begin_record(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_u64(b, count);
	for (size_t i = 0; i < words_after; i++)
		put_u64(b, 0x1111111111111111ULL * (i + 1));
	end_record(b);
}

/* Counts chosen so that count * element size wraps to something small. */
static const uint64_t huge_counts[] = {
	UINT64_MAX, 1ULL << 63, 1ULL << 61, (1ULL << 61) + 1, 1ULL << 60,
	((1ULL << 61) + 1) / 3, 0x10000, 3,
};

START_TEST(lying_callchain_and_read_counts)
{
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_CALLCHAIN };
	struct builder b;

	lying_sample(&b, 2, 2);
	expect_accepted(&attr, &b, "callchain nr 2");
	for (size_t i = 0; i < ARRAY_SIZE(huge_counts); i++) {
		lying_sample(&b, huge_counts[i], 2);
		expect_refused(&attr, &b, "callchain nr");
	}

	attr.sample_type = PERF_SAMPLE_READ;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	lying_sample(&b, 1, 3);
	expect_accepted(&attr, &b, "read group nr 1");
	for (size_t i = 0; i < ARRAY_SIZE(huge_counts); i++) {
		lying_sample(&b, huge_counts[i], 3);
		expect_refused(&attr, &b, "read group nr");
	}
	/* Not a group: all five u64s, and only four there. */
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
			   PERF_FORMAT_LOST;
	lying_sample(&b, 1, 4);
	expect_accepted(&attr, &b, "read of 5 words");
	lying_sample(&b, 1, 3);
	expect_refused(&attr, &b, "read of 5 words, 4 present");
}
END_TEST

static void raw_sample(struct builder *b, uint32_t size, size_t data_bytes)
{
	begin_record(b, PERF_RECORD_SAMPLE, 0);
	put_u32(b, size);
	put_pattern(b, 1, data_bytes);
	end_record(b);
}

START_TEST(lying_raw_sizes)
{
	static const uint32_t sizes[] = {
		0, 1, 2, 5, 8, 11, 12, 20, 0xfffffffc, 0xfffffff4, 0xffffffff,
	};
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_RAW };
	struct builder b;

	raw_sample(&b, 4, 4);
	expect_accepted(&attr, &b, "raw size 4");
	raw_sample(&b, 12, 12);
	expect_accepted(&attr, &b, "raw size 12");
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		raw_sample(&b, sizes[i], 4);
		expect_refused(&attr, &b, "raw size");
	}
}
END_TEST

START_TEST(lying_branch_counts)
{
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_BRANCH_STACK };
	struct builder b;

	lying_sample(&b, 1, 3);
	expect_accepted(&attr, &b, "bnr 1");
	for (size_t i = 0; i < ARRAY_SIZE(huge_counts); i++) {
		lying_sample(&b, huge_counts[i], 3);
		expect_refused(&attr, &b, "bnr");
	}
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	lying_sample(&b, 1, 3);
	expect_refused(&attr, &b, "bnr 1 and hw_idx, one word short");
	lying_sample(&b, 1, 4);
	expect_accepted(&attr, &b, "bnr 1 with hw_idx");
	for (size_t i = 0; i < ARRAY_SIZE(huge_counts); i++) {
		lying_sample(&b, huge_counts[i], 4);
		expect_refused(&attr, &b, "bnr with hw_idx");
	}
	attr.branch_sample_type = BRANCH_COUNTERS;
	lying_sample(&b, 1, 3);
	expect_refused(&attr, &b, "bnr 1 without its counter");
	lying_sample(&b, 1, 4);
	expect_accepted(&attr, &b, "bnr 1 with its counter");
}
END_TEST

static void regs_sample(struct builder *b, uint64_t abi, size_t regs)
{
	lying_sample(b, abi, regs);
}

START_TEST(lying_regs)
{
	static const uint64_t types[] = { PERF_SAMPLE_REGS_USER, PERF_SAMPLE_REGS_INTR };
	struct builder b;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		struct perf_event_attr attr = {
			.sample_type = types[i],
			.sample_regs_user = 0x7,
			.sample_regs_intr = 0x7,
		};

		regs_sample(&b, PERF_SAMPLE_REGS_ABI_64, 3);
		expect_accepted(&attr, &b, "3 regs for mask 0x7");
		regs_sample(&b, PERF_SAMPLE_REGS_ABI_64, 2);
		expect_refused(&attr, &b, "2 regs for mask 0x7");
		regs_sample(&b, PERF_SAMPLE_REGS_ABI_NONE, 0);
		expect_accepted(&attr, &b, "abi none, no regs");
		regs_sample(&b, PERF_SAMPLE_REGS_ABI_NONE, 3);
		expect_refused(&attr, &b, "abi none, regs left over");
		attr.sample_regs_user = ~0ULL;
		attr.sample_regs_intr = ~0ULL;
		regs_sample(&b, PERF_SAMPLE_REGS_ABI_32, 3);
		expect_refused(&attr, &b, "3 regs for mask ~0");
		regs_sample(&b, PERF_SAMPLE_REGS_ABI_32, 64);
		expect_accepted(&attr, &b, "64 regs for mask ~0");
	}
}
END_TEST

static void stack_sample(struct builder *b, uint64_t size, size_t data_bytes,
			 int with_dyn_size, uint64_t dyn_size)
{
	begin_record(b, PERF_RECORD_SAMPLE, 0);
	put_u64(b, size);
	put_pattern(b, 2, data_bytes);
	if (with_dyn_size)
		put_u64(b, dyn_size);
	end_record(b);
}

START_TEST(lying_user_stack)
{
	static const uint64_t sizes[] = {
		UINT64_MAX, UINT64_MAX - 7, 1ULL << 63, 1ULL << 61, 24, 32, 12, 4,
	};
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_STACK_USER };
	struct builder b;

	stack_sample(&b, 16, 16, 1, 16);
	expect_accepted(&attr, &b, "stack 16, dyn 16");
	stack_sample(&b, 0, 0, 0, 0);
	expect_accepted(&attr, &b, "stack 0 without dyn_size");
	stack_sample(&b, 0, 0, 1, 0);
	expect_refused(&attr, &b, "stack 0 with a dyn_size");
	stack_sample(&b, 16, 16, 0, 0);
	expect_refused(&attr, &b, "stack 16 without dyn_size");
	stack_sample(&b, 16, 16, 1, 17);
	expect_refused(&attr, &b, "dyn_size 17 > size 16");
	stack_sample(&b, 16, 16, 1, UINT64_MAX);
	expect_refused(&attr, &b, "dyn_size huge");
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		stack_sample(&b, sizes[i], 16, 1, 0);
		expect_refused(&attr, &b, "stack size");
	}
}
END_TEST

/* ---- the user-stack trim -------------------------------------------- */

#define TRIM_REGS_MASK	0xff01ffULL	/* perfrecd's x86_64 mask: 17 registers */

/*
 * A sample as perfrecd's dwarf event makes it, with fields after the
 * stack when `after` is set: stack_size bytes reserved, the first
 * dyn_size of them from pattern 5, the rest junk (0xee) as a ring holds.
 * With `trimmed`, laid out as perfrec-format(5) says the trim leaves it.
 */
static void trim_attr(struct perf_event_attr *attr, int after)
{
	memset(attr, 0, sizeof(*attr));
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (after)
		attr->sample_type |= PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
				     PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR;
	attr->sample_regs_user = TRIM_REGS_MASK;
	attr->sample_regs_intr = 0x3;
	attr->sample_stack_user = 256;
}

static void trim_sample(struct builder *b, int after, uint64_t stack_size,
			uint64_t dyn_size, int trimmed)
{
	uint64_t kept = trimmed ? (dyn_size + 7) / 8 * 8 : stack_size;

	if (trimmed && !kept)
		kept = 8;	/* size 0 would drop dyn_size */

	begin_record(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_u64(b, 0x77);			/* identifier */
	put_u64(b, 0x401234);			/* ip */
	put_u32(b, 42);
	put_u32(b, 43);				/* pid, tid */
	put_u64(b, 1000000);			/* time */
	put_u32(b, 1);
	put_u32(b, 0);				/* cpu, res */
	put_u64(b, 10101);			/* period */
	put_u64(b, 2);				/* callchain: kernel part only */
	put_u64(b, PERF_CONTEXT_KERNEL);
	put_u64(b, 0xffffffff81000000ULL);
	put_u64(b, PERF_SAMPLE_REGS_ABI_64);
	for (unsigned i = 0; i < 17; i++)
		put_u64(b, 0x1000 + i);
	put_u64(b, stack_size ? kept : 0);
	if (stack_size) {
		put_pattern(b, 5, dyn_size);
		for (uint64_t i = dyn_size; i < kept; i++)
			put_u8(b, trimmed ? 0 : 0xee);
		put_u64(b, dyn_size);
	}
	if (after) {
		put_u64(b, 99);			/* weight */
		put_u64(b, 0xdada);		/* data_src */
		put_u64(b, PERF_SAMPLE_REGS_ABI_64);
		put_u64(b, 0xa0);
		put_u64(b, 0xa1);		/* regs_intr */
		put_u64(b, 0xfeed000);		/* phys_addr */
	}
	end_record(b);
}

START_TEST(stack_trim_keeps_the_live_stack)
{
	static const uint64_t dyn_sizes[] = { 0, 1, 7, 8, 9, 100, 248, 249, 255, 256 };
	static struct builder in, expected;
	struct perf_event_attr attr;
	int after = _i;

	trim_attr(&attr, after);
	for (size_t i = 0; i < ARRAY_SIZE(dyn_sizes); i++) {
		uint64_t dyn = dyn_sizes[i];
		uint8_t *copy, *out;
		struct prf_sample sample;
		int size;

		trim_sample(&in, after, 256, dyn, 0);
		trim_sample(&expected, after, 256, dyn, 1);
		copy = exact_copy(in.words, in.size);
		out = malloc(in.size);
		ck_assert_ptr_nonnull(out);
		size = prf_sample_trim_stack_user(&attr, copy, in.size, out, in.size);
		if (expected.size == in.size) {
			ck_assert_msg(size == 0, "dyn_size %" PRIu64 ": %d for nothing to cut",
				      dyn, size);
		} else {
			ck_assert_msg(size == (int)expected.size,
				      "dyn_size %" PRIu64 ": size %d, expected %zu",
				      dyn, size, expected.size);
			ck_assert_msg(!memcmp(out, expected.words, expected.size),
				      "dyn_size %" PRIu64 ": bytes differ from the spec's", dyn);
			/* The trimmed sample decodes, with the stack as it was. */
			ck_assert_int_eq(prf_decode_sample(&attr, out, (size_t)size, &sample), 0);
			ck_assert_uint_eq(sample.stack_user_size, dyn ? (dyn + 7) / 8 * 8 : 8);
			ck_assert_uint_eq(sample.stack_user_dyn_size, dyn);
			ck_assert_uint_eq(sample.regs_user.count, 17);
			ck_assert_uint_eq(sample.regs_user.regs[16], 0x1000 + 16);
			ck_assert_uint_eq(sample.callchain_nr, 2);
			for (uint64_t j = 0; j < dyn; j++)
				ck_assert_uint_eq(((const uint8_t *)sample.stack_user)[j],
						  pattern_byte(5, j));
			if (after) {
				ck_assert_uint_eq(sample.weight, 99);
				ck_assert_uint_eq(sample.data_src, 0xdada);
				ck_assert_uint_eq(sample.regs_intr.regs[1], 0xa1);
				ck_assert_uint_eq(sample.phys_addr, 0xfeed000);
			}
			/* A trimmed sample has nothing left to cut. */
			ck_assert_int_eq(prf_sample_trim_stack_user(&attr, out, (size_t)size,
								    copy, in.size), 0);
			/* Too little room: refused, not overrun. */
			ck_assert_int_eq(prf_sample_trim_stack_user(&attr, copy, in.size, out,
								    expected.size - 1), -ENOSPC);
		}
		free(out);
		free(copy);
	}
}
END_TEST

START_TEST(stack_trim_leaves_other_samples)
{
	static struct builder b;
	struct perf_event_attr attr;
	uint64_t out[64];

	/* No stack at all (a kernel thread): size 0 and no dyn_size. */
	trim_attr(&attr, 0);
	trim_sample(&b, 0, 0, 0, 0);
	ck_assert_int_eq(prf_sample_trim_stack_user(&attr, b.words, b.size, out,
						    sizeof(out)), 0);
	/* An event without user stacks. */
	attr.sample_type = PERF_SAMPLE_IP;
	begin_record(&b, PERF_RECORD_SAMPLE, 0);
	put_u64(&b, 0x401000);
	end_record(&b);
	ck_assert_int_eq(prf_sample_trim_stack_user(&attr, b.words, b.size, out,
						    sizeof(out)), 0);
	ck_assert_int_eq(prf_sample_trim_stack_user(NULL, b.words, b.size, out,
						    sizeof(out)), -EINVAL);
}
END_TEST

/* What the decoder refuses, the trim refuses too: it never guesses. */
START_TEST(stack_trim_refuses_hostile_samples)
{
	static struct builder b;
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_STACK_USER,
					.sample_stack_user = 16 };
	static uint64_t out[8192];
	static const struct { uint64_t size; size_t data; int dyn; uint64_t dyn_size; } cases[] = {
		{ 16, 16, 1, 17 },		/* dyn_size above size */
		{ 16, 16, 1, UINT64_MAX },
		{ 16, 16, 0, 0 },		/* no dyn_size */
		{ 12, 16, 1, 8 },		/* size not a multiple of 8 */
		{ 1ULL << 61, 16, 1, 8 },	/* size beyond the record */
		{ UINT64_MAX - 7, 16, 1, 8 },
		{ 64, 16, 1, 8 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint8_t *copy;

		stack_sample(&b, cases[i].size, cases[i].data, cases[i].dyn, cases[i].dyn_size);
		copy = exact_copy(b.words, b.size);
		ck_assert_msg(prf_sample_trim_stack_user(&attr, copy, b.size, out,
							 sizeof(out)) == -EBADMSG,
			      "case %zu not refused", i);
		free(copy);
	}
	/* The control: a size other than the attr's is fine, and trimmed. */
	stack_sample(&b, 32, 32, 1, 8);
	ck_assert_int_eq(prf_sample_trim_stack_user(&attr, b.words, b.size, out,
						    sizeof(out)), (int)b.size - 24);
	stack_sample(&b, 16, 16, 1, 8);
	expect_accepted(&attr, &b, "stack 16 under an attr asking 16");
	stack_sample(&b, 8, 8, 1, 8);
	expect_accepted(&attr, &b, "stack 8, trimmed, under an attr asking 16");
}
END_TEST

START_TEST(lying_aux_and_namespaces)
{
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_AUX };
	struct builder b;

	lying_sample(&b, 16, 2);
	expect_accepted(&attr, &b, "aux 16");
	for (size_t i = 0; i < ARRAY_SIZE(huge_counts); i++) {
		lying_sample(&b, huge_counts[i], 2);
		expect_refused(&attr, &b, "aux size");
	}
	lying_sample(&b, 12, 2);
	expect_refused(&attr, &b, "aux size 12 in 16 bytes");

	for (size_t i = 0; i < ARRAY_SIZE(huge_counts); i++) {
		begin_record(&b, PERF_RECORD_NAMESPACES, 0);
		put_u64(&b, 0x0000000100000001ULL);
		put_u64(&b, huge_counts[i]);
		put_u64(&b, 1);
		put_u64(&b, 2);
		end_record(&b);
		expect_refused(NULL, &b, "namespaces count");
	}
}
END_TEST

/* Strings filling the body to the end, with no NUL before the trailer. */
static void put_unterminated(struct builder *b)
{
	for (int i = 0; i < 16; i++)
		put_u8(b, 'A' + i);
}

START_TEST(unterminated_strings)
{
	static const uint32_t types[] = {
		PERF_RECORD_MMAP, PERF_RECORD_MMAP2, PERF_RECORD_COMM,
		PERF_RECORD_KSYMBOL, PERF_RECORD_CGROUP,
	};
	static const size_t fixed[] = { 32, 64, 8, 16, 8 };
	struct perf_event_attr attr;
	struct builder b;

	/* The trailer's pid 0x51 holds zero bytes: they must not count. */
	trailer_attr(&trailer_cases[ARRAY_SIZE(trailer_cases) - 1], &attr);
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		for (int misc = 0; misc < 2; misc++) {
			begin_record(&b, types[i], misc ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
			for (size_t k = 0; k < fixed[i]; k++)
				put_u8(&b, 0);
			put_unterminated(&b);
			put_trailer(&b, &attr);
			end_record(&b);
			expect_refused(&attr, &b, prf_record_type_name(types[i]));

			/* No room at all for the string. */
			begin_record(&b, types[i], misc ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
			for (size_t k = 0; k < fixed[i]; k++)
				put_u8(&b, 0);
			end_record(&b);
			expect_refused(NULL, &b, "string missing");
		}
	}
}
END_TEST

START_TEST(impossible_build_id_sizes)
{
	static const uint8_t sizes[] = { 21, 24, 255 };
	struct builder b;

	put_mmap2_build_id(&b, PRF_BUILD_ID_MAX, "ok");
	end_record(&b);
	expect_accepted(NULL, &b, "build-id of 20");
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		put_mmap2_build_id(&b, sizes[i], "too long");
		end_record(&b);
		expect_refused(NULL, &b, "build-id size");
	}
}
END_TEST

/* Fixed-size records one u64 short of their fields, and oversized trailers. */
START_TEST(short_fixed_records)
{
	static const struct { uint32_t type; size_t size; } shortest[] = {
		{ PERF_RECORD_FORK, 32 }, { PERF_RECORD_EXIT, 32 },
		{ PERF_RECORD_LOST, 24 }, { PERF_RECORD_LOST_SAMPLES, 16 },
		{ PERF_RECORD_THROTTLE, 32 }, { PERF_RECORD_UNTHROTTLE, 32 },
		{ PERF_RECORD_SWITCH_CPU_WIDE, 16 }, { PERF_RECORD_NAMESPACES, 24 },
		{ PERF_RECORD_MMAP, 40 }, { PERF_RECORD_MMAP2, 72 },
		{ PERF_RECORD_COMM, 16 }, { PERF_RECORD_KSYMBOL, 24 },
		{ PERF_RECORD_CGROUP, 16 },
	};
	struct perf_event_attr attr;
	struct builder b;

	trailer_attr(&trailer_cases[ARRAY_SIZE(trailer_cases) - 1], &attr);
	for (size_t i = 0; i < ARRAY_SIZE(shortest); i++) {
		begin_record(&b, shortest[i].type, 0);
		while (b.size < shortest[i].size - 8)
			put_u8(&b, 0);
		end_record(&b);
		expect_refused(NULL, &b, prf_record_type_name(shortest[i].type));
		put_trailer(&b, &attr);
		end_record(&b);
		expect_refused(&attr, &b, "short, with trailer");
	}
	/* A 48-byte trailer in a 24-byte record. */
	make_lost(&b);
	end_record(&b);
	expect_refused(&attr, &b, "trailer larger than the record");
}
END_TEST

START_TEST(bad_framing)
{
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_IP };
	_Alignas(8) uint8_t shifted[40];
	struct prf_decoded decoded;
	struct prf_sample_id id;
	struct prf_sample sample;
	size_t body_size;
	struct builder b;

	lying_sample(&b, 0x1234, 0);
	expect_accepted(&attr, &b, "one ip");
	expect_refused_as(&attr, b.words, 12, -EBADMSG, "size 12, header 16");
	expect_refused_as(&attr, b.words, 4, -EBADMSG, "size 4");
	set_header_size(builder_bytes(&b), 24);
	expect_refused_as(&attr, b.words, 16, -EBADMSG, "header size 24, size 16");
	lying_sample(&b, 0x1234, 1);
	expect_refused(&attr, &b, "a u64 after the last field");

	/* Misaligned: the uint64_t pointers handed out would be too. */
	lying_sample(&b, 0x1234, 0);
	memcpy(shifted + 4, b.words, b.size);
	ck_assert_int_eq(prf_decode_sample(&attr, shifted + 4, b.size, &sample), -EBADMSG);
	ck_assert_int_eq(prf_decode_record(&attr, shifted + 4, b.size, &decoded), -EBADMSG);
	make_lost(&b);
	end_record(&b);
	memcpy(shifted + 4, b.words, b.size);
	ck_assert_int_eq(prf_decode_record(NULL, shifted + 4, b.size, &decoded), -EBADMSG);
	ck_assert_int_eq(prf_decode_sample_id(NULL, shifted + 4, b.size, &id,
					      &body_size), -EBADMSG);

	/* Layouts this decoder cannot know, and calls that make no sense. */
	lying_sample(&b, 0x1234, 0);
	attr.sample_type = PERF_SAMPLE_IP | 1ULL << SAMPLE_BITS;
	ck_assert_int_eq(prf_decode_sample(&attr, b.words, b.size, &sample), -EOPNOTSUPP);
	attr.sample_type = PERF_SAMPLE_READ;
	attr.read_format = 1ULL << 5;
	ck_assert_int_eq(prf_decode_sample(&attr, b.words, b.size, &sample), -EOPNOTSUPP);
	ck_assert_int_eq(prf_decode_sample(NULL, b.words, b.size, &sample), -EINVAL);
	ck_assert_int_eq(prf_decode_record(NULL, b.words, b.size, &decoded), -EINVAL);
	ck_assert_int_eq(prf_decode_record(&attr, NULL, 16, &decoded), -EINVAL);
	make_lost(&b);
	end_record(&b);
	ck_assert_int_eq(prf_decode_sample(&attr, b.words, b.size, &sample), -EINVAL);
}
END_TEST

/* Whatever decodes from damaged bytes must point inside the record. */
static void expect_decoded_inside(const uint8_t *record, size_t size,
				  const struct prf_decoded *d)
{
	const struct prf_sample *s = &d->sample;
	const char *string = NULL;

	switch (d->type) {
	case PERF_RECORD_SAMPLE:
		assert_inside(record, size, s->read_values, s->read_size * 8ULL, "read");
		assert_inside(record, size, s->callchain, s->callchain_nr * 8, "callchain");
		assert_inside(record, size, s->raw, s->raw_size, "raw");
		assert_inside(record, size, s->branches, s->branch_nr * 24, "branches");
		assert_inside(record, size, s->regs_user.regs, s->regs_user.count * 8ULL, "regs");
		assert_inside(record, size, s->stack_user, s->stack_user_size, "stack");
		assert_inside(record, size, s->regs_intr.regs, s->regs_intr.count * 8ULL, "regs");
		assert_inside(record, size, s->aux, s->aux_size, "aux");
		ck_assert_uint_le(s->stack_user_dyn_size, s->stack_user_size);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		string = d->mmap.filename;
		ck_assert_uint_le(d->mmap.build_id_size, PRF_BUILD_ID_MAX);
		break;
	case PERF_RECORD_COMM:
		string = d->comm.comm;
		break;
	case PERF_RECORD_KSYMBOL:
		string = d->ksymbol.name;
		break;
	case PERF_RECORD_CGROUP:
		string = d->cgroup.path;
		break;
	case PERF_RECORD_NAMESPACES:
		assert_inside(record, size, d->namespaces.links,
			      d->namespaces.count * 16, "namespaces");
		return;
	}
	if (string) {
		assert_inside(record, size, string, 1, "string");
		ck_assert_ptr_nonnull(memchr(string, '\0', record + size - (const uint8_t *)string));
	}
}

static void mutate(struct rng *rng, uint8_t *record, size_t size)
{
	static const uint64_t interesting[] = {
		0, 1, 7, 8, 0xff, 0xffff, 0x7fffffff, 0xffffffff,
		1ULL << 61, (1ULL << 61) + 1, ((1ULL << 61) + 1) / 3, UINT64_MAX,
	};
	unsigned changes = 1 + rng_next(rng) % 4;

	for (unsigned i = 0; i < changes; i++) {
		uint64_t pick = rng_next(rng);
		size_t at = 8 + pick % (size - 8);	/* keep type and size */

		if (pick & (1ULL << 40) && at + 8 <= size) {
			uint64_t value = interesting[rng_next(rng) % ARRAY_SIZE(interesting)];

			memcpy(record + (at & ~(size_t)7), &value, sizeof(value));
		} else {
			record[at] ^= (uint8_t)(1u << (rng_next(rng) % 8));
		}
	}
}

static void fuzz_record(struct rng *rng, const struct perf_event_attr *attr,
			const struct builder *b, unsigned rounds)
{
	for (unsigned round = 0; round < rounds && b->size > 8; round++) {
		uint8_t *copy = exact_copy(b->words, b->size);
		struct prf_decoded decoded;

		mutate(rng, copy, b->size);
		if (prf_decode_record(attr, copy, b->size, &decoded) == 1)
			expect_decoded_inside(copy, b->size, &decoded);
		free(copy);
	}
}

START_TEST(damaged_records_never_escape)
{
	struct perf_event_attr attr_storage, attr;
	struct rng rng = { 0xdecade };
	struct builder b;
	struct shape s;

	for (unsigned variant = 0; variant < 40; variant++) {
		shape_make(&s, ALL_SAMPLE_TYPES, variant);
		shape_attr(&s, &attr);
		build_sample(&b, &s);
		fuzz_record(&rng, &attr, &b, 500);
	}
	for (size_t t = 0; t < ARRAY_SIZE(trailer_cases); t++) {
		const struct perf_event_attr *trailer =
			trailer_attr(&trailer_cases[t], &attr_storage);

		for (size_t k = 0; k < ARRAY_SIZE(side_band_cases); k++) {
			build_side_band(&b, &side_band_cases[k], trailer);
			fuzz_record(&rng, trailer, &b, 200);
		}
	}
}
END_TEST

START_TEST(record_type_names)
{
	static const struct { uint32_t type; const char *name; } names[] = {
		{ PERF_RECORD_MMAP, "MMAP" }, { PERF_RECORD_LOST, "LOST" },
		{ PERF_RECORD_COMM, "COMM" }, { PERF_RECORD_EXIT, "EXIT" },
		{ PERF_RECORD_THROTTLE, "THROTTLE" },
		{ PERF_RECORD_UNTHROTTLE, "UNTHROTTLE" },
		{ PERF_RECORD_FORK, "FORK" }, { PERF_RECORD_READ, "READ" },
		{ PERF_RECORD_SAMPLE, "SAMPLE" }, { PERF_RECORD_MMAP2, "MMAP2" },
		{ PERF_RECORD_AUX, "AUX" }, { PERF_RECORD_ITRACE_START, "ITRACE_START" },
		{ PERF_RECORD_LOST_SAMPLES, "LOST_SAMPLES" },
		{ PERF_RECORD_SWITCH, "SWITCH" },
		{ PERF_RECORD_SWITCH_CPU_WIDE, "SWITCH_CPU_WIDE" },
		{ PERF_RECORD_NAMESPACES, "NAMESPACES" },
		{ PERF_RECORD_KSYMBOL, "KSYMBOL" }, { PERF_RECORD_BPF_EVENT, "BPF_EVENT" },
		{ PERF_RECORD_CGROUP, "CGROUP" }, { PERF_RECORD_TEXT_POKE, "TEXT_POKE" },
		{ PERF_RECORD_AUX_OUTPUT_HW_ID, "AUX_OUTPUT_HW_ID" },
		{ PRF_RECORD_BUILD_ID, "BUILD_ID" }, { PRF_RECORD_KALLSYMS, "KALLSYMS" },
		{ PRF_RECORD_KERNEL_MODULE, "KERNEL_MODULE" },
		{ PRF_RECORD_SNAPSHOT_BEGIN, "SNAPSHOT_BEGIN" },
		{ PRF_RECORD_SNAPSHOT_END, "SNAPSHOT_END" },
		{ PRF_RECORD_STATS, "STATS" }, { PRF_RECORD_LOST_NOTE, "LOST_NOTE" },
		{ PRF_RECORD_KERNEL_SYMBOL, "KERNEL_SYMBOL" },
	};
	static const uint32_t unknown[] = {
		0, PERF_RECORD_MAX, 0xffff, PRF_RECORD_BASE, PRF_RECORD_KERNEL_SYMBOL + 1,
		PRF_RECORD_BASE + 0x100, UINT32_MAX,
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		ck_assert_ptr_nonnull(prf_record_type_name(names[i].type));
		ck_assert_str_eq(prf_record_type_name(names[i].type), names[i].name);
	}
	for (uint32_t type = 1; type < PERF_RECORD_MAX; type++)
		ck_assert_ptr_nonnull(prf_record_type_name(type));
	for (size_t i = 0; i < ARRAY_SIZE(unknown); i++)
		ck_assert_ptr_null(prf_record_type_name(unknown[i]));
}
END_TEST

/* ---- live: the kernel's own records --------------------------------- */

#define LIVE_PERIOD_NS	100000
#define LIVE_BURN_NS	200000000
#define LIVE_COMM	"prf-decode-live"

/* The burn code has its own section, so the linker tells its exact bounds. */
#if defined(__clang__)
#define BURN_CODE __attribute__((noinline, section("prf_burn_text")))
#else
#define BURN_CODE __attribute__((noinline, noclone, section("prf_burn_text")))
#endif

extern const char __executable_start[], etext[];
extern const char __start_prf_burn_text[], __stop_prf_burn_text[];

static volatile uint64_t burn_sink;

static uint64_t thread_cpu_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return now.tv_sec * 1000000000ULL + now.tv_nsec;
}

static uint64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000ULL + now.tv_nsec;
}

BURN_CODE static uint64_t burn_cpu(uint64_t rounds)
{
	uint64_t x = burn_sink;

	for (uint64_t i = 0; i < rounds; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* CPU time, not wall time: a loaded machine still gets its samples. */
BURN_CODE static void burn_for(uint64_t cpu_ns)
{
	uint64_t deadline = thread_cpu_ns() + cpu_ns;

	while (thread_cpu_ns() < deadline)
		burn_sink = burn_cpu(100000);
}

static int in_burn_code(uint64_t address)
{
	return address >= (uintptr_t)__start_prf_burn_text &&
	       address < (uintptr_t)__stop_prf_burn_text;
}

static int in_own_text(uint64_t address)
{
	return address >= (uintptr_t)__executable_start &&
	       address < (uintptr_t)etext;
}

static void live_attr(struct perf_event_attr *attr, int exclude_kernel)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->sample_period = LIVE_PERIOD_NS;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IDENTIFIER;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->comm = 1;
	attr->disabled = 1;
	attr->exclude_kernel = exclude_kernel;
	attr->exclude_hv = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

static int perf_event_open(struct perf_event_attr *attr)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* With kernel samples if allowed, else user only; -errno on failure. */
static int live_open(struct perf_event_attr *attr)
{
	int fd;

	live_attr(attr, 0);
	fd = perf_event_open(attr);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		live_attr(attr, 1);
		fd = perf_event_open(attr);
	}
	return fd < 0 ? -errno : fd;
}

static int live_unavailable(int err)
{
	return err == -EACCES || err == -EPERM || err == -ENOENT;
}

struct ring {
	struct perf_event_mmap_page *page;
	size_t mmap_size;
	const uint8_t *data;
	uint64_t data_size;
};

static void ring_map(struct ring *ring, int fd, unsigned data_pages)
{
	size_t page_size = sysconf(_SC_PAGESIZE);
	void *base;

	ring->mmap_size = (1 + data_pages) * page_size;
	base = mmap(NULL, ring->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_msg(base != MAP_FAILED, "mmap of the ring: %s", strerror(errno));
	ring->page = base;
	ring->data = (const uint8_t *)base + ring->page->data_offset;
	ring->data_size = ring->page->data_size;
	ck_assert_uint_eq(ring->data_size, data_pages * page_size);
}

static void ring_copy(const struct ring *ring, uint64_t position, void *out,
		      size_t size)
{
	uint64_t offset = position & (ring->data_size - 1);
	size_t first = size < ring->data_size - offset ? size :
		       ring->data_size - offset;

	memcpy(out, ring->data + offset, first);
	memcpy((uint8_t *)out + first, ring->data, size - first);
}

typedef void (*record_fn)(void *context, const void *record, size_t size);

/* perf_event_open(2): acquire data_head, copy, release data_tail. */
static void ring_drain(struct ring *ring, record_fn fn, void *context)
{
	static uint64_t record[UINT16_MAX / 8 + 1];
	uint64_t head = __atomic_load_n(&ring->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ring->page->data_tail;

	while (tail != head) {
		struct perf_event_header header;

		ck_assert_uint_ge(head - tail, sizeof(header));
		ring_copy(ring, tail, &header, sizeof(header));
		ck_assert_uint_ge(header.size, sizeof(header));
		ck_assert_uint_le(header.size, head - tail);
		ring_copy(ring, tail, record, header.size);
		fn(context, record, header.size);
		tail += header.size;
	}
	__atomic_store_n(&ring->page->data_tail, tail, __ATOMIC_RELEASE);
}

struct live {
	const struct perf_event_attr *attr;
	uint64_t event_id;
	uint32_t pid, tid;
	uint64_t before;
	long cpus;
	uint64_t mapped_start, mapped_length, mapped_offset;
	const char *mapped_path;
	uint64_t samples, lost, throttles, other;
	uint64_t ip_in_burn, ip_in_text, chain_in_burn, kernel_samples;
	uint64_t comms, mmaps;
};

static void live_check_id(struct live *live, const struct prf_sample_id *id)
{
	ck_assert_uint_eq(id->sample_type, live->attr->sample_type &
			  (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_IDENTIFIER));
	ck_assert_uint_eq(id->pid, live->pid);
	ck_assert_uint_eq(id->tid, live->tid);
	ck_assert_uint_ge(id->time, live->before);
	ck_assert_uint_le(id->time, monotonic_ns());
	ck_assert_int_lt(id->cpu, live->cpus);
	ck_assert_uint_eq(id->identifier, live->event_id);
	if (id->sample_type & PERF_SAMPLE_ID)
		ck_assert_uint_eq(id->id, live->event_id);
	if (id->sample_type & PERF_SAMPLE_STREAM_ID)
		ck_assert_uint_eq(id->stream_id, live->event_id);
}

static void live_check_callchain(struct live *live, const struct prf_sample *s)
{
	int cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint64_t user = s->callchain_nr;

	ck_assert_uint_ge(s->callchain_nr, 2);
	ck_assert_msg(s->callchain[0] == PERF_CONTEXT_USER ||
		      s->callchain[0] == PERF_CONTEXT_KERNEL,
		      "callchain starts with %#" PRIx64, s->callchain[0]);
	if (cpumode == PERF_RECORD_MISC_USER) {
		/* The user part starts with the sampled ip itself. */
		ck_assert_uint_eq(s->callchain[0], PERF_CONTEXT_USER);
		ck_assert_uint_eq(s->callchain[1], s->ip);
	} else {
		ck_assert_uint_eq(cpumode, PERF_RECORD_MISC_KERNEL);
		ck_assert_int_eq(live->attr->exclude_kernel, 0);
		ck_assert_uint_eq(s->callchain[0], PERF_CONTEXT_KERNEL);
		live->kernel_samples++;
	}
	for (uint64_t i = 0; i < s->callchain_nr; i++)
		if (s->callchain[i] == PERF_CONTEXT_USER)
			user = i + 1;
	for (uint64_t i = user; i < s->callchain_nr; i++) {
		if (in_burn_code(s->callchain[i])) {
			live->chain_in_burn++;
			break;
		}
	}
}

static void live_check_sample(struct live *live, const struct prf_sample *s)
{
	ck_assert_uint_eq(s->sample_type, live->attr->sample_type);
	ck_assert_uint_eq(s->identifier, live->event_id);
	ck_assert_uint_eq(s->pid, live->pid);
	ck_assert_uint_eq(s->tid, live->tid);
	ck_assert_uint_ge(s->time, live->before);
	ck_assert_uint_le(s->time, monotonic_ns());
	ck_assert_int_lt(s->cpu, live->cpus);
	ck_assert_uint_eq(s->period, LIVE_PERIOD_NS);
	live_check_callchain(live, s);
	live->samples++;
	live->ip_in_burn += in_burn_code(s->ip);
	live->ip_in_text += in_own_text(s->ip);
}

static void live_check_mmap(struct live *live, const struct prf_mmap *m)
{
	if (m->start != live->mapped_start)
		return;
	ck_assert_uint_eq(m->pid, live->pid);
	ck_assert_uint_eq(m->tid, live->tid);
	ck_assert_uint_eq(m->length, live->mapped_length);
	ck_assert_uint_eq(m->page_offset, live->mapped_offset);
	ck_assert_str_eq(m->filename, live->mapped_path);
	live->mmaps++;
}

static void live_record(void *context, const void *record, size_t size)
{
	struct live *live = context;
	struct prf_decoded d;
	int err = prf_decode_record(live->attr, record, size, &d);

	ck_assert_msg(err >= 0, "kernel record of type %u (%s), %zu bytes: %d",
		      d.type, prf_record_type_name(d.type), size, err);
	if (d.type != PERF_RECORD_SAMPLE && err == 1)
		live_check_id(live, &d.id);
	switch (d.type) {
	case PERF_RECORD_SAMPLE:
		live_check_sample(live, &d.sample);
		break;
	case PERF_RECORD_COMM:
		ck_assert_uint_eq(d.comm.pid, live->pid);
		ck_assert_uint_eq(d.comm.tid, live->tid);
		ck_assert_int_eq(d.comm.exec, 0);
		ck_assert_str_eq(d.comm.comm, LIVE_COMM);
		live->comms++;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		live_check_mmap(live, &d.mmap);
		break;
	case PERF_RECORD_LOST:
		live->lost += d.lost.lost;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		live->throttles++;
		break;
	default:
		live->other++;
	}
}

static void live_init(struct live *live, const struct perf_event_attr *attr,
		      int fd)
{
	memset(live, 0, sizeof(*live));
	live->attr = attr;
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_ID, &live->event_id), 0);
	live->pid = getpid();
	live->tid = gettid();
	live->cpus = sysconf(_SC_NPROCESSORS_CONF);
}

/* Maps a page of this very program, executable: the kernel reports it. */
static void *map_own_page(struct live *live, int *fd, struct stat *st)
{
	static char path[PATH_MAX];
	size_t page_size = sysconf(_SC_PAGESIZE);
	ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
	void *address;

	ck_assert_int_gt(length, 0);
	path[length] = '\0';
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(*fd, 0);
	ck_assert_int_eq(fstat(*fd, st), 0);
	ck_assert_int_gt(st->st_size, 2 * page_size);
	address = mmap(NULL, page_size, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		       *fd, page_size);
	ck_assert_ptr_ne(address, MAP_FAILED);
	live->mapped_start = (uintptr_t)address;
	live->mapped_length = page_size;
	live->mapped_offset = page_size;
	live->mapped_path = path;
	return address;
}

START_TEST(live_sampling)
{
	struct perf_event_attr attr;
	char old_comm[17] = "";
	struct ring ring;
	struct live live;
	struct stat st;
	int fd, exe_fd;
	void *page;

	fd = live_open(&attr);
	ck_assert_msg(fd >= 0, "perf_event_open: %s", strerror(-fd));
	live_init(&live, &attr, fd);
	ring_map(&ring, fd, 8);
	ck_assert_int_eq(prctl(PR_GET_NAME, old_comm), 0);

	live.before = monotonic_ns();
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ck_assert_int_eq(prctl(PR_SET_NAME, LIVE_COMM), 0);
	page = map_own_page(&live, &exe_fd, &st);
	/* Drained every 10 ms: about 100 samples, well inside 32 KiB. */
	for (int slice = 0; slice < LIVE_BURN_NS / 10000000; slice++) {
		burn_for(10000000);
		ring_drain(&ring, live_record, &live);
	}
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ring_drain(&ring, live_record, &live);
	prctl(PR_SET_NAME, old_comm);

	fprintf(stderr, "live_sampling: exclude_kernel=%d: %" PRIu64 " samples, "
		"%" PRIu64 " in the burn code, %" PRIu64 " callchains through it, "
		"%" PRIu64 " in kernel, %" PRIu64 " lost, %" PRIu64 " throttled\n",
		(int)attr.exclude_kernel, live.samples, live.ip_in_burn,
		live.chain_in_burn, live.kernel_samples, live.lost, live.throttles);
	/*
	 * 200 ms of CPU at 100 us is 2000 samples; allow for throttling.  Of
	 * the user-mode samples most are in the burn code, and so are their
	 * callchains: kernel ones (the drains' syscalls, the clock reads,
	 * interrupt exits: 23 to 29 % on this VM) decode just as well, but
	 * their ip is not in burn_for(), and mostly not their callers either.
	 */
	ck_assert_uint_ge(live.samples + live.lost, 1000);
	ck_assert_uint_ge(live.ip_in_burn, (live.samples - live.kernel_samples) / 2);
	ck_assert_uint_ge(live.ip_in_text, live.ip_in_burn);
	ck_assert_uint_ge(live.chain_in_burn, (live.samples - live.kernel_samples) / 2);
	ck_assert_uint_eq(live.comms, 1);
	ck_assert_uint_eq(live.mmaps, 1);
	munmap(page, live.mapped_length);
	close(exe_fd);
	munmap(ring.page, ring.mmap_size);
	close(fd);
}
END_TEST

struct build_id {
	uint8_t bytes[PRF_BUILD_ID_MAX];
	size_t size;
};

/* The GNU build-id note of the program itself, the first object listed. */
static int find_own_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	struct build_id *out = data;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *phdr = &info->dlpi_phdr[i];
		const uint8_t *note, *end;

		if (phdr->p_type != PT_NOTE)
			continue;
		note = (const uint8_t *)(info->dlpi_addr + phdr->p_vaddr);
		end = note + phdr->p_memsz;
		while (note + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *header = (const void *)note;
			const uint8_t *name = note + sizeof(*header);
			const uint8_t *desc = name + ((header->n_namesz + 3) & ~3u);

			if (header->n_type == NT_GNU_BUILD_ID &&
			    header->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    header->n_descsz <= PRF_BUILD_ID_MAX) {
				memcpy(out->bytes, desc, header->n_descsz);
				out->size = header->n_descsz;
			}
			note = desc + ((header->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

struct live_mmap2 {
	struct live live;
	const struct stat *st;
	const struct build_id *build_id;
	int with_build_id;
	int found;
};

static void live_mmap2_record(void *context, const void *record, size_t size)
{
	struct live_mmap2 *m = context;
	struct prf_decoded d;

	ck_assert_int_eq(prf_decode_record(m->live.attr, record, size, &d), 1);
	live_check_id(&m->live, &d.id);
	if (d.type != PERF_RECORD_MMAP2 || d.mmap.start != m->live.mapped_start)
		return;
	live_check_mmap(&m->live, &d.mmap);
	ck_assert_uint_eq(d.mmap.prot, PROT_READ | PROT_EXEC);
	ck_assert_uint_eq(d.mmap.flags & MAP_TYPE, MAP_PRIVATE);
	ck_assert_int_eq(d.mmap.has_build_id, m->with_build_id);
	if (m->with_build_id) {
		ck_assert_uint_eq(d.mmap.build_id_size, m->build_id->size);
		ck_assert_int_eq(memcmp(d.mmap.build_id, m->build_id->bytes,
					m->build_id->size), 0);
	} else {
		ck_assert_uint_eq(d.mmap.major, major(m->st->st_dev));
		ck_assert_uint_eq(d.mmap.minor, minor(m->st->st_dev));
		ck_assert_uint_eq(d.mmap.inode, m->st->st_ino);
	}
	m->found++;
}

/* MMAP2 in both layouts, with a trailer of all six id fields. */
START_TEST(live_mmap2)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = ID_FIELDS,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap2 = 1,
		.build_id = _i,
		.exclude_kernel = 1,
		.disabled = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};
	struct build_id own = { .size = 0 };
	struct live_mmap2 m = { .with_build_id = _i, .build_id = &own };
	struct ring ring;
	struct stat st;
	int fd, exe_fd;
	void *page;

	dl_iterate_phdr(find_own_build_id, &own);
	ck_assert_msg(own.size > 0, "this test program has no GNU build-id note");
	fd = perf_event_open(&attr);
	ck_assert_msg(fd >= 0, "perf_event_open: %s", strerror(errno));
	live_init(&m.live, &attr, fd);
	m.st = &st;
	ring_map(&ring, fd, 8);
	m.live.before = monotonic_ns();
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	page = map_own_page(&m.live, &exe_fd, &st);
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ring_drain(&ring, live_mmap2_record, &m);
	ck_assert_int_eq(m.found, 1);
	munmap(page, m.live.mapped_length);
	close(exe_fd);
	munmap(ring.page, ring.mmap_size);
	close(fd);
}
END_TEST

/* ---- the suite ------------------------------------------------------ */

static TCase *tcase_with_timeout(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, 120);
	return tc;
}

/* The one reading of a callchain: contexts, return addresses, markers. */
START_TEST(callchain_walk_reads_contexts_and_markers)
{
	const uint64_t marker = (uint64_t)-4000;	/* the unwinder's: past PERF_CONTEXT_MAX */
	const uint64_t chain[] = {
		PERF_CONTEXT_KERNEL, 0xffffffff81000100ull, 0xffffffff81000200ull, 0,
		PERF_CONTEXT_USER, 0x401000, 0x402000, marker,
	};
	const struct { uint64_t address, pc; int kernel, first, marker; } want[] = {
		{ 0xffffffff81000100ull, 0xffffffff81000100ull, 1, 1, 0 },
		{ 0xffffffff81000200ull, 0xffffffff810001ffull, 1, 0, 0 },
		{ 0x401000, 0x401000, 0, 1, 0 },
		{ 0x402000, 0x401fff, 0, 0, 0 },
		{ marker, marker, 0, 0, 1 },
	};
	struct prf_callchain_walk walk;
	struct prf_frame frame;
	size_t n = 0;

	prf_callchain_walk_start(&walk, chain, ARRAY_SIZE(chain), 0);
	while (prf_callchain_next(&walk, &frame)) {
		ck_assert_uint_lt(n, ARRAY_SIZE(want));
		ck_assert_uint_eq(frame.address, want[n].address);
		ck_assert_uint_eq(frame.pc, want[n].pc);
		ck_assert_int_eq(frame.kernel, want[n].kernel);
		ck_assert_int_eq(frame.first, want[n].first);
		ck_assert_int_eq(frame.marker, want[n].marker);
		n++;
	}
	ck_assert_uint_eq(n, ARRAY_SIZE(want));
	/* no context entry: the mode the record's misc gave */
	prf_callchain_walk_start(&walk, chain + 1, 2, prf_misc_is_kernel(PERF_RECORD_MISC_GUEST_KERNEL));
	ck_assert_int_eq(prf_callchain_next(&walk, &frame), 1);
	ck_assert_int_eq(frame.kernel, 1);
	ck_assert_int_eq(frame.first, 1);
	ck_assert_int_eq(prf_misc_is_kernel(PERF_RECORD_MISC_USER), 0);
}
END_TEST

static Suite *decode_suite(int with_live)
{
	Suite *suite = suite_create("decode");
	TCase *samples = tcase_with_timeout("samples");
	TCase *side_band = tcase_with_timeout("side-band");
	TCase *hostile = tcase_with_timeout("hostile");

	tcase_add_loop_test(samples, each_sample_bit_alone, 0, SAMPLE_BITS);
	tcase_add_test(samples, all_sample_bits_together);
	tcase_add_test(samples, random_sample_bit_sets);
	tcase_add_test(samples, literal_callchain_sample);
	tcase_add_test(samples, literal_raw_branch_regs_sample);
	tcase_add_test(samples, literal_tail_order_sample);
	tcase_add_loop_test(samples, stack_trim_keeps_the_live_stack, 0, 2);
	tcase_add_test(samples, stack_trim_leaves_other_samples);
	tcase_add_test(samples, callchain_walk_reads_contexts_and_markers);
	suite_add_tcase(suite, samples);

	tcase_add_loop_test(side_band, side_band_records, 0, ARRAY_SIZE(trailer_cases));
	tcase_add_test(side_band, side_band_without_attr_keeps_trailer_in_body);
	tcase_add_test(side_band, mmap2_build_id_flag_without_attr_build_id);
	tcase_add_test(side_band, unknown_types_are_skipped);
	tcase_add_test(side_band, record_type_names);
	suite_add_tcase(suite, side_band);

	tcase_add_test(hostile, truncated_samples);
	tcase_add_test(hostile, truncated_side_band_records);
	tcase_add_test(hostile, lying_callchain_and_read_counts);
	tcase_add_test(hostile, lying_raw_sizes);
	tcase_add_test(hostile, lying_branch_counts);
	tcase_add_test(hostile, lying_regs);
	tcase_add_test(hostile, lying_user_stack);
	tcase_add_test(hostile, stack_trim_refuses_hostile_samples);
	tcase_add_test(hostile, lying_aux_and_namespaces);
	tcase_add_test(hostile, unterminated_strings);
	tcase_add_test(hostile, impossible_build_id_sizes);
	tcase_add_test(hostile, short_fixed_records);
	tcase_add_test(hostile, bad_framing);
	tcase_add_test(hostile, damaged_records_never_escape);
	suite_add_tcase(suite, hostile);

	if (with_live) {
		TCase *live = tcase_with_timeout("live");

		tcase_add_test(live, live_sampling);
		tcase_add_loop_test(live, live_mmap2, 0, 2);
		suite_add_tcase(suite, live);
	}
	return suite;
}

/*
 * perf_event_open may be refused (perf_event_paranoid, seccomp, no perf
 * in a container): then the live tests are reported skipped, not passed.
 * PRF_REQUIRE_PERF=1 makes that a failure, for machines where it must run.
 */
static int live_available(void)
{
	struct perf_event_attr attr;
	int fd = live_open(&attr);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	fprintf(stderr, "test-decode: SKIP live tests: perf_event_open"
		"(cpu-clock): %s\n", strerror(-fd));
	if (!live_unavailable(fd) || getenv("PRF_REQUIRE_PERF"))
		return -1;
	return 0;
}

int main(void)
{
	int live = live_available();
	SRunner *runner;
	int failed;

	runner = srunner_create(decode_suite(live > 0));
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed || live < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
