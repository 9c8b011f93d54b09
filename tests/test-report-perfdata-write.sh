#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --format=perf.data, read by perf 6.1: perfrecd samples the whole machine
# (999 Hz, a new file every second) while tests/workload, copied as
# workload-pdw so that --comm picks it alone, burns 60/30/10 % of its CPU
# time in burn_hot, burn_warm and burn_cold on two threads.  perfrec-report
# writes the workload's samples as perf.data, and perf, which reads the
# file with its own code (util/header.c, util/session.c, its own maps and
# symbols), must then
#
#   - read it without a word on stderr (perf report, perf script);
#   - give burn_hot, burn_warm and burn_cold (perf report --stdio) each
#     within 0.5 points of perfrec-report's flat view of the same capture:
#     the same samples, so only what the two attribute differently moves
#     them (perf resolves the addresses with the MMAP2s written);
#   - count as many samples as perfrec-report, with and without --since
#     (fewer with it);
#   - show the workload's call chain, burn_hot <- run_workload <- main, in
#     perf script's callchains (the workload keeps its frame pointers);
#   - show the capture's host, kernel release and online CPUs (this host's:
#     uname(1), sysfs) and the command that wrote it in perf report
#     --header-only, and the workload's build-id (eu-readelf's) in perf
#     buildid-list;
#   - name the kernel frames through the kallsyms file written beside the
#     file (perf report --kallsyms): each [k] name perf shows is one of the
#     file's, at the address this host's /proc/kallsyms gives that name;
#   - with node's JIT code (where node is installed), name JS:*hotA as
#     perfrec-report does, within 0.5 points, from the perf-PID.map
#     written in FILE.jit/ and copied to /tmp, where perf reads it.
#
# The odd captures of tests/report-hostile (hostile names, lying
# callchains, reused pids, empty files...) are written and read by perf
# script without a word, and no control character comes out of perf or
# the files beside.  And the refusals: no -o (a binary on stdout), a capture that fails
# leaves an earlier FILE as it was.
test_name=test-report-perfdata-write
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v perf >/dev/null 2>&1 || skip "no perf (linux-perf)"
perf report --help >/dev/null 2>&1 || perf version >/dev/null 2>&1 || skip "perf does not run here"

out=$work/out
program=$work/workload-pdw
cp "$workload" "$program"

check "perfrecd -F 999 samples the machine while workload-pdw runs 3 s on 2 threads"
start_daemon "$out" -d 10 -F 999 --rotate-age 1s
$favour "$program" --seconds 3 --threads 2 >/dev/null &
workload_pid=$!
pid=$workload_pid
wait_for '[ "$(cat /proc/$pid/comm 2>/dev/null)" = workload-pdw ]' 10 || fail "the workload did not start"
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
kill -INT "$daemon_pid" 2>/dev/null || true
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"

data=$work/w.data
check "perfrec-report --comm workload-pdw --format=perf.data -o FILE"
report_ok "$work/flat" --comm workload-pdw "$out"
report_ok "$work/write" --comm workload-pdw --format=perf.data -o "$data" "$out"
[ -s "$data" ] || fail "no $data"
[ -s "$data.kallsyms" ] || fail "no kallsyms file beside it"
grep -q "perf report -i $data --kallsyms $data.kallsyms" "$work/write.err" ||
	fail "no line saying how perf reads it: $(cat "$work/write.err")"
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat")
note "perfrec-report: $samples samples of workload-pdw; $(cat "$work/write.err")"
[ "${samples:-0}" -ge 1000 ] || fail "only ${samples:-0} samples of the workload"

# perf's tools, stderr apart: it must stay empty (a warning, an error).
perf_quiet() {
	perf_out=$1
	shift
	perf "$@" >"$perf_out" 2>"$perf_out.err" || fail "perf $*: status $?: $(head -n 3 "$perf_out.err")"
	[ ! -s "$perf_out.err" ] || fail "perf $* said: $(head -n 5 "$perf_out.err")"
}

check "perf report --stdio reads it without a warning; burn_* within 0.5 points of perfrec-report's"
perf_quiet "$work/perf.report" report --stdio --no-children --sort sym -g none -i "$data" \
	--kallsyms "$data.kallsyms"
for f in burn_hot burn_warm burn_cold; do
	ours=$(flat_percent "$work/flat" "$f")
	theirs=$(awk -v f="$f" '$2 == "[.]" && $3 == f { sub(/%$/, "", $1); print $1 }' "$work/perf.report")
	note "$f: perfrec-report $ours %, perf report ${theirs:-none} %"
	[ -n "$theirs" ] || fail "perf report has no row for $f"
	within "$ours" "$theirs" 0.5 || fail "$f: perf report $theirs %, perfrec-report $ours %"
