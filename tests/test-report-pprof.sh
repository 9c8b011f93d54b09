#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report --format=pprof read by Go's pprof, built here offline
# from Debian's golang-github-google-pprof-dev (GOPATH=/usr/share/gocode,
# GO111MODULE=off) and kept in the build tree (tests/pprof-go/, removed by
# make clean); SKIP without go or that source.
#
# One capture (perfrecd -F 999) of tests/workload (2 s, main ->
# run_workload -> burn_hot/warm/cold) then of a copy stripped of
# everything (strip --strip-all: no .symtab, no DWARF, burn_* not in
# .dynsym) run as "busy" (1 s):
#   - pprof accepts the profile: -raw, -top, -traces;
#   - totals: pprof's (-sample_index=samples) is the flat view's samples,
#     for the whole capture, --comm workload, --pid and --since 1s;
#   - with --comm workload: burn_hot, burn_warm and burn_cold have the flat
#     view's samples in pprof -top -noinlines -sample_index=samples, and
#     their flat % of cpu/nanoseconds is the flat view's Self% within
#     0.01 (rounding);
#   - pprof -traces has the chain burn_hot, run_workload, main (leaf first);
#   - the workload's mapping carries its build-id (eu-readelf -n); with
#     kernel rows in the flat view there is a [kernel.kallsyms] mapping;
#   - busy's burn_* are address-only locations: pprof -symbolize=none
#     shows no burn_*, nor does -symbolize=local with an empty
#     PPROF_BINARY_PATH; with the unstripped binary as PPROF_BINARY_PATH's
#     DIR/busy (pprof looks for BUILD-ID/BASENAME, BUILD-ID/*, PATH/BUILD-ID,
#     BASENAME, PATH under each directory, and checks the build-id),
#     pprof -symbolize=local names them, with the samples perfrec-report
#     gives each when the unstripped binary is the debug file of a
#     --debug-dir tree (.build-id/xx/rest.debug).
test_name=test-report-pprof
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

for tool in strip eu-readelf; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
build_pprof

# pprof's output lines "flat flat% sum% cum cum% NAME": "NAME<TAB>flat<TAB>flat%".
pprof_top() {
	"$pprof" -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" 2>"$work/pprof.err" |
		awk 'f && NF >= 6 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i
			    pct = $2; sub(/%$/, "", pct); print name "\t" $1 "\t" pct }
		     $1 == "flat" && $2 == "flat%" { f = 1 }' || {
		cat "$work/pprof.err" >&2
		fail "pprof -top $* failed"
	}
}

# pprof's total in its header ("... of 1114 total"), with -sample_index=samples.
pprof_total() {
	"$pprof" -top -sample_index=samples -nodecount=1 "$1" 2>"$work/pprof.err" |
		sed -n 's/.* of \([0-9][0-9]*\) total.*/\1/p' | head -n 1
}

flat_samples() {
	sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$1"
}

# A function's column in pprof_top's output (0 when absent).
column_of() {
	awk -F '\t' -v name="$2" -v col="$3" '$1 == name { v = $col } END { print v == "" ? 0 : v }' "$1"
}

# ---- the capture ----------------------------------------------------------

mkdir -p "$work/stripped" "$work/bin" "$work/debug"
busy=$work/stripped/busy
strip --strip-all -o "$busy" "$workload" || fail "strip --strip-all failed"
cp "$workload" "$work/bin/busy"
id=$(elf_build_id "$workload")
[ -n "$id" ] && [ "$(elf_build_id "$busy")" = "$id" ] || fail "no build-id, or strip changed it"
mkdir -p "$work/debug/.build-id/$(echo "$id" | cut -c1-2)"
cp "$workload" "$work/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"

check "perfrecd captures the workload (2 s), then its stripped copy as busy (1 s)"
# shellcheck disable=SC2016
capture "$work/out" sh -c '$0 --seconds 2 && $1 --seconds 1' "$workload" "$busy"

pprof_of() {
	out=$1
	shift
	report_ok "$work/$out.log" --format=pprof -o "$work/$out.pb.gz" "$@" "$work/out"
	[ ! -s "$work/$out.log" ] || fail "--format=pprof -o wrote to stdout: $(head -c 200 "$work/$out.log")"
}

pprof_of all
pprof_of workload --comm workload
pid=$("$report" -s comm,pid "$work/out" | awk '$1 !~ /^#/ && $(NF - 1) == "workload" { print $NF; exit }')
[ -n "$pid" ] || fail "no pid of the workload in the flat view by pid"
pprof_of pid --pid "$pid"
pprof_of since --since 1s

check "pprof accepts the profile: -raw, -top, -traces"
for mode in -raw -top -traces; do
	"$pprof" "$mode" "$work/all.pb.gz" >"$work/all$mode" 2>"$work/pprof.err" ||
		{ cat "$work/pprof.err" >&2; fail "pprof $mode rejects the profile"; }
	[ -s "$work/all$mode" ] || fail "pprof $mode printed nothing"
done

