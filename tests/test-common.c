/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libperfrec-common: the rules the other libraries share. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

START_TEST(ensure_mem_grows_and_refuses_overflow)
{
	uint32_t *array = NULL;
	size_t capacity = 0;

	ck_assert_int_eq(prf_ensure_mem((void **)&array, &capacity, sizeof(*array), 0), 0);
	ck_assert_ptr_null(array);
	for (uint32_t i = 0; i < 100000; i++) {
		ck_assert_int_eq(prf_ensure_mem((void **)&array, &capacity, sizeof(*array), i + 1), 0);
		ck_assert_uint_ge(capacity, i + 1);
		array[i] = i;
	}
	for (uint32_t i = 0; i < 100000; i++)
		if (array[i] != i)
			ck_abort_msg("array[%u] = %u after growth", i, array[i]);
	/* a byte count past SIZE_MAX: refused, the array as it was */
	{
		void *before = array;
		size_t capacity_before = capacity;

		ck_assert_int_eq(prf_ensure_mem((void **)&array, &capacity, SIZE_MAX / 8,
						capacity + 1), -ENOMEM);
		ck_assert_ptr_eq(array, before);
		ck_assert_uint_eq(capacity, capacity_before);
	}
	free(array);
}
END_TEST

/* Keys are strings in an array; the hash is chosen by the test. */
struct strings {
	char (*keys)[16];
	uint64_t (*hash)(const char *key);
};

static int string_equal(const void *context, uint32_t id, const void *key)
{
	const struct strings *s = context;

	return strcmp(s->keys[id - 1], key) == 0;
}

static uint64_t good_hash(const char *key)
{
	return prf_hash_bytes(key, strlen(key));
}

/* Every key in one slot, with one tag: only equal() tells them apart. */
static uint64_t same_hash(const char *key)
{
	(void)key;
	return 0x1234567800000000ull;
}

static void index_round_trip(uint64_t (*hash)(const char *), uint32_t n)
{
	struct strings s = { calloc(n, sizeof(*s.keys)), hash };
	struct prf_index index = { 0 };
	char missing[16];

	ck_assert_ptr_nonnull(s.keys);
	ck_assert_uint_eq(prf_index_lookup(&index, hash("k0"), string_equal, &s, "k0"), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct prf_index_slot *slot;

		snprintf(s.keys[i], sizeof(s.keys[i]), "k%u", i);
		slot = prf_index_place(&index, hash(s.keys[i]), string_equal, &s, s.keys[i]);
		ck_assert_ptr_nonnull(slot);
		ck_assert_uint_eq(slot->id, 0);
		prf_index_insert(&index, slot, hash(s.keys[i]), i + 1);
	}
	ck_assert_uint_eq(index.count, n);
	ck_assert_uint_le(2 * index.count, index.capacity);
	for (uint32_t i = 0; i < n; i++) {
		struct prf_index_slot *slot;

		ck_assert_uint_eq(prf_index_lookup(&index, hash(s.keys[i]), string_equal, &s,
						   s.keys[i]), i + 1);
		/* placing a key that is there finds it and adds nothing */
		slot = prf_index_place(&index, hash(s.keys[i]), string_equal, &s, s.keys[i]);
		ck_assert_uint_eq(slot->id, i + 1);
	}
	ck_assert_uint_eq(index.count, n);
	snprintf(missing, sizeof(missing), "k%u", n);
	ck_assert_uint_eq(prf_index_lookup(&index, hash(missing), string_equal, &s, missing), 0);
	prf_index_clear(&index);
	ck_assert_uint_eq(index.count, 0);
	ck_assert_uint_eq(prf_index_lookup(&index, hash(s.keys[0]), string_equal, &s, s.keys[0]), 0);
	prf_index_free(&index);
	ck_assert_ptr_null(index.slots);
	free(s.keys);
}

START_TEST(index_finds_what_it_holds)
{
	index_round_trip(good_hash, 50000);
}
END_TEST

START_TEST(index_tells_colliding_keys_apart)
{
	index_round_trip(same_hash, 2000);
}
END_TEST

/* prf_hash_bytes() of text, in a process of its own (its own seed). */
static uint64_t hash_in_child(const char *text)
{
	uint64_t hash = 0;
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		hash = prf_hash_bytes(text, strlen(text));
		_exit(write(fds[1], &hash, sizeof(hash)) == sizeof(hash) ? 0 : 1);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &hash, sizeof(hash)), sizeof(hash));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return hash;
}

