# perfrec-push.  test-push.sh: against tests/push-receiver.py on 127.0.0.1
# (no Pyroscope is packaged for Debian): the requests and their labels and
# times, the profiles read by Go's pprof against perfrec-report, exactly
# once across an outage and timeouts, a 401, the credentials kept out of
# logs, argv and the environment.  test-push-state-file.sh: the state
# file by hand without its directory, read-only, damaged, of the format
# before, not ours: never a capture sent twice.  test-push-retry.sh:
# Retry-After honoured within --max-backoff, a response header too large.
# test-push-state-lock.sh: one perfrec-push a state file.
# test-push-offcpu.sh: a capture with off-CPU records (tests/offcpu-fixture)
# sends each series' off-CPU profile beside its CPU one, decoded with
# protoc against the fixture's figures and perfrec-report's.  Each script
# says what it checks.
PUSH_TESTS = tests/test-push.sh tests/test-push-state-file.sh tests/test-push-retry.sh \
	tests/test-push-state-lock.sh tests/test-push-offcpu.sh
TESTS += $(PUSH_TESTS)
EXTRA_DIST += $(PUSH_TESTS) tests/push-lib.sh tests/push-receiver.py

# test-push-state: the state file, the credentials file, series names and
# the command line, without a server; a capture of two events of one kind
# (make-fixture --two-events) read by push as by perfrec-report.
check_PROGRAMS += tests/test-push-state
tests_test_push_state_SOURCES = tests/test-push-state.c
tests_test_push_state_CPPFLAGS = $(AM_CPPFLAGS) $(PUSH_CPPFLAGS) $(REPORT_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS)
tests_test_push_state_CFLAGS = $(TEST_CFLAGS)
tests_test_push_state_LDADD = $(PUSH_LIBS) $(CHECK_LIBS)
TESTS += tests/test-push-state
