# perfrec-report's views (flat, tree, folded, JSON) on report_data built
# by hand: exact text, JSON validity, limits, hostile names, deep trees.
check_PROGRAMS += tests/test-views
tests_test_views_SOURCES = tests/test-views.c reader/report.h $(VIEW_SOURCES)
tests_test_views_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/reader
tests_test_views_LDADD = $(CHECK_LIBS)
TESTS += tests/test-views