START_TEST(bytes_hash_is_seeded_and_sees_every_byte)
{
	/* Names from files: a process's slots must be its own secret, not FNV's for all. */
	const char *name = "_ZN7perfrec4burnEv";
	uint64_t first = hash_in_child(name), second = hash_in_child(name);
	const char *fork_mode = getenv("CK_FORK");
	char text[24] = "0123456789abcdefghijklm";

	/* Forked from a test of its own (Check's default), the children seed anew. */
	if (!fork_mode || strcmp(fork_mode, "no") != 0)
		ck_assert_uint_ne(first, second);
	ck_assert_uint_eq(prf_hash_bytes(name, strlen(name)), prf_hash_bytes(name, strlen(name)));
	/* The size is in it (trailing zero bytes count), and each byte of a word and a tail. */
	ck_assert_uint_ne(prf_hash_bytes("a", 1), prf_hash_bytes("a\0", 2));
	ck_assert_uint_ne(prf_hash_bytes("", 0), prf_hash_bytes("\0", 1));
	for (size_t size = 1; size <= sizeof(text) - 1; size++) {
		uint64_t whole = prf_hash_bytes(text, size);

		for (size_t i = 0; i < size; i++) {
			text[i] ^= 1;
			ck_assert_uint_ne(prf_hash_bytes(text, size), whole);
			text[i] ^= 1;
		}
	}
}
END_TEST

START_TEST(arena_zeroes_aligns_and_keeps_large_objects)
{
	struct prf_arena arena = { 0 };
	unsigned char *big;
	char *copy;

	for (size_t size = 1; size < 5000; size += 7) {
		unsigned char *p = prf_arena_alloc(&arena, size);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		ck_assert_int_eq(p[0] | p[size - 1], 0);
		ck_assert_int_eq(memcmp(p, p + 1, size - 1), 0);	/* all zero */
		memset(p, 0xa5, size);
	}
	big = prf_arena_alloc(&arena, 1u << 20);
	ck_assert_ptr_nonnull(big);
	ck_assert_uint_eq(big[(1u << 20) - 1], 0);
	copy = prf_arena_strndup(&arena, "kernel.kallsyms]", 6);
	ck_assert_str_eq(copy, "kernel");
	ck_assert_ptr_null(prf_arena_alloc(&arena, SIZE_MAX - 8));
	prf_arena_free(&arena);
	ck_assert_ptr_null(arena.blocks);
}
END_TEST

START_TEST(varints_round_trip_and_refuse_bad_input)
{
	static const uint64_t values[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
					   (uint64_t)1 << 56, UINT64_MAX - 1, UINT64_MAX };
	uint8_t buf[PRF_VARINT_MAX * PRF_ARRAY_SIZE(values)], *p = buf;
	const uint8_t *q = buf;
	uint8_t overlong[PRF_VARINT_MAX + 1];
	uint64_t v;

	for (size_t i = 0; i < PRF_ARRAY_SIZE(values); i++) {
		uint8_t *start = p;

		p = prf_varint_put(p, values[i]);
		ck_assert_uint_eq((size_t)(p - start), prf_varint_size(values[i]));
		ck_assert_uint_le((size_t)(p - start), PRF_VARINT_MAX);
	}
	for (size_t i = 0; i < PRF_ARRAY_SIZE(values); i++) {
		ck_assert_int_eq(prf_varint_get(&q, p, &v), 0);
		ck_assert_uint_eq(v, values[i]);
	}
	ck_assert_ptr_eq(q, p);
	ck_assert_int_eq(prf_varint_get(&q, p, &v), -1);	/* at the end */
	q = buf;
	prf_varint_put(buf, 300);
	ck_assert_int_eq(prf_varint_get(&q, buf + 1, &v), -1);	/* cut short */
	memset(overlong, 0x80, sizeof(overlong));
	q = overlong;
	ck_assert_int_eq(prf_varint_get(&q, overlong + sizeof(overlong), &v), -1);
	for (int64_t d = -70000; d <= 70000; d += 77)
		ck_assert_uint_eq(prf_unzigzag(prf_zigzag((uint64_t)d)), (uint64_t)d);
	ck_assert_uint_eq(prf_zigzag((uint64_t)-1), 1);
	ck_assert_uint_eq(prf_zigzag(1), 2);
}
END_TEST

