# libperfrec-events: perf_event_open(2) for perfrecd: event names and PMU
# terms into perf_event_attrs, each event on each CPU, one ring per CPU,
# dwarf mode's stack copies.  Over format/ and common/ alone.
noinst_LIBRARIES += daemon/events/libperfrec-events.a
daemon_events_libperfrec_events_a_SOURCES = \
	daemon/events/events.h \
	daemon/events/events.c \
	daemon/events/pmu.c daemon/events/pmu.h \
	daemon/events/tracepoint.c \
	daemon/events/event-set.c daemon/events/event-set.h \
	daemon/events/ring.c daemon/events/ring.h \
	daemon/events/user-stack.c daemon/events/user-stack.h
daemon_events_libperfrec_events_a_CPPFLAGS = $(AM_CPPFLAGS)

EVENTS_CPPFLAGS = -I$(top_srcdir)/daemon/events
EVENTS_LIBS = daemon/events/libperfrec-events.a $(FORMAT_LIBS)
