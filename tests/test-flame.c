/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flame graph writers (flame-html.c, flame-svg.c) on call trees built
 * by hand: the page's data exactly, names with markup, quotes, line
 * separators and invalid UTF-8 kept inside JSON strings and XML text, the
 * percent limit and what it leaves out, a 5000-deep chain (no recursion),
 * no samples at all; against a baseline (report_match_baseline()): the
 * matches, the colours and changes of a grown, a shrunk, an unchanged and
 * a new frame, the baseline's stacks that have no frame; two profiles of
 * one capture (CPU and off-CPU) in one page.  What a browser makes of the page is
 * test-flame-html.sh's part.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flame.h"

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

static void free_all(void)
{
	while (block_count)
		free(blocks[--block_count]);
	free(blocks);
	blocks = NULL;
}

static const struct report_symbol *symbol(const char *name, const char *dso, int kernel)
{
	struct report_symbol *s = keep(calloc(1, sizeof(*s)));

	s->name = name;
	s->dso = dso;
	s->kernel = kernel;
	s->resolved = 1;
	return s;
}

/* Periods of 1000 a sample. */
static struct call_node *node(struct call_node *parent, const struct report_symbol *s,
			      const char *comm, uint64_t total, uint64_t self)
{
	struct call_node *n = keep(calloc(1, sizeof(*n)));

	n->symbol = s;
	n->comm = comm;
	n->total_period = total;
	n->self_period = self;
	n->total_samples = total / 1000;
	n->self_samples = self / 1000;
	if (parent) {
		struct call_node **children = keep(calloc(parent->child_count + 1,
							  sizeof(*children)));

		if (parent->child_count)
			memcpy(children, parent->children, parent->child_count * sizeof(*children));
		children[parent->child_count++] = n;
		parent->children = children;
	}
	return n;
}

#define MARKUP "</script><!--a&b\"c'\xe2\x80\xa8\xff"

static struct report_data data;

/*
 * workload: main -> leaf (600 self), main -> other (300 self);
 * MARKUP (a comm): MARKUP (a kernel function, 100 self).
 */
static void setup(void)
{
	struct call_node *root, *comm, *main_;

	memset(&data, 0, sizeof(data));
	data.header.hostname = "<b>host</b>";
	data.header.event = "cpu-clock";
	data.header.sampling.frequency = 97;
	data.header.samples = data.header.samples_total = 1000;
	data.total_period = 1000000;
	data.total_samples = 1000;
	root = node(NULL, NULL, NULL, 1000000, 0);
	comm = node(root, NULL, "workload", 900000, 0);
	main_ = node(comm, symbol("main", "workload", 0), NULL, 900000, 0);
	node(main_, symbol("leaf", "workload", 0), NULL, 600000, 600000);
	node(main_, symbol("other", "libother.so", 0), NULL, 300000, 300000);
	comm = node(root, NULL, MARKUP, 100000, 0);
	node(comm, symbol(MARKUP, "[kernel.kallsyms]", 1), NULL, 100000, 100000);
	data.tree = root;
}

static void teardown(void)
{
	free_all();
}