check "totals: pprof's samples are the flat view's (whole, --comm, --pid, --since)"
for case in all: workload:--comm=workload pid:--pid=$pid since:--since=1s; do
	name=${case%%:*}
	filter=${case#*:}
	# shellcheck disable=SC2086
	report_ok "$work/flat-$name" $filter "$work/out"
	want=$(flat_samples "$work/flat-$name")
	got=$(pprof_total "$work/$name.pb.gz")
	note "$name: flat view $want samples, pprof $got"
	[ -n "$want" ] && [ "$want" -gt 0 ] || fail "$name: the flat view has no samples"
	[ "$got" = "$want" ] || fail "$name: pprof counts $got samples, the flat view $want"
done

check "--comm workload: burn_* samples and flat % as in the flat view"
pprof_top -noinlines -symbolize=none -sample_index=samples "$work/workload.pb.gz" >"$work/top-samples"
pprof_top -noinlines -symbolize=none -sample_index=cpu "$work/workload.pb.gz" >"$work/top-cpu"
flat_rows "$work/flat-workload" >"$work/rows-workload"
for function in burn_hot burn_warm burn_cold; do
	want_samples=$(awk -F '\t' -v f="$function" '$4 == f && $5 == "workload" { s += $2 } END { print s + 0 }' "$work/rows-workload")
	want_percent=$(flat_percent "$work/flat-workload" "$function" workload)
	got_samples=$(column_of "$work/top-samples" "$function" 2)
	got_percent=$(column_of "$work/top-cpu" "$function" 3)
	note "$function: flat view $want_samples samples $want_percent %, pprof $got_samples samples $got_percent %"
	[ "$want_samples" -gt 0 ] || fail "$function has no samples in the flat view"
	[ "$got_samples" = "$want_samples" ] ||
		fail "$function: pprof has $got_samples samples, the flat view $want_samples"
	within "$got_percent" "$want_percent" 0.01 ||
		fail "$function: pprof's flat $got_percent %, the flat view's $want_percent %"
done

check "pprof -traces: burn_hot called by run_workload called by main"
"$pprof" -traces -symbolize=none "$work/workload.pb.gz" >"$work/traces" 2>"$work/pprof.err" ||
	fail "pprof -traces failed"
# Blocks between "-----+-----" lines: labels, then a frame a line (the
# last field its name), the first with the weight in front.
awk '/^-+\+/ { n = 0; next }
     { chain[++n] = $NF
       if (n >= 3 && chain[n - 2] == "burn_hot" && chain[n - 1] == "run_workload" && chain[n] == "main")
		found = 1 }
     END { exit !found }' "$work/traces" ||
	{ head -n 30 "$work/traces" >&2; fail "no trace burn_hot <- run_workload <- main"; }

check "mappings: the workload's build-id is eu-readelf's $id; a [kernel.kallsyms] mapping for kernel frames"
# Of --comm workload's profile: pprof merges mappings of one build-id, and
# busy is the workload's file under another name.
"$pprof" -raw "$work/workload.pb.gz" 2>/dev/null | sed -n '/^Mappings/,$p' >"$work/mappings"
awk -v path="$workload" -v id="$id" '$3 == path && $4 == id { found = 1 } END { exit !found }' "$work/mappings" ||
	{ cat "$work/mappings" >&2; fail "no mapping of $workload with build-id $id"; }
if flat_rows "$work/flat-workload" | awk -F '\t' '$3 == "k" { k = 1 } END { exit !k }'; then
	grep -q ' \[kernel\.kallsyms\]' "$work/mappings" ||
		{ cat "$work/mappings" >&2; fail "kernel rows in the flat view, no [kernel.kallsyms] mapping"; }
else
	note "no kernel samples in this capture: the kernel mapping is not checked"
fi

check "busy: address-only locations, symbolized by pprof -symbolize=local from PPROF_BINARY_PATH"
pprof_of busy --comm busy
report_ok "$work/flat-busy-debug" --comm busy --debug-dir "$work/debug" "$work/out"
flat_rows "$work/flat-busy-debug" >"$work/rows-busy"
mkdir -p "$work/empty"
pprof_top -noinlines -symbolize=none -sample_index=samples "$work/busy.pb.gz" >"$work/busy-none"
PPROF_BINARY_PATH=$work/empty pprof_top -noinlines -symbolize=local -sample_index=samples \
	"$work/busy.pb.gz" >"$work/busy-empty"
PPROF_BINARY_PATH=$work/bin pprof_top -noinlines -symbolize=local -sample_index=samples \
	"$work/busy.pb.gz" >"$work/busy-local"
for function in burn_hot burn_warm burn_cold; do
	want=$(awk -F '\t' -v f="$function" '$4 == f && $5 == "busy" { s += $2 } END { print s + 0 }' "$work/rows-busy")
	none=$(column_of "$work/busy-none" "$function" 2)
	empty=$(column_of "$work/busy-empty" "$function" 2)
	got=$(column_of "$work/busy-local" "$function" 2)
	note "$function: perfrec-report with the binary $want samples; pprof: $none unsymbolized, $empty without the binary, $got symbolized"
	[ "$want" -gt 0 ] || fail "$function: no samples of busy with --debug-dir"
	[ "$none" = 0 ] && [ "$empty" = 0 ] || fail "$function named in busy's profile before symbolization"
	[ "$got" = "$want" ] || fail "$function: pprof -symbolize=local gives $got samples, perfrec-report $want"
done
PPROF_BINARY_PATH=$work/bin "$pprof" -traces -symbolize=local "$work/busy.pb.gz" \
	>"$work/busy-traces" 2>"$work/pprof.err" || fail "pprof -traces -symbolize=local failed"
grep -q 'run_workload' "$work/busy-traces" || fail "symbolized busy traces have no run_workload"

echo "$test_name: PASS"
