# The off-CPU benchmark (bench/offcpu.sh, as root; figures in
# bench/README.md): the ping-pong alone and under perfrecd --off-cpu and
# perf record -e sched:sched_switch -a -g.
noinst_PROGRAMS += bench/offcpu-pingpong
bench_offcpu_pingpong_SOURCES = bench/offcpu-pingpong.c
bench_offcpu_pingpong_CFLAGS = $(AM_CFLAGS) -O2
bench_offcpu_pingpong_LDADD = -lpthread
EXTRA_DIST += bench/offcpu.sh
