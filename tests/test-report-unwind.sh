#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The unwinder on stacks whose every byte is known, and on lies.
# tests/unwind-fixture captures its own registers and stack in inner()
# (under middle(), outer(), main()) and writes that sample and odd
# variants of it, one process each (see unwind-fixture.c).  Checked:
#   good    unwinds whole: ...;main;outer;middle;inner
#   short   a copy cut past inner's return address: [truncated];middle;inner
#   cycle   a frame that returns into itself: stopped, [unknown], 3 frames
#   kernel  the kernel callchain on top of the unwound user stack
#   lying   dyn_size past the copy: refused by the decoder, with a warning
#   off-cpu an off-CPU block with the good registers and copy: its
#           blocked stack unwinds the same (--profile=off-cpu)
#   the rest (SP 0, 2^64 - 8 or odd, IP 0 or in no map, garbage registers
#   or stack, masks without SP or IP, no registers, an empty copy): one
#   stack each, none longer than the depth limit, and every view (and
#   --no-unwind) exits 0 without a sanitizer report.
#   rows    the unwinder's cached CFI rows and libdwfl alone
#           (PERFREC_UNWIND=check, =libdwfl) give the same stacks for every
#           variant.
test_name=test-report-unwind
needs_root=no	# it reads captures made by the tests' own programs
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

fixture=$top_builddir/tests/unwind-fixture
[ -x "$fixture" ] || { echo "$test_name: $fixture not built" >&2; exit 99; }
[ "$(uname -m)" = x86_64 ] || skip "the unwinder is x86_64 only"

check "unwind-fixture writes its own stack and its variants"
"$fixture" "$work/fixture.prf" >"$work/fixture.out" || fail "unwind-fixture: status $?"
note "$(cat "$work/fixture.out")"

report_ok "$work/folded" --view=folded "$work/fixture.prf"
cat "$work/folded"
line() {
	grep "^$1;" "$work/folded" | sed 's/ [0-9]*$//'
}

check "good: unwinds to main;outer;middle;inner"
line good | grep -q ';_start;.*;main;outer;middle;inner$' || fail "good: $(line good)"

check "short: the copy ends past inner's return address: [truncated];middle;inner"
[ "$(line short)" = "short;[truncated];middle;inner" ] || fail "short: $(line short)"

check "cycle: a frame returning into itself is stopped: [unknown] and at most 3 frames"
line cycle | grep -q '^cycle;\[unknown\];inner\(;inner\)\{0,2\}$' || fail "cycle: $(line cycle)"

check "kernel: the kernel frames on top of the unwound user stack"
line kernel | grep -q ';main;outer;middle;inner;\[kernel.kallsyms\]_\[k\];' || fail "kernel: $(line kernel)"

check "off-cpu: a block's user stack unwinds from its registers and copy, as a sample's"
report_ok "$work/off" --profile=off-cpu --view=folded "$work/fixture.prf"
cat "$work/off"
grep -q '^off-cpu;_start;.*;main;outer;middle;inner;\[kernel.kallsyms\]_\[k\];\[kernel.kallsyms\]_\[k\] 3000000$' "$work/off" ||
	fail "off-cpu: $(cat "$work/off")"
report_ok "$work/off-raw" --profile=off-cpu --view=folded --no-unwind "$work/fixture.prf"
[ "$(cat "$work/off-raw")" = "off-cpu;[kernel.kallsyms]_[k];[kernel.kallsyms]_[k] 3000000" ] ||
	fail "off-cpu --no-unwind: $(cat "$work/off-raw")"
line off-cpu | grep -q . && fail "the block is in the CPU profile"

check "lying: refused by the decoder with a warning; every other variant has one stack"
line lying | grep -q . && fail "lying: a sample with dyn_size > size was used"
grep -q 'could not be decoded' "$work/folded.err" || fail "lying: no warning about the refused sample"
for variant in good short cycle sp-zero sp-top sp-odd ip-zero ip-garbage regs-garbage \
	stack-garbage no-sp no-ip abi-none zero-stack kernel; do
	[ "$(grep -c "^$variant;" "$work/folded")" -eq 1 ] || fail "$variant: not one stack"
done
awk -F';' 'NF > 520 { exit 1 }' "$work/folded" || fail "a stack longer than the depth limit"

check "no registers, no SP, no IP, an empty copy: no unwinding, the sample's ip"
for variant in abi-none no-sp no-ip zero-stack; do
	[ "$(line "$variant")" = "$variant;inner" ] || fail "$variant: $(line "$variant")"
done

check "every view, and --no-unwind, survive the variants"
for args in "--view=tree" "--view=tree --json" "--children" "--view=samples" \
	"--view=tree --callee" "--view=folded --no-unwind" "--json --children"; do
	# shellcheck disable=SC2086
	report_ok "$work/view" $args "$work/fixture.prf"
done
report_ok "$work/folded-nounwind" --view=folded --no-unwind "$work/fixture.prf"
grep -q '^good;inner 1$' "$work/folded-nounwind" || fail "--no-unwind: good is not its ip alone"

check "rows: the cached CFI rows and libdwfl give the same stacks for every variant"
PERFREC_UNWIND=check report_ok "$work/folded-check" --view=folded "$work/fixture.prf"
summary=$(grep '^unwind check: ' "$work/folded-check.err") || fail "rows: no check summary"
note "rows: $summary"
echo "$summary" | grep -q ', 0 of those differ from libdwfl$' || fail "rows: $summary"
PERFREC_UNWIND=libdwfl report_ok "$work/folded-libdwfl" --view=folded "$work/fixture.prf"
sort "$work/folded" >"$work/folded.sorted"
sort "$work/folded-libdwfl" >"$work/folded-libdwfl.sorted"
cmp -s "$work/folded.sorted" "$work/folded-libdwfl.sorted" ||
	{ diff "$work/folded-libdwfl.sorted" "$work/folded.sorted" >&2; fail "rows: the folded view differs from libdwfl's"; }
