#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd --off-cpu and perfrec-report --profile=off-cpu|wall together, on
# real captures of tests/offcpu-workload, whose main thread blocks in
# known ways and measures each with its own clock: 15 sleeps of 30 ms
# (phase_sleep), 15 pipe waits of 20 ms that its answerer thread answers
# (phase_pipe), 15 contended mutex waits of 10 ms (phase_mutex).  A
# frame-pointer walk from a frameless libc wrapper skips block_*() and
# starts in phase_*(): those are the names the fp capture shows.  From one
# capture (fp), of the main thread (--comm offcpu-workload --tid):
#   - each phase_*()'s Total% (--children) within 3 points of the
#     workload's share of that kind in its blocked time;
#   - the report's total blocked time (JSON) within 5 % of the workload's;
#   - --waker --view=folded: every pipe wait's stack goes on, after a "--"
#     frame, through the answering thread's function answerer() (not only
#     its comm, the line's last name);
#   - wall: the JSON total is the CPU profile's (samples x period) plus
#     the off-CPU one's, within 1 ns a sample, and within 5 % of the
#     time from the first phase's start to the last's end (its clock);
#   - pprof read by Go's pprof: sample type off_cpu/nanoseconds and the
#     JSON total;
#   - the HTML page (--profile=off-cpu --waker, the whole capture) in
#     chromium (tests/browser/flame-check.js blocks): it opens on the
#     off-CPU profile with the report's total; searching each phase_*(),
#     "--" and answerer gives the time of the folded --waker stacks that
#     hold such a frame, to the nanosecond; zoomed to the workload's
#     process, an answerer() frame above a "--" frame; a screenshot in
#     tests/test-report-offcpu-live.png.
# And --call-graph dwarf of offcpu-workload-nofp (no frame pointers): the
# stacks that go main;phase_X;block_X hold 80 to 110 % of the blocked time
# the workload measured, and in fp mode of the same program at most 5 %
# (the check can fail).
#
# SKIP (77) where perfrecd cannot load the off-CPU program; at the end
# when pprof or the browser cannot run here, the rest having passed.
test_name=test-report-offcpu-live
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

offcpu_workload=$top_builddir/tests/offcpu-workload
nofp_workload=$top_builddir/tests/offcpu-workload-nofp
needs_built "$offcpu_workload" "$nofp_workload"
browser_dir=$(cd "$top_srcdir/tests/browser" && pwd)
shots=$(cd "$top_builddir/tests" && pwd)

status=0
"$perfrecd" --off-cpu -d 0.1 -o "$work/probe" >/dev/null 2>"$work/probe.err" || status=$?
[ "$status" -eq 0 ] ||
	skip "perfrecd --off-cpu does not run here: $(grep -- --off-cpu "$work/probe.err" | head -n 1)"

# Real-time, as in test-daemon-offcpu: a preemption inside a measured wait
# is counted by the workload's clock but is no block.
realtime=
if command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
	realtime="chrt -f 10"
else
	note "chrt -f is refused here: a loaded machine can make this test fail"
fi

# offcpu_capture DIR PROGRAM ARGS...: perfrecd --off-cpu OPTIONS of PROGRAM
# until it exits ($capture_options), its output in DIR.out.
offcpu_capture() {
	dir=$1
	shift
	# shellcheck disable=SC2086
	"$perfrecd" --off-cpu $capture_options -F 999 -d 60 -o "$dir" -- $realtime "$@" \
		>"$dir.out" 2>"$work/daemon.err" || fail "perfrecd --off-cpu -- $*: status $?"
	main_tid=$(awk '$1 == "tid" { print $2 }' "$dir.out")
	[ -n "$main_tid" ] || fail "the workload printed no tid: $(cat "$dir.out")"
}

# The blocked time per kind (ns) the workload measured, from DIR.out.
measured() {
	awk -v k="${2:-}" '$1 == "phase" && (k == "" || $2 == k) { s += $5 } END { print s + 0 }' "$1.out"
}

# total_period of a JSON report.
json_total() {
	sed -n 's/.*"total_period":\([0-9]*\),.*/\1/p' "$1" | head -n 1
}

# The weight of the folded stacks of $1 that have a frame named $2
# (without its _[k] or _[i] mark) and, with $3, a frame named $3 after it.
folded_weight() {
	awk -v a="$2" -v b="${3:-}" '{
		w = $NF
		stack = substr($0, 1, length($0) - length(w) - 1)
		n = split(stack, f, ";")
		at = 0
		for (i = 1; i <= n; i++) {
			sub(/_\[[ki]\]$/, "", f[i])
			if (!at && f[i] == a)
				at = i
			else if (at && b != "" && f[i] == b)
				break
		}
		if (at && (b == "" || i <= n))
			s += w
	} END { printf "%.0f\n", s }' "$1"
}

