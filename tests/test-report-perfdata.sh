#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report reads perf.data: `perf record -a` of tests/workload
# (burn_hot, burn_warm, burn_cold at 60/30/10 % of its CPU time), four
# ways: -g (frame pointers), -z (zstd-compressed records, with
# --buildid-mmap: build-ids in the MMAP2 records),
# --call-graph dwarf (user stack copies, unwound here) and pipe mode
# (-o -, the stream saved to a file).  On each file,
# the independent answer is perf report on the same file:
#
#   perf report --stdio --no-children --sort comm,sym -g none
#               --comm workload-pd --percentage relative
#
# (comm in the keys: perf filters a merged entry by its first sample's
# comm, see test-report-perf.sh) against perfrec-report --comm
# workload-pd: the same samples, so burn_*'s shares must agree within
# half a point (they agree exactly here; the margin is for an edge
# sample the two attribute differently), and the workload's sample
# counts within 2: in 2 of ~25 --call-graph dwarf runs here perfrec-report
# counted one more, a sample the kernel gave tid -1 as the workload's
# thread exited (pid 29302, tid 4294967295, in __radix_tree_lookup under
# the exit): perf script names it ":-1", perfrec-report gives it to its
# process's comm.  Also, on the -g file: the
# kernel's functions are named (from this machine's /proc/kallsyms, as
# perf report names them: perf script's leaf symbols of the kernel's
# samples are the flat view's); the tree, folded, JSON, HTML, SVG and
# pprof outputs have the workload's chain main -> run_workload -> burn_hot
# (or its name), the timeline's intervals its samples
# (pprof's total is the flat view's, when Go's pprof can be built here);
# the file mixed with a perfrec capture, and --baseline of the file
# against a perfrecd capture of the same run (and that capture written
# with --format=perf.data reads back with its samples and shares); and
# the file cut short
# inside its data section gives a warning and exactly the samples of its
# whole records (counted by a parser of perf's layout in this script).
test_name=test-report-perfdata
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v perf >/dev/null 2>&1 || skip "no perf (linux-perf)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
perf record -q -a -F 999 -B -N -o "$work/probe.data" -- true >"$work/probe.err" 2>&1 ||
	skip "perf record -a does not work here: $(head -n 1 "$work/probe.err")"

program=$work/workload-pd
cp "$workload" "$program"

# record NAME PERF-OPTIONS...: perf record -a (-B -N: see
# test-report-perf.sh) over one 3 s run of the workload, into
# $work/NAME.data.
record() {
	name=$1
	shift
	perf record -q -a -F 999 -B -N "$@" -o "$work/$name.data" -- \
		$favour "$program" --seconds 3 --threads 2 >"$work/$name.out" 2>"$work/$name.err" ||
		fail "perf record $*: $(tail -n 3 "$work/$name.err")"
}

# perf_share DATA FUNCTION: perf report's share of FUNCTION in the workload's samples.
perf_share() {
	perf report --stdio --no-children --sort comm,sym -g none --comm workload-pd \
		--percentage relative -i "$1" 2>/dev/null |
		awk -v f="$2" '!/^#/ && $2 == "[.]" && $3 == f { sub(/%$/, "", $1); s += $1 }
			       END { printf "%.2f\n", s + 0 }'
}

# compare NAME: burn_*'s shares, perfrec-report's and perf report's, on NAME.data.
compare() {
	data=$work/$1.data
	report_ok "$work/$1.flat" --comm workload-pd "$data"
	samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/$1.flat")
	theirs=$(perf report --stdio --no-children --sort comm -F sample,comm -g none -i "$data" \
		2>/dev/null | awk '!/^#/ && $2 == "workload-pd" { print $1 }')
	note "$1: $samples samples of the workload, perf report ${theirs:-none}"
	[ "${samples:-0}" -ge 100 ] || fail "$1: ${samples:-no} samples of the workload"
	# The file's samples, counted by the pass over its side-band: perf script's lines.
	total=$(sed -n 's/^# samples: .* of \([0-9]*\).*/\1/p' "$work/$1.flat")
	lines=$(perf script -F time -G -i "$data" 2>/dev/null | wc -l)
	[ "$total" = "$lines" ] || fail "$1: $total samples in the file, perf script has $lines"
	[ -n "$theirs" ] && [ $((samples - theirs)) -le 2 ] && [ $((theirs - samples)) -le 2 ] ||
		fail "$1: $samples samples of the workload, perf report ${theirs:-none}"
	for function in burn_hot burn_warm burn_cold; do
		ours=$(flat_percent "$work/$1.flat" "$function" workload-pd)
		theirs=$(perf_share "$data" "$function")
		note "$1: $function perfrec-report $ours %, perf report $theirs %"
		awk -v p="$theirs" 'BEGIN { exit !(p > 0) }' || fail "$1: perf report has no $function"
		within "$ours" "$theirs" 0.5 ||
			fail "$1: $function: perfrec-report $ours %, perf report $theirs %"
	done
}

