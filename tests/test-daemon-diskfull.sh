#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A full disk.  perfrecd writes into a small tmpfs that the test then fills
# up and keeps full.  The daemon must keep running, warn once per episode,
# resume writing when space is freed, note in the file what it dropped (a
# LOST_NOTE with reason=write_error error=ENOSPC for each episode, whose
# counts add up to the trailers'), and on SIGTERM exit 0 with complete,
# sound files.
#
# First: one file, two episodes (freed by deleting the filler), to see
# that the warning comes once for each.  Then: rotation due every second
# while the disk is full (freed by remounting bigger): new files cannot be
# made either, and the tries must not repeat the warning nor use up
# sequence numbers.
#
# A failed write is cut back, which gives its pages back to the tmpfs: a
# loop keeps taking them, so that the disk stays full.  Should a chunk
# still slip in, the episode ends there and a new one begins; what must
# hold is that "dropping data" warnings and "writing again" notices
# alternate, and that each "writing again" leaves a LOST_NOTE.  At 999 Hz
# on busy CPUs each flush writes 10 KiB or more, more than fits in the
# rest of the file's last page, which the filler cannot take.
test_name=test-daemon-diskfull
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

err=$work/daemon.err

mount_tmpfs() {
	mkdir "$1"
	mount -t tmpfs -o "size=$2,mode=0755" perfrec-test "$1" 2>"$work/mount.err" ||
		skip "cannot mount a tmpfs: $(cat "$work/mount.err")"
	at_exit "umount -l '$1'"
}

filler_pid=
fill() {
	rm -f "$work/stop-filling"
	dd if=/dev/zero of="$1/filler" bs=16k 2>/dev/null || true
	(
		while [ ! -e "$work/stop-filling" ]; do
			dd if=/dev/zero of="$1/filler" bs=4k oflag=append conv=notrunc 2>/dev/null
			sleep 0.02
		done
	) &
	filler_pid=$!
	at_exit "kill $filler_pid 2>/dev/null"
}

unfill() {
	touch "$work/stop-filling"
	wait "$filler_pid" || true
	rm -f "$1/filler"
}

# Each "dropping data" warning is followed by a "writing again" before the
# next one, and there are no more than two warnings an episode (a new file
# that cannot be made may be said apart, once).
alternating() {
	grep -E 'dropping data|writing again' "$err" | awk '
		/dropping data/ { if (open) exit 1; open = 1; next }
		{ open = 0 }' ||
		fail "two 'dropping data' warnings without 'writing again' between them"
	[ "$(count "warning:")" -le $((2 * $(count "writing again") + 2)) ] ||
		fail "$(count "warning:") warnings for $(count "writing again") times writing resumed"
}

count() {
	grep -c -- "$1" "$err" || true
}

alive() {
	kill -0 "$daemon_pid" 2>/dev/null || { wait_daemon; fail "perfrecd died (status $daemon_status)"; }
}

