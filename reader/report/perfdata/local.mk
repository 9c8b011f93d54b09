# --format=perf.data: the samples and their side-band as perf's file,
# with a kallsyms file and perf map files beside it: perfdata.h.
noinst_LIBRARIES += reader/report/perfdata/libperfrec-perfdata.a
reader_report_perfdata_libperfrec_perfdata_a_SOURCES = \
	reader/report/perfdata/perfdata.h reader/report/perfdata/perfdata-internal.h \
	reader/report/perfdata/perfdata.c \
	reader/report/perfdata/perfdata-records.c \
	reader/report/perfdata/perfdata-sideband.c \
	reader/report/perfdata/perfdata-features.c \
	reader/report/perfdata/perfdata-symbols.c
reader_report_perfdata_libperfrec_perfdata_a_CPPFLAGS = $(AM_CPPFLAGS) $(REPORT_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS)

PERFDATA_CPPFLAGS = -I$(top_srcdir)/reader/report/perfdata $(REPORT_CPPFLAGS)
PERFDATA_LIBS = reader/report/perfdata/libperfrec-perfdata.a $(REPORT_LIBS)
