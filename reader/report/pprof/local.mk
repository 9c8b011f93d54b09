# --format=pprof and perfrec-push's profiles: pprof.h.
noinst_LIBRARIES += reader/report/pprof/libperfrec-pprof.a
reader_report_pprof_libperfrec_pprof_a_SOURCES = \
	reader/report/pprof/pprof.h reader/report/pprof/pprof-internal.h \
	reader/report/pprof/pprof.c \
	reader/report/pprof/pprof-table.c \
	reader/report/pprof/pprof-location.c \
	reader/report/pprof/pprof-write.c \
	reader/report/pprof/pprof-encode.c
reader_report_pprof_libperfrec_pprof_a_CPPFLAGS = $(AM_CPPFLAGS) $(REPORT_CPPFLAGS) \
	$(UNWIND_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)
reader_report_pprof_libperfrec_pprof_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)

PPROF_CPPFLAGS = -I$(top_srcdir)/reader/report/pprof $(REPORT_CPPFLAGS)
PPROF_LIBS = reader/report/pprof/libperfrec-pprof.a $(REPORT_LIBS) $(ZLIB_LIBS)
