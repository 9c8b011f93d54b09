#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Finding the ELF of a mapping by build-id, and refusing the wrong one.
#
# Stripped: a copy of tests/workload has its debug data moved out with
# objcopy --only-keep-debug into DIR/.build-id/xx/rest.debug (xx: the first
# byte of its build-id) and is then stripped of everything (strip
# --strip-all: no .symtab, no DWARF; burn_* are not in .dynsym).  A capture
# of it, reported with --debug-dir DIR, resolves burn_hot, burn_warm and
# burn_cold (only the build-id leads there: no .gnu_debuglink, no path);
# without it, only .dynsym names can show up: burn_* do not, their samples
# are named after their functions' extents in .eh_frame ([workload+0x...];
# test-report-stripped.sh checks those).
#
# Linked: a stripped copy with a .gnu_debuglink is captured; its debug file
# is found in the binary's .debug directory, then under --debug-dir at the
# binary's path; a debug file of another build-id there is not used (the
# workload's addresses keep their CFI extents), and one in .debug/ is
# passed over for the right one under --debug-dir.
#
# Rebuilt: a copy is captured, then the file at that path is replaced with
# another build of tests/workload.c (cc -O0 -DREBUILD here: another
# build-id).  The report does not use it: the workload's frames are
# [unknown], and it prints exactly one warning, naming the path and both
# build-ids.
test_name=test-report-debugdir
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

cc=${CC:-cc}
for tool in objcopy strip nm eu-readelf; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done

# ---- stripped, with a debug file under --debug-dir -----------------------

mkdir -p "$work/stripped" "$work/debug"
stripped=$work/stripped/workload
cp "$workload" "$stripped"
id=$(elf_build_id "$stripped")
[ -n "$id" ] || fail "$workload has no build-id"
prefix=$(echo "$id" | cut -c1-2)
rest=$(echo "$id" | cut -c3-)
mkdir -p "$work/debug/.build-id/$prefix"
debug_file=$work/debug/.build-id/$prefix/$rest.debug
objcopy --only-keep-debug "$stripped" "$debug_file" || fail "objcopy --only-keep-debug failed"
strip --strip-all "$stripped" || fail "strip --strip-all failed"
note "build-id $id; debug file $debug_file"

check "the stripped copy has no .symtab, no DWARF, no debuglink, and no burn_* in .dynsym"
sections=$(eu-readelf -S "$stripped")
for section in .symtab .debug_info .debug_line .gnu_debuglink; do
	echo "$sections" | grep -qF " $section " && fail "$stripped still has $section"
done
nm -D --defined-only "$stripped" 2>/dev/null | awk '{ print $NF }' >"$work/dynsym"
grep -q '^burn_' "$work/dynsym" && fail "burn_* are in $stripped's .dynsym"
[ "$(elf_build_id "$stripped")" = "$id" ] || fail "strip changed the build-id"
nm "$debug_file" | grep -qw burn_hot || fail "the debug file has no burn_hot"

check "perfrecd captures the stripped copy (2 s)"
# shellcheck disable=SC2086
capture "$work/out1" $favour "$stripped" --seconds 2

check "with --debug-dir: burn_hot, burn_warm and burn_cold resolve, each with at least half its share (60/30/10 %)"
report_ok "$work/flat-debug" --debug-dir "$work/debug" "$work/out1"
for function in burn_hot:30 burn_warm:15 burn_cold:5; do
	name=${function%:*}
	got=$(flat_percent "$work/flat-debug" "$name" workload)
	note "$name: $got %"
	awk -v got="$got" -v min="${function#*:}" 'BEGIN { exit !(got >= min) }' ||
		fail "--debug-dir: $name at $got %, expected at least ${function#*:} %"
