# The text views of a profile and of samples: views.h.
noinst_LIBRARIES += reader/report/views/libperfrec-views.a
reader_report_views_libperfrec_views_a_SOURCES = \
	reader/report/views/views.h \
	reader/report/views/view-common.c \
	reader/report/views/view-flat.c \
	reader/report/views/view-tree.c \
	reader/report/views/view-folded.c \
	reader/report/views/view-json.c \
	reader/report/views/view-diff.c \
	reader/report/views/view-timeline.c \
	reader/report/views/view-samples.c \
	reader/report/views/view-tracepoint.c
reader_report_views_libperfrec_views_a_CPPFLAGS = $(AM_CPPFLAGS) $(REPORT_CPPFLAGS) \
	$(UNWIND_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)

VIEWS_CPPFLAGS = -I$(top_srcdir)/reader/report/views $(REPORT_CPPFLAGS)
VIEWS_LIBS = reader/report/views/libperfrec-views.a $(REPORT_LIBS)
