#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Stripped binaries: addresses nothing names are grouped by the function
# extent the call frame information gives (.eh_frame FDEs).
#
# A copy of tests/workload stripped of everything but .eh_frame (strip
# --strip-all; its debug data first moved with objcopy --only-keep-debug
# into DIR/.build-id/xx/rest.debug) runs 3 s under perfrecd.  Without the
# debug file:
#   - no [unknown] row in the workload; every row of its DSO is named
#     [workload+0xOFF] (or is in .dynsym), and each OFF is where a function
#     of the unstripped binary starts (nm, as a file offset: eu-readelf -l)
#     or a PLT section does (eu-readelf -S);
#   - burn_hot, burn_warm and burn_cold each have one such row;
# With --debug-dir DIR, the same capture names burn_*:
#   - with the same samples as their [workload+0xOFF] rows (the grouping is
#     the functions' own), so the shares match the unstripped build's
#     within 2 points (they are equal);
#   - and each share of the three is within 5 points of the one the
#     workload measured itself (--print-shares; 5 as test-report-accuracy
#     allows, since ~3000 samples on a loaded machine are that noisy).
# pprof keeping these addresses address-only is test-report-pprof.sh's
# "busy" check.
test_name=test-report-stripped
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

for tool in objcopy strip nm eu-readelf; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done

mkdir -p "$work/bin" "$work/debug"
stripped=$work/bin/workload
cp "$workload" "$stripped"
id=$(elf_build_id "$stripped")
[ -n "$id" ] || fail "$workload has no build-id"
mkdir -p "$work/debug/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug "$stripped" "$work/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" ||
	fail "objcopy --only-keep-debug failed"
strip --strip-all "$stripped" || fail "strip --strip-all failed"
eu-readelf -S "$stripped" | grep -qF ' .symtab ' && fail "$stripped still has .symtab"
eu-readelf -S "$stripped" | grep -qF ' .eh_frame ' || skip "strip removed .eh_frame"

# Where each function of the unstripped binary starts, as a file offset.
elf_load_segments "$workload" >"$work/segments"
nm --defined-only "$workload" | awk '$2 ~ /^[TtWw]$/ { print $1, $3 }' | while read -r vaddr name; do
	while read -r off va size flags; do
		v=$((0x$vaddr)) va=$((0x${va#0x})) off=$((0x${off#0x})) size=$((0x${size#0x}))
		if [ "$v" -ge "$va" ] && [ "$v" -lt $((va + size)) ]; then
			printf '0x%x %s\n' $((v - va + off)) "$name"
			break
		fi
	done <"$work/segments"
done >"$work/starts"
[ -s "$work/starts" ] || fail "no function starts from nm $workload"
# The call frame information gives each PLT section one extent and no
# symbol covers it, so a sample in a stub (clock_gettime@plt, say) is a
# row [workload+0xOFF] at the section's start.
eu-readelf -S "$workload" | sed 's/^ *\[ *[0-9]*\] *//' |
	while read -r name type addr off rest; do
		case $name in
		.plt | .plt.got | .plt.sec) printf '0x%x %s\n' $((0x$off)) "$name" ;;
		esac
	done >>"$work/starts"

check "perfrecd captures the stripped copy (3 s, --print-shares)"
# shellcheck disable=SC2086
capture "$work/out" $favour "$stripped" --seconds 3 --print-shares
note "the workload measured: $(tr '\n' ' ' <"$work/command.out")"

check "without the debug file: the workload's rows are [workload+0xOFF], each OFF a function's start"
report_ok "$work/flat" --comm workload "$capture_file"
flat_rows "$work/flat" | awk -F '\t' '$5 ~ /^workload/' >"$work/rows"
grep -q "	\[unknown\]	" "$work/rows" && fail "[unknown] rows in the workload: $(grep -F '[unknown]' "$work/rows" | head -n 3 | tr '\n' ' ')"
nm -D --defined-only "$stripped" 2>/dev/null | awk '{ print $NF }' >"$work/dynsym"
awk -F '\t' '{ print $4 }' "$work/rows" | while read -r symbol; do
	offset=$(echo "$symbol" | sed -n 's/^\[workload+\(0x[0-9a-f]*\)\]$/\1/p')
	if [ -z "$offset" ]; then
		grep -qxF "$symbol" "$work/dynsym" || fail "row '$symbol' is neither [workload+0x...] nor in .dynsym"
		continue
	fi
	grep -q "^$offset " "$work/starts" || fail "row $symbol: no function of $workload starts at $offset"
done
note "$(wc -l <"$work/rows") rows in the workload"

check "with --debug-dir: burn_* have the samples of their [workload+0xOFF] rows; shares near the measured ones"
report_ok "$work/flat-debug" --comm workload --debug-dir "$work/debug" "$capture_file"
burns=0
for function in burn_hot burn_warm burn_cold; do
	offset=$(awk -v f="$function" '$2 == f { print $1; exit }' "$work/starts")
	cfi=$(flat_percent "$work/flat" "[workload+$offset]" workload)
	named=$(flat_percent "$work/flat-debug" "$function" workload)
	note "$function (at $offset): stripped $cfi %, with the debug file $named %"
	within "$cfi" 0 0 && fail "$function: no [workload+$offset] row in the stripped report"
	within "$cfi" "$named" 2 || fail "$function: $cfi % stripped, $named % with the debug file"
	# Exact: one FDE per function, so the groups are the functions.
	[ "$cfi" = "$named" ] || fail "$function: [workload+$offset] has $cfi %, $function $named %: not the same samples"
	burns=$(awk -v a="$burns" -v b="$named" 'BEGIN { print a + b }')
done
for function in burn_hot burn_warm burn_cold; do
	measured=$(sed -n "s/^$function=//p" "$work/command.out")
	[ -n "$measured" ] || fail "the workload printed no share for $function"
	expected=$(awk -v v="$measured" 'BEGIN { printf "%.2f\n", v * 100 }')
	got=$(awk -v v="$(flat_percent "$work/flat-debug" "$function" workload)" -v s="$burns" 'BEGIN { printf "%.2f\n", v * 100 / s }')
	note "$function: measured $expected %, report $got % of the three"
	within "$got" "$expected" 5 || fail "$function: the report says $got %, the workload measured $expected %"
done
note "PASS"
