#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Accuracy: perfrecd samples the whole machine (999 Hz, a new file every
# second: the report merges them) while tests/workload burns 60/30/10 % of
# its CPU time in burn_hot, burn_warm and burn_cold, measured by the
# workload itself with its threads' CPU clocks (--print-shares).  Among the workload's samples (--pid, and
# --comm workload), perfrec-report's flat view gives each function's self
# % within 5 points of its measured share; the tree view shows the chain
# main -> run_workload -> burn_hot as the code calls it (the workload keeps
# its frame pointers); the folded view has its stacks as
# "workload;...;main;run_workload;burn_hot N".
#
# The measured shares are of the time in the three functions alone, so
# the report's are taken the same way: each function's self % over the
# three's sum.  What the workload spends elsewhere (its clock reads in the
# vDSO and the kernel, start and exit; on a paravirtualized VM 3 to 5 %
# in pvm_irq_enable on the way out of the kernel) is checked on its own:
# the three must hold at least 85 % of the workload's samples.  The
# margin: ~4000 samples give a share's standard error under 1 point.
test_name=test-report-accuracy
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

out=$work/out

check "perfrecd -F 999 samples the machine while the workload runs 4 s (a new file every second)"
start_daemon "$out" -d 8 -F 999 --rotate-age 1s
# Favoured (see report-lib.sh): preempted often, the workload would see
# its samples drift into the scheduler's switch-in path.
$favour "$workload" --seconds 4 --print-shares >"$work/shares" &
workload_pid=$!
pid=$workload_pid
wait_for '[ "$(cat /proc/$pid/comm 2>/dev/null)" = workload ]' 10 || fail "the workload did not start"
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
kill -INT "$daemon_pid" 2>/dev/null || true
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
note "the workload (pid $pid) measured: $(tr '\n' ' ' <"$work/shares")"
files=$(file_count "$out")
note "$files capture files; the report reads the directory: all of them, merged"
[ "$files" -ge 2 ] || fail "only $files capture file with --rotate-age 1s over 4 s"

# burn_*'s self %, of the three's sum in a flat report: "60.12".
burn_sum() {
	flat_rows "$1" | awk -F '\t' '$5 == "workload" && $4 ~ /^burn_(hot|warm|cold)$/ { n += $1 } END { printf "%.2f\n", n }'
}
of_burns() {
	awk -v v="$1" -v sum="$2" 'BEGIN { printf "%.2f\n", (sum > 0 ? v * 100 / sum : 0) }'
}

share() {
	v=$(sed -n "s/^$1=//p" "$work/shares")
	[ -n "$v" ] || fail "the workload printed no share for $1"
	awk -v v="$v" 'BEGIN { printf "%.2f\n", v * 100 }'
}

check "flat view, --pid $pid: each burn_* within 5 points of its measured share"
report_ok "$work/flat" --pid "$pid" "$out"
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat")
note "$samples samples of pid $pid"
[ "${samples:-0}" -ge 1000 ] || fail "only ${samples:-0} samples of the workload (expected ~4000)"
burns=$(burn_sum "$work/flat")
note "burn_hot, burn_warm and burn_cold hold $burns % of them"
within "$burns" 100 15 || fail "the three burn_* functions hold only $burns % of the workload's samples"
for function in burn_hot burn_warm burn_cold; do
	expected=$(share "$function")
	got=$(of_burns "$(flat_percent "$work/flat" "$function" workload)" "$burns")
	note "$function: measured $expected %, report $got %"
	within "$got" "$expected" 5 ||
		fail "$function: the report says $got %, the workload measured $expected % (more than 5 points apart)"
done
# The PLT has no symbol (perf makes up "name@plt" ones; eu-addr2line says
# ??): a few samples there are no error, more than 1 % would be.
unknown=$(flat_rows "$work/flat" | awk -F '\t' '$4 == "[unknown]" && $5 ~ /^workload\+/ { n += $1 } END { printf "%.2f\n", n }')
note "unresolved in the workload's binary: $unknown %"
within "$unknown" 0 1 || fail "$unknown % of the samples are in the workload's binary but unresolved"

