#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report --profile=off-cpu and wall, and --waker, on captures whose
# every block is known: tests/offcpu-fixture writes, in its own functions,
# thread app 2000 blocked 3 x 10 ms in wait_sleep and 2 x 5 ms in
# wait_pipe (woken by waker 3000 in answer_pipe), thread worker 2001
# 4 x 2.5 ms in wait_lock (woken by app 2000 in unlock_mutex), and
# cpu-clock samples of 1 ms: 20 of app, 10 of worker, 5 of waker (see
# offcpu-fixture.c).  Checked, exactly, against those figures:
#   - the flat view: the header's total blocked time and block count;
#     each function's Total% and Total ms (--children), each thread's
#     share and ms (--sort comm,tid);
#   - the folded view in nanoseconds, and with --waker the offwaketime
#     shape: blocked stack root to leaf, "--", the waker's stack leaf to
#     root, the waker's name; the waker's frames resolved in its own maps
#     (process waker maps the program 4 GiB above where app does);
#   - wall: per thread, the CPU profile's samples x period plus the
#     off-CPU profile's time, a note when the event is no clock (cycles);
#     a CPU profile is the same with or without the blocks in the file;
#   - pprof read by Go's pprof: sample type off_cpu/nanoseconds (wall:
#     wall/nanoseconds), the same total and per-function times;
#   - --baseline of two off-CPU captures (the pipe blocks 3 times as long);
#   - --comm, --tid, --unit (a block's cgroup id through the file's
#     PERF_RECORD_CGROUP); -j 1 and -j 4 give the same bytes on a directory;
#   - the samples view's block lines, JSON's profile and unit, the SVG;
#   - no OFF_CPU record and --profile=off-cpu: one line, exit 1.
test_name=test-report-offcpu
needs_root=no	# it reads captures made by the tests' own programs
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

fixture=$top_builddir/tests/offcpu-fixture
[ -x "$fixture" ] || { echo "$test_name: $fixture not built" >&2; exit 99; }

check "offcpu-fixture writes the captures"
mkdir -p "$work/one" "$work/two"
"$fixture" "$work/one/a.prf" || fail "offcpu-fixture: status $?"
"$fixture" --scale-pipe 3 "$work/two/b.prf" || fail "offcpu-fixture --scale-pipe 3: status $?"
"$fixture" --no-off-cpu "$work/cpu-only.prf" || fail "offcpu-fixture --no-off-cpu: status $?"
a=$work/one/a.prf
b=$work/two/b.prf

# The data row of a flat view whose columns are split by awk; "" when none.
row() {
	awk -v want="$2" '!/^#/ && index($0, want) { print; exit }' "$1"
}

check "header: 50 ms blocked in 9 blocks"
report_ok "$work/flat" --profile=off-cpu "$a"
grep -qx '# profile: off-cpu, weights in nanoseconds' "$work/flat" || fail "no profile line"
grep -qx '# blocked: 50.000 ms in 9 blocks' "$work/flat" || fail "$(grep '^# blocked' "$work/flat")"
grep -qx '# off-CPU blocks: 9' "$work/flat" || fail "$(grep '^# off-CPU' "$work/flat")"

check "flat --children: each function's Total% and Total ms"
report_ok "$work/children" --profile=off-cpu --children "$a"
cat "$work/children"
grep -q '^# Self%   Total%      ms  Total ms  Blocks  Symbol' "$work/children" ||
	fail "titles: $(grep '^# Self' "$work/children")"
for expect in "wait_sleep 60.00% 30.000" "wait_pipe 20.00% 10.000" "wait_lock 20.00% 10.000" \
	"app_main 80.00% 40.000" "worker_main 20.00% 10.000" "schedule 100.00% 50.000"; do
	set -- $expect
	got=$(awk -v s="$1" '!/^#/ && $7 == s { print $2, $4 }' "$work/children")
	[ "$got" = "$2 $3" ] || fail "$1: Total% and Total ms '$got', expected '$2 $3'"
done
got=$(awk '!/^#/ && $7 == "schedule" { print $1, $3, $5 }' "$work/children")
[ "$got" = "100.00% 50.000 9" ] || fail "schedule's self: '$got'"

check "flat --sort comm,tid: each thread's share, ms and blocks"
report_ok "$work/threads" --profile=off-cpu -s comm,tid "$a"
[ "$(row "$work/threads" ' app ' | awk '{ print $1, $2, $3, $5 }')" = "80.00% 40.000 5 2000" ] ||
	fail "app: $(row "$work/threads" ' app ')"
