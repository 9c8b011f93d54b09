# Aggregation (flat profile, call tree) and the views; perfrec-report.
noinst_LIBRARIES += reader/report/libperfrec-report.a
reader_report_libperfrec_report_a_SOURCES = \
	reader/report/report.h reader/report/view.h \
	reader/report/stacks.h reader/report/stacks.c \
	reader/report/call-tree.h reader/report/call-tree.c \
	reader/report/aggregate.c \
	reader/report/output.c \
	reader/report/event.c \
	reader/report/profile.c \
	reader/report/view-common.c \
	reader/report/view-diff.c \
	reader/report/baseline-match.c \
	reader/report/view-flat.c \
	reader/report/view-tree.c \
	reader/report/view-folded.c \
	reader/report/view-json.c \
	reader/report/view-samples.c \
	reader/report/pprof.h \
	reader/report/pprof.c \
	reader/report/pprof-table.c \
	reader/report/pprof-location.c \
	reader/report/pprof-write.c \
	reader/report/pprof-encode.c \
	reader/report/flame.h \
	reader/report/flame-common.c \
	reader/report/flame-html.c \
	reader/report/flame-svg.c
# The flame graph page's CSS and JavaScript, sources of their own, become
# C arrays at build time (in the build directory: VPATH builds and
# distcheck's read-only source tree are fine).
nodist_reader_report_libperfrec_report_a_SOURCES = reader/report/flame-assets.c
FLAME_ASSETS = $(srcdir)/reader/report/flame.css $(srcdir)/reader/report/flame.js
reader/report/flame-assets.c: $(FLAME_ASSETS) $(srcdir)/reader/report/flame-embed.sh
	$(AM_V_GEN)$(MKDIR_P) reader/report && \
	$(SHELL) $(srcdir)/reader/report/flame-embed.sh \
		flame_css $(srcdir)/reader/report/flame.css \
		flame_js $(srcdir)/reader/report/flame.js >$@.tmp && mv $@.tmp $@
CLEANFILES += reader/report/flame-assets.c reader/report/flame-assets.c.tmp
EXTRA_DIST += reader/report/flame.css reader/report/flame.js reader/report/flame-embed.sh
reader_report_libperfrec_report_a_CPPFLAGS = $(AM_CPPFLAGS) $(UNWIND_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS) $(INTERN_CPPFLAGS) $(BUNDLE_CPPFLAGS)
reader_report_libperfrec_report_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)

REPORT_CPPFLAGS = -I$(top_srcdir)/reader/report $(SESSION_CPPFLAGS)
REPORT_LIBS = reader/report/libperfrec-report.a $(BUNDLE_LIBS) $(DEBUGINFOD_SOURCE_LIBS) \
	$(UNWIND_LIBS) $(ZLIB_LIBS)

bin_PROGRAMS += perfrec-report
perfrec_report_SOURCES = reader/report/main.c
perfrec_report_CPPFLAGS = $(AM_CPPFLAGS) $(REPORT_CPPFLAGS) $(UNWIND_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS)
perfrec_report_LDADD = $(REPORT_LIBS)
dist_man_MANS += doc/perfrec-report.1