# -- one capture, frame pointers ---------------------------------------------
check "perfrecd --off-cpu -- offcpu-workload 30 20 10 15"
capture_options=
fp=$work/fp
offcpu_capture "$fp" "$offcpu_workload" 30 20 10 15
cat "$fp.out"
filter="--comm offcpu-workload --tid $main_tid"
workload_total=$(measured "$fp")

check "each phase's share of the main thread's blocked time within 3 points of the workload's"
# shellcheck disable=SC2086
report_ok "$work/children" --profile=off-cpu $filter --children "$fp"
sed -n '1,/^# Self/p' "$work/children"
for kind in sleep pipe mutex; do
	want=$(awk -v m="$(measured "$fp" $kind)" -v t="$workload_total" 'BEGIN { printf "%.2f", 100 * m / t }')
	got=$(awk -v s="phase_$kind" '!/^#/ && $7 == s { sub(/%$/, "", $2); print $2; exit }' "$work/children")
	note "phase_$kind: the report $got%, the workload $want%"
	[ -n "$got" ] || fail "no phase_$kind row in the flat --children view"
	within "$got" "$want" 3 || fail "phase_$kind: $got% of the blocked time, the workload says $want%"
done

check "the main thread's total blocked time within 5 % of the workload's"
# shellcheck disable=SC2086
report_ok "$work/off.json" --profile=off-cpu $filter --json "$fp"
off_total=$(json_total "$work/off.json")
note "the report: $off_total ns; the workload: $workload_total ns"
awk -v r="$off_total" -v m="$workload_total" 'BEGIN { d = r - m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.05 * m) }' ||
	fail "blocked $off_total ns, the workload measured $workload_total ns"

check "--waker: each pipe wait's stack goes on after -- through answerer(), the waker's function"
# shellcheck disable=SC2086
report_ok "$work/waker" --profile=off-cpu $filter --waker --view=folded "$fp"
pipe=$(folded_weight "$work/waker" phase_pipe)
# The function, not the comm that ends a waker's stack: a frame after it.
sed 's/;[^;]* \([0-9]*\)$/ \1/' "$work/waker" >"$work/waker-frames"
woken=$(grep ';--;' "$work/waker-frames" | folded_weight - phase_pipe answerer)
note "pipe waits: $pipe ns, of which woken through answerer(): $woken ns"
[ "$pipe" -gt 0 ] && [ "$pipe" = "$woken" ] ||
	fail "pipe waits of $pipe ns, $woken ns of them with answerer() after --: $(grep phase_pipe "$work/waker" | head -n 2)"

check "wall: samples x period plus the blocked time, close to the workload's own span"
# shellcheck disable=SC2086
report_ok "$work/cpu.json" --profile=cpu $filter --json "$fp"
# shellcheck disable=SC2086
report_ok "$work/wall.json" --profile=wall $filter --json "$fp"
cpu_total=$(json_total "$work/cpu.json")
cpu_samples=$(sed -n 's/.*"total_samples":\([0-9]*\),.*/\1/p' "$work/cpu.json" | head -n 1)
wall_total=$(json_total "$work/wall.json")
span=$(awk '$1 == "phase" { if (!s || $3 < s) s = $3; if ($4 > e) e = $4 } END { printf "%.0f", e - s }' "$fp.out")
note "wall $wall_total ns = CPU $cpu_total ns ($cpu_samples samples) + off-CPU $off_total ns; the phases took $span ns"
awk -v w="$wall_total" -v c="$cpu_total" -v o="$off_total" -v n="$cpu_samples" \
	'BEGIN { d = w - c - o; if (d < 0) d = -d; exit !(d <= n + 1) }' ||
	fail "wall $wall_total ns is not CPU $cpu_total + off-CPU $off_total ns"
awk -v w="$wall_total" -v s="$span" 'BEGIN { d = w - s; if (d < 0) d = -d; exit !(s > 0 && d <= 0.05 * s) }' ||
	fail "wall $wall_total ns, the workload's phases took $span ns"