done
unknown=$(flat_rows "$work/flat-debug" | awk -F '\t' '$4 == "[unknown]" && $5 ~ /^workload\+/ { n += $1 } END { printf "%.2f\n", n }')
note "unresolved in the workload: $unknown %"
within "$unknown" 0 2 || fail "with --debug-dir, $unknown % of the samples are still [unknown] in the workload"
check "... and the callers too: main -> run_workload -> burn_hot in the folded view"
report_ok "$work/folded-debug" --view=folded --debug-dir "$work/debug" "$work/out1"
grep -Eq '^workload;([^ ]*;)?main;run_workload;burn_hot [0-9]+$' "$work/folded-debug" ||
	fail "no workload;...;main;run_workload;burn_hot in the folded view with --debug-dir"

check "without --debug-dir: no burn_*; the workload's samples are [workload+0x...] (CFI extents); other names are in .dynsym"
report_ok "$work/flat-plain" "$work/out1"
flat_rows "$work/flat-plain" | awk -F '\t' '$5 == "workload" { print $4 }' >"$work/resolved"
grep -q '^burn_' "$work/resolved" && fail "burn_* resolved without the debug file: $(grep '^burn_' "$work/resolved" | tr '\n' ' ')"
while read -r symbol; do
	echo "$symbol" | grep -Eqx '\[workload\+0x[0-9a-f]+\]' && continue
	grep -qxF "$symbol" "$work/dynsym" || fail "'$symbol' resolved in the stripped workload, but it is not in its .dynsym"
done <"$work/resolved"
note "names of the workload without --debug-dir: $(tr '\n' ' ' <"$work/resolved")"
extents=$(flat_rows "$work/flat-plain" | awk -F '\t' '$4 ~ /^\[workload\+0x/ && $5 == "workload" { n += $1 } END { printf "%.2f\n", n }')
note "[workload+0x...] in the workload: $extents %"
within "$extents" 95 10 || fail "without --debug-dir, only $extents % of the samples are named after CFI extents in the workload (expected ~99)"

# ---- found by its .gnu_debuglink ----------------------------------------

mkdir -p "$work/linked/.debug" "$work/dl"
linked=$work/linked/workload
cp "$workload" "$linked"
objcopy --only-keep-debug "$linked" "$work/linked/workload.dbg" || fail "objcopy --only-keep-debug failed"
strip --strip-all "$linked" || fail "strip --strip-all failed"
objcopy --add-gnu-debuglink="$work/linked/workload.dbg" "$linked" ||
	fail "objcopy --add-gnu-debuglink failed"
check "perfrecd captures a stripped copy whose .gnu_debuglink names workload.dbg (2 s)"
# shellcheck disable=SC2086
capture "$work/out3" $favour "$linked" --seconds 2
for place in "$work/linked/.debug/workload.dbg" "$work/dl$work/linked/workload.dbg"; do
	check "the debug file at $place: burn_hot resolves"
	mkdir -p "$(dirname "$place")"
	mv "$(find "$work/linked" "$work/dl" -name workload.dbg | head -n 1)" "$place"
	report_ok "$work/flat-linked" --debug-dir "$work/dl" "$work/out3"
	got=$(flat_percent "$work/flat-linked" burn_hot workload)
	note "burn_hot: $got %"
	awk -v got="$got" 'BEGIN { exit !(got >= 30) }' || fail "burn_hot at $got %, expected at least 30 %"
done
check "a debug file of another build-id at that place is not used"
objcopy --only-keep-debug "$perfrecd" "$work/dl$work/linked/workload.dbg" ||
	fail "objcopy --only-keep-debug $perfrecd failed"
report_ok "$work/flat-wrong" --debug-dir "$work/dl" "$work/out3"
# Used, it would name the workload's addresses after perfrecd's functions.
flat_rows "$work/flat-wrong" | awk -F '\t' '$5 == "workload" { print $4 }' >"$work/resolved-wrong"
while read -r symbol; do
	echo "$symbol" | grep -Eqx '\[workload\+0x[0-9a-f]+\]' && continue
	grep -qxF "$symbol" "$work/dynsym" ||
		fail "'$symbol' named in the workload: another binary's debug file was used"