static char *run(int svg, const struct view_options *options)
{
	static const struct view_options none;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	const struct report_data *list = &data;

	ck_assert_int_eq(svg ? flame_svg(&data, options ? options : &none, out) :
			       flame_html(&list, 1, 0, options ? options : &none, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	return keep(text);
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	while ((text = strstr(text, what)))
		n++, text++;
	return n;
}

/* The nodes of a page's data: six numbers each. */
static size_t node_count(const char *page)
{
	const char *p = strstr(page, "\"nodes\":[");
	size_t commas = 0;

	ck_assert_ptr_nonnull(p);
	for (p += 9; *p != ']'; p++)
		commas += *p == ',';
	ck_assert_uint_eq((commas + 1) % 6, 0);
	return (commas + 1) / 6;
}

START_TEST(test_html_data)
{
	const char *page = run(0, NULL);

	/* The page's own two script elements, whatever the names hold. */
	ck_assert_uint_eq(count(page, "<script"), 2);
	ck_assert_uint_eq(count(page, "</script"), 2);
	ck_assert_uint_eq(count(page, "<!--"), 0);
	ck_assert_ptr_null(strstr(page, "\xe2\x80\xa8"));
	ck_assert_ptr_null(strstr(page, "<b>"));
	ck_assert_ptr_nonnull(strstr(page, "\"\\u003cb\\u003ehost\\u003c/b\\u003e (unknown)\""));
	ck_assert_ptr_nonnull(strstr(page,
		"\"\\u003c/script\\u003e\\u003c!--a\\u0026b\\\"c'\\u2028\\ufffd\""));
	/* Preorder, six numbers a node, the comm's symbol and the frames'. */
	ck_assert_ptr_nonnull(strstr(page,
		"\"nodes\":[\n-1,2,1000000,0,1000,0,0,1,900000,0,900,0,1,2,900000,0,900,0,"
		"2,0,600000,600000,600,600,3,0,300000,300000,300,300,4,1,100000,0,100,0,"
		"5,0,100000,100000,100,100],\n\"hidden_nodes\":0,\"hidden_period\":0}],\n"));
	/* name, dso, srcline, flags (kernel 1, resolved 4, comm 8), offset. */
	ck_assert_ptr_nonnull(strstr(page, "\"symbols\":[0,-1,-1,8,-1,1,0,-1,4,-1,"
					   "2,0,-1,4,-1,3,4,-1,4,-1,5,-1,-1,8,-1,5,6,-1,5,-1],\n"));
	ck_assert_ptr_nonnull(strstr(page, "\"strings\":[\n\"workload\",\n\"main\",\n"));
	ck_assert_ptr_nonnull(strstr(page, "\"inverted\":false"));
}
END_TEST

START_TEST(test_html_limit)
{
	struct view_options options = { .percent_limit = 35, .flame_inverted = 1 };
	const char *page = run(0, &options);

	/* other (30%) and the markup process (10%) are left out, and counted. */
	ck_assert_ptr_nonnull(strstr(page,
		"\"nodes\":[\n-1,1,1000000,0,1000,0,0,1,900000,0,900,0,1,1,900000,0,900,0,"
		"2,0,600000,600000,600,600],\n\"hidden_nodes\":2,\"hidden_period\":400000}],\n"));
	ck_assert_ptr_nonnull(strstr(page, "\"percent_limit\":35.00,\"inverted\":true"));
	ck_assert_ptr_null(strstr(page, "\"other\""));
}
END_TEST

/*
 * Two profiles of one capture, the off-CPU one shown first: one table of
 * names for both, each tree and total in its unit, its header's total in
 * time.
 */
START_TEST(test_html_profiles)
{
	static const struct view_options none;
	struct report_data off = data;
	const struct report_data *list[2] = { &data, &off };
	struct call_node *root, *comm, *main_;
	char *page = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&page, &size);

	/* workload: main -> leaf blocked 1.5 s in 3 blocks. */
	off.kind = REPORT_PROFILE_OFF_CPU;
	off.weight_unit = "nanoseconds";
	off.total_period = 1500000000;
	off.total_samples = 3;
	root = node(NULL, NULL, NULL, 1500000000, 0);
	/* Equal in content to the CPU tree's, other pointers: another session's. */
	comm = node(root, NULL, keep(strdup("workload")), 1500000000, 0);
	main_ = node(comm, symbol(keep(strdup("main")), keep(strdup("workload")), 0), NULL,
		     1500000000, 0);
	node(main_, symbol(keep(strdup("leaf")), "workload", 0), NULL, 1500000000, 1500000000);
	off.tree = root;
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(flame_html(list, 2, 1, &none, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	keep(page);
	ck_assert_ptr_nonnull(strstr(page, "\"shown\":1,\n\"profiles\":[{\"kind\":\"cpu\",\"label\":\"CPU\","
					   "\"unit\":\"samples\","));
	ck_assert_ptr_nonnull(strstr(page, "},\n{\"kind\":\"off-cpu\",\"label\":\"Off-CPU\","
					   "\"unit\":\"ns\","));
	ck_assert_ptr_nonnull(strstr(page, "[\"Off-CPU\",\"1.500 s blocked, 3 blocks\",0]"));
	ck_assert_ptr_nonnull(strstr(page, "\"total_period\":1500000000,\"total_samples\":3,\n"));
	/* The off-CPU tree's symbols are the CPU tree's: each name and symbol once. */
	ck_assert_ptr_nonnull(strstr(page, "\"nodes\":[\n-1,1,1500000000,0,1500000,0,0,1,1500000000,0,1500000,0,"
					   "1,1,1500000000,0,1500000,0,2,0,1500000000,1500000000,1500000,1500000],"));
	ck_assert_uint_eq(count(page, "\n\"main\""), 1);
	ck_assert_uint_eq(count(page, "\n\"workload\""), 1);
	ck_assert_ptr_nonnull(strstr(page, "\"symbols\":[0,-1,-1,8,-1,1,0,-1,4,-1,"
					   "2,0,-1,4,-1,3,4,-1,4,-1,5,-1,-1,8,-1,5,6,-1,5,-1],\n"));
	ck_assert_uint_eq(count(page, "\"kind\":"), 2);
}
END_TEST

START_TEST(test_svg)
{
	const char *svg = run(1, NULL);

	ck_assert_int_eq(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"", 36), 0);
	/* all, 2 processes, main, leaf, other, the kernel function. */
	ck_assert_uint_eq(count(svg, "<g class=\"frame\"><title>"), 7);
	ck_assert_uint_eq(count(svg, "<title>"), 7);
	ck_assert_uint_eq(count(svg, "<rect"), 8);
	ck_assert_uint_eq(count(svg, "<script"), 0);
	ck_assert_ptr_null(strstr(svg, "<b>"));
	ck_assert_ptr_null(strstr(svg, "<!--"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>process &lt;/script&gt;&lt;!--a&amp;b&quot;c&apos;"
					  "\xe2\x80\xa8\xef\xbf\xbd\n100 samples, 10.00%</title>"));
	/* Four rows under the header (84 px): the root at the bottom. */
	ck_assert_ptr_nonnull(strstr(svg, "<title>leaf\nDSO: workload\n600 samples, 60.00%</title>"
					  "<rect x=\"10.00\" y=\"84.0\" width=\"708.00\""));
	ck_assert_ptr_nonnull(strstr(svg, "<title>all\n1000 samples, 100.00%</title>"
					  "<rect x=\"10.00\" y=\"132.0\" width=\"1180.00\""));
	ck_assert_ptr_nonnull(strstr(svg, ">Host: &lt;b&gt;host&lt;/b&gt; (unknown) \xc2\xb7 Kernel: unknown"));
	/* other starts where leaf ends, the markup process where workload ends. */
	ck_assert_ptr_nonnull(strstr(svg, "<rect x=\"718.00\" y=\"84.0\" width=\"354.00\""));
	ck_assert_ptr_nonnull(strstr(svg, "<rect x=\"1072.00\" y=\"116.0\" width=\"118.00\""));

	data.tree_callee = 1;
	svg = run(1, NULL);
	ck_assert_ptr_nonnull(strstr(svg, "<title>all\n1000 samples, 100.00%</title>"
					  "<rect x=\"10.00\" y=\"84.0\" width=\"1180.00\""));
}
END_TEST

#define DEEP 5000

START_TEST(test_deep)
{
	struct call_node *root = node(NULL, NULL, NULL, DEEP * 1000, 0);
	struct call_node *n = node(root, NULL, "deep", DEEP * 1000, 0);
	const char *text;

	for (int i = 0; i < DEEP; i++)
		n = node(n, symbol("f", "deep", 0), NULL, (uint64_t)(DEEP - i) * 1000, 1000);
	data.tree = root;
	data.total_period = DEEP * 1000;
	text = run(0, NULL);
	ck_assert_uint_eq(node_count(text), DEEP + 2);
	text = run(1, NULL);
	/* Every frame is 0.236 px wide or more: all drawn. */
	ck_assert_uint_eq(count(text, "<g class=\"frame\">"), DEEP + 2);
}
END_TEST

START_TEST(test_no_samples)
{
	struct call_node root = { 0 };
	const char *text;

	data.tree = NULL;
	data.total_period = data.total_samples = 0;
	text = run(0, NULL);
	ck_assert_ptr_nonnull(strstr(text, "\"nodes\":[\n-1,0,0,0,0,0],\n"));
	text = run(1, NULL);
	ck_assert_ptr_nonnull(strstr(text, ">no samples</text>"));
	data.tree = &root;
	text = run(0, NULL);
	ck_assert_ptr_nonnull(strstr(text, "\"nodes\":[\n-1,0,0,0,0,0],\n"));
	text = run(1, NULL);
	ck_assert_uint_eq(count(text, "<g class=\"frame\">"), 0);
}
END_TEST

/* ---- against a baseline --------------------------------------------- */

static struct report_data base;
static struct call_node *base_other;

/*
 * The baseline, its symbols allocated apart (matched by content):
 * workload 90%: main: other 35%, gone 35%, leaf 20%; idle 10%: poll.
 * Against setup()'s: leaf grew by 40 points, other shrank by 5, workload
 * and main are unchanged, the markup process is new; gone and idle are
 * the baseline's only.
 */
static void match_baseline(void)
{
	struct call_node *root, *comm, *main_;

	memset(&base, 0, sizeof(base));
	base.header.hostname = "before";
	base.header.samples = base.header.samples_total = 1000;
	base.header.files = 1;
	base.total_period = 1000000;
	base.total_samples = 1000;
	root = node(NULL, NULL, NULL, 1000000, 0);
	comm = node(root, NULL, "workload", 900000, 0);
	main_ = node(comm, symbol("main", "workload", 0), NULL, 900000, 0);
	base_other = node(main_, symbol("other", "libother.so", 0), NULL, 350000, 350000);
	node(main_, symbol("gone", "workload", 0), NULL, 350000, 350000);
	node(main_, symbol("leaf", "workload", 0), NULL, 200000, 200000);
	comm = node(root, NULL, "idle", 100000, 0);
	node(comm, symbol("poll", "[kernel.kallsyms]", 1), NULL, 100000, 100000);
	base.tree = root;
	ck_assert_int_eq(report_match_baseline(&data, &base), 0);
}

START_TEST(test_match)
{
	const struct call_node *workload, *main_, *markup;

	match_baseline();
	ck_assert_ptr_eq(data.baseline, &base);
	ck_assert_uint_eq(data.gone_nodes, 2);
	ck_assert_uint_eq(data.gone_period, 450000);
	ck_assert_ptr_eq(data.tree->other, base.tree);
	ck_assert_uint_eq(data.tree->base_total_period, 1000000);
	workload = data.tree->children[0];
	main_ = workload->children[0];
	markup = data.tree->children[1];
	ck_assert_uint_eq(workload->base_total_period, 900000);
	ck_assert_uint_eq(main_->base_total_period, 900000);
	ck_assert_uint_eq(main_->children[0]->base_total_period, 200000);
	ck_assert_uint_eq(main_->children[0]->base_self_period, 200000);
	ck_assert_ptr_eq(main_->children[1]->other, base_other);
	ck_assert_ptr_eq(base_other->other, main_->children[1]);
	ck_assert_uint_eq(main_->children[1]->base_total_period, 350000);
	ck_assert_ptr_null(markup->other);
	ck_assert_uint_eq(markup->base_total_period, 0);
	ck_assert_uint_eq(markup->children[0]->base_total_period, 0);
	/* The baseline's own nodes point back, their base_* stay 0. */
	ck_assert_ptr_null(base.tree->children[1]->other);
	ck_assert_uint_eq(base.tree->children[0]->base_total_period, 0);
}
END_TEST

START_TEST(test_svg_diff)
{
	const char *svg;

	match_baseline();
	svg = run(1, NULL);
	ck_assert_ptr_nonnull(strstr(svg, ">perfrec differential flame graph</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">Baseline: 1000 samples, 1 file (unknown), unknown</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">Gone: 2 stacks of the baseline, 45.00% of its samples, "
					  "have no frame here: not drawn</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "<tspan fill=\"#e83e30\" font-weight=\"bold\">red grew</tspan>"));
	/* Grown by 40 points: full red; shrunk by 5: half blue; the same: grey; new: red. */
	ck_assert_ptr_nonnull(strstr(svg, "<title>leaf\nDSO: workload\n600 samples, 60.00% "
					  "(baseline 20.00%, +40.00)</title><rect x=\"10.00\" y=\"138.0\" "
					  "width=\"708.00\" height=\"15.0\" fill=\"#e83e30\"/>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>other\nDSO: libother.so\n300 samples, 30.00% "
					  "(baseline 35.00%, -5.00)</title><rect x=\"718.00\" y=\"138.0\" "
					  "width=\"354.00\" height=\"15.0\" fill=\"#8aa6e4\"/>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>process workload\n900 samples, 90.00% "
					  "(baseline 90.00%, +0.00)</title><rect x=\"10.00\" y=\"170.0\" "
					  "width=\"1062.00\" height=\"15.0\" fill=\"#e0e0e0\"/>"));
	ck_assert_ptr_nonnull(strstr(svg, "\n100 samples, 10.00% (new: not in the baseline)</title>"
					  "<rect x=\"1072.00\" y=\"154.0\" width=\"118.00\" height=\"15.0\" "
					  "fill=\"#e83e30\"/>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>all\n1000 samples, 100.00% (baseline 100.00%, +0.00)"));
	/* Drawn: this profile's frames only. */
	ck_assert_uint_eq(count(svg, "<g class=\"frame\">"), 7);
	ck_assert_ptr_null(strstr(svg, ">gone"));
	ck_assert_ptr_null(strstr(svg, "poll"));
}
END_TEST

START_TEST(test_html_diff)
{
	const char *page;

	match_baseline();
	page = run(0, NULL);
	ck_assert_ptr_nonnull(strstr(page, "\"baseline\":{\"total_period\":1000000,\"total_samples\":1000,"
					   "\"gone_nodes\":2,\"gone_period\":450000,\"scale\":10},\n"));
	ck_assert_ptr_nonnull(strstr(page, "[\"Baseline\",\"1000 samples, 1 file (unknown), unknown\",0]"));
	/*
	 * Eight numbers a node, the baseline's period and self last; the
	 * baseline's only stacks (gone, idle: poll) after each node's own
	 * children, with no period of this profile.
	 */
	ck_assert_ptr_nonnull(strstr(page,
		"\"nodes\":[\n-1,3,1000000,0,1000,0,1000000,0,0,1,900000,0,900,0,900000,0,"
		"1,3,900000,0,900,0,900000,0,2,0,600000,600000,600,600,200000,200000,"
		"3,0,300000,300000,300,300,350000,350000,4,0,0,0,0,0,350000,350000,"
		"5,1,100000,0,100,0,0,0,6,0,100000,100000,100,100,0,0,\n"
		"7,1,0,0,0,0,100000,0,8,0,0,0,0,0,100000,100000],\n"));
	ck_assert_ptr_nonnull(strstr(page, "\"gone\""));
	ck_assert_ptr_nonnull(strstr(page, "\"poll\""));
	ck_assert_uint_eq(count(page, "<script"), 2);
}
END_TEST

static Suite *flame_suite(void)
{
	Suite *s = suite_create("flame");
	TCase *t = tcase_create("flame");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_html_data);
	tcase_add_test(t, test_html_limit);
	tcase_add_test(t, test_html_profiles);
	tcase_add_test(t, test_svg);
	tcase_add_test(t, test_deep);
	tcase_add_test(t, test_no_samples);
	tcase_add_test(t, test_match);
	tcase_add_test(t, test_svg_diff);
	tcase_add_test(t, test_html_diff);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(flame_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
