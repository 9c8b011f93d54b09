#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A file without its trailer, as perfrecd's current file is while it is
# written (and as a crashed perfrecd leaves its last one), is read, said
# once with a note, and not called damaged: "FILE: no trailer: ..." on
# stderr, ", N incomplete" in the header's files line, "incomplete_files"
# in the JSON beside "damaged_files": 0; its samples are all there.  A file
# cut inside a chunk is still damaged, and only that.
#
# The live file is a copy of a capture without its trailer, the file's
# last 128 bytes (perfrec-format(5)): byte for byte what a reader sees of
# a file perfrecd is writing between two chunks (perfrec-dump calls it
# incomplete, no bytes cut short).  A real perfrecd read while it runs
# would also, now and then, be caught in the middle of writing a chunk,
# which reads as cut short: the copy is what is checked here.
test_name=test-report-live
needs_root=no	# it reads captures made by the tests' own programs
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
[ -x "$hostile" ] || { echo "$test_name: $hostile not built" >&2; exit 99; }

trailer_size=128
note_text="no trailer: still being written, or its writer stopped before closing it; the samples so far are read"

# json_number FILE KEY: the number KEY has in the JSON of FILE (the last one).
json_number() {
	sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1"
}

# cut FROM TO BYTES: TO is FROM without its last BYTES bytes.
cut_copy() {
	size=$(stat -c %s "$1")
	head -c $((size - $3)) "$1" >"$2"
}

check "the copies: complete, without its trailer (incomplete, nothing cut short), cut inside its last chunk"
"$hostile" --nameless "$work/made" || fail "report-hostile --nameless failed"
mkdir "$work/complete" "$work/live" "$work/cut" "$work/mixed"
cp "$work/made/nameless-0.prf" "$work/complete/a.prf"
cut_copy "$work/complete/a.prf" "$work/live/a.prf" "$trailer_size"
cut_copy "$work/complete/a.prf" "$work/cut/a.prf" $((trailer_size + 1000))
status=0
"$dump" --summary "$work/live/a.prf" >"$work/dump.out" 2>"$work/dump.err" || status=$?
grep -q 'truncated_bytes=0 .*verdict=incomplete' "$work/dump.out" && [ "$status" -eq 1 ] ||
	{ cat "$work/dump.out" "$work/dump.err" >&2; fail "perfrec-dump does not call the copy without its trailer incomplete and whole"; }
note "perfrec-dump: $(cat "$work/dump.err")"

check "a complete file: no note, nothing incomplete"
report_ok "$work/complete.json" --json "$work/complete/a.prf"
[ ! -s "$work/complete.json.err" ] || fail "perfrec-report said something of a complete file: $(cat "$work/complete.json.err")"
total=$(json_number "$work/complete.json" samples)
[ "$total" -eq 20000 ] || fail "$total samples in the complete file, expected 20000"
[ "$(json_number "$work/complete.json" incomplete_files)" = 0 ] ||
	fail "the JSON of a complete file: \"incomplete_files\" is not 0: $(grep -o '"[a-z_]*files":[0-9]*' "$work/complete.json" | tr '\n' ' ')"

check "a file without its trailer: one note, not damaged, every sample read"
for options in "--view=flat" "--view=tree" "--view=samples" "-j 2 --view=flat"; do
	name=$(echo "$options" | tr -c 'a-z0-9\n' '-')
	# shellcheck disable=SC2086
	report_ok "$work/live$name" $options "$work/live/a.prf"
	[ "$(cat "$work/live$name.err")" = "perfrec-report: $work/live/a.prf: $note_text" ] ||
		{ cat "$work/live$name.err" >&2; fail "perfrec-report $options: not the one note about the file without a trailer"; }
done
grep -q "^# files: 1, 1 incomplete (" "$work/live--view-flat" ||
	{ head -n 8 "$work/live--view-flat" >&2; fail "the header does not count the file as incomplete"; }
grep -q "damaged" "$work/live--view-flat" && fail "the header calls the file damaged: $(grep damaged "$work/live--view-flat")"
samples=$(sed -n 's/^# samples: \([0-9]*\)$/\1/p' "$work/live--view-flat")
[ "$samples" = 20000 ] || fail "$samples samples read of the file without its trailer, expected all 20000"
[ "$(grep -c '^:[0-9]* ' "$work/live--view-samples")" -eq 20000 ] ||
	fail "--view=samples printed $(grep -c '^:[0-9]* ' "$work/live--view-samples") samples, expected 20000"
report_ok "$work/live.json" --json "$work/live/a.prf"
for field in "incomplete_files 1" "damaged_files 0" "files 1" "samples 20000"; do
	value=$(json_number "$work/live.json" "${field% *}")
	[ "$value" = "${field#* }" ] || fail "the JSON: \"${field% *}\": $value, expected ${field#* }"
done
note "$(grep '^# files:' "$work/live--view-flat"); JSON: $(grep -o '"[a-z_]*files":[0-9]*' "$work/live.json" | tr '\n' ' ')"

check "a file cut inside a chunk: damaged, as before, and not incomplete"
report_ok "$work/cut.out" "$work/cut/a.prf"
grep -q "^perfrec-report: warning: $work/cut/a.prf: cut short: discarded [0-9]* bytes; read the rest$" "$work/cut.out.err" ||
	{ cat "$work/cut.out.err" >&2; fail "no warning that the file was cut short"; }
grep -q "no trailer" "$work/cut.out.err" && fail "the damaged file is also said to be still being written"
grep -q "^# files: 1, 1 damaged (" "$work/cut.out" || fail "the header: $(grep '^# files:' "$work/cut.out")"
report_ok "$work/cut.json" --json "$work/cut/a.prf"
[ "$(json_number "$work/cut.json" damaged_files)/$(json_number "$work/cut.json" incomplete_files)" = 1/0 ] ||
	fail "the JSON of the cut file: $(grep -o '"[a-z_]*files":[0-9]*' "$work/cut.json" | tr '\n' ' '), expected 1 damaged, 0 incomplete"

check "a directory of complete, live and cut files: each said once, in file order, counted apart"
cp "$work/complete/a.prf" "$work/mixed/1.prf"
cp "$work/live/a.prf" "$work/mixed/2.prf"
cp "$work/cut/a.prf" "$work/mixed/3.prf"
cp "$work/live/a.prf" "$work/mixed/4.prf"
for jobs in 1 3; do
	report_ok "$work/mixed-$jobs.json" -j "$jobs" --json "$work/mixed"
	grep -v "3.prf: cut short" "$work/mixed-$jobs.json.err" >"$work/mixed-$jobs.notes" || true
	printf 'perfrec-report: %s: %s\n' "$work/mixed/2.prf" "$note_text" "$work/mixed/4.prf" "$note_text" |
		cmp -s - "$work/mixed-$jobs.notes" ||
		{ cat "$work/mixed-$jobs.json.err" >&2; fail "-j $jobs: not one note for each file without a trailer, in order"; }
	[ "$(json_number "$work/mixed-$jobs.json" damaged_files)/$(json_number "$work/mixed-$jobs.json" incomplete_files)" = 1/2 ] ||
		fail "-j $jobs: $(grep -o '"[a-z_]*files":[0-9]*' "$work/mixed-$jobs.json" | tr '\n' ' '), expected 1 damaged, 2 incomplete"
done
report_ok "$work/mixed.quiet" -q "$work/mixed"
[ ! -s "$work/mixed.quiet.err" ] || fail "-q: $(cat "$work/mixed.quiet.err")"
note PASS
