#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# JIT code by name: OpenJDK (openjdk-17-jdk-headless) runs
# tests/JitWorkload.java under perfrecd with -XX:+DumpPerfMapAtExit,
# which writes /tmp/perf-PID.map as the JVM exits: perfrecd reads it at
# the process's EXIT record.  hotA and hotB measure their own shares of the
# process's CPU time.  Once the JVM has exited and its map is deleted, the
# capture alone names both methods in the "[JIT] tid PID" DSO, each within
# 5 points of its measured share.
test_name=test-report-jit-java
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v java >/dev/null 2>&1 || skip "no java"
command -v javac >/dev/null 2>&1 || skip "no javac (a JDK)"

check "javac builds tests/JitWorkload.java"
javac -d "$work" "$top_srcdir/tests/JitWorkload.java" || fail "javac failed"

check "perfrecd captures the JVM running it for 4 s"
# shellcheck disable=SC2086
capture "$work/out" $favour java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
	'-XX:CompileCommand=quiet' '-XX:CompileCommand=dontinline,JitWorkload::hot*' \
	-cp "$work" JitWorkload 4
read -r _ pid _ share_a _ share_b _ <"$work/command.out" || fail "no shares from the workload"
note "java pid $pid measured hotA $share_a %, hotB $share_b % of its CPU time"
[ -s "/tmp/perf-$pid.map" ] || fail "the JVM wrote no /tmp/perf-$pid.map"
rm -f "/tmp/perf-$pid.map"

check "the capture holds the map (JIT_MAP records of pid $pid)"
"$dump" "$capture_file" | grep -q " JIT_MAP .*pid=$pid " || fail "no JIT_MAP record for $pid"

check "flat view of pid $pid, the map gone: hotA and hotB named, within 5 points"
report_ok "$work/flat" --pid "$pid" "$work/out"
# Rows "PCT% N [.] int JitWorkload.hotA(int) [JIT] tid PID"; compilations added.
jit_share() {
	awk -v f="int JitWorkload.$1(int)" -v dso="[JIT] tid $pid" '
	!/^#/ && index($0, dso) && index($0, " " f " ") { sub(/%$/, "", $1); sum += $1 }
	END { printf "%.2f\n", sum }' "$work/flat"
}
got_a=$(jit_share hotA)
got_b=$(jit_share hotB)
note "report: hotA $got_a %, hotB $got_b %"
within "$got_a" "$share_a" 5 || fail "hotA at $got_a %, measured $share_a %"
within "$got_b" "$share_b" 5 || fail "hotB at $got_b %, measured $share_b %"
note "PASS"
