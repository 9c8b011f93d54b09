# perfrecd: a library of the collector's parts (options, events and
# rings, the poll loop, /proc and kernel synthesis, output and rotation,
# sd_notify), linked by its main and by the tests of those parts.
noinst_LIBRARIES += daemon/libperfrec-daemon.a
daemon_libperfrec_daemon_a_SOURCES = \
	daemon/options.c daemon/options.h \
	daemon/log.c daemon/log.h \
	daemon/events.c daemon/events.h daemon/pmu.c daemon/pmu.h \
	daemon/event-set.c daemon/event-set.h \
	daemon/ring.c daemon/ring.h \
	daemon/user-stack.c daemon/user-stack.h \
	daemon/collector.c daemon/collector.h \
	daemon/output.c daemon/output.h \
	daemon/synthesize.c daemon/buildid.c daemon/kernel.c daemon/ksyms.c daemon/ksyms.h daemon/synthesize.h daemon/synth-internal.h \
	daemon/cgroup.c daemon/task-meta.c daemon/task-meta.h \
	daemon/bincache.c daemon/bincache.h \
	daemon/notify.c daemon/notify.h \
	daemon/jit.c daemon/jit.h \
	daemon/sink.h
daemon_libperfrec_daemon_a_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPERFRECD_CONFIG_PATH='"$(sysconfdir)/perfrec/perfrecd.conf"'
daemon_libperfrec_daemon_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)

DAEMON_CPPFLAGS = -I$(top_srcdir)/daemon
DAEMON_LIBS = daemon/libperfrec-daemon.a $(FORMAT_LIBS) $(LIBELF_LIBS)

sbin_PROGRAMS += perfrecd
perfrecd_SOURCES = daemon/main.c
perfrecd_LDADD = $(DAEMON_LIBS)
