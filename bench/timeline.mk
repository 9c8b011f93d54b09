# The page's timeline (bench/timeline-page.sh; figures in bench/README.md):
# a real capture stretched to an hour and a day, the page's size, load
# and range redraw in chromium.
noinst_PROGRAMS += bench/timeline-stretch
bench_timeline_stretch_SOURCES = bench/timeline-stretch.c
bench_timeline_stretch_LDADD = $(FORMAT_LIBS)
EXTRA_DIST += bench/timeline-page.sh bench/timeline-page.js
