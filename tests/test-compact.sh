#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Compact samples end to end (perfrec-format(5), "Compact samples"):
#
# 1. tests/make-fixture's file, rewritten by tests/recode in each encoding:
#    perfrec-dump prints the same sample lines (what a line says, not
#    where its record sits), and says which chunks are compact.
#    tests/data/fixture-compact-1.2.prf, the same file recoded compact by
#    perfrec 1.2's writer (its times in COMPACT_SAMPLES records, predicted
#    from the sample before), reads as the original too.
# 2. A real capture: perfrecd --sample-encoding=verbatim samples the
#    machine while tests/workload runs; recode makes a compact file of the
#    same records.  The dump's sample lines and perfrec-report's flat,
#    tree and folded views of the two are identical, and the compact file
#    is smaller.
# 3. perfrecd's default, compact: its chunks of samples are compact and
#    perfrec-report gives burn_hot, burn_warm and burn_cold within 5
#    points of the shares the workload measured itself (as
#    test-report-accuracy.sh does).
test_name=test-compact
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

recode=$top_builddir/tests/recode
make_fixture=$top_builddir/tests/make-fixture
for program in "$recode" "$make_fixture"; do
	[ -x "$program" ] || { echo "$test_name: $program not built" >&2; exit 99; }
done

# The sample lines of a dump, without their chunk= and offset=.
sample_lines() {
	"$dump" "$1" 2>"$2.err" | grep ' SAMPLE ' | sed 's/^chunk=[0-9]* offset=[0-9]* //' >"$2" ||
		true
}

check "the fixture recoded compact and verbatim: the same sample lines as the original"
"$make_fixture" "$work/fixture.prf" || fail "make-fixture: status $?"
"$recode" --encoding compact "$work/fixture.prf" "$work/fixture-compact.prf" ||
	fail "recode --encoding compact: status $?"
"$recode" --encoding verbatim "$work/fixture.prf" "$work/fixture-verbatim.prf" ||
	fail "recode --encoding verbatim: status $?"
sample_lines "$work/fixture.prf" "$work/lines.original"
sample_lines "$work/fixture-compact.prf" "$work/lines.compact"
sample_lines "$work/fixture-verbatim.prf" "$work/lines.verbatim"
[ "$(wc -l <"$work/lines.original")" -eq 8 ] || fail "the fixture has $(wc -l <"$work/lines.original") samples, expected 8"
cmp -s "$work/lines.original" "$work/lines.compact" || {
	diff "$work/lines.original" "$work/lines.compact" >&2
	fail "the compact file's sample lines differ from the original's"
}
cmp -s "$work/lines.original" "$work/lines.verbatim" || fail "the verbatim file's sample lines differ"
[ ! -s "$work/lines.compact.err" ] || fail "perfrec-dump complained: $(cat "$work/lines.compact.err")"
"$dump" --chunks "$work/fixture-compact.prf" >"$work/chunks" || fail "perfrec-dump --chunks: status $?"
n=$(grep -c ' holds=samples encoding=compact stacks=[1-9]' "$work/chunks" || true)
[ "$n" -eq 2 ] || fail "$n compact chunks of samples, expected 2: $(cat "$work/chunks")"
grep -q ' holds=samples$' "$work/chunks" && fail "a chunk of samples is not compact"
note "perfrec-dump --chunks: $(grep -m1 encoding=compact "$work/chunks")"

check "a compact file written by format 1.2: the same sample lines as the original"
old=$top_srcdir/tests/data/fixture-compact-1.2.prf
"$dump" "$old" | grep -q '^HEADER version=1\.2 ' || fail "$old is not a version 1.2 file"
sample_lines "$old" "$work/lines.1.2"
cmp -s "$work/lines.original" "$work/lines.1.2" || {
	diff "$work/lines.original" "$work/lines.1.2" >&2
	fail "the 1.2 compact file's sample lines differ from the original's"
}
[ ! -s "$work/lines.1.2.err" ] || fail "perfrec-dump complained: $(cat "$work/lines.1.2.err")"

[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] ||
	skip "system-wide sampling needs root or kernel.perf_event_paranoid <= 0"

