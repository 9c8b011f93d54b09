#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report --format=pprof against the rules profile servers enforce
# beyond pprof's own, checked by tests/pprof-check.py over the text of
# `protoc --decode=perftools.profiles.Profile` (the profile.proto of
# golang-github-google-pprof-dev): string_table[0] == "", ids 1..N in
# array order (mappings, locations, functions), no '-' in sample type
# names, every string UTF-8, every reference pointing at something.  SKIP
# without protoc, profile.proto or python3.
#
# Bad cases: -o into a directory that does not exist (exit 1, one message
# naming the file, nothing created); --format=pprof to a terminal
# (script(1)) without -o (refused, exit 2); a report that fails after -o
# was opened (--event of no such event: exit 2) leaves no file, nor its
# temporary.
#
# A capture with two events (perfrecd -e cpu-clock -e
# page-faults/period=16/) of tests/workload --touch-pages, then of a copy
# named "bad\377x" (not UTF-8: the byte is its comm's and its path's):
#   - the default (cpu-clock), --event page-faults, --comm workload,
#     --since 0.5s profiles pass the checker;
#   - sample types samples/count and cpu/nanoseconds, period 1e9/999 ns;
#     page_faults/count with period 16 for --event page-faults;
#   - samples are labelled with their event (the capture has two), comm,
#     pid and tid; the bad name's comm label is "bad\357\277\275x" (U+FFFD);
#   - time_nanos is the flat view's start time (to the second).
# The checker itself must catch a broken profile's text.
test_name=test-report-pprof-rules
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

proto_dir=/usr/share/gocode/src/github.com/google/pprof/proto
checker=$top_srcdir/tests/pprof-check.py
command -v protoc >/dev/null 2>&1 || skip "no protoc (apt-get install protobuf-compiler)"
[ -f "$proto_dir/profile.proto" ] ||
	skip "no $proto_dir/profile.proto (apt-get install golang-github-google-pprof-dev)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
command -v script >/dev/null 2>&1 || skip "no script(1) for a terminal (apt-get install bsdutils)"

# The profile's text as protoc decodes it, in FILE.txt; fails on a file
# that is not gzip or not a Profile.
decode() {
	gzip -dc "$1" >"$1.raw" || fail "$1 is not gzip"
	protoc --decode=perftools.profiles.Profile -I"$proto_dir" profile.proto \
		<"$1.raw" >"$1.txt" 2>"$work/protoc.err" ||
		{ cat "$work/protoc.err" >&2; fail "protoc cannot decode $1"; }
}

rules_ok() {
	decode "$1"
	python3 "$checker" <"$1.txt" >"$work/check.out" ||
		{ cat "$work/check.out" >&2; fail "$1 breaks the rules"; }
	note "$(basename "$1"): $(cat "$work/check.out")"
}

# The string of the table at index $2 (protoc's escapes kept).
string_at() {
	awk -v i="$2" '/^string_table: / { if (n++ == i) { sub(/^string_table: /, ""); print; exit } }' "$1"
}

# A top-level scalar field of the text.
field() {
	sed -n "s/^$2: //p" "$1" | head -n 1
}

# "type/unit" of each sample type, comma-separated.
sample_types() {
	awk '/^sample_type \{/ { t = 1; next }
	     t && /type:/ { type = $2 } t && /unit:/ { unit = $2 }
	     t && /^\}/ { print type " " unit; t = 0; type = unit = 0 }' "$1" |
	while read -r type unit; do
		printf '%s/%s,' "$(string_at "$1" "$type" | tr -d '"')" "$(string_at "$1" "$unit" | tr -d '"')"
	done
}

check "the checker catches a broken profile"
printf '%s\n' 'sample_type {' '  type: 1' '  unit: 2' '}' 'mapping {' '  id: 2' '}' \
	'string_table: "x"' 'string_table: "cpu-time"' 'string_table: "\377"' >"$work/broken.txt"
python3 "$checker" <"$work/broken.txt" >"$work/broken.out" && fail "the checker passes a broken profile"
for rule in 'string_table\[0\]' 'ids are not 1..N' "has a '-'" 'not UTF-8'; do
	grep -q "$rule" "$work/broken.out" || { cat "$work/broken.out" >&2; fail "the checker misses: $rule"; }
done

