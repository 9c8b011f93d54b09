/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-report's views on report_data built by hand: the exact text of
 * the header, the flat profile (unlimited and at 80 columns), the call
 * tree and the folded stacks; JSON checked by a small validator here (and
 * by python3 and jq when they are installed); the percent limit and top
 * N; hostile names; a 5000-deep tree; no samples at all.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "views.h"

/* ---- building report_data -------------------------------------------- */

/* Every allocation of a fixture, freed together. */
static void **blocks;
static size_t block_count;

static void *keep(void *p)
{
	ck_assert_ptr_nonnull(p);
	blocks = realloc(blocks, (block_count + 1) * sizeof(*blocks));
	ck_assert_ptr_nonnull(blocks);
	blocks[block_count++] = p;
	return p;
}

static void *alloc(size_t size)
{
	return keep(calloc(1, size));
}

static void free_all(void)
{
	while (block_count)
		free(blocks[--block_count]);
	free(blocks);
	blocks = NULL;
}

static const struct report_symbol *symbol(const char *name, const char *dso, int kernel)
{
	struct report_symbol *s = alloc(sizeof(*s));

	s->name = name;
	s->dso = dso;
	s->kernel = kernel;
	s->resolved = 1;
	return s;
}

static const struct report_symbol *inlined(const char *name, const char *dso)
{
	struct report_symbol *s = (struct report_symbol *)symbol(name, dso, 0);

	s->inlined = 1;
	return s;
}

static const struct report_symbol *unknown(const char *dso, uint64_t offset, int kernel)
{
	struct report_symbol *s = (struct report_symbol *)symbol("[unknown]", dso, kernel);

	s->resolved = 0;
	s->unknown_offset = offset;
	return s;
}

/* Periods of 1000 a sample, so that samples follow from periods. */
static struct call_node *node(struct call_node *parent, const struct report_symbol *s,
			      const char *comm, uint64_t total, uint64_t self)
{
	struct call_node *n = alloc(sizeof(*n));

	n->symbol = s;
	n->comm = comm;
	n->total_period = total;
	n->self_period = self;
	n->total_samples = total / 1000;
	n->self_samples = self / 1000;
	if (parent) {
		struct call_node **children = alloc((parent->child_count + 1) * sizeof(*children));

		if (parent->child_count)
			memcpy(children, parent->children,
			       parent->child_count * sizeof(*children));
		children[parent->child_count++] = n;
		parent->children = children;
	}
	return n;
}

static const char *const file_names[] = { "/var/lib/perfrec/a.prf" };

/* 2024-05-01 12:00:00 UTC, 10.25 s, 1000 samples. */
static void fill_header(struct session_summary *h)
{
	h->hostname = "testhost";
	h->kernel_release = "6.1.0-18-amd64";
	h->machine = "x86_64";
	h->event = "cpu-clock";
	h->sampling = (struct session_sampling){ .frequency = 97, .clock = 1 };
	h->start_ns = 5000000000ull;
	h->end_ns = 15250000000ull;
	h->realtime_offset_ns = 1714564800000000000ll - 5000000000ll;
	h->samples = h->samples_total = 1000;
	h->files = 1;
	h->file_names = file_names;
}

#define LONG_CXX "std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, " \
		 "std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, " \
		 "std::char_traits<char>, std::allocator<char> > > >::_M_realloc_insert" \
		 "<std::__cxx11::basic_string<char> const&>"
#define HOSTILE "evil\"q\\b\n\001\033[31m\xff\xc3("

static void add_flat(struct report_data *d, const struct report_symbol *s,
		     uint64_t self, uint64_t total)
{
	struct flat_entry *e = &d->flat[d->flat_count++];

	e->symbol = s;
	e->self_period = self;
	e->total_period = total;
	e->self_samples = self / 1000;
	e->total_samples = total / 1000;
	e->comm = "workload";
	e->pid = 4242;
	e->tid = 4243;
}

static void fill_flat(struct report_data *d)
{
	struct report_symbol *burn = (struct report_symbol *)symbol("burn_hot", "workload", 0);

	burn->srcline = "workload.c:42";
	d->flat = alloc(16 * sizeof(*d->flat));
	add_flat(d, burn, 592100, 600300);
	add_flat(d, symbol("schedule", "[kernel.kallsyms]", 1), 150000, 150000);
	add_flat(d, symbol(LONG_CXX, "libstdc++.so.6", 0), 100000, 120000);
	add_flat(d, inlined("vec_sum", "workload"), 80000, 80000);
	add_flat(d, unknown("libc.so.6", 0x1234, 0), 40000, 40000);
	add_flat(d, symbol("weird;name", "libweird.so", 0), 20000, 20000);
	add_flat(d, symbol(HOSTILE, "lib\tx.so", 0), 10000, 10000);
	add_flat(d, symbol("tiny", "workload", 0), 7900, 7900);
}

/*
 * workload: main -> mid (10% self) -> leaf (50%) -> vec_sum inlined (10%),
 * main -> other (14%) -> weird;name (4%), schedule (2%);
 * kworker/0:1: schedule (9%) -> an unresolved kernel address (1%).
 */
static void fill_tree(struct report_data *d)
{
	const struct report_symbol *schedule = symbol("schedule", "[kernel.kallsyms]", 1);
	struct call_node *root = node(NULL, NULL, NULL, 1000000, 0);
	struct call_node *comm = node(root, NULL, "workload", 900000, 0);
	struct call_node *main_ = node(comm, symbol("main", "workload", 0), NULL, 900000, 0);
	struct call_node *mid = node(main_, symbol("mid", "workload", 0), NULL, 700000, 100000);
	struct call_node *leaf = node(mid, symbol("leaf", "workload", 0), NULL, 600000, 500000);
	struct call_node *other, *kernel;

	node(leaf, inlined("vec_sum", "workload"), NULL, 100000, 100000);
	other = node(main_, symbol("other", "workload", 0), NULL, 200000, 140000);
	node(other, symbol("weird;name", "libweird.so", 0), NULL, 40000, 40000);
	node(other, schedule, NULL, 20000, 20000);
	comm = node(root, NULL, "kworker/0:1", 100000, 0);
	kernel = node(comm, schedule, NULL, 100000, 90000);
	node(kernel, unknown("[kernel.kallsyms]", 0xabc, 1), NULL, 10000, 10000);
	d->tree = root;
}

static struct report_data data;

static void setup(void)
{
	memset(&data, 0, sizeof(data));
	fill_header(&data.header);
	data.total_period = 1000000;
	data.total_samples = 1000;
	data.sort_keys = SORT_SYM | SORT_DSO;
	fill_flat(&data);
	fill_tree(&data);
}

static void teardown(void)
{
	free_all();
}

/* ---- running a view ---------------------------------------------------- */

enum view { FLAT, TREE, FOLDED, FLAT_JSON, TREE_JSON, TIMELINE, TIMELINE_JSON };

