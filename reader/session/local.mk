# Capture files in, replayed in time order: processes, maps (named by the
# symbolizer's DSOs), names, kernel symbols, cgroups; then the sample
# stream.
noinst_LIBRARIES += reader/session/libperfrec-session.a
reader_session_libperfrec_session_a_SOURCES = \
	reader/session/session.h reader/session/session-internal.h \
	reader/session/session.c \
	reader/session/sideband.c \
	reader/session/ksyms.c \
	reader/session/replay.c \
	reader/session/samples.c reader/session/cgroup.c \
	reader/session/jit.c \
	reader/session/parallel.c
reader_session_libperfrec_session_a_CPPFLAGS = $(AM_CPPFLAGS) $(INTERN_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS)

SESSION_CPPFLAGS = -I$(top_srcdir)/reader/session
SESSION_LIBS = reader/session/libperfrec-session.a $(SYMBOLIZE_LIBS) $(FORMAT_LIBS)
