#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# DWARF unwinding of user stacks (perfrecd --call-graph dwarf).
#
# tests/qsort-workload (-O2 -fomit-frame-pointer -g) spends its time in
# cmp(), called by glibc's qsort(), called by sorter(), called by main().
#   dwarf: at least 90 % of the samples in cmp have main;sorter above
#          qsort's frames (folded view), with libc6-dbg and without it
#          (--debug-dir of an empty directory: libc unwinds from its
#          .eh_frame, its functions are named from .dynsym), and the views
#          agree; --no-unwind gives the recorded callchains back (no
#          sorter above cmp).
#   .debug_frame: the same workload built with -fno-asynchronous-unwind-
#          tables has its CFI only in .debug_frame (the .eh_frame is crt's),
#          split off into a debug file and stripped from the binary: 90 %
#          under main;sorter with --debug-dir holding the debug file, under
#          10 % with an empty one.
#   fp:    frame pointers lose the caller: under 10 % of the samples in
#          cmp have sorter above them.
#   perf:  perf record --call-graph dwarf + perf report of the same
#          workload shows main;sorter above cmp too (skipped if perf
#          fails here).
#   deep:  recursion of 4 KiB frames with a 1 KiB stack copy: every
#          stack through deep() ends (outermost) with [truncated], and
#          holds nothing but deep and spin (and what spin calls, kernel
#          frames): no garbage frames.
#   rows:  for each of these captures, the frames stepped from cached CFI
#          rows are libdwfl's frames: PERFREC_UNWIND=check unwinds every
#          stack both ways and finds no stack that differs, the rows
#          follow at least 90 % of the stacks themselves, and the folded
#          view has the lines of PERFREC_UNWIND=libdwfl's.
test_name=test-report-dwarf
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

qsort_workload=$(readlink -f "$top_builddir/tests/qsort-workload")
[ -x "$qsort_workload" ] || { echo "$test_name: $qsort_workload not built" >&2; exit 99; }

# capture_mode DIR MODE CMD...: like capture, with --call-graph MODE.
capture_mode() {
	capture_dir=$1
	mode=$2
	shift 2
	"$perfrecd" -d 120 -F 999 --call-graph "$mode" -o "$capture_dir" -- "$@" \
		>"$work/command.out" 2>"$work/daemon.err" ||
		fail "perfrecd --call-graph $mode -- $*: status $?"
	[ "$(file_count "$capture_dir")" -eq 1 ] ||
		fail "perfrecd --call-graph $mode: $(file_count "$capture_dir") capture files, expected 1"
	capture_file=$(files_in "$capture_dir")
}

# cmp_share FOLDED PATTERN: "with total", the samples of stacks ending in
# cmp, and those of them whose stack matches PATTERN (an awk regex).
cmp_share() {
	awk -v pattern="$2" '
	{
		count = $NF
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		if (stack !~ /;cmp$/)
			next
		total += count
		if (stack ~ pattern)
			with += count
	}
	END { printf "%d %d\n", with, total }' "$1"
}

# at_least WITH TOTAL PERCENT
at_least() {
	[ "$2" -gt 0 ] && [ $(( $1 * 100 )) -ge $(( $2 * $3 )) ]
}

callers=';main;sorter;'

# rows_agree WHAT ARGS...: the cached rows unwind as libdwfl does (see rows above).
rows_agree() {
	what=$1
	shift
	PERFREC_UNWIND=check report_ok "$work/rows-check" --view=folded "$@"
	line=$(grep '^unwind check: ' "$work/rows-check.err") ||
		fail "$what: PERFREC_UNWIND=check printed no summary"
	stacks=$(echo "$line" | sed -n 's/^unwind check: \([0-9]*\) stacks, .*/\1/p')
	by_rows=$(echo "$line" | sed -n 's/.* stacks, \([0-9]*\) followed by CFI rows, .*/\1/p')
	differ=$(echo "$line" | sed -n 's/.*, \([0-9]*\) of those differ from libdwfl$/\1/p')
	note "$what: $line"
	[ -n "$differ" ] && [ "$differ" -eq 0 ] || fail "$what: $line"
	at_least "$by_rows" "$stacks" 90 || fail "$what: the rows followed only $by_rows of $stacks stacks"
	report_ok "$work/rows-default" --view=folded "$@"
	PERFREC_UNWIND=libdwfl report_ok "$work/rows-libdwfl" --view=folded "$@"
	# Stacks of equal counts come in no set order: compared as sorted lines.
	sort "$work/rows-default" >"$work/rows-default.sorted"
	sort "$work/rows-libdwfl" >"$work/rows-libdwfl.sorted"
	cmp -s "$work/rows-default.sorted" "$work/rows-libdwfl.sorted" ||
		{ diff "$work/rows-libdwfl.sorted" "$work/rows-default.sorted" | head -n 10 >&2
		  fail "$what: the folded view differs from libdwfl's"; }
}