static char *run(enum view view, const struct report_data *d,
		 const struct view_options *options)
{
	static const struct view_options none;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	int err = -1;

	ck_assert_ptr_nonnull(out);
	if (!options)
		options = &none;
	switch (view) {
	case FLAT:	err = view_flat(d, options, out); break;
	case TREE:	err = view_tree(d, options, out); break;
	case FOLDED:	err = view_folded(d, out); break;
	case FLAT_JSON:	err = view_flat_json(d, options, out); break;
	case TREE_JSON:	err = view_tree_json(d, options, out); break;
	case TIMELINE:	err = view_timeline(d, options, out); break;
	case TIMELINE_JSON: err = view_timeline_json(d, options, out); break;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(fclose(out), 0);
	return keep(text);
}


/* The text after the header's closing "#" line. */
static const char *body(const char *text)
{
	const char *end = strstr(text, "\n#\n");

	ck_assert_ptr_nonnull(end);
	return end + 3;
}

static size_t count_lines(const char *text)
{
	size_t lines = 0;

	for (; *text; text++)
		lines += *text == '\n';
	return lines;
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	while ((text = strstr(text, what)))
		n++, text++;
	return n;
}

/* The longest line, in bytes: the views' ASCII test data is one a column. */
static size_t longest_line(const char *text)
{
	size_t longest = 0;

	while (*text) {
		size_t length = strcspn(text, "\n");

		if (length > longest)
			longest = length;
		text += length + (text[length] == '\n');
	}
	return longest;
}

/* ---- the header ---------------------------------------------------------- */

START_TEST(test_header)
{
	ck_assert_str_eq(run(FLAT, &data, NULL),
		"# host: testhost, kernel 6.1.0-18-amd64, x86_64\n"
		"# event: cpu-clock, 97 Hz\n"
		"# time: 2024-05-01 12:00:00 UTC, duration 10.250 s\n"
		"# samples: 1000\n"
		"# lost: 0 samples, 0 records dropped\n"
		"# files: 1 (/var/lib/perfrec/a.prf)\n"
		"#\n"
		"# Self%  Samples  Symbol                  DSO\n"
		" 59.21%      592  [.] burn_hot            workload\n"
		" 15.00%      150  [k] schedule            [kernel.kallsyms]\n"
		" 10.00%      100  [.] " LONG_CXX "  libstdc++.so.6\n"
		"  8.00%       80  [.] vec_sum (inlined)   workload\n"
		"  4.00%       40  [.] [unknown]           libc.so.6+0x1234\n"
		"  2.00%       20  [.] weird;name          libweird.so\n"
		"  1.00%       10  [.] evil\"q\\b\?\?\?[31m\?\?(  lib?x.so\n"
		"  0.79%        7  [.] tiny                workload\n");
}
END_TEST

START_TEST(test_header_warnings)
{
	static const char *const names[] = { "a.prf", "b.prf", "c.prf" };
	struct session_summary *h = &data.header;

	h->samples = 900;
	h->lost = 5;
	h->dropped = 2;
	h->files = 3;
	h->damaged_files = 1;
	h->file_names = names;
	h->hostname = "bad\033]0;title\007host";
	h->machine = NULL;
	h->sampling = (struct session_sampling){ 0 };
	h->realtime_offset_ns = -6000000000ll;	/* before 1970: not a time */
	data.total_period = 0;
	ck_assert_str_eq(run(TREE, &data, NULL),
		"# host: bad?]0;title?host, kernel 6.1.0-18-amd64, unknown\n"
		"# event: cpu-clock\n"
		"# time: 5000000000 ns on the capture clock, duration 10.250 s\n"
		"# samples: 900 of 1000 (filtered)\n"
		"# lost: 5 samples, 2 records dropped\n"
		"# files: 3, 1 damaged\n"
		"# WARNING: 5 samples were lost\n"
		"# WARNING: 2 records were dropped by the collector\n"
		"# WARNING: 1 of 3 files were damaged or cut short;"
		" only their readable parts were used\n"
		"#\n"
		"# no samples\n");
	h->start_ns = h->end_ns = 0;
	ck_assert_ptr_nonnull(strstr(run(FLAT, &data, NULL), "\n# time: unknown\n"));
}
END_TEST

/* ---- flat ------------------------------------------------------------------ */

START_TEST(test_flat_80_columns)
{
	struct view_options options = { .width = 80, .show_children = 1 };
	const char *text = run(FLAT, &data, &options);

	ck_assert_str_eq(body(text),
		"# Self%  Total%  Samples  Symbol                               DSO\n"
		" 59.21%  60.03%      592  [.] burn_hot                         workload\n"
		" 15.00%  15.00%      150  [k] schedule                         [kernel.kallsyms]\n"
		" 10.00%  12.00%      100  [.] std::vector..ring<char> const&>  libstdc++.so.6\n"
		"  8.00%   8.00%       80  [.] vec_sum (inlined)                workload\n"
		"  4.00%   4.00%       40  [.] [unknown]                        libc.so.6+0x1234\n"
		"  2.00%   2.00%       20  [.] weird;name                       libweird.so\n"
		"  1.00%   1.00%       10  [.] evil\"q\\b\?\?\?[31m\?\?(               lib?x.so\n"
		"  0.79%   0.79%        7  [.] tiny                             workload\n");
	ck_assert_uint_le(longest_line(text), 80);
}
END_TEST

START_TEST(test_flat_keys)
{
	struct view_options options = { 0 };

	data.sort_keys = SORT_COMM | SORT_PID | SORT_TID | SORT_SYM | SORT_DSO | SORT_SRCLINE;
	data.flat_count = 2;
	ck_assert_str_eq(body(run(FLAT, &data, &options)),
		"# Self%  Samples  Command    Pid   Tid  Symbol        DSO                Source\n"
		" 59.21%      592  workload  4242  4243  [.] burn_hot  workload           workload.c:42\n"
		" 15.00%      150  workload  4242  4243  [k] schedule  [kernel.kallsyms]  [unknown]\n");
	/* Too many columns for 50: Source and Symbol give way, the DSO never. */
	options.width = 50;
	data.flat[1].symbol = symbol(LONG_CXX, "libstdc++.so.6", 0);
	ck_assert_str_eq(body(run(FLAT, &data, &options)),
		"# Self%  Samples  Command    Pid   Tid  Symbol                    DSO             Source\n"
		" 59.21%      592  workload  4242  4243  [.] burn_hot              workload        ..kload.c:42\n"
		" 15.00%      150  workload  4242  4243  [.] std::ve..ar> const&>  libstdc++.so.6  [unknown]\n");
	data.sort_keys = SORT_DSO;
	ck_assert_str_eq(body(run(FLAT, &data, NULL)),
		"# Self%  Samples  DSO\n"
		" 59.21%      592  workload\n"
		" 15.00%      150  libstdc++.so.6\n");
}
END_TEST

START_TEST(test_flat_limit_and_top)
{
	struct view_options options = { .percent_limit = 5 };

	ck_assert_str_eq(body(run(FLAT, &data, &options)),
		"# Self%  Samples  Symbol                 DSO\n"
		" 59.21%      592  [.] burn_hot           workload\n"
		" 15.00%      150  [k] schedule           [kernel.kallsyms]\n"
		" 10.00%      100  [.] " LONG_CXX "  libstdc++.so.6\n"
		"  8.00%       80  [.] vec_sum (inlined)  workload\n"
		"# 4 entries below 5.00% not shown\n");
	options.top = 2;
	ck_assert_str_eq(body(run(FLAT, &data, &options)),
		"# Self%  Samples  Symbol        DSO\n"
		" 59.21%      592  [.] burn_hot  workload\n"
		" 15.00%      150  [k] schedule  [kernel.kallsyms]\n"
		"# 4 entries below 5.00% not shown\n"
		"# 2 entries beyond the top 2 not shown\n");
	/* The limit is on the exact share: 0.79% is below 0.7901%. */
	options.top = 0;
	options.percent_limit = 0.7901;
	ck_assert_ptr_nonnull(strstr(run(FLAT, &data, &options),
				     "\n# 1 entries below 0.79% not shown\n"));
}
END_TEST

/* ---- tree ------------------------------------------------------------------ */

START_TEST(test_tree)
{
	ck_assert_str_eq(body(run(TREE, &data, NULL)),
		"# Total     Self  Call tree (callers first)\n"
		" 90.00%           workload\n"
		" 90.00%           `-- [.] main  [workload]\n"
		" 70.00%   10.00%      |-- [.] mid\n"
		" 60.00%   50.00%      |   [.] leaf\n"
		" 10.00%   10.00%      |   [.] vec_sum (inlined)\n"
		" 20.00%   14.00%      `-- [.] other\n"
		"  4.00%    4.00%          |-- [.] weird;name  [libweird.so]\n"
		"  2.00%    2.00%          `-- [k] schedule  [kernel.kallsyms]\n"
		"\n"
		" 10.00%           kworker/0:1\n"
		" 10.00%    9.00%  `-- [k] schedule  [kernel.kallsyms]\n"
		"  1.00%    1.00%      [k] [unknown]  [kernel.kallsyms]+0xabc\n");
}
END_TEST

START_TEST(test_tree_limit)
{
	struct view_options options = { .percent_limit = 5 };

	ck_assert_str_eq(body(run(TREE, &data, &options)),
		"# Total     Self  Call tree (callers first)\n"
		" 90.00%           workload\n"
		" 90.00%           `-- [.] main  [workload]\n"
		" 70.00%   10.00%      |-- [.] mid\n"
		" 60.00%   50.00%      |   [.] leaf\n"
		" 10.00%   10.00%      |   [.] vec_sum (inlined)\n"
		" 20.00%   14.00%      `-- [.] other\n"
		"\n"
		" 10.00%           kworker/0:1\n"
		" 10.00%    9.00%  `-- [k] schedule  [kernel.kallsyms]\n"
		"# 3 branches below 5.00% not shown (7.00% in all)\n");
	/* A hidden comm takes its whole tree along. */
	options.percent_limit = 50;
	ck_assert_str_eq(body(run(TREE, &data, &options)),
		"# Total     Self  Call tree (callers first)\n"
		" 90.00%           workload\n"
		" 90.00%           `-- [.] main  [workload]\n"
		" 70.00%   10.00%      [.] mid\n"
		" 60.00%   50.00%      [.] leaf\n"
		"# 3 branches below 50.00% not shown (40.00% in all)\n");
}
END_TEST

START_TEST(test_tree_width)
{
	struct view_options options = { .width = 70 };
	struct call_node *other = data.tree->children[0]->children[0]->children[1];
	const char *text;

	other->children[0]->symbol = symbol(LONG_CXX, "libstdc++.so.6", 0);
	text = run(TREE, &data, &options);
	ck_assert_ptr_nonnull(strstr(text,
		"\n  4.00%    4.00%          |-- [.] std::v..r> const&>  [libstdc++.so.6]\n"));
	ck_assert_uint_le(longest_line(body(text)), 70);
}
END_TEST

START_TEST(test_tree_callee)
{
	data.tree_callee = 1;
	ck_assert_ptr_nonnull(strstr(run(TREE, &data, NULL),
				     "\n# Total     Self  Call tree (callees first)\n"));
}
END_TEST

/* ---- folded ---------------------------------------------------------------- */

static const char folded_expected[] =
	"workload;main;mid 100\n"
	"workload;main;mid;leaf 500\n"
	"workload;main;mid;leaf;vec_sum_[i] 100\n"
	"workload;main;other 140\n"
	"workload;main;other;weird:name 40\n"
	"workload;main;other;schedule_[k] 20\n"
	"kworker/0:1;schedule_[k] 90\n"
	"kworker/0:1;schedule_[k];[kernel.kallsyms]_[k] 10\n";

START_TEST(test_folded)
{
	struct call_node *mid = data.tree->children[0]->children[0]->children[0];

	ck_assert_str_eq(run(FOLDED, &data, NULL), folded_expected);
	/* Hostile names stay on their line; unresolved is its DSO. */
	mid->symbol = symbol("a b;c\nd\001", "workload", 0);
	mid->children[0]->symbol = unknown("libc.so.6", 0x10, 0);
	mid->children[0]->children[0]->symbol = unknown(NULL, 0x10, 0);
	ck_assert_str_eq(run(FOLDED, &data, NULL),
		"workload;main;a b:c?d? 100\n"
		"workload;main;a b:c?d?;[libc.so.6] 500\n"
		"workload;main;a b:c?d?;[libc.so.6];[unknown] 100\n"
		"workload;main;other 140\n"
		"workload;main;other;weird:name 40\n"
		"workload;main;other;schedule_[k] 20\n"
		"kworker/0:1;schedule_[k] 90\n"
		"kworker/0:1;schedule_[k];[kernel.kallsyms]_[k] 10\n");
}
END_TEST

/* A callee tree holds each stack leaf first: folded turns it back. */
START_TEST(test_folded_callee)
{
	struct call_node *root = node(NULL, NULL, NULL, 1000000, 0);
	struct call_node *comm = node(root, NULL, "workload", 1000000, 0);
	struct call_node *leaf = node(comm, symbol("leaf", "workload", 0), NULL, 1000000, 0);
	struct call_node *mid = node(leaf, symbol("mid", "workload", 0), NULL, 1000000, 0);

	node(mid, symbol("main", "workload", 0), NULL, 600000, 600000);
	node(mid, symbol("other", "workload", 0), NULL, 400000, 400000);
	data.tree = root;
	data.tree_callee = 1;
	ck_assert_str_eq(run(FOLDED, &data, NULL),
		"workload;main;mid;leaf 600\n"
		"workload;other;mid;leaf 400\n");
}
END_TEST

/* ---- JSON ------------------------------------------------------------------ */

/*
 * A strict validator, independent of the code under test: RFC 8259
 * values, no raw control characters, escapes well formed, UTF-8 valid.
 * It records how deep the value nests.
 */
struct json {
	const char *p;
	int depth, max_depth;
};

static int json_value(struct json *j);

static void json_space(struct json *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static int json_utf8(struct json *j)
{
	const unsigned char *p = (const unsigned char *)j->p;
	int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : 0;

	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	j->p += n;
	return n != 0;
}

static int json_string_value(struct json *j)
{
	if (*j->p++ != '"')
		return 0;
	for (;;) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"')
			return j->p++, 1;
		if (c < 0x20)
			return 0;
		if (c >= 0x80) {
			if (!json_utf8(j))
				return 0;
			continue;
		}
		j->p++;
		if (c != '\\')
			continue;
		c = (unsigned char)*j->p++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++)
				if (!strchr("0123456789abcdefABCDEF", *j->p++) || !j->p[-1])
					return 0;
		} else if (!c || !strchr("\"\\/bfnrt", c)) {
			return 0;
		}
	}
}

