sbin_PROGRAMS += perfrecd
perfrecd_SOURCES = \
	daemon/main.c \
	daemon/options.c daemon/options.h \
	daemon/log.c daemon/log.h \
	daemon/events.c daemon/events.h daemon/pmu.c daemon/pmu.h \
	daemon/event-set.c daemon/event-set.h \
	daemon/ring.c daemon/ring.h \
	daemon/user-stack.c daemon/user-stack.h \
	daemon/collector.c daemon/collector.h \
	daemon/output.c daemon/output.h \
	daemon/synthesize.c daemon/buildid.c daemon/kernel.c daemon/synthesize.h daemon/synth-internal.h \
	daemon/notify.c daemon/notify.h \
	daemon/sink.h
perfrecd_CPPFLAGS = $(AM_CPPFLAGS) -DPERFRECD_CONFIG_PATH='"$(sysconfdir)/perfrec/perfrecd.conf"'
perfrecd_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
perfrecd_LDADD = $(FORMAT_LIBS) $(LIBELF_LIBS)