# Every file of $1 complete and sound; the LOST_NOTEs of all of them in
# $work/notes; and they add up to the trailers' dropped records and bytes.
check_files() {
	: >"$work/notes"
	noted="0 0" dropped="0 0"
	for file in $(files_in "$1"); do
		"$dump" --summary "$file" >"$work/summary" 2>"$work/summary.err" ||
			fail "$file: perfrec-dump --summary: status $? ($(cat "$work/summary.err"))"
		grep -q '^complete: *yes' "$work/summary" || fail "$file: not complete"
		grep -q 'verdict=sound' "$work/summary" || fail "$file: not sound"
		"$dump" "$file" >"$work/records" || fail "$file: perfrec-dump: status $?"
		grep ' LOST_NOTE ' "$work/records" >>"$work/notes" || true
		noted=$(grep ' LOST_NOTE ' "$work/records" |
			awk -v sum="$noted" "$awk_hex"'
				BEGIN { split(sum, s, " "); r = s[1]; b = s[2] }
				{ r += field("records"); b += field("bytes") }
				END { print r, b }')
		dropped=$(sed -n 's/^trailer: .* dropped_records=\([0-9]*\) dropped_bytes=\([0-9]*\).*/\1 \2/p' "$work/summary" |
			awk -v sum="$dropped" '{ split(sum, s, " "); print s[1] + $1, s[2] + $2 }')
		[ -n "$dropped" ] || fail "$file: no trailer counts"
	done
	note "$(cat "$work/notes")"
	check "the notes add up to the records and bytes the trailers say were dropped"
	note "noted: $noted; trailers: $dropped"
	[ "$noted" = "$dropped" ] || fail "the LOST_NOTEs count $noted (records, bytes), the trailers $dropped"
}

start_workload --seconds 30 --threads 2

# -- one file, two episodes ---------------------------------------------------
mnt=$work/small
# Room for the whole run between the episodes: on a loaded machine (ASan,
# tests beside it) a 3 MiB tmpfs filled up by itself after the second
# episode, a third one the test did not make and SIGTERM cut short.
mount_tmpfs "$mnt" 16m
check "perfrecd writes into a 16 MiB tmpfs"
start_daemon "$mnt" -F 999 --flush-interval 300ms
file=$(files_in "$mnt")
wait_flushed "$file"

for episode in 1 2; do
	warned=$(count "dropping data")
	check "episode $episode: the disk fills up; perfrecd warns once and keeps running"
	fill "$mnt"
	wait_for '[ "$(count "dropping data")" -gt $warned ]' 20 || fail "no 'dropping data' warning"
	sleep 1		# three flush intervals with the disk still full
	alive
	alternating
	grep 'dropping data' "$err" | tail -n 1 | grep -q 'No space left on device' ||
		fail "the warning does not say why: $(grep 'dropping data' "$err" | tail -n 1)"
	size=$(stat -c %s "$file")
	resumed=$(count "writing again")

	check "episode $episode: space is freed; writing resumes and the file grows"
	unfill "$mnt"
	wait_for '[ "$(count "writing again")" -gt $resumed ] && [ "$(stat -c %s "$file")" -gt $size ]' 20 ||
		fail "no 'writing again' notice, or the file did not grow past $size bytes"
	alternating
	note "$(grep 'writing again' "$err" | tail -n 1)"
done

check "SIGTERM: perfrecd exits 0"
kill -TERM "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
alternating
[ "$(file_count "$mnt")" -eq 1 ] || fail "$(file_count "$mnt") files, expected 1"
episodes=$(count "writing again")
note "$episodes episodes"

check "the file is complete and sound, with a LOST_NOTE reason=write_error error=ENOSPC for each episode"
check_files "$mnt"
# A note that could not be written itself (the disk full again at once)
# is counted again by the next episode's: as many notes as episodes, or
# fewer; check_files has made them add up to the trailers' drops.
notes=$(grep -c ' LOST_NOTE .* reason=write_error .* records=[1-9][0-9]* bytes=[1-9][0-9]* error=ENOSPC$' "$work/notes" || true)
[ "$notes" -ge 1 ] && [ "$notes" -le "$episodes" ] ||
	fail "$notes LOST_NOTE reason=write_error records=N>0 error=ENOSPC for $episodes episodes"
last_note=$(grep -n ' LOST_NOTE ' "$work/records" | tail -n 1 | cut -d: -f1)
tail -n "+$last_note" "$work/records" | grep -q ' SAMPLE ' || fail "no samples after the last LOST_NOTE"

# -- rotation due while the disk is full ----------------------------------
mnt=$work/rotating
mount_tmpfs "$mnt" 8m
check "perfrecd --rotate-age 1s writes into an 8 MiB tmpfs; the disk fills up"
start_daemon "$mnt" -F 999 --flush-interval 300ms --rotate-age 1s
wait_flushed "$(files_in "$mnt")"
fill "$mnt"
wait_for '[ "$(count "dropping data")" -ge 1 ]' 20 || fail "no 'dropping data' warning"
before=$(file_count "$mnt")
sleep 2		# two rotations due, six flushes tried
alive
check "no warning repeated, though new files were due"
alternating

check "the tmpfs is remounted bigger: writing resumes, new files are made"
touch "$work/stop-filling"
wait "$filler_pid" || true
resumed=$(count "writing again")
mount -o remount,size=64m "$mnt" || fail "cannot remount $mnt bigger"
wait_for '[ "$(count "writing again")" -gt $resumed ] && [ "$(file_count "$mnt")" -gt $before ]' 20 ||
	fail "no 'writing again' notice, or no new file"
alive
kill -TERM "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
alternating
episodes=$(count "writing again")

check "the files are numbered without gaps: failed tries used up no number"
seqs=$(files_in "$mnt" | sed 's/.*-0*\([0-9]*[0-9]\)\.prf$/\1/' | tr '\n' ' ')
note "sequence numbers: $seqs"
expected=$(seq 0 $(($(file_count "$mnt") - 1)) | tr '\n' ' ')
[ "$seqs" = "$expected" ] || fail "sequence numbers $seqs, expected $expected"
check "every file is complete and sound; a LOST_NOTE reason=write_error error=ENOSPC for each of the $episodes episodes"
check_files "$mnt"
notes=$(grep -c ' LOST_NOTE .* reason=write_error .* error=ENOSPC$' "$work/notes" || true)
[ "$notes" -ge 1 ] && [ "$notes" -le "$episodes" ] ||
	fail "$notes LOST_NOTE reason=write_error error=ENOSPC for $episodes episodes"
note "PASS"
