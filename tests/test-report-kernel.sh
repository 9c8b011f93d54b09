#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kernel frames: perfrecd captures dd reading /dev/urandom and copying
# /dev/zero to /dev/null (nearly all of it in the kernel: the RNG, copies
# to user space, the read path).  Then:
#   - the flat view has [k] rows for most of the samples, and each of its
#     top [k] names (up to 10) is a symbol of /proc/kallsyms on this
#     machine (the capture's own KALLSYMS is of this kernel too);
#   - in the samples view, every distinct kernel frame resolves to the
#     /proc/kallsyms symbol that covers its lookup address (the one
#     printed in "([kernel.kallsyms]+0xADDRESS)": address - 1 for return
#     addresses), or to another name at that symbol's address, with the
#     offset "+0x..." from that symbol's start.  A symbol covers the
#     addresses from its own to the next symbol's; text symbols only
#     (types t, T, w, W, in the kernel and its modules).
#   - hardly any kernel frame is [unknown] (at most 1 %).
test_name=test-report-kernel
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

[ -r /proc/kallsyms ] || skip "no /proc/kallsyms"
awk '$1 ~ /^ffffffff/ && $1 != "ffffffff00000000" && tolower($2) ~ /^[tw]$/ { found = 1; exit } END { exit !found }' /proc/kallsyms ||
	skip "/proc/kallsyms shows no kernel text addresses (kptr_restrict?)"

check "perfrecd captures dd from /dev/urandom and /dev/zero to /dev/null"
capture "$work/out" sh -c 'dd if=/dev/urandom of=/dev/null bs=64k count=6000 2>/dev/null; dd if=/dev/zero of=/dev/null bs=1M count=8000 2>/dev/null'
report_ok "$work/flat" "$work/out"
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat")
kernel=$(flat_rows "$work/flat" | awk -F '\t' '$3 == "k" { n += $1 } END { printf "%.2f\n", n }')
note "$samples samples, $kernel % of them in [k] frames"
[ "${samples:-0}" -ge 300 ] || fail "only ${samples:-0} samples"
within "$kernel" 100 30 || fail "only $kernel % of the samples are in the kernel"

check "the top [k] names of the flat view are symbols of /proc/kallsyms"
flat_rows "$work/flat" | awk -F '\t' '$3 == "k" && $2 > 0 { print $4 }' | head -n 10 >"$work/top"
[ -s "$work/top" ] || fail "no [k] rows in the flat view"
awk '{ print $3 }' /proc/kallsyms | sort -u >"$work/kallsyms-names"
while read -r name; do
	[ "$name" = "[unknown]" ] && fail "an unresolved kernel address among the top rows"
	grep -qxF "$name" "$work/kallsyms-names" || fail "[k] $name is not in /proc/kallsyms"
	note "[k] $name: $(awk -v n="$name" '$3 == n { print; exit }' /proc/kallsyms)"
done <"$work/top"

check "every distinct kernel frame of the samples view is the kallsyms symbol covering its address, at the right offset"
report_ok "$work/samples" --view=samples "$work/out"
# Kernel addresses are above 2^53, beyond awk's exact numbers: they are
# compared as their low 32 bits (8 hex digits), the high ones ffffffff.
awk '
/^\t.* \[k\]$/ {
	line = $0
	sub(/^\t */, "", line)
	if (!match(line, /\(\[kernel\.kallsyms\]\+0x[0-9a-f]+\)/)) { print "unparsed " line; next }
	where = substr(line, RSTART + 21, RLENGTH - 22)
	head = substr(line, 1, RSTART - 2)
	sub(/^[0-9a-f]+ /, "", head)
	if (length(where) != 16 || substr(where, 1, 8) != "ffffffff") { other++; next }
	if (seen[where]++)
		next
	name = head; offset = "0"
	if (match(head, /\+0x[0-9a-f]+$/)) {
		name = substr(head, 1, RSTART - 1)
		offset = substr(head, RSTART + 3)
	}
	print substr(where, 9) " 1 " name " " offset
}
END { if (other) print other " kernel frames outside ffffffff........ skipped" > "/dev/stderr" }' \
	"$work/samples" >"$work/kframes" 2>"$work/kframes.err"
grep -q '^unparsed' "$work/kframes" && fail "samples view lines that do not parse: $(grep '^unparsed' "$work/kframes" | head -n 2)"
[ -s "$work/kframes.err" ] && note "$(cat "$work/kframes.err")"
awk 'length($1) == 16 && substr($1, 1, 8) == "ffffffff" && tolower($2) ~ /^[tw]$/ { print substr($1, 9) " 0 " $3 }' /proc/kallsyms >"$work/ksyms"
sort -k1,1 -k2,2n "$work/ksyms" "$work/kframes" | awk -v detail="$work/kernel.mismatches" "$awk_hex"'
$2 == 0 {
	if ($1 != start) { start = $1; delete names; count = 0 }
	names[$3] = 1
	next
}
{
	frames++
	if ($3 == "[unknown]") { unknown++; next }
	if (start == "") { bad++; print $0 ": below every symbol" > detail; next }
	want = hex($1) - hex(start)
	if (!($3 in names)) {
		bad++
		printf "ffffffff%s: report %s+0x%s, kallsyms: the symbol at ffffffff%s (+0x%x) is", $1, $3, $4, start, want > detail
		for (n in names) printf " %s", n > detail
		printf "\n" > detail
	} else if (hex($4) != want) {
		bad++
		printf "ffffffff%s: report %s+0x%s, kallsyms +0x%x\n", $1, $3, $4, want > detail
	} else {
		good++
	}
}
END { printf "%d %d %d %d\n", frames, good, unknown, bad }' >"$work/kresult"
set -- $(cat "$work/kresult")
note "$1 distinct kernel frames: $2 match /proc/kallsyms, $3 [unknown], $4 differ"
[ "$1" -ge 20 ] || fail "only $1 distinct kernel frames"
[ "$4" -eq 0 ] || { head -n 20 "$work/kernel.mismatches" >&2; fail "$4 kernel frames differ from /proc/kallsyms"; }
[ $(($3 * 100)) -le "$1" ] || fail "$3 of $1 kernel frames are [unknown]"
note "PASS"
