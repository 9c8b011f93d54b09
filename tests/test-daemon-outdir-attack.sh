#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The output directory followed at its path, attacked by nobody, where
# the admin put it in a directory everyone may write to (no sticky bit,
# so that the kernel's fs.protected_symlinks has no say, as it has none
# in /tmp when that sysctl is 0):
#  - nobody moves perfrecd's directory away and puts a symbolic link to
#    a root-owned directory of nobody's choosing at the path.  Before: the
#    link was followed, "a new directory, used from now on", and root's
#    captures, its lock and its binary cache went there.  Now: refused,
#    said once, nothing written there;
#  - nobody then makes a directory, a FIFO and a file at the path, again
#    and again for 3 s.  Before: a warning for each new one at every
#    flush.  Now: that one warning in all, and no descriptor more;
#  - root makes the directory again: the file held in memory goes there;
#    moved away after that, its file is finished there, sound, with
#    samples, and nothing else is added to it (before: the binary cache
#    stayed on it, and the next file's snapshot put the vDSO in its
#    .build-id; removed, "warning: binary cache: cannot keep [vdso]");
#    perfrecd exits 1 for the file it then held.
test_name=test-daemon-outdir-attack
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

needs_nobody
err=$work/daemon.err

chmod 755 "$work"
mkdir -m 777 "$work/pub"
mkdir -m 755 "$work/victim"
out=$work/pub/out
start_workload --seconds 30 --threads 1
start_daemon "$out" --config /dev/null -F 499 --flush-interval 100ms --jit-map-size 0
wait_flushed "$(files_in "$out" | head -n 1)"
fds_before=$(ls "/proc/$daemon_pid/fd" | wc -l)

check "a link of nobody's at the path: refused once, nothing written where it leads"
as_nobody mv "$out" "$work/pub/away" || fail "nobody cannot move the directory away"
as_nobody ln -s "$work/victim" "$out"
wait_for 'grep -q "is a symbolic link of nobody" "$err"' 20 ||
	fail "the link was not refused: $(cat "$err")"
sleep 1
[ -z "$(ls -A "$work/victim")" ] || fail "written through nobody's link: $(ls -A "$work/victim")"
note "  $(grep 'symbolic link of nobody' "$err")"

check "a directory, FIFO, file of nobody's at the path, again and again: no more warnings, no descriptor more"
as_nobody sh -c 'end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt "$end" ]; do
	rm -f "$1"; mkdir "$1"; sleep 0.05; rmdir "$1"; mkfifo "$1"; sleep 0.05; rm -f "$1"
	touch "$1"; sleep 0.05; done; rm -f "$1"' sh "$out"
[ "$(grep -c 'the files wait in memory' "$err")" -eq 1 ] ||
	fail "not one warning: $(grep 'the files wait in memory' "$err")"
fds_after=$(ls "/proc/$daemon_pid/fd" | wc -l)
[ "$fds_after" -le "$fds_before" ] || fail "$fds_before descriptors before, $fds_after after"
[ -z "$(ls -A "$work/victim")" ] || fail "written where the link led: $(ls -A "$work/victim")"

check "made again by root: the held file goes there; moved away then: finished there, nothing added to it"
mkdir -m 750 "$out"
wait_for '[ "$(file_count "$out")" -ge 1 ]' 20 || fail "no file in $out after it was made again"
held=$(files_in "$out" | head -n 1)
mv "$out" "$work/kept"
wait_for 'grep -q "error: output directory $out was moved to $work/kept" "$err"' 20 ||
	fail "the move was not said"
sleep 1
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 1 ] || fail "perfrecd: status $daemon_status, not 1"
held=$work/kept/$(basename "$held")
"$dump" --summary "$held" >"$work/summary" || fail "$held: perfrec-dump --summary failed"
grep -q '^complete: *yes' "$work/summary" && grep -q 'verdict=sound' "$work/summary" &&
	grep -q '^samples per cpu:.*=[1-9]' "$work/summary" ||
	fail "$held: not complete and sound, or no samples: $(cat "$work/summary")"
added=$(find "$work/kept" -path '*/.build-id/*' -type f)
[ -z "$added" ] || fail "the binary cache wrote into the directory moved away: $added"
warnings=$(grep 'warning:' "$err" | grep -v 'the files wait in memory\|could not be written' || true)
[ -z "$warnings" ] || fail "other warnings: $warnings"
[ -z "$(ls -A "$work/victim")" ] || fail "written where the link led: $(ls -A "$work/victim")"
note PASS
