#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The output directory removed, moved or replaced while perfrecd runs.
# Before: perfrecd wrote on into the deleted file for good, never used a
# directory made again at the path, and exited 0; moved, it wrote on into
# the moved directory, whose files its retention deleted, while its log
# named the old path.  Now the path is checked at each flush and new file:
#  - removed, then made again: one error line; the files held in memory
#    meanwhile go into the new directory (a file there whose samples began
#    before the directory was back), sampling goes on there (a file after
#    SIGHUP with samples), and so does the binary cache (the vDSO in its
#    .build-id), exit 0;
#  - moved: the error line names where it went; its last file is finished
#    there, complete, and nothing there is added to or deleted (not by
#    --retain-age 1 either); the files go on in the directory made again
#    at the path;
#  - gone for longer than the bound (--rotate-size 1M, dwarf stacks: MiB a
#    second): the file held in memory stops at about 1 MiB, a LOST_NOTE
#    (error=ENOENT) counts what was dropped, and so does the log;
#  - never back: stopped, perfrecd says the file held in memory is lost
#    and exits 1;
#  - the service manager's own directory ($STATE_DIRECTORY, systemd's
#    StateDirectory=): perfrecd stops at once with status 1, to be started
#    again with the directory made again.
test_name=test-daemon-outdir
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

python=/usr/bin/python3
[ -x "$python" ] || skip "no $python (apt-get install python3)"
err=$work/daemon.err
start_workload --seconds 50 --threads 2

monotonic() {
	"$python" -c 'import time; print("%.6f" % time.monotonic())'
}

wait_error() {
	said="error: output directory $1"
	wait_for 'grep -q -- "$said" "$err"' 20 || fail "no line '$said'"
}

# The samples of FILE, which must be complete and sound.
samples_of() {
	"$dump" --summary "$1" >"$work/summary" 2>"$work/summary.err" ||
		fail "$1: perfrec-dump --summary: $(cat "$work/summary.err")"
	grep -q '^complete: *yes' "$work/summary" && grep -q 'verdict=sound' "$work/summary" ||
		fail "$1: not complete and sound: $(cat "$work/summary")"
	sed -n 's/^samples per cpu://p' "$work/summary" | tr ' ' '\n' |
		awk -F= 'NF == 2 { sum += $2 } END { print sum + 0 }'
}

# The time of FILE's first record, CLOCK_MONOTONIC as perfrecd's events.
first_time() {
	"$dump" --summary "$1" | sed -n 's/^time span:.*first=\([0-9.]*\) .*/\1/p'
}

# rm -rf DIR while perfrecd may be making a file in it: again until gone.
remove() {
	tries=50
	until rm -rf "$1" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "cannot remove $1"
	done
}

stop_daemon() {
	kill -INT "$daemon_pid"
	wait_daemon
}

# No JIT maps: other users' (the attack tests') are not this test's matter.
common="--config /dev/null -F 499 --flush-interval 100ms --jit-map-size 0"

# -- removed, made again ------------------------------------------------------
check "removed, then made again: one error line, the held file and the next ones there with samples, exit 0"
out=$work/removed
start_daemon "$out" $common
wait_flushed "$(files_in "$out" | head -n 1)"
remove "$out"
wait_error "$out was removed"
sleep 1
back=$(monotonic)
mkdir -m 750 "$out"
wait_for '[ "$(file_count "$out")" -ge 1 ]' 20 || fail "no file in $out after it was made again"
held=$(files_in "$out" | head -n 1)
kill -HUP "$daemon_pid"
wait_for '[ "$(file_count "$out")" -ge 2 ]' 20 || fail "SIGHUP started no file in $out"
later=$(files_in "$out" | tail -n 1)
wait_flushed "$later"
stop_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
[ "$(grep -c 'error:' "$err")" -eq 1 ] || fail "not one error line: $(grep 'error:' "$err")"
note "  $(grep 'error:' "$err")"
held_samples=$(samples_of "$held")
later_samples=$(samples_of "$later")
note "  held in memory: $(basename "$held") ($held_samples samples from $(first_time "$held"), back at $back); after: $later_samples samples"
[ "$held_samples" -gt 0 ] && [ "$later_samples" -gt 0 ] || fail "no samples in the files made after"
awk -v first="$(first_time "$held")" -v back="$back" 'BEGIN { exit !(first < back) }' ||
	fail "the held file begins at $(first_time "$held"), not before the directory was back ($back)"