static int json_digits(struct json *j)
{
	const char *start = j->p;

	while (*j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > start;
}

static int json_number(struct json *j)
{
	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (!json_digits(j))
		return 0;
	if (*j->p == '.' && (j->p++, !json_digits(j)))
		return 0;
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		return json_digits(j);
	}
	return 1;
}

static int json_container(struct json *j, char close)
{
	int ok = 1;

	if (++j->depth > j->max_depth)
		j->max_depth = j->depth;
	if (j->depth > 1000)
		return 0;
	j->p++;
	json_space(j);
	if (*j->p == close)
		return j->p++, j->depth--, 1;
	while (ok) {
		json_space(j);
		if (close == '}') {
			ok = json_string_value(j);
			json_space(j);
			ok = ok && *j->p++ == ':';
		}
		ok = ok && json_value(j);
		json_space(j);
		if (ok && *j->p == close)
			return j->p++, j->depth--, 1;
		ok = ok && *j->p++ == ',';
	}
	return 0;
}

static int json_value(struct json *j)
{
	json_space(j);
	switch (*j->p) {
	case '{':	return json_container(j, '}');
	case '[':	return json_container(j, ']');
	case '"':	return json_string_value(j);
	case 't':	return !strncmp(j->p, "true", 4) && (j->p += 4);
	case 'f':	return !strncmp(j->p, "false", 5) && (j->p += 5);
	case 'n':	return !strncmp(j->p, "null", 4) && (j->p += 4);
	default:	return json_number(j);
	}
}

