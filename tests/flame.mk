# The flame graphs, perfrec-report --format=html and svg: the writers on
# hand-made trees (test-flame, Check), then end to end: the
# page in Debian's chromium driven by puppeteer-core (tests/browser/, its
# lockfile committed; scripts/setup-debian.sh runs npm ci there), the SVG
# with xmllint and python3.  Captures of tests/workload, the hostile and
# big ones of tests/report-hostile, and tests/offcpu-fixture's blocks for
# the page's CPU, off-CPU and wall profiles.  Each script says what it
# checks.
check_PROGRAMS += tests/test-flame
tests_test_flame_SOURCES = tests/test-flame.c
tests_test_flame_CPPFLAGS = $(AM_CPPFLAGS) $(FLAME_CPPFLAGS)
tests_test_flame_CFLAGS = $(TEST_CFLAGS)
tests_test_flame_LDADD = $(FLAME_LIBS) $(CHECK_LIBS)
TESTS += tests/test-flame

FLAME_TESTS = \
	tests/test-flame-html.sh \
	tests/test-flame-svg.sh \
	tests/test-flame-diff.sh \
	tests/test-flame-heatmap.sh
TESTS += $(FLAME_TESTS)
EXTRA_DIST += $(FLAME_TESTS) tests/browser/package.json tests/browser/package-lock.json \
	tests/browser/flame-check.js tests/browser/heatmap-check.js tests/browser/harness.js
CLEANFILES += tests/test-flame-html-*.png tests/test-flame-diff*.png tests/test-flame-heatmap.png