static const struct prf_ksym *ksym_at(const struct prf_ksym_table *t, uint64_t start)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->syms[i].start == start)
			return &t->syms[i];
	return NULL;
}

START_TEST(ksym_table_ranks_and_ends_symbols)
{
	/* out of order, two names at 0x...1000, a module, a hidden address */
	static const char text[] =
		"ffffffff81002000 T second\n"
		"ffffffff81001000 t __local_first\n"
		"ffffffff81001000 W weak_first\n"
		"ffffffff81001000 T _global_first\n"
		"0000000000000000 T hidden\n"
		"ffffffff81003000 D data_is_no_text\n"
		"ffffffffc0001010 t mod_a\t[ext4]\n"
		"ffffffffc0001800 T mod_b\t[ext4]\n"
		"ffffffff81004000 T last_of_kernel\n";
	struct prf_ksym_table t = { 0 };
	const struct prf_ksym *k;

	ck_assert_int_eq(prf_ksym_table_parse(&t, text, sizeof(text) - 1), 0);
	ck_assert_uint_eq(t.count, 7);
	prf_ksym_table_finish(&t);
	ck_assert_uint_eq(t.count, 5);
	for (size_t i = 1; i < t.count; i++)
		ck_assert_uint_lt(t.syms[i - 1].start, t.syms[i].start);
	k = ksym_at(&t, 0xffffffff81001000ull);
	ck_assert_str_eq(prf_ksym_name(&t, k), "_global_first");	/* global, then fewer '_' */
	ck_assert_uint_eq(k->end, 0xffffffff81002000ull);		/* the next symbol */
	k = ksym_at(&t, 0xffffffff81004000ull);
	/* the kernel's last: its page, then one more */
	ck_assert_uint_eq(k->end, 0xffffffff81004000ull + 4096);
	ck_assert_str_eq(prf_ksym_module(&t, k), "");
	k = ksym_at(&t, 0xffffffffc0001010ull);
	ck_assert_str_eq(prf_ksym_module(&t, k), "ext4");
	ck_assert_uint_eq(k->end, 0xffffffffc0001800ull);
	k = ksym_at(&t, 0xffffffffc0001800ull);
	/* the module's last: to its page's end, then one page */
	ck_assert_uint_eq(k->end, 0xffffffffc0002000ull + 4096);
	prf_ksym_table_free(&t);
}
END_TEST

START_TEST(ksym_table_keeps_recorded_ends)
{
	struct prf_ksym_table t = { 0 };
	struct prf_kallsyms_line line;
	static const char a[] = "ffffffff81001000 T a", b[] = "ffffffff81000000 T b";

	ck_assert_int_eq(prf_kallsyms_parse_line(a, a + sizeof(a) - 1, &line), 1);
	ck_assert_int_eq(prf_ksym_table_add(&t, &line, 0xffffffff81001010ull), 0);
	ck_assert_int_eq(prf_kallsyms_parse_line(b, b + sizeof(b) - 1, &line), 1);
	ck_assert_int_eq(prf_ksym_table_add(&t, &line, 0xffffffff81000040ull), 0);
	prf_ksym_table_finish(&t);
	ck_assert_uint_eq(t.count, 2);
	ck_assert_str_eq(prf_ksym_name(&t, &t.syms[0]), "b");
	ck_assert_uint_eq(t.syms[0].end, 0xffffffff81000040ull);
	ck_assert_uint_eq(t.syms[1].end, 0xffffffff81001010ull);
	prf_ksym_table_free(&t);
}
END_TEST

START_TEST(open_regular_refuses_all_but_files)
{
	char dir[] = "/tmp/test-common-XXXXXX", fifo[PATH_MAX], file[PATH_MAX];
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* a FIFO with no writer: refused at once, not waited on */
	ck_assert_int_eq(prf_open_regular(fifo), -EINVAL);
	ck_assert_int_eq(prf_open_regular(dir), -EINVAL);
	ck_assert_int_eq(prf_open_regular("/dev/null"), -EINVAL);
	ck_assert_int_eq(prf_open_regular("/nonexistent/perfrec"), -ENOENT);
	fd = prf_open_regular(file);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
	unlink(fifo);
	unlink(file);
	rmdir(dir);
}
END_TEST

