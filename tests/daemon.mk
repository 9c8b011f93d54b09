# perfrecd end to end: the daemon samples tests/workload (known hot
# functions) and the tests read its files back with perfrec-dump.
# Helpers in tests/lib.sh; each test-daemon-*.sh says what it checks.
#
# The workload keeps its frame pointers and its call structure
# (main -> run_workload -> burn_*), so callchains and symbols can be
# checked against nm.
check_PROGRAMS += tests/workload tests/notify-listen
tests_workload_SOURCES = tests/workload.c
tests_workload_CFLAGS = $(AM_CFLAGS) -O2 -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls
tests_workload_LDADD = -lpthread
tests_notify_listen_SOURCES = tests/notify-listen.c

DAEMON_TESTS = \
	tests/test-daemon-workload.sh \
	tests/test-daemon-snapshot.sh \
	tests/test-daemon-rotate.sh \
	tests/test-daemon-kill.sh \
	tests/test-daemon-diskfull.sh \
	tests/test-daemon-errors.sh \
	tests/test-daemon-notify.sh \
	tests/test-daemon-pid.sh \
	tests/test-daemon-dwarf.sh \
	tests/test-daemon-hotplug.sh \
	tests/test-daemon-events.sh \
	tests/test-daemon-tracepoint.sh \
	tests/test-daemon-bincache.sh \
	tests/test-daemon-jit.sh \
	tests/test-daemon-buildid-mmap.sh \
	tests/test-daemon-log.sh \
	tests/test-daemon-outdir.sh \
	tests/test-daemon-outdir-attack.sh \
	tests/test-daemon-outdir-full.sh
TESTS += $(DAEMON_TESTS)
EXTRA_DIST += $(DAEMON_TESTS) tests/lib.sh tests/jit-fake.py
CLEANFILES += tests/.cpu-hotplug.lock

# A hostile user's JIT files against perfrecd's drain thread, rotation,
# retention and descriptors, and its binaries against the binary cache;
# tests/jit-flood.py is the attacker.
TESTS += tests/test-attacks-jit.sh tests/test-attacks-bincache.sh
EXTRA_DIST += tests/test-attacks-jit.sh tests/test-attacks-bincache.sh tests/jit-flood.py

# An unprivileged user against the off-CPU program's maps;
# tests/offcpu-attack is the attacker.
check_PROGRAMS += tests/offcpu-attack
tests_offcpu_attack_SOURCES = tests/offcpu-attack.c
tests_offcpu_attack_LDADD = -lpthread
TESTS += tests/test-attacks-offcpu.sh
EXTRA_DIST += tests/test-attacks-offcpu.sh
