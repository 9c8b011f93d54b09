#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report --format=perf-script and --format=speedscope, checked
# against independent readers of those formats:
#   - a capture of tests/workload (burn_hot/warm/cold 60/30/10 %): its
#     perf-script text collapsed by stackcollapse-perf.pl's rules
#     (tests/stackcollapse.py: Debian has no package of the FlameGraph
#     scripts, so the script's default path is ported there, rule for
#     rule) gives exactly the folded view's stacks and counts (the folded
#     view's "_[k]" is stackcollapse-perf.pl --kernel's, off by default;
#     its names tidied as the script tidies them: C++ arguments cut);
#     its periods add up to the flat view's total; no line goes
#     unrecognized; the samples come in time order, as perf script prints
#     them (a file's do not: they are in the order of the CPUs' rings);
#   - tests/offcpu-fixture's blocks (--profile=off-cpu): "offcpu-time"
#     samples whose periods are nanoseconds, collapsed with their periods,
#     are the folded view's nanoseconds exactly;
#   - the speedscope file (--format=speedscope, or -o FILE.speedscope.json):
#     valid by speedscope's file format (its schema's
#     required fields and types, every frame index in the table, weights
#     as many as samples, endValue their sum), a profile per thread
#     ("comm pid/tid") in time order, its samples the folded view's:
#     per thread samples, in total and per leaf function; nanoseconds for
#     --profile=off-cpu, the fixture's per-thread blocked time;
#   - report-hostile's markup and odd captures: both outputs are made,
#     every line of the text is a header, a frame line the readers'
#     patterns take, or blank; no control character; the JSON is valid
#     and holds the names as their text.
# perf's own perf script beside ours is tests/test-report-script-perf.sh,
# speedscope itself, in chromium, tests/test-report-script-browser.sh.
test_name=test-report-script
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
fixture=$top_builddir/tests/offcpu-fixture
needs_built "$hostile" "$fixture"
command -v python3 >/dev/null 2>&1 || skip "no python3"
collapse="python3 $top_srcdir/tests/stackcollapse.py"

# The speedscope file by its format (file-format-spec.ts); facts on stdout.
speedscope_check() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], encoding='utf-8'))
def need(ok, what):
    if not ok:
        sys.exit('speedscope file: ' + what)
need(d.get('$schema') == 'https://www.speedscope.app/file-format-schema.json', '$schema')
frames = d['shared']['frames']
need(all(isinstance(f.get('name'), str) and set(f) <= {'name', 'file', 'line', 'col'} and
         isinstance(f.get('file', ''), str) for f in frames), 'a frame')
# Shared by content: twice only where invalid UTF-8 became U+FFFD in both.
seen = set()
for f in frames:
    key = (f['name'], f.get('file'))
    need(key not in seen or '\ufffd' in f['name'] + f.get('file', ''), 'a frame twice: %r' % (key,))
    seen.add(key)
need(0 <= d.get('activeProfileIndex', 0) < len(d['profiles']), 'activeProfileIndex')
unit = sys.argv[2]
for p in d['profiles']:
    need(p['type'] == 'sampled' and p['unit'] == unit, 'type or unit of ' + p['name'])
    need(len(p['samples']) == len(p['weights']), 'samples and weights of ' + p['name'])
    need(all(isinstance(i, int) and 0 <= i < len(frames) for s in p['samples'] for i in s),
         'a frame index of ' + p['name'])
    need(all(isinstance(w, int) and w > 0 for w in p['weights']), 'a weight of ' + p['name'])
    need(p['startValue'] == 0 and p['endValue'] == sum(p['weights']), 'endValue of ' + p['name'])
    need(all(s for s in p['samples']), 'an empty stack in ' + p['name'])
    need(all(a != b for a, b in zip(p['samples'], p['samples'][1:])),
         'equal stacks in a row in ' + p['name'])
# What a test compares: "total N", "thread NAME N", "leaf NAME N" (self weight).
leaves = {}
total = 0
for p in d['profiles']:
    print('thread %s %d' % (p['name'], p['endValue']))
    total += p['endValue']
    for s, w in zip(p['samples'], p['weights']):
        leaf = frames[s[-1]]['name']
        leaves[leaf] = leaves.get(leaf, 0) + w
print('total %d' % total)
for name in sorted(leaves):
    print('leaf %s %d' % (name, leaves[name]))
EOF
}

# Every line a header (not blank at its start), a frame the readers take, or blank.
text_check() {
	python3 - "$1" <<'EOF'
import re, sys
header = re.compile(r'^(\S.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+(\d+\.\d{6}):\s+(\d+)\s+(\S+):\s*$')
frame = re.compile(r'^\s*(\w+)\s*(.+) \((\S*)\)$')
n = 0
in_sample = False
for number, line in enumerate(open(sys.argv[1], encoding='utf-8'), 1):
    line = line.rstrip('\n')
    if re.search(r'[\x00-\x1f\x7f-\x9f]', line.replace('\t', '')):
        sys.exit('line %d holds a control character: %r' % (number, line))
    if line == '':
        in_sample = False
    elif not in_sample:
        if not header.match(line):
            sys.exit('line %d is no sample header: %r' % (number, line))
        in_sample = True
        n += 1
    elif not line.startswith('\t') or not frame.match(line):
        sys.exit('line %d is no frame line: %r' % (number, line))
print(n)
EOF
}