/* Valid JSON; returns how deep it nests. */
static int check_json(const char *text)
{
	struct json j = { .p = text };

	ck_assert_msg(json_value(&j), "invalid JSON at offset %td: %.40s",
		      j.p - text, j.p);
	json_space(&j);
	ck_assert_msg(!*j.p, "text after the JSON value: %.40s", j.p);
	return j.max_depth;
}

/* Other parsers, when installed: the test does not need them. */
static int have(const char *probe)
{
	return system(probe) == 0;
}

static void check_with(const char *command, const char *text)
{
	FILE *pipe = popen(command, "w");
	int status;

	ck_assert_ptr_nonnull(pipe);
	fputs(text, pipe);
	status = pclose(pipe);
	ck_assert_msg(status == 0, "%s: status %d", command, status);
}

static void check_json_everywhere(const char *text)
{
	check_json(text);
	if (have("python3 -c '' >/dev/null 2>&1"))
		check_with("python3 -m json.tool >/dev/null", text);
	if (have("jq --version >/dev/null 2>&1"))
		check_with("jq . >/dev/null", text);
}

START_TEST(test_json_flat)
{
	struct view_options options = { .top = 3 };
	const char *text = run(FLAT_JSON, &data, NULL);

	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text,
		"\"symbol\":\"evil\\\"q\\\\b\\n\\u0001\\u001b[31m\\ufffd\\ufffd(\","
		"\"dso\":\"lib\\tx.so\","));
	ck_assert_ptr_nonnull(strstr(text,
		"\n{\"comm\":null,\"pid\":null,\"tid\":null,\"symbol\":\"burn_hot\","
		"\"dso\":\"workload\",\"srcline\":\"workload.c:42\",\"kernel\":false,"
		"\"inlined\":false,\"resolved\":true,\"unknown_offset\":null,"
		"\"self_percent\":59.2100,\"total_percent\":60.0300,\"self_samples\":592,"
		"\"total_samples\":600,\"self_period\":592100,\"total_period\":600300},\n"));
	ck_assert_ptr_nonnull(strstr(text, "\"resolved\":false,\"unknown_offset\":4660,"));
	ck_assert_ptr_nonnull(strstr(text,
		"\"start_time\":\"2024-05-01T12:00:00.000000000Z\","));
	ck_assert_ptr_nonnull(strstr(text, "\n],\n\"hidden_entries\":0}\n"));
	text = run(FLAT_JSON, &data, &options);
	check_json(text);
	ck_assert_ptr_nonnull(strstr(text, "\n],\n\"hidden_entries\":5}\n"));
}
END_TEST

START_TEST(test_json_tree)
{
	struct view_options options = { .percent_limit = 5 };
	const char *text = run(TREE_JSON, &data, NULL);

	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "\"order\":\"caller\",\n\"children\":[\n"
		"{\"kind\":\"comm\",\"name\":\"workload\",\"dso\":null,\"srcline\":null,"
		"\"kernel\":false,\"inlined\":false,\"resolved\":false,"
		"\"unknown_offset\":null,\"percent\":90.0000,\"self_percent\":0.0000,"
		"\"samples\":900,\"self_samples\":0,\"period\":900000,\"self_period\":0,"
		"\"truncated\":false,\"children\":[\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"{\"kind\":\"frame\",\"name\":\"[unknown]\",\"dso\":\"[kernel.kallsyms]\","
		"\"srcline\":null,\"kernel\":true,\"inlined\":false,\"resolved\":false,"
		"\"unknown_offset\":2748,\"percent\":1.0000,\"self_percent\":1.0000,"
		"\"samples\":10,\"self_samples\":10,\"period\":10000,\"self_period\":10000,"
		"\"truncated\":false,\"children\":[]}]}]}\n],\n\"hidden_nodes\":0}\n"));
	text = run(TREE_JSON, &data, &options);
	check_json(text);
	ck_assert_ptr_nonnull(strstr(text, "\n\"hidden_nodes\":3}\n"));
	ck_assert_ptr_null(strstr(text, "weird"));
}
END_TEST

/* Odd bytes of every kind, in every string the JSON views print. */
START_TEST(test_json_hostile)
{
	static const char *const names[] = { "x\"\\\x7f\xc2\x9b\xed\xa0\x80\xf4\x90\x80\x80" };
	struct call_node *mid = data.tree->children[0]->children[0]->children[0];
	const char *text;

	data.header.hostname = "h\r\x08\x0c\x1f";
	data.header.file_names = names;
	data.flat[0].comm = "\xe2\x82";		/* cut short */
	data.sort_keys |= SORT_COMM;
	mid->symbol = symbol(HOSTILE, "\xc0\xaf", 0);	/* overlong '/' */
	text = run(FLAT_JSON, &data, NULL);
	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "\"hostname\":\"h\\r\\b\\f\\u001f\","));
	ck_assert_ptr_nonnull(strstr(text, "\"file_names\":[\"x\\\"\\\\\\u007f\\u009b"
		"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"]"));
	ck_assert_ptr_nonnull(strstr(text, "{\"comm\":\"\\ufffd\\ufffd\","));
	text = run(TREE_JSON, &data, NULL);
	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "\"dso\":\"\\ufffd\\ufffd\","));
}
END_TEST

