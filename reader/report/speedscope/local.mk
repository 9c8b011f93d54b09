# --format=speedscope: speedscope.h.  Frames named as the folded view
# names them, strings written as the JSON views write them (views.h).
noinst_LIBRARIES += reader/report/speedscope/libperfrec-speedscope.a
reader_report_speedscope_libperfrec_speedscope_a_SOURCES = \
	reader/report/speedscope/speedscope.h \
	reader/report/speedscope/speedscope.c \
	reader/report/speedscope/speedscope-write.c \
	reader/report/speedscope/speedscope-internal.h
reader_report_speedscope_libperfrec_speedscope_a_CPPFLAGS = $(AM_CPPFLAGS) $(VIEWS_CPPFLAGS) \
	$(UNWIND_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)

SPEEDSCOPE_CPPFLAGS = -I$(top_srcdir)/reader/report/speedscope $(VIEWS_CPPFLAGS)
SPEEDSCOPE_LIBS = reader/report/speedscope/libperfrec-speedscope.a $(VIEWS_LIBS)