check "a verbatim capture and its compact recoding: the same samples, the same reports"
out=$work/verbatim
start_daemon "$out" -d 20 -F 999 --sample-encoding=verbatim
$favour "$workload" --seconds 3 --threads 2 >/dev/null &
workload_pid=$!
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
kill -INT "$daemon_pid" 2>/dev/null || true
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
[ "$(file_count "$out")" -eq 1 ] || fail "$(file_count "$out") files, expected 1"
verbatim=$(files_in "$out")
"$dump" --chunks "$verbatim" >"$work/chunks.verbatim" || fail "perfrec-dump --chunks: status $?"
grep -q 'encoding=compact' "$work/chunks.verbatim" &&
	fail "--sample-encoding=verbatim wrote compact chunks"
mkdir "$work/compact"
compact=$work/compact/recoded.prf
"$recode" --encoding compact "$verbatim" "$compact" || fail "recode: status $?"
sample_lines "$verbatim" "$work/capture.verbatim"
sample_lines "$compact" "$work/capture.compact"
n=$(wc -l <"$work/capture.verbatim")
note "$n samples; $(stat -c %s "$verbatim") bytes verbatim, $(stat -c %s "$compact") compact"
[ "$n" -ge 2000 ] || fail "only $n samples in 3 s at 999 Hz"
cmp -s "$work/capture.verbatim" "$work/capture.compact" ||
	fail "the compact recoding's sample lines differ from the capture's"
[ "$(stat -c %s "$compact")" -lt "$(stat -c %s "$verbatim")" ] ||
	fail "the compact file is not smaller than the verbatim one"
for view in flat tree folded; do
	report_ok "$work/report.$view.verbatim" --view=$view --comm workload "$verbatim"
	report_ok "$work/report.$view.compact" --view=$view --comm workload "$compact"
	# The first lines name the file.
	grep -v '^# \(file\|capture\|source\)' "$work/report.$view.verbatim" >"$work/a"
	grep -v '^# \(file\|capture\|source\)' "$work/report.$view.compact" >"$work/b"
	cmp -s "$work/a" "$work/b" || {
		diff "$work/a" "$work/b" | head -n 20 >&2
		fail "--view=$view differs between the verbatim and the compact file"
	}
	note "--view=$view: $(wc -l <"$work/a") identical lines"
done

check "perfrecd's default is compact, and its report has the workload's shares"
out=$work/default
start_daemon "$out" -d 20 -F 999
$favour "$workload" --seconds 4 --print-shares >"$work/shares" &
workload_pid=$!
pid=$workload_pid
wait_for '[ "$(cat /proc/$pid/comm 2>/dev/null)" = workload ]' 10 || fail "the workload did not start"
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
kill -INT "$daemon_pid" 2>/dev/null || true
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
file=$(files_in "$out")
"$dump" --chunks "$file" >"$work/chunks.default" || fail "perfrec-dump --chunks: status $?"
grep -q ' holds=samples$' "$work/chunks.default" && fail "perfrecd wrote a verbatim chunk of samples"
grep -q ' holds=samples encoding=compact' "$work/chunks.default" || fail "no compact chunk of samples"
report_ok "$work/flat" --pid "$pid" "$out"
burns=$(flat_rows "$work/flat" | awk -F '\t' '$5 == "workload" && $4 ~ /^burn_(hot|warm|cold)$/ { n += $1 } END { printf "%.2f\n", n }')
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat")
note "$samples samples of the workload, $burns % of them in burn_*"
[ "${samples:-0}" -ge 1000 ] || fail "only ${samples:-0} samples of the workload"
within "$burns" 100 15 || fail "burn_* hold only $burns % of the workload's samples"
for function in burn_hot burn_warm burn_cold; do
	expected=$(sed -n "s/^$function=//p" "$work/shares" | awk '{ printf "%.2f\n", $1 * 100 }')
	[ -n "$expected" ] || fail "the workload printed no share for $function"
	got=$(awk -v v="$(flat_percent "$work/flat" "$function" workload)" -v sum="$burns" \
		'BEGIN { printf "%.2f\n", (sum > 0 ? v * 100 / sum : 0) }')
	note "$function: measured $expected %, report $got %"
	within "$got" "$expected" 5 || fail "$function: the report says $got %, the workload measured $expected %"
done
exit 0