/* ---- deep trees -------------------------------------------------------------- */

#define DEEP	5000

static const char *frame_name(size_t i)
{
	char *name = alloc(24);

	snprintf(name, 24, "f%zu", i);
	return name;
}

/* deep: f0 -> f1 -> ... f4999, every sample in the last. */
static void make_chain(void)
{
	struct call_node *root = node(NULL, NULL, NULL, 1000, 0);
	struct call_node *n = node(root, NULL, "deep", 1000, 0);

	for (size_t i = 0; i < DEEP; i++)
		n = node(n, symbol(frame_name(i), "deep", 0), NULL, 1000, i == DEEP - 1 ? 1000 : 0);
	data.tree = root;
	data.total_period = 1000;
}

/* deep: f0 -> ... f4999 again, but each with a one-sample side leaf. */
static void make_comb(void)
{
	uint64_t total = 2000 + (DEEP - 1) * 1000;
	struct call_node *root = node(NULL, NULL, NULL, total, 0);
	struct call_node *n = node(root, NULL, "deep", total, 0);
	const struct report_symbol *side = symbol("side", "deep", 0);

	for (size_t i = 0; i < DEEP; i++, total -= 1000) {
		struct call_node *next = node(n, symbol(frame_name(i), "deep", 0), NULL,
					      total, i == DEEP - 1 ? 2000 : 0);

		if (i)
			node(n, side, NULL, 1000, 1000);
		n = next;
	}
	data.tree = root;
	data.total_period = 2000 + (DEEP - 1) * 1000;
}

START_TEST(test_deep_chain)
{
	struct view_options options = { 0 };
	const char *text, *line;
	int depth;

	make_chain();
	/* An only child goes straight on: no line indents past the first frame. */
	text = body(run(TREE, &data, NULL));
	ck_assert_uint_eq(count_lines(text), 1 + 1 + DEEP);
	ck_assert_ptr_nonnull(strstr(text, "\n100.00%           `-- [.] f0  [deep]\n"
					   "100.00%               [.] f1\n"));
	line = strstr(text, "\n100.00%  100.00%      [.] f4999\n");
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line + strlen("\n100.00%  100.00%      [.] f4999\n"), "");
	ck_assert_uint_eq(longest_line(strchr(text, '\n') + 1),
			  strlen("100.00%           `-- [.] f0  [deep]"));

	text = run(FOLDED, &data, NULL);
	ck_assert_uint_eq(count_lines(text), 1);
	ck_assert_int_eq(strncmp(text, "deep;f0;f1;f2;", 14), 0);
	ck_assert_str_eq(text + strlen(text) - 15, ";f4998;f4999 1\n");

	/* Cut at VIEW_JSON_MAX_DEPTH, within what jq 1.6 parses. */
	text = run(TREE_JSON, &data, NULL);
	check_json_everywhere(text);
	depth = check_json(text);
	ck_assert_int_eq(depth, 2 * VIEW_JSON_MAX_DEPTH + 2);
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"f78\""));
	ck_assert_ptr_null(strstr(text, "\"name\":\"f79\""));
	ck_assert_ptr_nonnull(strstr(text, "\"truncated\":true,\"children\":[]}"));
	ck_assert_uint_eq(count(text, "\"truncated\":true"), 1);
	/* Or as deep as the caller asks: Python still reads 400. */
	options.json_max_depth = 400;
	text = run(TREE_JSON, &data, &options);
	ck_assert_int_eq(check_json(text), 2 * 400 + 2);
	ck_assert_uint_eq(count(text, "\"truncated\":true"), 1);
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"f398\""));
	if (have("python3 -c '' >/dev/null 2>&1"))
		check_with("python3 -m json.tool >/dev/null", text);
}
END_TEST

START_TEST(test_deep_comb)
{
	const char *text, *line;
	size_t longest = 0;

	make_comb();
	text = body(run(TREE, &data, NULL));
	ck_assert_uint_eq(count_lines(text), 1 + 1 + DEEP + DEEP - 1);
	/* Guides stop growing at 40 columns, "[+N]" counts the levels left out. */
	for (line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		size_t guides = strstr(line, "[.] ") - line - 18;

		if (guides > longest)
			longest = guides;
	}
	ck_assert_uint_eq(longest, 40);
	ck_assert_ptr_nonnull(strstr(text, "\n 99.98%               |-- [.] f1\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"\n 99.82%               |   |   |   |   |   |   |   |   |-- [.] f9\n"
		" 99.80%           [+3]    |   |   |   |   |   |   |   |-- [.] f10\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"\n  0.04%    0.04%  [+4992] |   |   |   |   |   |   |   |-- [.] f4999\n"
		"  0.02%    0.02%  [+4992] |   |   |   |   |   |   |   `-- [.] side\n"));

	text = run(TREE_JSON, &data, NULL);
	ck_assert_int_eq(check_json(text), 2 * VIEW_JSON_MAX_DEPTH + 2);
}
END_TEST

/* ---- no samples -------------------------------------------------------------- */

START_TEST(test_no_samples)
{
	struct report_data empty = { 0 };
	struct call_node root = { 0 };
	const char *text;

	fill_header(&empty.header);
	empty.header.samples = 0;
	ck_assert_str_eq(body(run(FLAT, &empty, NULL)), "# no samples\n");
	ck_assert_str_eq(body(run(TREE, &empty, NULL)), "# no samples\n");
	ck_assert_str_eq(run(FOLDED, &empty, NULL), "");
	text = run(FLAT_JSON, &empty, NULL);
	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "\"entries\":[\n],\n\"hidden_entries\":0}\n"));
	check_json_everywhere(run(TREE_JSON, &empty, NULL));
	empty.tree = &root;
	ck_assert_str_eq(body(run(TREE, &empty, NULL)), "# no samples\n");
	ck_assert_str_eq(run(FOLDED, &empty, NULL), "");
	text = run(TREE_JSON, &empty, NULL);
	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "\"children\":[\n],\n\"hidden_nodes\":0}\n"));
}
END_TEST

/* ---- timeline ------------------------------------------------------------ */

/*
 * The flat rows over 11 s of 1 s slots from the header's start: slot 0
 * burn_hot 300, schedule 100; slot 1 burn_hot 292, schedule 50, the
 * hostile name 10; slot 3 the C++ name 100, vec_sum 80, libc+0x1234 40,
 * weird;name 20; slot 10 tiny 7 (samples; periods 1000 a sample, tiny's
 * 7900).  Each row's entries add up to its flat self time.
 */
