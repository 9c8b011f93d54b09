#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# JIT code by name: Debian's node runs tests/jit-workload.js with
# --perf-basic-prof under perfrecd; hotA and hotB measure their own shares
# of the process's CPU time.  Once node has exited and its
# /tmp/perf-PID.map is deleted, the capture alone names both functions in
# the "[JIT] tid PID" DSO, each within 5 points of its measured share, and
# what was left unnamed in anonymous memory is small; the pprof output
# names them too (go tool pprof -top, where Go is installed).
test_name=test-report-jit-node
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v node >/dev/null 2>&1 || skip "no node"

check "perfrecd captures node --perf-basic-prof running jit-workload.js for 3 s"
# --perf-basic-prof also makes V8 write an isolate-*-v8.log into the
# current directory, which is the build tree (distcheck refuses strays).
# shellcheck disable=SC2086
capture "$work/out" $favour node --perf-basic-prof --no-turbo-inlining \
	--logfile="$work/v8.log" --no-logfile-per-isolate \
	"$top_srcdir/tests/jit-workload.js" 3
read -r _ pid _ share_a _ share_b _ <"$work/command.out" || fail "no shares from the workload"
note "node pid $pid measured hotA $share_a %, hotB $share_b % of its CPU time"
[ -s "/tmp/perf-$pid.map" ] || fail "node wrote no /tmp/perf-$pid.map"
rm -f "/tmp/perf-$pid.map"

check "the capture holds the map (JIT_MAP records of pid $pid)"
"$dump" "$capture_file" | grep -q " JIT_MAP .*pid=$pid " || fail "no JIT_MAP record for $pid"

check "flat view of pid $pid, the map gone: hotA and hotB named, within 5 points"
report_ok "$work/flat" --pid "$pid" "$work/out"
# Rows "PCT% N [.] JS:*hotA /path:L:C [JIT] tid PID"; tiers (~ ^ * +) added.
jit_share() {
	awk -v f="$1" -v dso="[JIT] tid $pid" '
	!/^#/ && index($0, dso) && $4 ~ ("^JS:[~^*+]?" f "$") { sub(/%$/, "", $1); sum += $1 }
	END { printf "%.2f\n", sum }' "$work/flat"
}
got_a=$(jit_share hotA)
got_b=$(jit_share hotB)
note "report: hotA $got_a %, hotB $got_b %"
within "$got_a" "$share_a" 5 || fail "hotA at $got_a %, measured $share_a %"
within "$got_b" "$share_b" 5 || fail "hotB at $got_b %, measured $share_b %"

check "unnamed anonymous memory under 5 %"
# Without the map: "[unknown]  anon+0x7f8c8efc6a4f" rows, most of the samples.
unnamed=$(awk '!/^#/ && $4 == "[unknown]" && $NF ~ /^(anon|\[unknown\])(\+0x[0-9a-f]+)?$/ {
	sub(/%$/, "", $1); sum += $1 } END { printf "%.2f\n", sum }' "$work/flat")
note "[unknown] in anonymous memory: $unnamed %"
within "$unnamed" 0 5 || fail "$unnamed % of the samples unnamed: $(grep unknown "$work/flat" | head -n 3)"
check "pprof output: the same names, through the report's normal path"
report_ok "$work/pprof.out" --pid "$pid" -o "$work/cpu.pb.gz" "$work/out"
if command -v go >/dev/null 2>&1 && timeout 120 go tool pprof -top "$work/cpu.pb.gz" >"$work/top" 2>"$work/top.err"; then
	grep -q " JS:\*hotA " "$work/top" || fail "go tool pprof -top: no JS:*hotA: $(head -n 12 "$work/top")"
	grep -q " JS:\*hotB " "$work/top" || fail "go tool pprof -top: no JS:*hotB"
else
	note "  no go tool pprof here: not checked"
fi
note "PASS"