check "a capture of the workload"
capture "$work/capture" $favour "$workload" --seconds 3 --threads 2
report_ok "$work/json" --json "$work/capture"
samples=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["total_samples"])' <"$work/json")
period=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["total_period"])' <"$work/json")
note "$samples samples, total period $period"

check "perf-script collapsed by stackcollapse-perf.pl's rules is the folded view, stack for stack"
report_ok "$work/script" --format=perf-script "$work/capture"
report_ok "$work/folded" --view=folded "$work/capture"
$collapse --samples "$work/script" >"$work/collapsed" 2>"$work/collapse.err" ||
	fail "stackcollapse.py failed: $(head -n 3 "$work/collapse.err")"
[ ! -s "$work/collapse.err" ] || fail "stackcollapse.py: $(head -n 3 "$work/collapse.err")"
# The script's name tidying (C++ arguments cut: the sanitizers' runtime
# has such names in the workload) applied to the folded view's names too.
sed 's/_\[k\]//g' "$work/folded" | $collapse --tidy-folded >"$work/folded.sorted"
if ! cmp -s "$work/collapsed" "$work/folded.sorted"; then
	diff "$work/folded.sorted" "$work/collapsed" | head -n 20 >&2
	fail "the collapsed perf-script text is not the folded view"
fi
[ "$(awk '{ n += $NF } END { print n }' "$work/collapsed")" -eq "$samples" ] ||
	fail "the collapsed stacks do not count $samples samples"
hot=$(awk '$1 ~ /;burn_hot$/ { n += $2 } END { print n + 0 }' "$work/collapsed")
[ "$hot" -gt $(( samples / 3 )) ] || fail "burn_hot is $hot of $samples samples"
note "$(wc -l <"$work/collapsed") stacks, $samples samples, $hot of them in burn_hot; the same in both"

check "as stackcollapse-perf.pl adds them, the periods are the flat view's total"
$collapse "$work/script" >"$work/collapsed-periods" 2>/dev/null
[ "$(awk '{ n += $NF } END { printf "%.0f\n", n }' "$work/collapsed-periods")" = "$period" ] ||
	fail "the periods add up to $(awk '{ n += $NF } END { printf "%.0f\n", n }' "$work/collapsed-periods"), not $period"
cut -d' ' -f1 "$work/collapsed" >"$work/stacks"
cut -d' ' -f1 "$work/collapsed-periods" | cmp -s - "$work/stacks" || fail "other stacks with the periods"

check "every line is a header, a frame line or blank; samples in time order, as perf script prints them"
lines=$(text_check "$work/script") || fail "$lines"
[ "$lines" -eq "$samples" ] || fail "$lines sample headers for $samples samples"
awk '/^[^\t]/ { t = $4; sub(/:$/, "", t); if (t + 0 < last) { print "back in time at line " NR ": " t " after " last; exit 1 } last = t + 0 }' \
	"$work/script" >"$work/order" || fail "$(cat "$work/order")"
note "$(head -n 1 "$work/script")"

check "the text sorted within a bounded window: 4 KiB kept at a time, every sample once, the order kept or the late ones said"
PRF_REPORT_SCRIPT_KEPT=4096 "$report" --format=perf-script "$work/capture" >"$work/script-window" \
	2>"$work/script-window.err" || fail "perfrec-report failed: $(head -n 3 "$work/script-window.err")"
late=$(sed -n 's/^perfrec-report: \([0-9]*\) samples were out of time order.*/\1/p' "$work/script-window.err")
# Each sample a block; the same blocks, in some order.
blocks() { awk 'BEGIN { RS = ""; ORS = "\0" } { print }' "$1" | sort -z | md5sum; }
[ "$(blocks "$work/script-window")" = "$(blocks "$work/script")" ] ||
	fail "the windowed text does not hold the same samples"
# The text has microseconds, the order nanoseconds: a late sample in the
# microsecond of the newest before it shows no step back (seen in one
# run of the test), so those are counted apart and the count said lies between.
read -r back ties <<EOF
$(awk '/^[^\t]/ { t = $4; sub(/:$/, "", t); t += 0
	if (t < last) n++; else { if (t == last) same++; last = t } }
	END { print n + 0, same + 0 }' "$work/script-window")
EOF
[ "$back" -le "${late:-0}" ] && [ "${late:-0}" -le $((back + ties)) ] ||
	fail "$back samples back in time ($ties in the microsecond before), ${late:-0} said late"
note "${late:-0} samples late, $back back in time, $ties in the microsecond before"

