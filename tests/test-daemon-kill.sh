#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGKILL in the middle of a run: the file it leaves reads back (no
# trailer, so perfrec-dump says incomplete and exits 1, but no chunk is
# damaged), and at most about one flush interval of samples is lost.
#
# How "at most one flush interval" is measured: the samples' times are on
# CLOCK_MONOTONIC (the file's clock), and `notify-listen --now` reads that
# same clock just before the test sends SIGKILL.  The workload keeps both
# CPUs busy, so there are samples right up to the kill; what reached the
# file is what perfrecd had flushed by then, at most one --flush-interval
# earlier, plus the timer tick that notices it is due (100 ms) and the time
# to compress and write.  The margin on top of the interval allows for
# that under ASan on a busy machine; a daemon that did not flush on time
# would lose everything since its start, seconds.  The last sample must
# also be before the daemon was dead (read again after it was reaped): a
# check that the two clocks are the same.
test_name=test-daemon-kill
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

out=$work/out
flush=0.5
margin=0.75

start_workload --seconds 20 --threads 2
check "perfrecd --flush-interval 500ms, killed with SIGKILL after 3 s"
start_daemon "$out" --flush-interval 500ms
sleep 3
kill -0 "$daemon_pid" || fail "perfrecd is not running"
kill_time=$("$notify_listen" --now)
kill -KILL "$daemon_pid"
wait_daemon
# Between the clock read and the kill the daemon may still flush (under
# ASan it did, 9 ms later): samples after kill_time are fine up to the
# moment the daemon is known dead.
dead_time=$("$notify_listen" --now)
[ "$daemon_status" -eq 137 ] || fail "perfrecd exited with status $daemon_status, not by SIGKILL"
note "killed at $kill_time"

for file in $(files_in "$out"); do
	check "$(basename "$file") reads back: incomplete (status 1), nothing damaged"
	status=0
	"$dump" "$file" >"$work/records" 2>"$work/dump.err" || status=$?
	[ "$status" -eq 1 ] || fail "perfrec-dump: status $status, expected 1 (incomplete): $(cat "$work/dump.err")"
	grep -q 'incomplete' "$work/dump.err" || fail "perfrec-dump does not say incomplete: $(cat "$work/dump.err")"
	! grep -q 'damaged' "$work/dump.err" || fail "perfrec-dump finds damage: $(cat "$work/dump.err")"
	status=0
	"$dump" --summary "$file" >"$work/summary" 2>/dev/null || status=$?
	[ "$status" -eq 1 ] || fail "perfrec-dump --summary: status $status, expected 1"
	grep -q '^complete: *no' "$work/summary" || fail "--summary does not say complete: no"
	grep -q 'damaged_chunks=0 .*malformed_records=0 verdict=incomplete' "$work/summary" ||
		fail "integrity: $(grep integrity "$work/summary")"
done

check "the last sample is at most $flush s + $margin s before the kill, and not after the daemon died"
last=$(for file in $(files_in "$out"); do
	"$dump" "$file" 2>/dev/null | sed -n 's/.* SAMPLE time=\([0-9.]*\) .*/\1/p'
done | sort -n | tail -n 1)
[ -n "$last" ] || fail "no samples"
note "last sample at $last, $(awk -v k="$kill_time" -v l="$last" 'BEGIN { printf "%.3f", k - l }') s before the kill"
awk -v d="$dead_time" -v l="$last" 'BEGIN { exit !(l + 0 <= d + 0) }' ||
	fail "the last sample ($last) is after the daemon was dead ($dead_time): not the same clock?"
awk -v k="$kill_time" -v l="$last" -v f="$flush" -v m="$margin" 'BEGIN { exit !(k - l <= f + m) }' ||
	fail "the samples of the last $(awk -v k="$kill_time" -v l="$last" 'BEGIN { print k - l }') s were lost"
note "PASS"
