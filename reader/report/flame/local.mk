# Flame graphs: an HTML page, a static SVG: flame.h.
noinst_LIBRARIES += reader/report/flame/libperfrec-flame.a
reader_report_flame_libperfrec_flame_a_SOURCES = \
	reader/report/flame/flame.h reader/report/flame/flame-internal.h \
	reader/report/flame/flame-common.c \
	reader/report/flame/flame-html.c \
	reader/report/flame/flame-time.c \
	reader/report/flame/flame-svg.c
# The page's CSS and JavaScript, sources of their own, become C arrays at
# build time (in the build directory: VPATH builds and distcheck's
# read-only source tree are fine).
nodist_reader_report_flame_libperfrec_flame_a_SOURCES = reader/report/flame/flame-assets.c
FLAME_ASSETS = $(srcdir)/reader/report/flame/flame.css $(srcdir)/reader/report/flame/flame.js
reader/report/flame/flame-assets.c: $(FLAME_ASSETS) $(srcdir)/reader/report/flame/flame-embed.sh
	$(AM_V_GEN)$(MKDIR_P) reader/report/flame && \
	$(SHELL) $(srcdir)/reader/report/flame/flame-embed.sh \
		flame_css $(srcdir)/reader/report/flame/flame.css \
		flame_js $(srcdir)/reader/report/flame/flame.js >$@.tmp && mv $@.tmp $@
CLEANFILES += reader/report/flame/flame-assets.c reader/report/flame/flame-assets.c.tmp
EXTRA_DIST += reader/report/flame/flame.css reader/report/flame/flame.js \
	reader/report/flame/flame-embed.sh
reader_report_flame_libperfrec_flame_a_CPPFLAGS = $(AM_CPPFLAGS) $(VIEWS_CPPFLAGS)

FLAME_CPPFLAGS = -I$(top_srcdir)/reader/report/flame $(VIEWS_CPPFLAGS)
FLAME_LIBS = reader/report/flame/libperfrec-flame.a $(VIEWS_LIBS)