# -- dwarf mode: code without frame pointers ---------------------------------
# The share of the blocked time DIR's workload measured that its main
# thread's stacks main;phase_X;block_X hold (not of all its blocks: the
# thread's start and end can block too, a few ms under a sanitizer).
through_callers() {
	report_ok "$work/chains" --profile=off-cpu --comm offcpu-workload --tid "$main_tid" --view=folded "$1"
	kept=$(grep -E ';main;phase_(sleep|pipe|mutex);block_(sleep|pipe|mutex);' "$work/chains" |
		awk '{ s += $NF } END { printf "%.0f", s }')
	awk -v k="$kept" -v a="$(measured "$1")" 'BEGIN { printf "%.1f", (a > 0 ? 100 * k / a : 0) }'
}
check "--call-graph dwarf, offcpu-workload-nofp: the blocks keep their callers up to main"
capture_options="--call-graph dwarf"
offcpu_capture "$work/dwarf" "$nofp_workload" 8 5 3 5
share=$(through_callers "$work/dwarf")
note "dwarf: main;phase_X;block_X hold $share % of the blocked time the workload measured"
awk -v s="$share" 'BEGIN { exit !(s >= 80 && s <= 110) }' || fail "dwarf: $share %: $(head -n 3 "$work/chains")"
check "frame pointers, offcpu-workload-nofp: the callers are lost (what dwarf mode is for)"
capture_options="--call-graph fp"
offcpu_capture "$work/nofp" "$nofp_workload" 8 5 3 5
share=$(through_callers "$work/nofp")
note "fp: main;phase_X;block_X hold $share % of the blocked time the workload measured"
awk -v s="$share" 'BEGIN { exit !(s <= 5) }' || fail "fp: $share % of the stacks of code without frame pointers reach main"

# -- pprof, the browser: where they can run ----------------------------------
not_run=
if command -v go >/dev/null 2>&1 && [ -f /usr/share/gocode/src/github.com/google/pprof/pprof.go ]; then
	build_pprof
	check "pprof: sample type off_cpu/nanoseconds, the report's total"
	# shellcheck disable=SC2086
	report_ok "$work/out" --profile=off-cpu $filter -o "$work/off.pb.gz" "$fp"
	"$pprof" -raw "$work/off.pb.gz" >"$work/raw" 2>"$work/pprof.err" || fail "pprof -raw: $(cat "$work/pprof.err")"
	grep -qx 'samples/count off_cpu/nanoseconds\[dflt\]' "$work/raw" ||
		fail "sample types: $(grep -A1 '^Samples' "$work/raw")"
	"$pprof" -top -nodecount=5 -unit=ns "$work/off.pb.gz" >"$work/top" 2>"$work/pprof.err" ||
		fail "pprof -top: $(cat "$work/pprof.err")"
	grep -q "of ${off_total}ns total" "$work/top" || fail "pprof: $(grep total "$work/top"), the report $off_total ns"
else
	not_run="pprof (no go or golang-github-google-pprof-dev)"
fi

check "the HTML page: the off-CPU profile first, the blocking functions, -- and the waker's function"
report_ok "$work/out" --profile=off-cpu --waker -o "$work/off.html" "$fp"
report_ok "$work/all.json" --profile=off-cpu --json "$fp"
report_ok "$work/all-waker" --profile=off-cpu --waker --view=folded "$fp"
{
	printf '{"total_period": %s, "names": {' "$(json_total "$work/all.json")"
	sep=
	for name in phase_sleep phase_pipe phase_mutex -- answerer; do
		printf '%s"%s": %s' "$sep" "$name" "$(folded_weight "$work/all-waker" "$name")"
		sep=", "
	done
	printf '}, "waker": "answerer", "process": "offcpu-workload"}\n'
} >"$work/expected.json"
note "expected: $(cat "$work/expected.json")"
chromium=${CHROMIUM:-/usr/bin/chromium}
NODE_PATH=$browser_dir/node_modules${NODE_PATH:+:$NODE_PATH}
export NODE_PATH CHROMIUM=$chromium
if ! command -v node >/dev/null 2>&1; then
	not_run="$not_run${not_run:+, }the page (no node)"
elif [ ! -x "$chromium" ]; then
	not_run="$not_run${not_run:+, }the page (no $chromium)"
elif ! node -e 'require.resolve("puppeteer-core")' 2>/dev/null; then
	not_run="$not_run${not_run:+, }the page (no puppeteer-core in $browser_dir/node_modules)"
else
	# Chromium takes both CPUs for a while: the tests that sample wait.
	hold_cpus_exclusively
	timeout 120 node "$browser_dir/flame-check.js" blocks "$work/off.html" "$work/expected.json" \
		"$shots/$test_name.png" >"$work/browser.out" 2>&1 ||
		{ cat "$work/browser.out" >&2; fail "flame-check.js blocks failed"; }
	sed "s/^/$test_name: /" "$work/browser.out"
fi

[ -z "$not_run" ] || skip "the rest passed; not run here: $not_run"
note "PASS"
