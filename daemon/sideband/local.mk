# libperfrec-sideband: records beside the samples, over service/ (for
# logging): /proc synthesis, build-ids, the binary cache, kernel symbols
# as hit, cgroups and pid namespaces, JIT maps.
noinst_LIBRARIES += daemon/sideband/libperfrec-sideband.a
daemon_sideband_libperfrec_sideband_a_SOURCES = \
	daemon/sideband/sideband.h daemon/sideband/sink.h \
	daemon/sideband/synthesize.c daemon/sideband/synthesize.h \
	daemon/sideband/synth-internal.h \
	daemon/sideband/buildid.c daemon/sideband/kernel.c \
	daemon/sideband/bincache.c daemon/sideband/bincache.h \
	daemon/sideband/ksyms.c daemon/sideband/ksyms.h \
	daemon/sideband/cgroup.c daemon/sideband/task-meta.c \
	daemon/sideband/task-meta.h \
	daemon/sideband/jit.c daemon/sideband/jit.h \
	daemon/sideband/jit-internal.h daemon/sideband/jit-budget.c \
	daemon/sideband/jit-read.c daemon/sideband/jit-restate.c
daemon_sideband_libperfrec_sideband_a_CPPFLAGS = $(AM_CPPFLAGS) $(SERVICE_CPPFLAGS)
daemon_sideband_libperfrec_sideband_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)

SIDEBAND_CPPFLAGS = -I$(top_srcdir)/daemon/sideband
SIDEBAND_LIBS = daemon/sideband/libperfrec-sideband.a $(SERVICE_LIBS) $(LIBELF_LIBS)
