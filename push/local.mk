# perfrec-push: captures to a Pyroscope-compatible server.  A library over
# the reader's (session, symbolizer, unwinder, the report library's event
# choice and the pprof library), libcurl for HTTP and TLS; the program is
# a thin main.
noinst_LIBRARIES += push/libperfrec-push.a
push_libperfrec_push_a_SOURCES = \
	push/push.h push/push-internal.h \
	push/options.c \
	push/credentials.c \
	push/state.c \
	push/series.c \
	push/capture.c \
	push/http.c \
	push/run.c
push_libperfrec_push_a_CPPFLAGS = $(AM_CPPFLAGS) $(PPROF_CPPFLAGS) $(UNWIND_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS) $(INTERN_CPPFLAGS)
push_libperfrec_push_a_CFLAGS = $(AM_CFLAGS) $(LIBCURL_CFLAGS)

PUSH_CPPFLAGS = -I$(top_srcdir)/push
PUSH_LIBS = push/libperfrec-push.a $(PPROF_LIBS) $(LIBCURL_LIBS)

sbin_PROGRAMS += perfrec-push
perfrec_push_SOURCES = push/main.c
perfrec_push_CPPFLAGS = $(AM_CPPFLAGS) $(PUSH_CPPFLAGS)
perfrec_push_LDADD = $(PUSH_LIBS)
dist_man_MANS += doc/perfrec-push.8