START_TEST(host_is_this_one)
{
	struct prf_host host;
	struct utsname uts;

	ck_assert_int_eq(uname(&uts), 0);
	ck_assert_int_eq(prf_host_read(&host), 0);
	ck_assert_str_eq(host.hostname, uts.nodename);
	ck_assert_str_eq(host.kernel_release, uts.release);
	ck_assert_str_eq(host.machine, uts.machine);
	ck_assert_uint_eq(host.nr_cpus_online, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_uint_eq(host.page_size, (uint32_t)sysconf(_SC_PAGESIZE));
	ck_assert_uint_le(prf_clock_ns(CLOCK_MONOTONIC), prf_clock_ns(CLOCK_MONOTONIC));
}
END_TEST

START_TEST(text_made_safe_keeps_utf8_and_replaces_controls)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "", "" },
		/* ESC [ 2 J, BEL, CR, BS, a newline that would begin a forged journal line */
		{ "a\x1b[2Jb\a\r\bc\n<0>d", "a?[2Jb???c?<0>d" },
		/* C1 CSI as a raw byte and as U+009B; DEL */
		{ "x\x9by\xc2\x9bz\x7f", "x?y?z?" },
		/* valid UTF-8 stays: é, €, U+1F600 */
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		/* overlong, a surrogate, cut short, past U+10FFFF: a '?' a byte */
		{ "\xc0\x80|\xed\xa0\x80|\xe2\x82|\xf4\x90\x80\x80", "??|???|??|????" },
	};

	for (size_t i = 0; i < PRF_ARRAY_SIZE(cases); i++) {
		char buffer[64];
		const char *unit;
		size_t size, columns = 0, n;

		snprintf(buffer, sizeof(buffer), "%s", cases[i].in);
		ck_assert_uint_eq(prf_text_make_safe(buffer), strlen(cases[i].out));
		ck_assert_str_eq(buffer, cases[i].out);
		ck_assert_int_eq(prf_text_is_safe(cases[i].in), strcmp(cases[i].in, cases[i].out) == 0);
		for (const char *s = cases[i].in; (n = prf_text_unit(s, &unit, &size)); s += n)
			columns++;
		ck_assert_uint_ge(strlen(cases[i].out), columns);
	}
}
END_TEST

/* The kernel's own lines (show_mountinfo()), escapes and all, and pieces of lines. */
START_TEST(mountinfo_lines_split_and_unescaped)
{
	char tracefs[] = "37 26 0:12 / /sys/kernel/tracing rw,nosuid,nodev,noexec,relatime shared:13 - tracefs nodev rw\n";
	char cgroup[] = "36 25 0:31 /user.slice /mnt/my\\040cg\\134x rw master:1 - cgroup2 cgroup2 rw,nsdelegate\n";
	char piece[] = "/a/very/long/mount/point/cut/by/a/reader rw - ";
	char none[] = "37 26 0:12 / /sys/kernel/tracing rw tracefs nodev rw\n";
	struct prf_mount_line m;

	ck_assert_int_eq(prf_mountinfo_parse(tracefs, &m), 0);
	ck_assert_str_eq(m.root, "/");
	ck_assert_str_eq(m.point, "/sys/kernel/tracing");
	ck_assert_str_eq(m.type, "tracefs");
	ck_assert_int_eq(prf_mountinfo_parse(cgroup, &m), 0);
	ck_assert_str_eq(m.root, "/user.slice");
	ck_assert_str_eq(m.point, "/mnt/my cg\\x");
	ck_assert_str_eq(m.type, "cgroup2");
	ck_assert_int_eq(prf_mountinfo_parse(piece, &m), -EINVAL);
	ck_assert_int_eq(prf_mountinfo_parse(none, &m), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("common");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, ensure_mem_grows_and_refuses_overflow);
	tcase_add_test(tc, index_finds_what_it_holds);
	tcase_add_test(tc, index_tells_colliding_keys_apart);
	tcase_add_test(tc, bytes_hash_is_seeded_and_sees_every_byte);
	tcase_add_test(tc, arena_zeroes_aligns_and_keeps_large_objects);
	tcase_add_test(tc, varints_round_trip_and_refuse_bad_input);
	tcase_add_test(tc, ksym_table_ranks_and_ends_symbols);
	tcase_add_test(tc, ksym_table_keeps_recorded_ends);
	tcase_add_test(tc, open_regular_refuses_all_but_files);
	tcase_add_test(tc, host_is_this_one);
	tcase_add_test(tc, text_made_safe_keeps_utf8_and_replaces_controls);
	tcase_add_test(tc, mountinfo_lines_split_and_unescaped);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