vdso_id=$("$dump" "$later" | sed -n 's/.* BUILD_ID .* build_id=\([0-9a-f]*\) path=\[vdso\]$/\1/p' | head -n 1)
if [ -n "$vdso_id" ]; then
	vdso_kept=$out/.build-id/$(echo "$vdso_id" | cut -c1-2)/$(echo "$vdso_id" | cut -c3-)
	[ -f "$vdso_kept" ] || fail "the binary cache did not follow: no $vdso_kept"
	note "  the binary cache followed: the vDSO in $out/.build-id"
else
	note "  no build-id of a vDSO here: the binary cache's move is not checked"
fi

# -- moved --------------------------------------------------------------------
check "moved: the log names where, its files stay whole there (--retain-age 1 too), the files go on at the path"
out=$work/moved
start_daemon "$out" $common --retain-age 1
wait_flushed "$(files_in "$out" | head -n 1)"
mv "$out" "$out.old"
wait_error "$out was moved to $out.old"
moved_files=$(ls "$out.old")
sleep 1
mkdir -m 750 "$out"
wait_for '[ "$(file_count "$out")" -ge 1 ]' 20 || fail "no file in $out after it was made again"
sleep 1.5
kill -HUP "$daemon_pid"
wait_for '[ "$(file_count "$out")" -ge 2 ]' 20 || fail "SIGHUP started no file in $out"
wait_flushed "$(files_in "$out" | tail -n 1)"
stop_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
[ "$(ls "$out.old")" = "$moved_files" ] ||
	fail "$out.old changed after the move: '$moved_files' then '$(ls "$out.old")'"
for file in $(files_in "$out.old") $(files_in "$out"); do
	[ "$(samples_of "$file")" -gt 0 ] || fail "$file: no samples"
done
note "  $(file_count "$out.old") file(s) in $out.old, $(file_count "$out") in $out"

# -- past the bound -----------------------------------------------------------
check "gone longer than the bound (--rotate-size 1M): the held file stops near 1 MiB, the drops noted in it"
out=$work/bound
start_daemon "$out" $common --call-graph dwarf --rotate-size 1M
wait_flushed "$(files_in "$out" | head -n 1)"
remove "$out"
wait_error "$out was removed"
wait_for 'grep -q "dropping records until" "$err"' 20 || fail "the held file never reached its bound"
mkdir -m 750 "$out"
wait_for '[ "$(file_count "$out")" -ge 1 ]' 20 || fail "no file in $out after it was made again"
stop_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
held=$(files_in "$out" | head -n 1)
size=$(stat -c %s "$held")
note "  $(basename "$held"): $size bytes; $(grep 'were dropped while' "$err" | sed 's/.*: //')"
[ "$size" -le $((5 * 1048576 / 2)) ] || fail "$held: $size bytes, over the bound of 1 MiB and a chunk"
"$dump" "$held" | grep -E ' LOST_NOTE .*reason=write_error .*error=ENOENT' >"$work/notes" ||
	fail "$held: no LOST_NOTE of what was dropped"
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^records=/) { sub(/records=/, "", $i); n += $i } }
	END { exit !(n > 0) }' "$work/notes" || fail "the LOST_NOTE counts no records: $(cat "$work/notes")"
grep -q 'records (.* bytes) could not be written' "$err" || fail "the summary does not count the dropped records"

# -- never back ---------------------------------------------------------------
check "never back: the held file is said lost, exit 1"
out=$work/never
start_daemon "$out" $common
wait_flushed "$(files_in "$out" | head -n 1)"
remove "$out"
wait_error "$out was removed"
wait_for 'ls -l "/proc/$daemon_pid/fd" | grep -q "memfd:perfrecd-held"' 20 ||
	fail "no file held in memory (memfd:perfrecd-held)"
stop_daemon
[ "$daemon_status" -eq 1 ] || fail "perfrecd: status $daemon_status, not 1"
grep -q "error: no directory came back at $out" "$err" || fail "perfrecd did not say the held file is lost"

# -- the service manager's ----------------------------------------------------
check "\$STATE_DIRECTORY's: stops at once, status 1"
out=$work/managed
STATE_DIRECTORY=$work/other:$out
export STATE_DIRECTORY
start_daemon "$out" $common
unset STATE_DIRECTORY
wait_flushed "$(files_in "$out" | head -n 1)"
remove "$out"
wait_for '! kill -0 "$daemon_pid" 2>/dev/null' 20 || fail "perfrecd still runs 20 s after its directory went"
wait_daemon
[ "$daemon_status" -eq 1 ] || fail "perfrecd: status $daemon_status, not 1"
[ "$(grep -c 'error:' "$err")" -eq 1 ] && grep -q "error: output directory $out was removed.*stopping" "$err" ||
	fail "not one error line saying it stops: $(grep 'error:' "$err")"
note "PASS"