done

check "perf script: as many samples as perfrec-report, and the chain burn_hot <- run_workload <- main"
perf_quiet "$work/perf.script" script -i "$data" --kallsyms "$data.kallsyms" -F comm,tid,ip,sym
perf_samples=$(grep -c '^ *workload-pdw' "$work/perf.script" || true)
[ "$perf_samples" -eq "$samples" ] || fail "perf script: $perf_samples samples, perfrec-report $samples"
# Frame lines are "ADDRESS SYMBOL"; a sample's chain, leaf first.
awk '
/^ *workload-pdw/ { depth = 0; next }
NF >= 2 { frame[++depth] = $2
	if (depth >= 3 && frame[depth - 2] == "burn_hot" && frame[depth - 1] == "run_workload" && frame[depth] == "main")
		found++ }
END { exit found ? 0 : 1 }' "$work/perf.script" ||
	fail "no sample with burn_hot, run_workload, main in perf script: $(sed -n 1,12p "$work/perf.script")"

check "perf report --header-only: the capture's host, kernel release and online CPUs"
perf_quiet "$work/perf.header" report --header-only -i "$data"
cpus=$(online_cpus | wc -l)
for line in "# hostname : $(uname -n)" "# os release : $(uname -r)" "# nrcpus online : $cpus" \
	"# arch : $(uname -m)"; do
	grep -qxF "$line" "$work/perf.header" || fail "no '$line' in perf's header: $(grep '^# [a-z]' "$work/perf.header" | head -n 12)"
done
grep -q "^# cmdline : .*--comm workload-pdw" "$work/perf.header" ||
	fail "the header's cmdline is not the command that wrote it: $(grep '^# cmdline' "$work/perf.header")"

check "perf buildid-list: the workload's build-id (eu-readelf's) at its path"
perf_quiet "$work/buildids" buildid-list -i "$data"
id=$(elf_build_id "$workload")
[ -n "$id" ] || fail "eu-readelf found no build-id in $workload"
grep -qxF "$id $program" "$work/buildids" ||
	fail "no '$id $program' in perf buildid-list: $(head -n 5 "$work/buildids")"

check "filters: --since 1s writes the samples perfrec-report counts with it, fewer"
report_ok "$work/flat-since" --comm workload-pdw --since 1s "$out"
report_ok "$work/write-since" --comm workload-pdw --since 1s --format=perf.data -o "$work/since.data" "$out"
since=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat-since")
perf_quiet "$work/since.script" script -i "$work/since.data" -F comm -G
perf_since=$(grep -c '^ *workload-pdw' "$work/since.script" || true)
note "--since 1s: perfrec-report $since samples, perf script $perf_since"
[ "$perf_since" -eq "$since" ] || fail "--since 1s: perf script $perf_since samples, perfrec-report $since"
[ "$since" -lt "$samples" ] && [ "$since" -gt 0 ] || fail "--since 1s kept $since of $samples samples"

check "without --comm, the machine's samples: perf script counts perfrec-report's"
report_ok "$work/flat-all" "$out"
report_ok "$work/write-all" --format=perf.data -o "$work/all.data" "$out"
all=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat-all")
perf_quiet "$work/all.script" script -i "$work/all.data" -F comm -G
perf_all=$(grep -c . "$work/all.script" || true)
[ "$perf_all" -eq "$all" ] || fail "all: perf script $perf_all samples, perfrec-report $all"
[ "$all" -gt "$samples" ] || fail "the machine's samples ($all) are not more than the workload's ($samples)"

check "kernel frames named through FILE.kallsyms, at this host's /proc/kallsyms addresses"
awk '$2 == "[k]" { print $3 }' "$work/perf.report" >"$work/kernel-names"
[ -s "$work/kernel-names" ] || fail "no kernel function in perf's report (the workload reads its thread clocks by syscalls)"
while read -r name; do
	ours=$(awk -v n="$name" '$3 == n { print $1; exit }' "$data.kallsyms")
	[ -n "$ours" ] || fail "perf named [k] $name, which $data.kallsyms does not have"
	grep -q "^$ours [tTwW] $name\$" /proc/kallsyms ||
		grep -q "^$ours [tTwW] $name	" /proc/kallsyms ||
		fail "$name at $ours in $data.kallsyms, not in /proc/kallsyms"
