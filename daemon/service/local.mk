# libperfrec-service: the bottom of perfrecd, over format/ and common/
# alone: logging (which every library above uses), options and the
# configuration file, output files and retention, sd_notify.
noinst_LIBRARIES += daemon/service/libperfrec-service.a
daemon_service_libperfrec_service_a_SOURCES = \
	daemon/service/service.h \
	daemon/service/log.c daemon/service/log.h \
	daemon/service/options.c daemon/service/options.h \
	daemon/service/output.c daemon/service/output.h \
	daemon/service/notify.c daemon/service/notify.h
daemon_service_libperfrec_service_a_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPERFRECD_CONFIG_PATH='"$(sysconfdir)/perfrec/perfrecd.conf"'

SERVICE_CPPFLAGS = -I$(top_srcdir)/daemon/service
SERVICE_LIBS = daemon/service/libperfrec-service.a $(FORMAT_LIBS)
