# The soak: perfrecd at its defaults for 10 minutes under a churn of
# short-lived JIT-like processes and an unprivileged user's attacks,
# beside perf record.  Not part of make check; run (as root)
#   bench/soak.sh [--duration SECONDS]
# soak-jit is the load: the churn and each attack (bench/soak-jit.c).
noinst_PROGRAMS += bench/soak-jit
bench_soak_jit_SOURCES = bench/soak-jit.c
EXTRA_DIST += bench/soak.sh
