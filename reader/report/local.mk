# The profile: inputs read with one event (profile.c, event.c), samples
# counted by stack (stacks.c) and symbolized into the flat profile and the
# call tree (aggregate.c, call-tree.c), matched with a baseline's
# (baseline-match.c); where the report goes (output.c); times as the
# options take them and the header prints them (time-range.c).  Above
# it, each a library of its own, what prints a profile:
#
#     report/  (this)
#       ^    ^
#   views/   pprof/     text views; pprof for other tools (and perfrec-push)
#       ^    perfdata/  perf.data for perf and hotspot
#       ^
#   flame/ speedscope/  flame graphs, speedscope's file (views.h's printing
#                       helpers)
#
# and perfrec-report, main.c (options.c: its command line) over them all.
noinst_LIBRARIES += reader/report/libperfrec-report.a
reader_report_libperfrec_report_a_SOURCES = \
	reader/report/report.h \
	reader/report/event.c \
	reader/report/profile.c \
	reader/report/stacks.h reader/report/stacks.c \
	reader/report/stack-memo.h reader/report/stack-memo.c \
	reader/report/counts.h reader/report/counts.c \
	reader/report/time-step.c \
	reader/report/call-tree.h reader/report/call-tree.c \
	reader/report/aggregate.c \
	reader/report/baseline-match.c \
	reader/report/output.c \
	reader/report/time-range.c
reader_report_libperfrec_report_a_CPPFLAGS = $(AM_CPPFLAGS) $(UNWIND_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS) $(INTERN_CPPFLAGS) $(BUNDLE_CPPFLAGS)

REPORT_CPPFLAGS = -I$(top_srcdir)/reader/report $(SESSION_CPPFLAGS)
REPORT_LIBS = reader/report/libperfrec-report.a $(BUNDLE_LIBS) $(DEBUGINFOD_SOURCE_LIBS) \
	$(UNWIND_LIBS)

include reader/report/views/local.mk
include reader/report/pprof/local.mk
include reader/report/perfdata/local.mk
include reader/report/flame/local.mk
include reader/report/speedscope/local.mk

bin_PROGRAMS += perfrec-report
perfrec_report_SOURCES = reader/report/main.c \
	reader/report/options.h reader/report/options.c
perfrec_report_CPPFLAGS = $(AM_CPPFLAGS) $(FLAME_CPPFLAGS) $(SPEEDSCOPE_CPPFLAGS) $(PPROF_CPPFLAGS) \
	$(PERFDATA_CPPFLAGS) $(UNWIND_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)
perfrec_report_LDADD = $(FLAME_LIBS) $(SPEEDSCOPE_LIBS) $(PPROF_LIBS) $(PERFDATA_LIBS)
dist_man_MANS += doc/perfrec-report.1