static void fill_timeline(struct report_data *d)
{
	static const struct { uint32_t slot, flat; uint64_t period; } cells[] = {
		{ 0, 0, 300000 }, { 0, 1, 100000 },
		{ 1, 0, 292100 }, { 1, 1, 50000 }, { 1, 6, 10000 },
		{ 3, 2, 100000 }, { 3, 3, 80000 }, { 3, 4, 40000 }, { 3, 5, 20000 },
		{ 10, 7, 7900 },
	};
	size_t n = sizeof(cells) / sizeof(cells[0]);
	struct report_time_entry *entries = alloc(n * sizeof(*entries));

	for (size_t i = 0; i < n; i++)
		entries[i] = (struct report_time_entry){
			.slot = cells[i].slot, .flat = cells[i].flat,
			.period = cells[i].period, .samples = cells[i].period / 1000,
		};
	d->timeline = (struct report_timeline){
		.origin_ns = d->header.start_ns, .slot_ns = 1000000000,
		.entries = entries, .entry_count = n, .slot_count = 11,
	};
}

START_TEST(test_timeline)
{
	struct view_options options = { .until_ns = data.header.end_ns, .ascii = 1 };

	fill_timeline(&data);
	ck_assert_str_eq(body(run(TIMELINE, &data, &options)),
		"# timeline: 11 intervals of 1s, 2024-05-01T12:00:00.000Z to 2024-05-01T12:00:11.000Z;"
		" the top 3 keys of each, with their shares of it\n"
		"# Start (UTC)             Samples  Top\n"
		"2024-05-01T12:00:00.000Z      400  75.00% [.] burn_hot workload"
		"  25.00% [k] schedule [kernel.kallsyms]\n"
		"2024-05-01T12:00:01.000Z      352  82.96% [.] burn_hot workload"
		"  14.20% [k] schedule [kernel.kallsyms]  2.84% [.] evil\"q\\b\?\?\?[31m\?\?( lib?x.so\n"
		"2024-05-01T12:00:02.000Z        0\n"
		"2024-05-01T12:00:03.000Z      240  41.67% [.] " LONG_CXX " libstdc++.so.6"
		"  33.33% [.] vec_sum (inlined) workload  16.67% [.] [unknown] libc.so.6+0x1234\n"
		"2024-05-01T12:00:04.000Z        0\n"
		"2024-05-01T12:00:05.000Z        0\n"
		"2024-05-01T12:00:06.000Z        0\n"
		"2024-05-01T12:00:07.000Z        0\n"
		"2024-05-01T12:00:08.000Z        0\n"
		"2024-05-01T12:00:09.000Z        0\n"
		"2024-05-01T12:00:10.000Z        7  100.00% [.] tiny workload\n"
		"#\n"
		"# The top 3 keys of the range, a column per interval; a full cell (@) is the"
		" busiest column: 400 samples\n"
		"# **            59.21% [.] burn_hot workload\n"
		"# :.            15.00% [k] schedule [kernel.kallsyms]\n"
		"#    :          10.00% [.] " LONG_CXX " libstdc++.so.6\n");
}
END_TEST

/* Columns of a line of UTF-8: its bytes but continuation bytes. */
static size_t utf8_columns(const char *line, size_t bytes)
{
	size_t columns = 0;

	for (size_t i = 0; i < bytes; i++)
		columns += ((unsigned char)line[i] & 0xc0) != 0x80;
	return columns;
}

/*
 * At 80 columns: block elements, as many keys a line as fit at 24
 * columns, the first always; every line but the comments' fits.
 */
START_TEST(test_timeline_width)
{
	struct view_options options = { .until_ns = data.header.end_ns, .width = 80 };
	const char *text, *line;

	fill_timeline(&data);
	text = body(run(TIMELINE, &data, &options));
	ck_assert_ptr_nonnull(strstr(text,
		"\n2024-05-01T12:00:01.000Z      352  82.96% [.] burn_hot workload\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"\n2024-05-01T12:00:03.000Z      240  41.67% [.] std::vecto..const&> libstdc++.so.6\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# \xe2\x96\x86\xe2\x96\x86         "
				     "   59.21% [.] burn_hot workload\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# \xe2\x96\x82\xe2\x96\x81         "
				     "   15.00% [k] schedule [kernel.kallsyms]\n"));
	for (line = text; *line; line += strcspn(line, "\n") + 1)
		if (strncmp(line, "# The", 5) && strncmp(line, "# timeline", 10))
			ck_assert_msg(utf8_columns(line, strcspn(line, "\n")) <= 80, "%.*s",
				      (int)strcspn(line, "\n"), line);
	/* Narrower than a time and a key: the first key alone, elided. */
	options.width = 40;
	ck_assert_ptr_nonnull(strstr(run(TIMELINE, &data, &options),
		"\n2024-05-01T12:00:01.000Z      352  82.96% [.] burn_hot workload\n"));
	/* Room for 9 columns: 11 intervals 2 a column, burn_hot's both in the first. */
	options.width = 2 + 2 + 7 + 1 + 32 + 9;
	ck_assert_ptr_nonnull(strstr(run(TIMELINE, &data, &options),
		"a column per 2 intervals (2s); a full cell (\xe2\x96\x88) is the busiest column:"
		" 752 samples\n# \xe2\x96\x87        59.21% [.] burn_hot workload\n"));
}
END_TEST

/*
 * Slots past the range's end count in its last interval; --top, the
 * percent limit (of the interval), other sort keys; no samples.
 */
START_TEST(test_timeline_keys)
{
	struct view_options options = { .until_ns = data.header.start_ns + 2500000000ull,
					.ascii = 1, .top = 2, .percent_limit = 15 };
	struct report_data empty = { 0 };

	fill_timeline(&data);
	data.sort_keys = SORT_COMM | SORT_PID;
	for (size_t i = 0; i < data.flat_count; i++)
		data.flat[i].pid = 100 + (uint32_t)i;
	data.flat[1].comm = "kworker/0:1";
	ck_assert_str_eq(body(run(TIMELINE, &data, &options)),
		"# timeline: 3 intervals of 1s, 2024-05-01T12:00:00.000Z to 2024-05-01T12:00:03.000Z;"
		" the top 2 keys of each, with their shares of it\n"
		"# Start (UTC)             Samples  Top\n"
		"2024-05-01T12:00:00.000Z      400  75.00% workload 100  25.00% kworker/0:1 101\n"
		"2024-05-01T12:00:01.000Z      352  82.96% workload 100\n"
		"2024-05-01T12:00:02.000Z      247  40.34% workload 102  32.27% workload 103\n"
		"#\n"
		"# The top 2 keys of the range, a column per interval; a full cell (@) is the"
		" busiest column: 400 samples\n"
		"# **    59.21% workload 100\n"
		"# :.    15.00% kworker/0:1 101\n");
	fill_header(&empty.header);
	ck_assert_str_eq(body(run(TIMELINE, &empty, &options)), "# no samples\n");
}
END_TEST