# ---- -g, with perfrecd sampling the same run ------------------------------

check "perf record -a -g of the workload, perfrecd capturing the same run"
start_daemon "$work/out" -d 60 -F 999
record plain -g
kill -INT "$daemon_pid" 2>/dev/null || true
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"

check "-g: burn_* shares within 0.5 points of perf report's"
compare plain

check "-g: the kernel's functions named as perf script names them"
# perf script's leaf symbol of each kernel sample (addresses above the
# user half), against the flat view's [k] rows, function by function.
perf script -G -F ip,sym -i "$work/plain.data" 2>/dev/null |
	awk '$1 ~ /^ffff/ && NF >= 2 { n[$2]++ } END { for (s in n) print n[s] "\t" s }' |
	sort -k1,1nr >"$work/perf-kernel"
report_ok "$work/all.flat" "$work/plain.data"
flat_rows "$work/all.flat" | awk -F '\t' '$3 == "k"' >"$work/ours-kernel"
head -n 3 "$work/perf-kernel" >"$work/perf-kernel-top"
[ -s "$work/perf-kernel-top" ] || fail "perf script shows no kernel samples"
while IFS='	' read -r count symbol; do
	ours=$(awk -F '\t' -v s="$symbol" '$4 == s { n += $2 } END { print n + 0 }' "$work/ours-kernel")
	note "kernel: $symbol perf script $count, perfrec-report $ours"
	[ "$ours" -eq "$count" ] || fail "kernel: $symbol has $ours samples here, $count in perf script"
done <"$work/perf-kernel-top"

check "-g: tree, folded, JSON, HTML, SVG, the timeline: the workload's chain and samples"
report_ok "$work/folded" --view=folded --comm workload-pd "$work/plain.data"
hot=$(flat_rows "$work/plain.flat" | awk -F '\t' '$4 == "burn_hot" { n += $2 } END { print n + 0 }')
# The main thread's chain from main, the other's from worker_main.
folded=$(awk '/;run_workload;burn_hot [0-9]+$/ { n += $NF } END { print n + 0 }' "$work/folded")
from_main=$(awk '/;main;run_workload;burn_hot [0-9]+$/ { n += $NF } END { print n + 0 }' "$work/folded")
note "burn_hot: flat $hot samples, folded $folded through run_workload, $from_main of them from main"
[ "$from_main" -gt 0 ] && [ "$folded" -le "$hot" ] && [ $((folded * 10)) -ge $((hot * 9)) ] ||
	fail "folded: $folded of burn_hot's $hot samples through run_workload, $from_main from main"
report_ok "$work/tree" --view=tree --comm workload-pd "$work/plain.data"
awk '/main/ { m = NR } /run_workload/ && m { r = NR } /burn_hot/ && r { found = 1 } END { exit !found }' \
	"$work/tree" || fail "the tree has no main, run_workload, burn_hot"
report_ok "$work/json" --json --comm workload-pd "$work/plain.data"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/json" ||
	fail "--json is not JSON"
grep -q burn_hot "$work/json" || fail "--json has no burn_hot"
report_ok "$work/html.log" --format=html -o "$work/page.html" "$work/plain.data"
grep -q burn_hot "$work/page.html" || fail "the HTML page has no burn_hot"
report_ok "$work/svg.log" --format=svg -o "$work/flame.svg" --comm workload-pd "$work/plain.data"
grep -q burn_hot "$work/flame.svg" || fail "the SVG has no burn_hot"
# The timeline's intervals add up to the flat view's samples, burn_hot on top while it runs.
report_ok "$work/timeline" --view=timeline --comm workload-pd "$work/plain.data"
in_lines=$(awk '!/^#/ && NF >= 2 { n += $2 } END { print n + 0 }' "$work/timeline")
[ "$in_lines" = "$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/plain.flat")" ] ||
	fail "the timeline's intervals hold $in_lines samples, the flat view another number"
grep -q '% \[\.\] burn_hot workload-pd' "$work/timeline" || fail "the timeline has no burn_hot"

check "-g: pprof's total is the flat view's"
report_ok "$work/pprof.log" --format=pprof -o "$work/plain.pb.gz" --comm workload-pd "$work/plain.data"
gzip -t "$work/plain.pb.gz" || fail "--format=pprof wrote no gzip"
if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/google/pprof ] &&
   (build_pprof) >/dev/null 2>&1; then
	build_pprof
	total=$("$pprof" -top -sample_index=samples -nodecount=1 "$work/plain.pb.gz" 2>/dev/null |
		sed -n 's/.* of \([0-9][0-9]*\) total.*/\1/p' | head -n 1)
	note "pprof: $total samples, the flat view $samples"
	[ "$total" = "$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/plain.flat")" ] ||
		fail "pprof counts $total samples, the flat view another number"
else
	note "no Go pprof here: the profile is checked to be gzip only"