[ "$(row "$work/threads" ' worker ' | awk '{ print $1, $2, $3, $5 }')" = "20.00% 10.000 4 2001" ] ||
	fail "worker: $(row "$work/threads" ' worker ')"
row "$work/threads" ' waker ' | grep -q . && fail "waker has no block of its own, but a row"

check "folded: nanoseconds a stack"
report_ok "$work/folded" --profile=off-cpu --view=folded "$a"
cat >"$work/folded.want" <<'EOF'
app;app_main;wait_pipe;pipe_read_[k];schedule_[k] 10000000
app;app_main;wait_sleep;do_nanosleep_[k];schedule_[k] 30000000
worker;worker_main;wait_lock;futex_wait_[k];schedule_[k] 10000000
EOF
sort "$work/folded" | diff -u "$work/folded.want" - || fail "folded stacks differ"

check "folded --waker: blocked root to leaf, --, the waker's stack leaf to root, its name"
report_ok "$work/waker" --profile=off-cpu --waker --view=folded "$a"
cat >"$work/waker.want" <<'EOF'
app;app_main;wait_pipe;pipe_read_[k];schedule_[k];--;try_to_wake_up_[k];pipe_write_[k];answer_pipe;waker_main;waker 10000000
app;app_main;wait_sleep;do_nanosleep_[k];schedule_[k] 30000000
worker;worker_main;wait_lock;futex_wait_[k];schedule_[k];--;try_to_wake_up_[k];futex_wake_[k];unlock_mutex;app_main;app 10000000
EOF
sort "$work/waker" | diff -u "$work/waker.want" - || fail "--waker stacks differ"

check "--waker in the tree; the flat view is the same with it"
report_ok "$work/tree" --profile=off-cpu --waker --view=tree "$a"
grep -q '\[\.\] --  \[waker\]' "$work/tree" || fail "no -- frame in the tree"
report_ok "$work/flat-waker" --profile=off-cpu --waker --children "$a"
cmp -s "$work/children" "$work/flat-waker" || fail "--waker changed the flat view"

check "wall: per thread, samples x period plus off-CPU time"
report_ok "$work/cpu" --profile=cpu -s comm,tid "$a"
report_ok "$work/wall" --profile=wall -s comm,tid "$a"
cat "$work/wall"
grep -qx '# wall time: 85.000 ms, on-CPU (samples x period) and off-CPU' "$work/wall" ||
	fail "$(grep '^# wall' "$work/wall")"
for thread in "app 2000 20 40.000 60.000" "worker 2001 10 10.000 20.000" "waker 3000 5 0 5.000"; do
	set -- $thread
	samples=$(row "$work/cpu" " $1 " | awk '{ print $2 }')
	off=$(row "$work/threads" " $1 " | awk '{ print $2 }')
	wall=$(row "$work/wall" " $1 " | awk '{ print $2 }')
	[ "$samples" = "$3" ] || fail "$1: $samples CPU samples, expected $3"
	[ "${off:-0}" = "$4" ] || fail "$1: $off ms off the CPU, expected $4"
	[ "$wall" = "$5" ] || fail "$1: wall $wall ms, expected $5"
	awk -v s="$samples" -v o="${off:-0}" -v w="$wall" 'BEGIN { exit !(s * 1.0 + o == w) }' ||
		fail "$1: wall $wall ms is not $samples x 1 ms + $off ms"
done

check "wall of an event that is no clock: said once, the report still made"
"$fixture" --cycles "$work/cycles.prf" || fail "offcpu-fixture --cycles: status $?"
report_ok "$work/wall-cycles" --profile=wall "$work/cycles.prf"
[ "$(grep -c 'event cycles is not a clock' "$work/wall-cycles.err")" -eq 1 ] ||
	fail "no note (or several) that cycles is no clock: $(cat "$work/wall-cycles.err")"
grep -q 'is not a clock' "$work/wall.err" && fail "cpu-clock is a clock, but a note says otherwise"