# ---- dwarf ----------------------------------------------------------------

check "perfrecd --call-graph dwarf captures the qsort workload (2 s)"
# shellcheck disable=SC2086
capture_mode "$work/dwarf" dwarf $favour "$qsort_workload" 2
dwarf_file=$capture_file

check "dwarf: at least 90 % of the samples in cmp have main;sorter above them"
report_ok "$work/folded" --view=folded "$dwarf_file"
set -- $(cmp_share "$work/folded" "$callers")
note "dwarf: $1 of $2 samples in cmp under main;sorter"
at_least "$1" "$2" 90 || { head -n 5 "$work/folded" >&2; fail "dwarf: only $1 of $2 cmp samples have main;sorter above"; }
grep -q ';qsort[_a-z]*;' "$work/folded" || fail "dwarf: no qsort frame between sorter and cmp"
grep -q '^qsort-workload;_start;' "$work/folded" || fail "dwarf: no stack reaches _start"

check "dwarf: the cached CFI rows unwind every stack as libdwfl does"
rows_agree dwarf "$dwarf_file"

check "dwarf: the tree shows main -> sorter -> qsort ... -> cmp"
report_ok "$work/tree" --view=tree --no-inline --percent-limit 0 "$dwarf_file"
awk '
	/\] main( |$)/ { m = NR }
	m && /\] sorter( |$)/ && !s { s = NR }
	s && /\] qsort/ && !q { q = NR }
	q && /\] cmp( |$)/ { c = NR }
	END { exit !(m && s > m && q > s && c > q) }' "$work/tree" ||
	{ head -n 30 "$work/tree" >&2; fail "dwarf: the tree has no main, sorter, qsort, cmp in that order"; }

check "dwarf: the samples view lists cmp, qsort, sorter, main in one stack"
report_ok "$work/samples" --view=samples "$dwarf_file"
awk '
	/^\t/ { stack = stack " " $2; next }
	{ if (stack ~ / cmp\+.* sorter\+.* main\+/) found++; stack = "" }
	END { if (stack ~ / cmp\+.* sorter\+.* main\+/) found++; exit !found }' "$work/samples" ||
	fail "dwarf: no sample of the samples view has cmp ... sorter ... main"

check "dwarf, without libc6-dbg: libc unwinds from .eh_frame, still 90 % under main;sorter"
mkdir -p "$work/empty-debug"
report_ok "$work/folded-nodebug" --view=folded --debug-dir "$work/empty-debug" "$dwarf_file"
set -- $(cmp_share "$work/folded-nodebug" "$callers")
note "dwarf without libc6-dbg: $1 of $2 samples in cmp under main;sorter"
at_least "$1" "$2" 90 || fail "dwarf without libc6-dbg: only $1 of $2 cmp samples have main;sorter above"
grep -q 'msort_with_tmp' "$work/folded-nodebug" &&
	fail "without libc6-dbg, libc's internal msort_with_tmp is named: the debug file was used"

check "--no-unwind: the recorded callchains (kernel part only): no sorter above cmp"
report_ok "$work/folded-nounwind" --view=folded --no-unwind "$dwarf_file"
set -- $(cmp_share "$work/folded-nounwind" ';sorter;')
[ "$1" -eq 0 ] && [ "$2" -gt 0 ] || fail "--no-unwind: $1 of $2 cmp samples still under sorter"

# ---- CFI in .debug_frame only, in the debug file ---------------------------

check ".debug_frame: a build without unwind tables, its debug file split off"
cc=${CC:-cc}
if command -v "$cc" >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1 &&
	command -v eu-readelf >/dev/null 2>&1; then
	mkdir -p "$work/df"
	"$cc" -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-Wl,--build-id=sha1 -o "$work/df/qsort-workload" "$top_srcdir/tests/qsort-workload.c" ||
		fail "cannot build qsort-workload without unwind tables"
	eu-readelf -S "$work/df/qsort-workload" | grep -qF ' .debug_frame ' ||
		fail "$cc -fno-asynchronous-unwind-tables -g wrote no .debug_frame"
	df_id=$(elf_build_id "$work/df/qsort-workload")
	df_debug=$work/df-debug/.build-id/$(echo "$df_id" | cut -c1-2)/$(echo "$df_id" | cut -c3-).debug
	mkdir -p "$(dirname "$df_debug")"
	objcopy --only-keep-debug "$work/df/qsort-workload" "$df_debug" || fail "objcopy --only-keep-debug"
	objcopy --strip-debug "$work/df/qsort-workload" || fail "objcopy --strip-debug"
	eu-readelf -S "$work/df/qsort-workload" | grep -qF ' .debug_frame ' &&
		fail "the stripped binary still has .debug_frame"

	check ".debug_frame: 90 % of the samples in cmp under main;sorter with the debug file"
	# shellcheck disable=SC2086
	capture_mode "$work/df-out" dwarf $favour "$work/df/qsort-workload" 1
	report_ok "$work/folded-df" --view=folded --debug-dir "$work/df-debug" "$capture_file"
	set -- $(cmp_share "$work/folded-df" "$callers")
	note ".debug_frame: $1 of $2 samples in cmp under main;sorter"
	at_least "$1" "$2" 90 || fail ".debug_frame: only $1 of $2 cmp samples have main;sorter above"
	rows_agree .debug_frame --debug-dir "$work/df-debug" "$capture_file"

	check ".debug_frame: without the debug file, under 10 %"
	report_ok "$work/folded-df-none" --view=folded --debug-dir "$work/empty-debug" "$capture_file"
	set -- $(cmp_share "$work/folded-df-none" "$callers")
	note ".debug_frame without the debug file: $1 of $2 samples in cmp under main;sorter"
	[ "$2" -gt 0 ] || fail ".debug_frame: no samples in cmp"
	at_least "$1" "$2" 10 && fail ".debug_frame: $1 of $2 under main;sorter without the CFI's file"