fi

check "-g: with a perfrec capture, mixed and as a --baseline"
capture=$(files_in "$work/out" | head -n 1)
report_ok "$work/mixed" --comm workload-pd "$work/plain.data" "$work/out"
grep -qE '^# files: 2( |$)' "$work/mixed" || fail "mixed: not 2 files: $(grep '^# files' "$work/mixed")"
report_ok "$work/baseline" --comm workload-pd --baseline "$work/out" "$work/plain.data"
grep -q "^# baseline: .*$(basename "$capture")" "$work/baseline" ||
	fail "--baseline: no baseline line naming the capture"
# Two samplers of one run: burn_hot's shares differ by sampling error only.
delta=$(awk '!/^#/ && $5 == "burn_hot" { print $3; exit }' "$work/baseline")
note "--baseline: burn_hot's change $delta points"
[ -n "$delta" ] && within "$delta" 0 10 || fail "--baseline: burn_hot changed by '$delta' points"

check "-g: perfrecd's capture written as perf.data reads back with its samples and shares"
report_ok "$work/rt.log" --format=perf.data -o "$work/rt.data" "$work/out"
report_ok "$work/rt.flat" --comm workload-pd "$work/rt.data"
report_ok "$work/out.flat" --comm workload-pd "$work/out"
a=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/out.flat")
b=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/rt.flat")
note "round trip: the capture $a samples of the workload, its perf.data $b"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "round trip: $a samples, $b after"
for function in burn_hot burn_warm burn_cold; do
	within "$(flat_percent "$work/out.flat" "$function" workload-pd)" \
		"$(flat_percent "$work/rt.flat" "$function" workload-pd)" 0.01 ||
		fail "round trip: $function's share changed"
done

check "a perf.data cut short: a warning, and the samples of its whole records"
size=$(stat -c %s "$work/plain.data")
head -c $((size * 6 / 10 + 5)) "$work/plain.data" >"$work/cut.data"
# Whole PERF_RECORD_SAMPLEs (type 9) of the data section before the cut.
whole=$(python3 - "$work/cut.data" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
offset, size = struct.unpack_from('<QQ', d, 40)
at, end, n = offset, min(offset + size, len(d)), 0
while at + 8 <= end:
    kind, misc, length = struct.unpack_from('<IHH', d, at)
    if length < 8 or at + length > end:
        break
    n += kind == 9
    at += length
print(n)
EOF
)
"$report" "$work/cut.data" >"$work/cut.flat" 2>"$work/cut.err" || fail "the cut file: status $?"
sanitizer_report "$work/cut.err" && fail "the cut file: a sanitizer's report"
got=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/cut.flat")
note "cut: $got samples, $whole whole in the file; said: $(head -n 1 "$work/cut.err")"
grep -q 'cut short' "$work/cut.err" || fail "the cut file: no warning"
[ "$got" = "$whole" ] || fail "the cut file: $got samples, $whole whole ones in it"

# ---- -z and --call-graph dwarf -------------------------------------------

check "-z --buildid-mmap: compressed records and MMAP2s with build-ids, shares within 0.5 points"
# --buildid-mmap: the build-ids are in the MMAP2s of perf's dummy event,
# which perfrec-report must read with that event's attr.
record compressed -g -z --buildid-mmap
perf report --header-only -i "$work/compressed.data" 2>/dev/null | grep -q '^# compressed' ||
	fail "perf record -z wrote no compressed file"
compare compressed
id=$(elf_build_id "$program")
"$dump" "$work/compressed.data" 2>/dev/null | grep " MMAP2 .* build_id=$id .*filename=$program\$" >/dev/null ||
	fail "-z --buildid-mmap: no MMAP2 of $program with its build-id $id read"
grep -q "workload-pd: no ELF with build-id" "$work/compressed.flat.err" &&
	fail "-z --buildid-mmap: $(grep -m1 'workload-pd: no ELF' "$work/compressed.flat.err")"

check "--call-graph dwarf: burn_* shares within 0.5 points, the chain unwound"
record dwarf --call-graph dwarf
compare dwarf
report_ok "$work/dwarf.folded" --view=folded --comm workload-pd "$work/dwarf.data"
grep -q ';main;run_workload;burn_hot [0-9]*$' "$work/dwarf.folded" ||
	fail "dwarf: no main;run_workload;burn_hot stack"

check "pipe mode (perf record -o -, saved): burn_* shares within 0.5 points"
perf record -q -a -F 999 -B -N -g -o - -- $favour "$program" --seconds 3 --threads 2 \
	>"$work/pipe.data" 2>"$work/pipe.err" || fail "perf record -o -: $(tail -n 3 "$work/pipe.err")"
[ "$(head -c 16 "$work/pipe.data" | od -An -tu8 -j8)" -eq 16 ] || fail "perf record -o - wrote no pipe-mode header"
compare pipe

echo "$test_name: PASS"
