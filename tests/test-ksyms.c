/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols as hit, daemon to reader: perfrecd's table (daemon/sideband/ksyms.c)
 * looks addresses up and writes a KERNEL_SYMBOL record for each symbol
 * hit; the symbolizer's kernel made of those records
 * (symbolizer_kernel_hit()) must name every address exactly as its kernel
 * made of the whole kallsyms text (symbolizer_kernel()) does: the same
 * name, offset and module, or nothing for both.  On a synthetic kallsyms
 * with aliases, holes, data and modules, and on this host's
 * /proc/kallsyms (every symbol's first, second and last byte, and the
 * byte past it).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ksyms.h"
#include "format.h"
#include "symbolize.h"

/* The records a ksyms writes, kept in order. */
struct collected {
	uint8_t *data;
	size_t used, capacity;
	size_t records;
};

static int collect(void *context, const void *record, size_t size, uint64_t time)
{
	struct collected *c = context;

	(void)time;
	if (c->used + size > c->capacity) {
		c->capacity = 2 * (c->used + size);
		c->data = realloc(c->data, c->capacity);
		ck_assert_ptr_nonnull(c->data);
	}
	memcpy(c->data + c->used, record, size);
	c->used += size;
	c->records++;
	return 0;
}

/* The KERNEL_SYMBOLs of c as the symbolizer takes them (pointing into c). */
static size_t to_ksyms(const struct collected *c, struct symbolizer_ksym **out)
{
	struct symbolizer_ksym *k = calloc(c->records + 1, sizeof(*k));
	size_t n = 0;

	ck_assert_ptr_nonnull(k);
	for (size_t at = 0; at < c->used;) {
		struct prf_kernel_symbol_record r;

		memcpy(&r, c->data + at, sizeof(r));
		ck_assert_uint_eq(r.header.size % 8, 0);
		if (r.header.type == PRF_RECORD_KERNEL_SYMBOL) {
			const char *name = (const char *)c->data + at + sizeof(r);

			k[n++] = (struct symbolizer_ksym){ .start = r.start, .size = r.size,
							   .name = name,
							   .module = name + strlen(name) + 1 };
		}
		at += r.header.size;
	}
	*out = k;
	return n;
}