check "a CPU profile is the same with or without the blocks in the file (but its span)"
for view in flat tree folded; do
	report_ok "$work/cpu-$view" --view=$view "$a"
	report_ok "$work/cpu-only-$view" --view=$view "$work/cpu-only.prf"
	grep -v -e '^# files:' -e '^# time:' "$work/cpu-$view" >"$work/x"
	grep -v -e '^# files:' -e '^# time:' "$work/cpu-only-$view" >"$work/y"
	cmp -s "$work/x" "$work/y" || fail "--view=$view: the blocks changed the CPU profile"
done

check "no OFF_CPU record: one line naming the file, exit 1"
status=0
"$report" --profile=off-cpu "$work/cpu-only.prf" >"$work/none" 2>"$work/none.err" || status=$?
[ "$status" -eq 1 ] || fail "status $status, expected 1"
[ "$(cat "$work/none.err")" = "perfrec-report: no off-CPU records in $work/cpu-only.prf: record with perfrecd --off-cpu" ] ||
	fail "message: $(cat "$work/none.err")"
[ -s "$work/none" ] && fail "a report on stdout anyway"
report_ok "$work/wall-none" --profile=wall "$work/cpu-only.prf"
grep -q 'no off-CPU records in' "$work/wall-none.err" || fail "wall without blocks says nothing"

check "bad values: --profile=x, --waker with cpu"
status=0
"$report" --profile=offcpu "$a" >/dev/null 2>"$work/bad.err" || status=$?
[ "$status" -eq 2 ] && grep -q "'offcpu' is not one of cpu, off-cpu, wall" "$work/bad.err" ||
	fail "--profile=offcpu: status $status, $(cat "$work/bad.err")"
status=0
"$report" --waker "$a" >/dev/null 2>"$work/bad.err" || status=$?
[ "$status" -eq 2 ] || fail "--waker with a CPU profile: status $status"

check "--comm worker: 10 ms in 4 blocks; --tid 2000: 40 ms in 5"
report_ok "$work/comm" --profile=off-cpu --comm worker "$a"
grep -qx '# blocked: 10.000 ms in 4 blocks' "$work/comm" || fail "$(grep '^# blocked' "$work/comm")"
grep -qx '# off-CPU blocks: 4 of 9 (filtered)' "$work/comm" || fail "$(grep '^# off-CPU' "$work/comm")"
report_ok "$work/tid" --profile=off-cpu --tid 2000 "$a"
grep -qx '# blocked: 40.000 ms in 5 blocks' "$work/tid" || fail "$(grep '^# blocked' "$work/tid")"

check "--unit, --sort unit: app's blocks name cgroup 4711, /system.slice/app.service"
report_ok "$work/unit" --profile=off-cpu --unit app.service "$a"
grep -qx '# blocked: 40.000 ms in 5 blocks' "$work/unit" || fail "--unit app.service: $(grep '^# blocked' "$work/unit")"
report_ok "$work/units" --profile=off-cpu -s unit "$a"
[ "$(row "$work/units" 'app.service' | awk '{ print $1, $2, $3 }')" = "80.00% 40.000 5" ] ||
	fail "app.service: $(row "$work/units" 'app.service')"

check "--baseline: two off-CPU captures, shares and folded times"
report_ok "$work/diff" --profile=off-cpu --baseline "$a" -s comm "$b"
cat "$work/diff"
grep -q '^# baseline: 9 off-CPU blocks, 50.000 ms' "$work/diff" || fail "baseline line"
[ "$(row "$work/diff" ' app' | awk '{ print $1, $2, $3 }')" = "80.00% 85.71% +5.71" ] ||
	fail "app: $(row "$work/diff" ' app')"
[ "$(row "$work/diff" ' worker' | awk '{ print $1, $2, $3 }')" = "20.00% 14.29% -5.71" ] ||
	fail "worker: $(row "$work/diff" ' worker')"
report_ok "$work/diff-folded" --profile=off-cpu --baseline "$a" --view=folded "$b"
# The baseline's times scaled to this profile's total: x 70 / 50.
cat >"$work/diff.want" <<'EOF'
app;app_main;wait_pipe;pipe_read_[k];schedule_[k] 14000000 30000000
app;app_main;wait_sleep;do_nanosleep_[k];schedule_[k] 42000000 30000000
worker;worker_main;wait_lock;futex_wait_[k];schedule_[k] 14000000 10000000
EOF
diff -u "$work/diff.want" "$work/diff-folded" || fail "folded baseline differs"