/* Off-CPU: the interval's blocked milliseconds and its blocks. */
START_TEST(test_timeline_off_cpu)
{
	struct view_options options = { .until_ns = data.header.end_ns, .ascii = 1, .top = 1 };
	const char *text;

	fill_timeline(&data);
	data.kind = REPORT_PROFILE_OFF_CPU;
	data.weight_unit = "nanoseconds";
	text = body(run(TIMELINE, &data, &options));
	ck_assert_ptr_nonnull(strstr(text,
		"# Start (UTC)                ms  Blocks  Top\n"
		"2024-05-01T12:00:00.000Z  0.400     400  75.00% [.] burn_hot workload\n"
		"2024-05-01T12:00:01.000Z  0.352     352  82.96% [.] burn_hot workload\n"
		"2024-05-01T12:00:02.000Z  0.000       0\n"));
	ck_assert_ptr_nonnull(strstr(text, "a full cell (@) is the busiest column: 0.400 ms\n"));
	text = run(TIMELINE_JSON, &data, &options);
	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "\"profile\":\"off-cpu\",\"weight_unit\":\"nanoseconds\""));
}
END_TEST

START_TEST(test_timeline_json)
{
	struct view_options options = { .until_ns = data.header.end_ns };
	const char *text;

	fill_timeline(&data);
	text = run(TIMELINE_JSON, &data, &options);
	check_json_everywhere(text);
	ck_assert_ptr_nonnull(strstr(text, "{\"view\":\"timeline\",\"version\":1,\n"));
	ck_assert_ptr_nonnull(strstr(text, "\"sort_keys\":[\"dso\",\"sym\"],\n"
		"\"interval_ns\":1000000000,\"start\":\"2024-05-01T12:00:00.000Z\","
		"\"start_ns\":5000000000,\"end\":\"2024-05-01T12:00:11.000Z\","
		"\"end_ns\":16000000000,\"top_n\":3,\n\"intervals\":[\n"
		"{\"start\":\"2024-05-01T12:00:00.000Z\",\"start_ns\":5000000000,\"samples\":400,"
		"\"period\":400000,\"top\":[{\"key\":\"[.] burn_hot workload\",\"samples\":300,"
		"\"period\":300000,\"share\":75.0000},{\"key\":\"[k] schedule [kernel.kallsyms]\","
		"\"samples\":100,\"period\":100000,\"share\":25.0000}]},\n"));
	ck_assert_ptr_nonnull(strstr(text, "{\"key\":\"[.] evil\\\"q\\\\b\\n\\u0001\\u001b[31m"
		"\\ufffd\\ufffd( lib\\tx.so\",\"samples\":10,\"period\":10000,\"share\":2.8401}]},\n"
		"{\"start\":\"2024-05-01T12:00:02.000Z\",\"start_ns\":7000000000,\"samples\":0,"
		"\"period\":0,\"top\":[]},\n"));
	ck_assert_ptr_nonnull(strstr(text, "{\"start\":\"2024-05-01T12:00:10.000Z\","
		"\"start_ns\":15000000000,\"samples\":7,\"period\":7900,\"top\":[{\"key\":"
		"\"[.] tiny workload\",\"samples\":7,\"period\":7900,\"share\":100.0000}]}\n],\n"
		"\"keys\":[\n{\"key\":\"[.] burn_hot workload\",\"samples\":592,\"period\":592100,"
		"\"share\":59.2100},\n"));
	ck_assert_uint_eq(count(text, "{\"start\":"), 11);
}
END_TEST

/* ---- helpers --------------------------------------------------------------- */

START_TEST(test_elide)
{
	char buffer[64], small[8];
	const char *name = "std::vector<..>::_M_realloc_insert";

	ck_assert_ptr_eq(view_elide(name, 0, buffer, sizeof(buffer)), name);
	ck_assert_ptr_eq(view_elide(name, 34, buffer, sizeof(buffer)), name);
	ck_assert_str_eq(view_elide(name, 22, buffer, sizeof(buffer)), "std::vec..alloc_insert");
	ck_assert_str_eq(view_elide(name, 33, buffer, sizeof(buffer)),
			 "std::vector<..::_M_realloc_insert");
	ck_assert_str_eq(view_elide(name, 4, buffer, sizeof(buffer)), "..rt");
	ck_assert_str_eq(view_elide(name, 2, buffer, sizeof(buffer)), "st");
	ck_assert_str_eq(view_elide(name, 22, small, sizeof(small)), "std::ve");
	/* UTF-8 is cut between characters, never inside one. */
	ck_assert_str_eq(view_elide("\xc3\xa9t\xc3\xa9 d\xc3\xa9j\xc3\xa0 vu", 7, buffer,
				    sizeof(buffer)), "\xc3\xa9t.. vu");
	ck_assert_uint_eq(view_columns("\xc3\xa9t\xc3\xa9"), 3);
	/* Controls and bad bytes are one '?' each. */
	ck_assert_str_eq(view_elide("a\033[2Jb\xff\xc2\x85", 0, buffer, sizeof(buffer)),
			 "a?[2Jb??");
	ck_assert_uint_eq(view_columns("a\033[2Jb\xff\xc2\x85"), 8);
}
END_TEST

START_TEST(test_percent)
{
	char text[32], limit[32];

	ck_assert_str_eq(view_percent(text, sizeof(text), 592100, 1000000), "59.21%");
	ck_assert_str_eq(view_percent(text, sizeof(text), 1, 3), "33.33%");
	ck_assert_str_eq(view_percent(text, sizeof(text), 2, 3), "66.67%");
	ck_assert_str_eq(view_percent(text, sizeof(text), 5, 5), "100.00%");
	ck_assert_str_eq(view_percent(text, sizeof(text), 1, 0), "0.00%");
	/* Periods of hours of nanoseconds on many CPUs do not overflow. */
	ck_assert_str_eq(view_percent(text, sizeof(text), UINT64_MAX / 2, UINT64_MAX),
			 "50.00%");
	ck_assert_uint_eq(view_percent_fixed(1, 3, 4), 333333);
	ck_assert(view_below_limit(49, 1000, 5));
	ck_assert(!view_below_limit(50, 1000, 5));
	ck_assert(!view_below_limit(0, 1000, 0));
	ck_assert_str_eq(view_limit_text(limit, sizeof(limit), 0.5), "0.50%");
}
END_TEST

/* A full disk is the caller's to report: the views say so. */
START_TEST(test_write_error)
{
	FILE *full = fopen("/dev/full", "w");

	if (!full)
		return;
	setvbuf(full, NULL, _IONBF, 0);
	errno = 0;
	ck_assert_int_lt(view_flat(&data, &(struct view_options){ 0 }, full), 0);
	ck_assert_int_eq(errno, ENOSPC);
	clearerr(full);
	ck_assert_int_lt(view_tree_json(&data, &(struct view_options){ 0 }, full), 0);
	fclose(full);
}
END_TEST

/* ---- a tracepoint sample's fields ------------------------------------ */

static const char switch_format[] =
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\tfield:void * where;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 bytes[3];\toffset:72;\tsize:3;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:76;\tsize:4;\tsigned:0;\n"
	"\tfield:int outside;\toffset:200;\tsize:4;\tsigned:1;\n";

