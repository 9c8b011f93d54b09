# perfrecd: a library per concern, each compiled once and linked by the
# daemon and the tests.  Each library's CPPFLAGS name the folders of the
# headers it may include, so the one-way order below is the build's too:
#
#   format/  common/
#       ^
#     service/     log, options, output files, sd_notify (service.h)
#       ^                 ^
#     sideband/         events/     records beside the samples (sideband.h);
#       ^                 ^         perf_event_open, rings (events.h)
#       |    offcpu/      |         --off-cpu's BPF program (offcpu.h)
#       |      ^          |
#     libperfrec-daemon.a: the collector, the poll loop that ties them
#                          (collector.c; records.c, files.c, setup.c)
#       ^
#     perfrecd: main.c
#
# events/ needs nothing of service/ and sideband/ nothing of events/.
# For each library X: X_CPPFLAGS finds its public header, X_LIBS links it
# and everything it needs, in order.
include daemon/service/local.mk
include daemon/events/local.mk
include daemon/sideband/local.mk
include daemon/offcpu/local.mk

noinst_LIBRARIES += daemon/libperfrec-daemon.a
daemon_libperfrec_daemon_a_SOURCES = \
	daemon/collector.h daemon/collector-internal.h \
	daemon/collector.c daemon/records.c daemon/files.c daemon/setup.c
daemon_libperfrec_daemon_a_CPPFLAGS = $(AM_CPPFLAGS) $(SERVICE_CPPFLAGS) \
	$(EVENTS_CPPFLAGS) $(SIDEBAND_CPPFLAGS) $(OFFCPU_CPPFLAGS)

DAEMON_CPPFLAGS = -I$(top_srcdir)/daemon $(SERVICE_CPPFLAGS) $(EVENTS_CPPFLAGS) \
	$(SIDEBAND_CPPFLAGS) $(OFFCPU_CPPFLAGS)
DAEMON_LIBS = daemon/libperfrec-daemon.a daemon/events/libperfrec-events.a \
	$(SIDEBAND_LIBS) $(OFFCPU_LIBS)

sbin_PROGRAMS += perfrecd
perfrecd_SOURCES = daemon/main.c
perfrecd_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_CPPFLAGS)
perfrecd_LDADD = $(DAEMON_LIBS)