done <"$work/kernel-names"
note "$(wc -l <"$work/kernel-names") kernel functions named, e.g. $(head -n 3 "$work/kernel-names" | tr '\n' ' ')"

if command -v node >/dev/null 2>&1; then
	check "JIT code: node --perf-basic-prof, its map written to FILE.jit/; perf names hotA from it in /tmp"
	capture "$work/jit" $favour node --perf-basic-prof --no-turbo-inlining \
		"$top_srcdir/tests/jit-workload.js" 2
	read -r _ jit_pid _ <"$work/command.out" || fail "no pid from the JIT workload"
	# node's own map goes: perf must take the one perfrec-report wrote.
	rm -f "/tmp/perf-$jit_pid.map"
	report_ok "$work/jit-flat" --pid "$jit_pid" "$work/jit"
	report_ok "$work/jit-write" --pid "$jit_pid" --format=perf.data -o "$work/j.data" "$work/jit"
	[ -s "$work/j.data.jit/perf-$jit_pid.map" ] || fail "no $work/j.data.jit/perf-$jit_pid.map"
	grep -q "j.data.jit/: perf reads them as /tmp/perf-PID.map" "$work/jit-write.err" ||
		fail "no line about the JIT maps: $(cat "$work/jit-write.err")"
	cp "$work/j.data.jit/perf-$jit_pid.map" "/tmp/perf-$jit_pid.map"
	at_exit "rm -f /tmp/perf-$jit_pid.map"
	perf_quiet "$work/jit.report" report --stdio --no-children --sort sym -g none -i "$work/j.data" \
		--kallsyms "$work/j.data.kallsyms"
	ours=$(awk '!/^#/ && $4 == "JS:*hotA" { sub(/%$/, "", $1); n += $1 } END { printf "%.2f\n", n }' "$work/jit-flat")
	theirs=$(awk '$2 == "[.]" && $3 == "JS:*hotA" { sub(/%$/, "", $1); n += $1 } END { printf "%.2f\n", n }' "$work/jit.report")
	note "JS:*hotA: perfrec-report $ours %, perf report $theirs %"
	within "$ours" "$theirs" 0.5 && [ "$theirs" != 0.00 ] || fail "JS:*hotA: perf report $theirs %, perfrec-report $ours %"
else
	note "SKIP the JIT part: no node"
fi

check "hostile captures (tests/report-hostile): each written, read by perf script without a word, no control characters"
"$top_builddir/tests/report-hostile" "$work/hostile" >/dev/null || fail "report-hostile failed"
for f in "$work"/hostile/*.prf; do
	h=$work/h.data
	rm -rf "$h" "$h.kallsyms" "$h.jit"
	report_ok "$work/h.out" -q --format=perf.data -o "$h" "$f"
	# No kernel symbols in the capture, no kallsyms file (and none to name).
	if [ -e "$h.kallsyms" ]; then
		perf_quiet "$work/h.script" script -i "$h" --kallsyms "$h.kallsyms"
	else
		perf_quiet "$work/h.script" script -i "$h"
	fi
	perf_quiet "$work/h.header" report --header-only -i "$h"
	# C0 controls but tab and newline, and DEL: names from the capture made '?'
	for out in "$work/h.script" "$work/h.header" "$h.kallsyms" "$h".jit/*.map; do
		[ -f "$out" ] || continue
		! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$out" ||
			fail "$(basename "$f"): a control character in $(basename "$out")"
	done
done

check "refusals: no -o; a failed run leaves FILE as it was"
status=0
"$report" --format=perf.data "$out" >"$work/stdout.bin" 2>"$work/stdout.err" || status=$?
[ "$status" -eq 2 ] && grep -q "give -o FILE" "$work/stdout.err" && [ ! -s "$work/stdout.bin" ] ||
	fail "--format=perf.data without -o: status $status, $(cat "$work/stdout.err")"
cp "$data" "$work/before"
status=0
"$report" --format=perf.data --event no-such-event -o "$data" "$out" >/dev/null 2>"$work/bad.err" || status=$?
[ "$status" -ne 0 ] || fail "--event no-such-event: status 0"
cmp -s "$data" "$work/before" || fail "a failed run changed $data"
status=0
"$report" --format=perf.data --profile=off-cpu -o "$work/x.data" "$out" >/dev/null 2>"$work/kind.err" || status=$?
[ "$status" -eq 2 ] && [ ! -e "$work/x.data" ] || fail "--profile=off-cpu: status $status, $(cat "$work/kind.err")"

note "ok"
