#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The output directory made again on a disk without room for the file
# held in memory meanwhile (a small tmpfs, filled but for 256 KiB; the
# held file, of dwarf stacks at 999 Hz, is MiBs).  Before: at every flush
# perfrecd made the file there, copied into it until the disk was full,
# for every other program too, and removed it: the directory changed at
# each flush.  Now: said once, with what is free and what is held, and
# nothing is made there until there is room; then the file goes there,
# sound, and perfrecd exits 0.
test_name=test-daemon-outdir-full
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

err=$work/daemon.err
disk=$work/disk
mkdir "$disk"
mount -t tmpfs -o size=16m,mode=0755 perfrec-test "$disk" 2>"$work/mount.err" ||
	skip "cannot mount a tmpfs: $(cat "$work/mount.err")"
at_exit "umount -l '$disk'"
out=$disk/out

start_workload --seconds 30 --threads 2
start_daemon "$out" --config /dev/null -F 999 --call-graph dwarf --flush-interval 100ms \
	--jit-map-size 0 --binary-cache 0
wait_flushed "$(files_in "$out" | head -n 1)"
rm -rf "$out"
wait_for 'grep -q "error: output directory $out was removed" "$err"' 20 || fail "the removal was not said"
sleep 3

check "made again on a disk without room: said once, nothing made there"
free_kib=$(df -k --output=avail "$disk" | tail -n 1)
dd if=/dev/zero of="$disk/filler" bs=1k count=$((free_kib - 256)) 2>/dev/null
mkdir -m 750 "$out"
wait_for 'grep -q "warning: .*the file held in memory stays there" "$err"' 20 ||
	fail "the held file's failure to move was not said: $(cat "$err")"
before=$(stat -c %y "$out")
sleep 1
after=$(stat -c %y "$out")
[ "$before" = "$after" ] || fail "files made and removed in $out at each flush ($before, then $after)"
[ "$(grep -c 'stays there' "$err")" -eq 1 ] || fail "not said once: $(grep 'stays there' "$err")"
note "  $(grep 'stays there' "$err")"

check "room again: the held file goes there, sound; exit 0"
rm -f "$disk/filler"
wait_for '[ "$(file_count "$out")" -ge 1 ]' 20 || fail "no file in $out after room was made"
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
held=$(files_in "$out" | head -n 1)
"$dump" --summary "$held" >"$work/summary" || fail "$held: perfrec-dump --summary failed"
grep -q '^complete: *yes' "$work/summary" && grep -q 'verdict=sound' "$work/summary" ||
	fail "$held: not complete and sound: $(cat "$work/summary")"
note PASS