check "-j 1 and -j 4 give the same bytes (two files, a directory)"
mkdir -p "$work/both"
cp "$a" "$work/both/a.prf"
cp "$b" "$work/both/b.prf"
for args in "--profile=off-cpu" "--profile=off-cpu --view=folded --waker" \
	"--profile=wall -s comm,tid" "--profile=off-cpu --view=tree --waker" \
	"--profile=off-cpu --children -s tid,sym"; do
	report_ok "$work/j1" -j 1 $args "$work/both"
	report_ok "$work/j4" -j 4 $args "$work/both"
	cmp -s "$work/j1" "$work/j4" || fail "$args: -j 1 and -j 4 differ"
done
grep -q '^# blocked: 120.000 ms in 18 blocks' "$work/j1" || fail "both files: $(grep '^# blocked' "$work/j1")"

check "samples view: a line a block with its duration and waker, then its frames"
report_ok "$work/samples" --profile=off-cpu --view=samples "$a"
[ "$(grep -c ': off-cpu [0-9]* ns' "$work/samples")" -eq 9 ] || fail "not 9 block lines"
grep -q '^app 2000/2000 \[001\] [0-9.]*: off-cpu 5000000 ns waker=waker 3000/3000 unit=app.service$' "$work/samples" ||
	fail "no pipe block line"
grep -q '^worker 2000/2001 \[001\] [0-9.]*: off-cpu 2500000 ns waker=app 2000/2000$' "$work/samples" ||
	fail "no lock block line"
grep -q 'answer_pipe+0x' "$work/samples" || fail "the waker's frames are not resolved in its process"

check "JSON: the profile, its unit and total"
report_ok "$work/json" --profile=off-cpu --json "$a"
grep -q '"total_period":50000000,"total_samples":9,' "$work/json" || fail "JSON totals"
grep -q '"profile":"off-cpu","weight_unit":"nanoseconds"' "$work/json" || fail "JSON profile"
report_ok "$work/json-cpu" --json "$a"
grep -q '"profile"' "$work/json-cpu" && fail "a CPU profile's JSON has a profile key"

check "SVG: an off-CPU flame graph with the waker frames"
report_ok "$work/off.svg" --profile=off-cpu --waker -o "$work/off.svg" "$a"
grep -q 'perfrec off-CPU (50.000 ms blocked) flame graph' "$work/off.svg" || fail "SVG title"
grep -q '<title>--' "$work/off.svg" || fail "no -- frame in the SVG"
grep -q 'answer_pipe' "$work/off.svg" || fail "no waker frame in the SVG"

build_pprof

check "pprof: off_cpu/nanoseconds, 50 ms, each function's time"
report_ok "$work/out" --profile=off-cpu -o "$work/off.pb.gz" "$a"
"$pprof" -raw "$work/off.pb.gz" >"$work/raw" 2>"$work/pprof.err" || fail "pprof -raw: $(cat "$work/pprof.err")"
grep -qx 'samples/count off_cpu/nanoseconds\[dflt\]' "$work/raw" || fail "sample types: $(grep -A1 '^Samples' "$work/raw")"
"$pprof" -top -nodecount=100 -nodefraction=0 -unit=ns "$work/off.pb.gz" >"$work/top" 2>"$work/pprof.err" ||
	fail "pprof -top: $(cat "$work/pprof.err")"
cat "$work/top"
grep -q 'of 50000000ns total' "$work/top" || fail "pprof's total is not 50 ms"
for expect in "wait_sleep 30000000ns" "wait_pipe 10000000ns" "wait_lock 10000000ns" \
	"app_main 40000000ns" "schedule 50000000ns"; do
	set -- $expect
	got=$(awk -v s="$1" '$6 == s { print $4 }' "$work/top")
	[ "$got" = "$2" ] || fail "pprof: $1 cum '$got', expected $2"
done

check "pprof: wall/nanoseconds, 85 ms"
report_ok "$work/out" --profile=wall -o "$work/wall.pb.gz" "$a"
"$pprof" -raw "$work/wall.pb.gz" >"$work/raw" 2>"$work/pprof.err" || fail "pprof -raw: $(cat "$work/pprof.err")"
grep -qx 'samples/count wall/nanoseconds\[dflt\]' "$work/raw" || fail "wall sample types"
"$pprof" -top -unit=ns "$work/wall.pb.gz" 2>/dev/null | grep -q 'of 85000000ns total' ||
	fail "pprof's wall total is not 85 ms"

exit 0