/* Both printers over one sample of the format above, named event. */
static void print_fields(const char *event_name, const uint8_t *raw, size_t size,
			 char **text, char **json)
{
	struct prf_tracepoint_fields *fields;
	struct prf_event event = { .name = event_name };
	struct prf_sample record = { .raw = raw, .raw_size = (uint32_t)size };
	struct session_sample sample = { .event = &event, .record = &record };
	size_t text_size, json_size;
	FILE *out;

	ck_assert_int_eq(prf_tracepoint_fields_parse(switch_format, strlen(switch_format),
						     &fields), 0);
	sample.tracepoint = fields;
	out = open_memstream(text, &text_size);
	view_put_tracepoint_fields(out, &sample);
	ck_assert_int_eq(fclose(out), 0);
	out = open_memstream(json, &json_size);
	view_json_tracepoint_fields(out, &sample);
	ck_assert_int_eq(fclose(out), 0);
	prf_tracepoint_fields_free(fields);
}

START_TEST(test_tracepoint_fields)
{
	uint8_t raw[96] = { 0 };
	int32_t pid = 123, prio = 120, next_pid = 0, next_prio = -20;
	int64_t state = 0x101;		/* S, preempted */
	uint64_t where = 0xffffffff81000000u;
	uint32_t location = 6u << 16 | 80;
	char *text, *json;

	memcpy(raw + 8, "spin\033[2J", 9);	/* a terminal escape in a comm */
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 28, &prio, 4);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 40, "swapper/0", 9);
	memcpy(raw + 56, &next_pid, 4);
	memcpy(raw + 60, &next_prio, 4);
	memcpy(raw + 64, &where, 8);
	memcpy(raw + 72, "\x01\x02\xff", 3);
	memcpy(raw + 76, &location, 4);
	memcpy(raw + 80, "a\"b\\c", 6);

	print_fields("sched:sched_switch", raw, 96, &text, &json);
	ck_assert_str_eq(text, "prev_comm=spin?[2J prev_pid=123 prev_prio=120 prev_state=S+ ==> "
			 "next_comm=swapper/0 next_pid=0 next_prio=-20 where=0xffffffff81000000 "
			 "bytes=ARRAY[01, 02, ff] name=a\"b\\c outside=[outside the data]");
	ck_assert_str_eq(json, "{\"prev_comm\":\"spin\\u001b[2J\",\"prev_pid\":123,\"prev_prio\":120,"
			 "\"prev_state\":257,\"next_comm\":\"swapper/0\",\"next_pid\":0,"
			 "\"next_prio\":-20,\"where\":\"0xffffffff81000000\",\"bytes\":[1,2,255],"
			 "\"name\":\"a\\\"b\\\\c\",\"outside\":null}");
	free(text);
	free(json);

	/* Another event: no special prev_state, no "==>"; a location past the data. */
	location = 60u << 16 | 80;
	memcpy(raw + 76, &location, 4);
	print_fields("sched:other", raw, 96, &text, &json);
	ck_assert(strstr(text, "prev_state=257 next_comm=swapper/0"));
	ck_assert(strstr(text, "name=[outside the data]"));
	ck_assert(strstr(json, "\"name\":null"));
	free(text);
	free(json);
}
END_TEST

/* The time views' steps and times (time-step.c). */
START_TEST(test_time_step)
{
	const uint64_t s = 1000000000ull;
	char buffer[REPORT_TIME_ISO_MAX];

	ck_assert_uint_eq(report_time_step(0, 60), 1000000);
	ck_assert_uint_eq(report_time_step(59 * 1000000, 60), 1000000);
	ck_assert_uint_eq(report_time_step(60 * 1000000, 60), 2000000);
	ck_assert_uint_eq(report_time_step(4 * s, 60), 100000000);
	ck_assert_uint_eq(report_time_step(59 * s, 60), s);
	ck_assert_uint_eq(report_time_step(3600 * s, 60), 120 * s);
	ck_assert_uint_eq(report_time_step(24 * 3600 * s, 60), 1800 * s);
	ck_assert_uint_eq(report_time_step(24 * 3600 * s, 1), 2 * 24 * 3600 * s);
	ck_assert_uint_eq(report_time_step(100 * 24 * 3600 * s, 10), 11 * 24 * 3600 * s);
	/* 2026-12-07T01:02:03.456Z, from a capture clock 1000 s behind. */
	ck_assert_str_eq(report_time_iso(1000 * s + 456000000, 1796605323ll * (int64_t)s - 1000 * (int64_t)s,
					 buffer, sizeof(buffer)),
			 "2026-12-07T01:02:03.456Z");
	/* Before 1970, milliseconds stay positive. */
	ck_assert_str_eq(report_time_iso(0, -1500000000ll, buffer, sizeof(buffer)),
			 "1969-12-31T23:59:58.500Z");
	ck_assert_str_eq(report_time_iso(0, 0, buffer, 8), "?");
	/* A hostile capture's time: no overflow, no time. */
	ck_assert_str_eq(report_time_iso(7535809000000000000ull, 1780000000000000000ll, buffer,
					 sizeof(buffer)), "?");
	/* Past 2^63 on the capture clock: no time, not one wrapped to 1734. */
	ck_assert_str_eq(report_time_iso(1ull << 63, 1780000000000000000ll, buffer,
					 sizeof(buffer)), "?");
	ck_assert_str_eq(report_time_iso(~0ull, 1780000000000000000ll, buffer, sizeof(buffer)), "?");
}
END_TEST

static Suite *views_suite(void)
{
	Suite *s = suite_create("views");
	TCase *text = tcase_create("text");
	TCase *json = tcase_create("json");
	TCase *deep = tcase_create("deep");
	TCase *helpers = tcase_create("helpers");

	tcase_add_checked_fixture(text, setup, teardown);
	tcase_add_test(text, test_header);
	tcase_add_test(text, test_header_warnings);
	tcase_add_test(text, test_flat_80_columns);
	tcase_add_test(text, test_flat_keys);
	tcase_add_test(text, test_flat_limit_and_top);
	tcase_add_test(text, test_tree);
	tcase_add_test(text, test_tree_limit);
	tcase_add_test(text, test_tree_width);
	tcase_add_test(text, test_tree_callee);
	tcase_add_test(text, test_folded);
	tcase_add_test(text, test_folded_callee);
	tcase_add_test(text, test_no_samples);
	tcase_add_test(text, test_write_error);
	tcase_add_test(text, test_timeline);
	tcase_add_test(text, test_timeline_width);
	tcase_add_test(text, test_timeline_keys);
	tcase_add_test(text, test_timeline_off_cpu);
	suite_add_tcase(s, text);

	tcase_add_checked_fixture(json, setup, teardown);
	tcase_add_test(json, test_json_flat);
	tcase_add_test(json, test_json_tree);
	tcase_add_test(json, test_json_hostile);
	tcase_add_test(json, test_timeline_json);
	suite_add_tcase(s, json);

	tcase_add_checked_fixture(deep, setup, teardown);
	tcase_set_timeout(deep, 60);
	tcase_add_test(deep, test_deep_chain);
	tcase_add_test(deep, test_deep_comb);
	suite_add_tcase(s, deep);

	tcase_add_test(helpers, test_elide);
	tcase_add_test(helpers, test_percent);
	tcase_add_test(helpers, test_tracepoint_fields);
	tcase_add_test(helpers, test_time_step);
	suite_add_tcase(s, helpers);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(views_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