else
	skipped="no $cc, objcopy or eu-readelf: .debug_frame not checked"
fi

# ---- fp -------------------------------------------------------------------

check "perfrecd --call-graph fp captures the same workload (1 s)"
# shellcheck disable=SC2086
capture_mode "$work/fp" fp $favour "$qsort_workload" 1
report_ok "$work/folded-fp" --view=folded "$capture_file"

check "fp: frame pointers lose the caller: under 10 % of the samples in cmp have sorter above"
set -- $(cmp_share "$work/folded-fp" ';sorter;')
note "fp: $1 of $2 samples in cmp under sorter"
[ "$2" -gt 0 ] || fail "fp: no samples in cmp"
at_least "$1" "$2" 10 && fail "fp: $1 of $2 cmp samples under sorter: the workload keeps frame pointers?"

# ---- perf -----------------------------------------------------------------

check "perf record --call-graph dwarf + perf report: main;sorter above cmp too"
if command -v perf >/dev/null 2>&1 &&
	perf record -q --call-graph dwarf -F 999 -o "$work/perf.data" \
		"$qsort_workload" 1 >/dev/null 2>"$work/perf-record.err" &&
	perf report --stdio --no-children -g folded,0,caller,count -i "$work/perf.data" \
		>"$work/perf-report" 2>"$work/perf-report.err"; then
	# Its folded lines are "COUNT stack": put the count last, as ours.
	awk '/^[0-9]+ / { count = $1; sub(/^[0-9]+ /, ""); print "x;" $0, count }' \
		"$work/perf-report" >"$work/perf-folded"
	set -- $(cmp_share "$work/perf-folded" "$callers")
	note "perf: $1 of $2 samples in cmp under main;sorter"
	at_least "$1" "$2" 80 || fail "perf report shows main;sorter above only $1 of $2 cmp samples"
elif ! command -v perf >/dev/null 2>&1; then
	skipped="no perf (linux-perf) to compare with"
else
	skipped="perf record/report failed here, no comparison: $(tail -n 1 "$work/perf-record.err" "$work/perf-report.err" 2>/dev/null | tr '\n' ' ')"
fi

# ---- deep recursion beyond the stack copy -----------------------------------

check "perfrecd --call-graph dwarf,1024 captures 64 levels of 4 KiB frames (1 s)"
# shellcheck disable=SC2086
capture_mode "$work/deep" dwarf,1024 $favour "$qsort_workload" deep 1
report_ok "$work/folded-deep" --view=folded "$capture_file"

check "deep: stacks through deep() end with [truncated] and hold only deep and spin"
awk '
	{
		count = $NF
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		if (stack !~ /;deep(;|$)/)
			next
		total += count
		# spin calls clock_gettime; kernel frames (an interrupt) may top it.
		if (stack !~ /^qsort-workload;\[truncated\];deep(;deep)*(;spin(;[^;]*)?)?(;[^;]*_\[k\])*$/) {
			bad += count
			print "odd stack: " stack > "/dev/stderr"
		}
	}
	END { printf "%d %d\n", total - bad, total }' "$work/folded-deep" >"$work/deep-share"
set -- $(cat "$work/deep-share")
note "deep: $1 of $2 samples in deep() end cleanly with [truncated]"
at_least "$1" "$2" 98 || fail "deep: only $1 of $2 stacks through deep() end with [truncated] and nothing else"

check "deep: the cached CFI rows unwind every stack as libdwfl does"
rows_agree deep "$capture_file"

# What could not run here is a skip, not a pass, though all else passed.
[ -z "${skipped:-}" ] || skip "$skipped (all the other checks passed)"