done <"$work/resolved-wrong"
note "names of the workload with the wrong debug file: $(sort -u "$work/resolved-wrong" | head -n 5 | tr '\n' ' ')"
check "a wrong build-id in .debug/ is passed over for the right one under --debug-dir"
mv "$work/dl$work/linked/workload.dbg" "$work/linked/.debug/workload.dbg"
cp "$debug_file" "$work/dl$work/linked/workload.dbg"	# the same build: its debug file
report_ok "$work/flat-second" --debug-dir "$work/dl" "$work/out3"
got=$(flat_percent "$work/flat-second" burn_hot workload)
note "burn_hot: $got %"
awk -v got="$got" 'BEGIN { exit !(got >= 30) }' || fail "burn_hot at $got %, expected at least 30 %"

# ---- rebuilt after the capture -------------------------------------------

command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to rebuild the workload (the stripped part passed)"
mkdir -p "$work/rebuilt"
rebuilt=$work/rebuilt/workload
cp "$workload" "$rebuilt"
old_id=$(elf_build_id "$rebuilt")

check "perfrecd captures a copy of the workload (1.5 s), which is then rebuilt in place"
# shellcheck disable=SC2086
capture "$work/out2" $favour "$rebuilt" --seconds 1.5
"$cc" -O0 -DREBUILD -Wl,--build-id=sha1 -o "$rebuilt" "$top_srcdir/tests/workload.c" -lpthread ||
	fail "cannot rebuild $rebuilt"
new_id=$(elf_build_id "$rebuilt")
note "captured build-id $old_id, now $new_id"
[ -n "$new_id" ] && [ "$new_id" != "$old_id" ] || fail "the rebuilt workload has the same build-id ($new_id)"
nm "$rebuilt" | grep -qw burn_hot || fail "the rebuilt workload has no burn_hot symbol"

check "the rebuilt file is not used: no burn_*, the workload's samples are [unknown]"
report_ok "$work/flat-rebuilt" "$work/out2"
flat_rows "$work/flat-rebuilt" | awk -F '\t' '$5 == "workload" { print $4 }' >"$work/resolved-rebuilt"
[ -s "$work/resolved-rebuilt" ] &&
	fail "names resolved from the rebuilt file: $(head -n 5 "$work/resolved-rebuilt" | tr '\n' ' ')"
unknown=$(flat_rows "$work/flat-rebuilt" | awk -F '\t' '$4 == "[unknown]" && $5 ~ /^workload\+/ { n += $1 } END { printf "%.2f\n", n }')
note "[unknown] in the workload: $unknown %"
within "$unknown" 95 10 || fail "only $unknown % of the samples are [unknown] in the rebuilt workload (expected ~99)"

check "exactly one warning names $rebuilt, with both build-ids"
for view in flat tree samples; do
	report_ok "$work/$view-rebuilt" --view=$view "$work/out2"
	grep -F "$rebuilt" "$work/$view-rebuilt.err" >"$work/warnings" || true
	count=$(wc -l <"$work/warnings")
	note "--view=$view: $count warning(s) naming it: $(head -n 1 "$work/warnings")"
	[ "$count" -eq 1 ] || { cat "$work/$view-rebuilt.err" >&2; fail "--view=$view: $count warnings name $rebuilt, expected 1"; }
	grep -q "^perfrec-report: warning: " "$work/warnings" || fail "--view=$view: the line naming $rebuilt is not a warning"
	grep -qF "$old_id" "$work/warnings" || fail "--view=$view: the warning does not give the captured build-id $old_id"
	grep -qF "$new_id" "$work/warnings" || fail "--view=$view: the warning does not give the file's build-id $new_id"
done
check "--quiet silences it"
report_ok "$work/quiet-rebuilt" --quiet "$work/out2"
[ -s "$work/quiet-rebuilt.err" ] && fail "--quiet still prints: $(head -n 2 "$work/quiet-rebuilt.err")"
note "PASS"