static char *read_file(const char *path, size_t *size)
{
	size_t cap = 1 << 16, used = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(buf);
	while ((n = read(fd, buf + used, cap - used)) > 0) {
		used += (size_t)n;
		if (used == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
	}
	close(fd);
	*size = used;
	return buf;
}

/*
 * Both kernels name address alike: 1 if they name it, 0 if neither does.
 * Each kernel is of a symbolizer of its own (sh for hit): one symbolizer
 * would give the one DSO to equal tables.
 */
static int same_answer(struct symbolizer *s, struct dso *full, struct symbolizer *sh,
		       struct dso *hit, uint64_t address)
{
	struct symbol_answer a, b;
	const char *name, *dso;
	uint64_t offset;

	symbolizer_lookup(s, full, address, &a);
	if (!a.frame_count) {
		symbolizer_lookup(sh, hit, address, &b);
		ck_assert_msg(!b.frame_count, "%#llx: hit names it %s, kallsyms nothing",
			      (unsigned long long)address, b.frames[0].function);
		return 0;
	}
	/* copied out: the next lookup may reuse the answer's storage */
	name = a.frames[0].function;
	offset = a.frames[0].symbol_offset;
	dso = dso_short_name(a.dso);
	symbolizer_lookup(sh, hit, address, &b);
	ck_assert_msg(b.frame_count == 1, "%#llx: kallsyms names it %s, hit nothing",
		      (unsigned long long)address, name);
	ck_assert_msg(!strcmp(name, b.frames[0].function) && offset == b.frames[0].symbol_offset &&
		      !strcmp(dso, dso_short_name(b.dso)),
		      "%#llx: kallsyms %s+%#llx %s, hit %s+%#llx %s", (unsigned long long)address,
		      name, (unsigned long long)offset, dso, b.frames[0].function,
		      (unsigned long long)b.frames[0].symbol_offset, dso_short_name(b.dso));
	return 1;
}

static const char synthetic[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 t __alias_local\n"
	"ffffffff81000100 t local_function\n"
	"ffffffff81000100 W weak_alias\n"
	"ffffffff81000100 T __global_alias\n"
	"ffffffff81000200 w weak_function\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T before_a_hole\n"
	"ffffffff81400000 T after_the_hole\n"
	"ffffffff81400800 T _etext\n"
	"ffffffff81400900 r not_text\n"
	"0000000000000000 T hidden\n"
	"ffffffffc0000000 t mod_start\t[dummy]\n"
	"ffffffffc0000080 T mod_end\t[dummy]\n"
	"ffffffffc0001000 t other_start\t[other]\n"
	"ffffffffc0000800 t unsorted_late\t[dummy]\n"
	"ffffffffc0005000 T bpf_prog_1_x\t[bpf]\n"
	"ffffffffc0005100 T last_one\t[bpf]\n";

START_TEST(synthetic_kallsyms)
{
	char dir[] = "/tmp/test-ksyms.XXXXXX", path[64];
	struct collected c = { 0 };
	struct record_sink sink = { collect, &c };
	struct symbolizer *s = symbolizer_new(NULL), *sh = symbolizer_new(NULL);
	struct symbolizer_ksym *k;
	struct ksyms *ks;
	struct dso *full, *hit;
	size_t named = 0, first_pass, count;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(synthetic, f);
	fclose(f);
	ck_assert_int_eq(prd_ksyms_new(&ks, dir, dir), 0);
	/* every 8 bytes of both regions, and past their ends */
	for (uint64_t a = 0xffffffff80fff000ull; a < 0xffffffff81403000ull; a += 8)
		ck_assert_int_eq(prd_ksyms_note_ips(ks, &a, 1, &sink, 1), 0);
	for (uint64_t a = 0xffffffffbffff000ull; a < 0xffffffffc0008000ull; a += 8)
		ck_assert_int_eq(prd_ksyms_note_ips(ks, &a, 1, &sink, 1), 0);
	first_pass = c.records;
	/* once per file: again nothing new, then everything again in the next file */
	for (uint64_t a = 0xffffffff81000000ull; a < 0xffffffff81000500ull; a += 8)
		ck_assert_int_eq(prd_ksyms_note_ips(ks, &a, 1, &sink, 1), 0);
	ck_assert_uint_eq(c.records, first_pass);

	count = to_ksyms(&c, &k);
	ck_assert_uint_eq(count, first_pass);
	full = symbolizer_kernel(s, synthetic, sizeof(synthetic) - 1, NULL, 0);
	hit = symbolizer_kernel_hit(sh, k, count);
	ck_assert_ptr_nonnull(full);
	ck_assert_ptr_nonnull(hit);
	for (uint64_t a = 0xffffffff80fff000ull; a < 0xffffffff81403000ull; a += 8)
		named += (size_t)same_answer(s, full, sh, hit, a);
	for (uint64_t a = 0xffffffffbffff000ull; a < 0xffffffffc0008000ull; a += 8)
		named += (size_t)same_answer(s, full, sh, hit, a);
	ck_assert_uint_gt(named, 1000);
	/* the preferred name of an address with aliases, as perf prefers it */
	{
		struct symbol_answer a;

		symbolizer_lookup(sh, hit, 0xffffffff81000110ull, &a);
		ck_assert_str_eq(a.frames[0].function, "__global_alias");
		symbolizer_lookup(sh, hit, 0xffffffffc0000810ull, &a);
		ck_assert_str_eq(dso_short_name(a.dso), "[dummy]");
	}

	prd_ksyms_file_started(ks);
	c.used = c.records = 0;
	for (uint64_t a = 0xffffffff81000000ull; a < 0xffffffff81000500ull; a += 8)
		ck_assert_int_eq(prd_ksyms_note_ips(ks, &a, 1, &sink, 1), 0);
	ck_assert_uint_eq(c.records, 4);	/* _text, __global_alias, weak_function, before_a_hole */

	/* a module loaded since: an address that misses rereads, once invalidated */
	f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fputs("ffffffffc0010000 t new_module_fn\t[newmod]\n", f);
	fclose(f);
	prd_ksyms_invalidate(ks);
	c.used = c.records = 0;
	{
		uint64_t a[2] = { 0xffffffffc0010010ull, 0xffffffff81000010ull };

		ck_assert_int_eq(prd_ksyms_note_ips(ks, a, 2, &sink, 1), 0);
	}
	/* only the new one: what this file had survives the reread */
	ck_assert_uint_eq(c.records, 1);
	free(k);
	ck_assert_uint_eq(to_ksyms(&c, &k), 1);
	ck_assert_str_eq(k[0].name, "new_module_fn");
	ck_assert_str_eq(k[0].module, "newmod");

	free(k);
	free(c.data);
	prd_ksyms_free(ks);
	symbolizer_free(s);
	symbolizer_free(sh);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(this_host)
{
	struct collected c = { 0 };
	struct record_sink sink = { collect, &c };
	struct symbolizer *s = symbolizer_new(NULL), *sh = symbolizer_new(NULL);
	struct symbolizer_ksym *k;
	struct ksyms_stats stats;
	struct ksyms *ks;
	struct dso *full, *hit;
	size_t size, count, named = 0, line;
	char *text;
	int err;

	err = prd_ksyms_new(&ks, "/proc", "/sys");
	if (err == -ENOENT || err == -EACCES) {
		symbolizer_free(s);
		symbolizer_free(sh);
		return;		/* no kallsyms readable here */
	}
	ck_assert_int_eq(err, 0);
	prd_ksyms_get_stats(ks, &stats);
	if (!stats.symbols) {
		prd_ksyms_free(ks);
		symbolizer_free(s);
		symbolizer_free(sh);
		return;		/* kptr_restrict: nothing to name */
	}
	text = read_file("/proc/kallsyms", &size);
	full = symbolizer_kernel(s, text, size, NULL, 0);
	ck_assert_ptr_nonnull(full);
	/* the addresses to try: around the address of 6 lines in 7 */
	line = 0;
	for (const char *p = text, *end = text + size; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		uint64_t a = strtoull(p, NULL, 16), tries[4] = { a, a + 1, a - 1, a + 16 };

		if (a && line % 7 != 3)
			ck_assert_int_eq(prd_ksyms_note_ips(ks, tries, 4, &sink, 1), 0);
		p = nl ? nl + 1 : end;
	}
	count = to_ksyms(&c, &k);
	hit = symbolizer_kernel_hit(sh, k, count);
	ck_assert_ptr_nonnull(hit);
	line = 0;
	for (const char *p = text, *end = text + size; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		uint64_t a = strtoull(p, NULL, 16);

		if (a && line % 7 != 3) {
			named += (size_t)same_answer(s, full, sh, hit, a);
			named += (size_t)same_answer(s, full, sh, hit, a + 1);
			named += (size_t)same_answer(s, full, sh, hit, a - 1);
			named += (size_t)same_answer(s, full, sh, hit, a + 16);
		}
		p = nl ? nl + 1 : end;
	}
	printf("test-ksyms: this host: %zu symbols of %llu written, %zu addresses named alike\n",
	       count, (unsigned long long)stats.symbols, named);
	ck_assert_uint_gt(named, 1000);
	free(k);
	free(text);
	free(c.data);
	prd_ksyms_free(ks);
	symbolizer_free(s);
	symbolizer_free(sh);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("ksyms");
	TCase *tc = tcase_create("core");
	SRunner *runner;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, synthetic_kallsyms);
	tcase_add_test(tc, this_host);
	suite_add_tcase(suite, tc);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