check "off-CPU blocks: offcpu-time samples of nanoseconds, collapsed with their periods, are the folded view"
"$fixture" "$work/offcpu.prf" || fail "offcpu-fixture: status $?"
report_ok "$work/offcpu-script" --profile=off-cpu --format=perf-script "$work/offcpu.prf"
report_ok "$work/offcpu-folded" --profile=off-cpu --view=folded "$work/offcpu.prf"
grep -q ' offcpu-time: $' "$work/offcpu-script" || fail "no offcpu-time sample"
$collapse "$work/offcpu-script" >"$work/offcpu-collapsed" 2>&1
sed 's/_\[k\]//g' "$work/offcpu-folded" | sort | cmp -s - "$work/offcpu-collapsed" || {
	sed 's/_\[k\]//g' "$work/offcpu-folded" | sort | diff - "$work/offcpu-collapsed" >&2
	fail "the collapsed off-CPU text is not the folded view"
}
[ "$(awk '{ n += $NF } END { print n }' "$work/offcpu-collapsed")" -eq 50000000 ] ||
	fail "the blocks do not add up to the fixture's 50 ms"

check "speedscope: its format; a profile a thread; the folded view's samples, per thread and per leaf"
report_ok "$work/out" --format=speedscope -o "$work/workload.speedscope.json" "$work/capture"
speedscope_check "$work/workload.speedscope.json" none >"$work/speedscope-facts" ||
	fail "$(cat "$work/speedscope-facts")"
grep -qx "total $samples" "$work/speedscope-facts" ||
	fail "$(grep '^total' "$work/speedscope-facts"), not $samples samples"
# Per thread, from the text (its own header's comm pid/tid), and per leaf, from the folded view.
# A thread's profile is named by its last name (the workload's threads start as nice).
awk '/^[^\t]/ { n[$2]++ } END { for (t in n) print t, n[t] }' "$work/script" |
	sort >"$work/threads-script"
awk '/^thread / { print $(NF - 1), $NF }' "$work/speedscope-facts" | sort >"$work/threads-speedscope"
cmp -s "$work/threads-speedscope" "$work/threads-script" || {
	diff "$work/threads-speedscope" "$work/threads-script" >&2
	fail "the profiles are not the threads of the text"
}
awk '{ stack = $0; sub(/ [0-9]+$/, "", stack); n = split(stack, f, ";"); c[f[n]] += $NF }
     END { for (l in c) print "leaf " l " " c[l] }' \
	"$work/folded" | sort >"$work/leaves-folded"
grep '^leaf ' "$work/speedscope-facts" | sort | cmp -s - "$work/leaves-folded" || {
	grep '^leaf ' "$work/speedscope-facts" | sort | diff - "$work/leaves-folded" >&2
	fail "the samples' leaves are not the folded view's"
}
grep -q '^thread workload ' "$work/speedscope-facts" || fail "no thread named workload"
note "$(grep -c '^thread' "$work/speedscope-facts") profiles; $(grep '^leaf burn_hot ' "$work/speedscope-facts")"

check "-o FILE.speedscope.json without --format writes the same file"
report_ok "$work/out" -o "$work/suffix.speedscope.json" "$work/capture"
cmp -s "$work/suffix.speedscope.json" "$work/workload.speedscope.json" ||
	fail "-o FILE.speedscope.json is not --format=speedscope's file"

check "speedscope --profile=off-cpu: nanoseconds, the fixture's blocked time per thread"
report_ok "$work/out" --profile=off-cpu --format=speedscope -o "$work/offcpu.speedscope.json" \
	"$work/offcpu.prf"
speedscope_check "$work/offcpu.speedscope.json" nanoseconds >"$work/offcpu-facts" ||
	fail "$(cat "$work/offcpu-facts")"
for expect in "thread app 2000/2000 40000000" "thread worker 2000/2001 10000000" "total 50000000"; do
	grep -qx "$expect" "$work/offcpu-facts" || fail "no '$expect': $(cat "$work/offcpu-facts")"
done

check "hostile names: both outputs made, the text's lines of the three kinds, the JSON valid"
"$hostile" --markup "$work/markup.prf" || fail "report-hostile --markup failed"
"$hostile" "$work/hostile" || fail "report-hostile failed"
for input in "$work/markup.prf" "$work/hostile"; do
	report_ok "$work/hostile-script" -q --format=perf-script "$input"
	lines=$(text_check "$work/hostile-script") || fail "$input: $lines"
	$collapse --samples "$work/hostile-script" >/dev/null 2>"$work/collapse.err"
	[ ! -s "$work/collapse.err" ] || fail "$input: stackcollapse.py: $(head -n 3 "$work/collapse.err")"
	report_ok "$work/out" -q --format=speedscope -o "$work/hostile.speedscope.json" "$input"
	speedscope_check "$work/hostile.speedscope.json" none >"$work/hostile-facts" ||
		fail "$input: $(cat "$work/hostile-facts")"
	note "$input: $lines samples, $(grep '^total' "$work/hostile-facts")"
done
report_ok "$work/out" -q --format=speedscope -o "$work/markup.speedscope.json" "$work/markup.prf"
grep -qF '"<img/src=x/onerror=alert(2)>_[k]"' "$work/markup.speedscope.json" ||
	fail "the markup name is not in the speedscope file as its text"

exit 0