check "perfrecd captures cpu-clock and page-faults of the workload, then of a copy named bad<0xff>x"
bad=$work/bin/bad$(printf '\377')x
mkdir -p "$work/bin"
cp "$workload" "$bad"
# shellcheck disable=SC2016
"$perfrecd" -d 120 -F 999 -e cpu-clock -e page-faults/period=16/ -o "$work/out" -- \
	sh -c '$0 --seconds 1.5 --touch-pages && $1 --seconds 0.5' "$workload" "$bad" \
	>"$work/command.out" 2>"$work/daemon.err" || fail "perfrecd: status $?"

check "bad cases: no directory, a terminal, a report that fails"
status=0
"$report" -o "$work/none/p.pb.gz" "$work/out" >"$work/nodir.out" 2>"$work/nodir.err" || status=$?
[ "$status" -eq 1 ] || fail "-o into a missing directory: status $status, not 1"
[ "$(wc -l <"$work/nodir.err")" -eq 1 ] && grep -qF "$work/none/p.pb.gz: No such file or directory" "$work/nodir.err" ||
	{ cat "$work/nodir.err" >&2; fail "-o into a missing directory: not one message naming the file"; }
[ ! -e "$work/none" ] || fail "-o into a missing directory created something"
status=0
script -qec "$report --format=pprof $work/out" /dev/null >"$work/tty.out" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q 'give -o FILE' "$work/tty.out" ||
	{ cat "$work/tty.out" >&2; fail "--format=pprof to a terminal: status $status, not refused"; }
mkdir -p "$work/failed"
status=0
"$report" --event no-such-event -o "$work/failed/p.pb.gz" "$work/out" 2>"$work/failed.err" || status=$?
[ "$status" -eq 2 ] || fail "--event no-such-event: status $status, not 2"
[ -z "$(ls -A "$work/failed")" ] || fail "a failed report left $(ls -A "$work/failed")"

check "the rules, for the default event, --event page-faults, --comm workload, --since 0.5s"
report_ok "$work/cpu.log" -o "$work/cpu.pb.gz" "$work/out"
report_ok "$work/faults.log" --event page-faults -o "$work/faults.pb.gz" "$work/out"
report_ok "$work/comm.log" --comm workload -o "$work/comm.pb.gz" "$work/out"
report_ok "$work/since.log" --since 0.5s -o "$work/since.pb.gz" "$work/out"
for name in cpu faults comm since; do
	rules_ok "$work/$name.pb.gz"
done

check "sample types and periods"
types=$(sample_types "$work/cpu.pb.gz.txt")
[ "$types" = "samples/count,cpu/nanoseconds," ] || fail "cpu-clock's sample types are $types"
[ "$(field "$work/cpu.pb.gz.txt" period)" = 1001001 ] ||
	fail "cpu-clock at 999 Hz: period $(field "$work/cpu.pb.gz.txt" period), not 1001001 ns"
types=$(sample_types "$work/faults.pb.gz.txt")
[ "$types" = "samples/count,page_faults/count," ] || fail "page-faults' sample types are $types"
[ "$(field "$work/faults.pb.gz.txt" period)" = 16 ] || fail "page-faults/period=16/: period $(field "$work/faults.pb.gz.txt" period)"

check "labels: event (two in the capture), comm, pid, tid; the bad name as U+FFFD"
for key in event comm pid tid; do
	grep -qx "string_table: \"$key\"" "$work/cpu.pb.gz.txt" || fail "no label key $key"
done
grep -qx 'string_table: "page-faults/period=16/"' "$work/faults.pb.gz.txt" ||
	fail "no event label page-faults/period=16/"
grep -qx 'string_table: "bad\\357\\277\\275x"' "$work/cpu.pb.gz.txt" ||
	{ grep '^string_table: "bad' "$work/cpu.pb.gz.txt" >&2; fail "the comm bad<0xff>x is not bad<U+FFFD>x"; }

check "time_nanos: the capture's start, as the flat view's header says it"
report_ok "$work/flat" "$work/out"
start=$(sed -n 's/^# time: \([0-9-]* [0-9:]*\) UTC.*/\1/p' "$work/flat")
time_nanos=$(field "$work/cpu.pb.gz.txt" time_nanos)
[ -n "$time_nanos" ] && [ "$(field "$work/cpu.pb.gz.txt" duration_nanos)" -gt 0 ] ||
	fail "no time_nanos or duration_nanos"
got=$(date -u -d "@$((time_nanos / 1000000000))" '+%Y-%m-%d %H:%M:%S')
[ "$got" = "$start" ] || fail "time_nanos is $got, the capture started $start"

echo "$test_name: PASS"
