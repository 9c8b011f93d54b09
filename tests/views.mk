# perfrec-report's views (flat, tree, folded, JSON) on report_data built
# by hand: exact text, JSON validity, limits, hostile names, deep trees.
check_PROGRAMS += tests/test-views
tests_test_views_SOURCES = tests/test-views.c
tests_test_views_CPPFLAGS = $(AM_CPPFLAGS) $(VIEWS_CPPFLAGS)
tests_test_views_CFLAGS = $(TEST_CFLAGS)
tests_test_views_LDADD = $(VIEWS_LIBS) $(CHECK_LIBS)
TESTS += tests/test-views
