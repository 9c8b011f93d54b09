#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Rotation and retention.  By size: files end once they reach
# --rotate-size.  By age, with a size cap for the directory: several files,
# each complete, sound and readable alone (its own snapshot holds the
# workload's mapping); the oldest are deleted and the directory stays under
# --retain-size plus the file being written.  SIGHUP starts a new file.
#
# With --kernel-symbols=all every file holds the kernel's symbols (about
# 1 MiB compressed here), so 1M, the smallest --rotate-size, is reached
# soon after a file starts, and --retain-size 3M deletes files within
# seconds.  (The default, the symbols as hit, across rotations:
# test-report-ksyms.sh.)
test_name=test-daemon-rotate
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

mib=1048576
start_workload --seconds 30 --threads 2

# The sequence number of a file name, without leading zeros.
sequence() {
	basename "$1" .prf | sed 's/.*-0*\([0-9]\)/\1/'
}

# Each file: --summary exits 0 and says complete; one snapshot that has the
# workload's r-x MMAP2.  Prints the time span of each file, one a line.
check_files() {
	for file in $(files_in "$1"); do
		"$dump" --summary "$file" >"$work/summary" 2>"$work/summary.err" ||
			fail "$file: perfrec-dump --summary: status $? ($(cat "$work/summary.err"))"
		grep -q '^complete: *yes' "$work/summary" || fail "$file: not complete"
		grep -q 'verdict=sound' "$work/summary" || fail "$file: not sound"
		"$dump" "$file" | sed -n '/ SNAPSHOT_BEGIN /,/ SNAPSHOT_END /p' >"$work/snapshot"
		grep -q ' SNAPSHOT_END ' "$work/snapshot" || fail "$file: no whole snapshot"
		grep -qE " MMAP2 .* pid=$workload_pid .* prot=r-x .* filename=$workload\$" "$work/snapshot" ||
			fail "$file: the snapshot has no MMAP2 of the workload (pid $workload_pid)"
		sed -n 's/^time span: *\([0-9.]*\) s.*/\1/p' "$work/summary"
	done
}

# -- by size ---------------------------------------------------------------
out=$work/size
check "--rotate-size 1M (and --rotate-age 1h) for 4 s at 999 Hz: at least 2 files"
# Verbatim samples and the whole kallsyms: compact samples and hit
# symbols are too few bytes to pass 1 MiB in 4 s.
start_daemon "$out" -d 4 -F 999 --kernel-symbols=all --rotate-size 1M --rotate-age 1h \
	--flush-interval 200ms --sample-encoding=verbatim
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
count=$(file_count "$out")
note "$count files"
[ "$count" -ge 2 ] || fail "$count files, expected at least 2"
check "each file is complete, sound, with the workload in its snapshot"
check_files "$out" >/dev/null
check "each file but the last ended at 1 MiB, give or take a chunk"
last=$(files_in "$out" | tail -n 1)
for file in $(files_in "$out"); do
	[ "$file" = "$last" ] && continue
	size=$(stat -c %s "$file")
	note "$(basename "$file"): $size bytes"
	[ "$size" -ge $((mib - mib / 16)) ] || fail "$file: $size bytes, rotated before 1 MiB"
	[ "$size" -le $((mib + mib / 2)) ] || fail "$file: $size bytes, well past 1 MiB"
done

# -- by age, with retention ---------------------------------------------------
out=$work/age
check "--rotate-size 1M --rotate-age 1s --retain-size 3M --flush-interval 200ms for 5 s"
start_daemon "$out" -d 5 --kernel-symbols=all --rotate-size 1M --rotate-age 1s --retain-size 3M --flush-interval 200ms
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
files=$(files_in "$out")
count=$(echo "$files" | wc -l)
first=$(sequence "$(echo "$files" | head -n 1)")
last=$(sequence "$(echo "$files" | tail -n 1)")
total=$(cat $files | wc -c)
largest=$(stat -c %s $files | sort -n | tail -n 1)
note "$count files left, sequence $first to $last, $total bytes, the largest $largest"
check "several files were made (the last has sequence >= 3)"
[ "$last" -ge 3 ] || fail "the last file has sequence $last"
check "the oldest were deleted: the files left are the newest, without gaps"
[ "$first" -gt 0 ] || fail "the first file (sequence 0) is still there"
[ $((last - first + 1)) -eq "$count" ] || fail "$count files for sequence $first to $last"
check "the directory holds at most 3 MiB plus one file ($total bytes)"
[ "$total" -le $((3 * mib + largest)) ] || fail "$total bytes, more than 3 MiB + $largest"
check "each file is complete, sound, with the workload in its snapshot, and at most 2.5 s long"
check_files "$out" >"$work/spans"
for span in $(cat "$work/spans"); do
	awk -v s="$span" 'BEGIN { exit !(s <= 2.5) }' || fail "a file spans $span s"
done

# -- SIGHUP ------------------------------------------------------------------
out=$work/hup
check "SIGHUP starts a new file; SIGTERM then finishes it, status 0"
start_daemon "$out" --flush-interval 200ms
kill -HUP "$daemon_pid"
wait_for '[ "$(file_count "$out")" -ge 2 ]' 10 || fail "no second file after SIGHUP"
sleep 0.3
kill -TERM "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
[ "$(file_count "$out")" -eq 2 ] || fail "$(file_count "$out") files, expected 2"
check_files "$out" >/dev/null
note "PASS"
