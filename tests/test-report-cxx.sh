#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# C++ names: tests/cxx-workload.cc, built here with g++ -O1 -g
# -fno-omit-frame-pointer (configure checks for no C++ compiler: without
# g++ this test is skipped), burns CPU in a class method, two instances of
# a function template, a method of a class template in a nested namespace
# and a function of an anonymous namespace.  perfrecd captures it; the
# flat view, the folded view and the samples view name those functions
# exactly as c++filt demangles their mangled names (from nm), never
# mangled, each near its share of the CPU time.
test_name=test-report-cxx
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

cxx=${CXX:-g++}
command -v "$cxx" >/dev/null 2>&1 || skip "no C++ compiler ($cxx)"
command -v c++filt >/dev/null 2>&1 || skip "no c++filt"

program=$work/cxx-workload
check "$cxx -O1 -g -fno-omit-frame-pointer builds tests/cxx-workload.cc"
"$cxx" -O1 -g -fno-omit-frame-pointer -o "$program" "$top_srcdir/tests/cxx-workload.cc" ||
	fail "cannot build tests/cxx-workload.cc"

# The burning functions, mangled, and what c++filt makes of them, with
# their shares of the workload's CPU time (see cxx-workload.cc).
: >"$work/expected"
for entry in _ZN2ns6Worker4spinEi:40 _ZN2ns4burnIiEEvT_:25 _ZN2ns4burnIdEEvT_:15 \
	_ZN2ns5inner6MatrixILi3EE4stepEm:10 _ZN12_GLOBAL__N_110local_spinEi:10; do
	mangled=${entry%:*}
	nm --defined-only "$program" | awk -v m="$mangled" '$3 == m { found = 1 } END { exit !found }' ||
		fail "nm: no $mangled in $program (another compiler's mangling?)"
	printf '%s\t%s\t%s\n' "$mangled" "$(echo "$mangled" | c++filt)" "${entry#*:}" >>"$work/expected"
done
while IFS='	' read -r mangled demangled share; do
	note "$mangled -> $demangled (about $share %)"
done <"$work/expected"

check "perfrecd captures it for 2 s"
# shellcheck disable=SC2086
capture "$work/out" $favour "$program" 2

check "flat view: the demangled names, each within 8 points of its share"
report_ok "$work/flat" "$work/out"
while IFS='	' read -r mangled demangled share; do
	got=$(flat_percent "$work/flat" "$demangled" cxx-workload)
	note "$demangled: $got %"
	flat_rows "$work/flat" | cut -f 4 | grep -qxF "$demangled" ||
		fail "no row '$demangled' in the flat view"
	within "$got" "$share" 8 || fail "$demangled at $got %, expected about $share %"
done <"$work/expected"
mangled_rows=$(flat_rows "$work/flat" | awk -F '\t' '$4 ~ /^_Z/' | head -n 3)
[ -z "$mangled_rows" ] || fail "mangled names in the flat view: $mangled_rows"

check "folded view: cxx-workload;...;main;NAME N for each, demangled"
report_ok "$work/folded" --view=folded "$work/out"
while IFS='	' read -r mangled demangled share; do
	grep -qF ";main;$demangled " "$work/folded" ||
		fail "no folded stack ...;main;$demangled"
done <"$work/expected"
grep -q ';_Z' "$work/folded" && fail "mangled names in the folded view: $(grep ';_Z' "$work/folded" | head -n 1)"

check "samples view: NAME+0x... frames, demangled"
report_ok "$work/samples" --view=samples "$work/out"
while IFS='	' read -r mangled demangled share; do
	grep -qF " $demangled+0x" "$work/samples" || fail "no frame '$demangled+0x...' in the samples view"
done <"$work/expected"
grep -q '	[0-9a-f]* _Z' "$work/samples" && fail "mangled names in the samples view: $(grep '	[0-9a-f]* _Z' "$work/samples" | head -n 1)"
note "PASS"