check "the same with --comm workload (every workload of the capture runs the same mix)"
report_ok "$work/flat-comm" --comm workload "$out"
burns_comm=$(burn_sum "$work/flat-comm")
within "$burns_comm" 100 15 || fail "--comm workload: the three burn_* functions hold only $burns_comm %"
for function in burn_hot burn_warm burn_cold; do
	expected=$(share "$function")
	got=$(of_burns "$(flat_percent "$work/flat-comm" "$function" workload)" "$burns_comm")
	note "$function: measured $expected %, report --comm $got %"
	within "$got" "$expected" 5 ||
		fail "--comm workload: $function at $got %, measured $expected %"
done

check "tree view: main -> run_workload -> burn_hot, each one level under the one before"
report_ok "$work/tree" --view=tree --pid "$pid" "$out"
# A node's depth is the column its "[.]" starts at: an only child keeps its
# parent's column, other children are 4 columns in ("|-- ").  So the chain
# is main, then on a later line run_workload at main's column or 4 more,
# then burn_hot at run_workload's column or 4 more, without a line at a
# shallower column between them (which would close the subtree).
chain=$(awk '
function depth(line) { return index(line, "[.] ") }
function name(line,    s) {
	s = substr(line, index(line, "[.] ") + 4)
	sub(/  .*/, "", s)
	return s
}
/^#/ { next }
index($0, "[.] ") == 0 && index($0, "[k] ") == 0 { next }
{
	d = index($0, "[.] ") ? depth($0) : index($0, "[k] ")
	n = index($0, "[.] ") ? name($0) : ""
	if (state == 0 && n == "main") { state = 1; at = d; total_main = $1; next }
	if (state >= 1 && d < at) { state = 0 }
	if (state == 1 && n == "run_workload" && (d == at || d == at + 4)) { state = 2; at = d; next }
	if (state == 2 && n == "burn_hot" && (d == at || d == at + 4)) { print total_main, $1, $2; exit }
}' "$work/tree")
[ -n "$chain" ] || {
	sed -n '1,40p' "$work/tree" >&2
	fail "no main -> run_workload -> burn_hot chain in the tree view"
}
set -- $chain
note "tree: main total $1, burn_hot under run_workload total $2 self $3"
main_total=${1%\%}
hot_self=${3%\%}
within "$main_total" 100 10 || fail "main holds $1 of the workload's samples, expected nearly all"
# Self, like the flat view's: burn_hot's total also holds the kernel under
# its clock_gettime(CLOCK_THREAD_CPUTIME_ID) calls (up to 5 % of all
# samples on a paravirtualized VM), which $burns, a sum of selves, does not.
within "$(of_burns "$hot_self" "$burns")" "$(share burn_hot)" 5 ||
	fail "burn_hot under main -> run_workload: self $3 ($(of_burns "$hot_self" "$burns") % of the three), measured $(share burn_hot) %"

check "folded view: lines workload;...;main;run_workload;burn_hot N carry burn_hot's samples"
report_ok "$work/folded" --view=folded --pid "$pid" "$out"
grep -Eq '^workload;([^ ]*;)?main;run_workload;burn_hot [0-9]+$' "$work/folded" || {
	head -n 20 "$work/folded" >&2
	fail "no folded line workload;...;main;run_workload;burn_hot N"
}
awk -v samples="$samples" '
/^workload;([^ ]*;)?main;run_workload;burn_hot [0-9]+$/ { hot += $NF }
{ all += $NF }
END {
	printf "folded: %d samples in all, %d in workload;...;main;run_workload;burn_hot\n", all, hot
	exit !(all == samples)
}' "$work/folded" || fail "the folded counts do not add up to the $samples samples of the flat view"
folded_hot=$(awk '/^workload;([^ ]*;)?main;run_workload;burn_hot [0-9]+$/ { n += $NF } END { print n + 0 }' "$work/folded")
flat_hot=$(flat_rows "$work/flat" | awk -F '\t' '$4 == "burn_hot" && $5 == "workload" { n += $2 } END { print n + 0 }')
note "burn_hot: $folded_hot samples in the folded view, $flat_hot self samples in the flat view"
# Leaf samples of burn_hot whose chain does not reach main are allowed a
# few (a sample at the function's first instruction, before its frame).
[ $((folded_hot * 100)) -ge $((flat_hot * 95)) ] ||
	fail "only $folded_hot of burn_hot's $flat_hot samples have the stack workload;...;main;run_workload;burn_hot"
note "PASS"
