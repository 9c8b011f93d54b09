#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report over the captures of many hosts.  One capture of
# tests/workload (perfrecd -F 999, 1 s) is copied 100 times by
# tests/rehost, each copy under a hostname of its own (host-000 ...
# host-099) and with every K-th sample only (K = 1 + i % 7), so the hosts'
# counts differ; rehost prints what it kept.  Then:
#   - --sort host: one row per host, each with exactly the samples its
#     copy holds (no host folded into another, none lost: the limit of
#     64 hosts that was, and the 65,535 of the 16-bit index, are gone);
#   - the header's "# hosts: 100: ..." line lists all of them, and the
#     JSON header's "hosts" array too;
#   - --host host-003,host-042: the two hosts' samples only, and the
#     header lists just those two; an unknown --host name alone is an
#     error naming the cause;
#   - --sort host,sym: burn_hot is found on every host.
test_name=test-report-hosts
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

rehost=$top_builddir/tests/rehost
[ -x "$rehost" ] || skip "no tests/rehost (make check builds it)"

capture "$work/one" $favour "$workload" --seconds 1
mkdir "$work/fleet"
: >"$work/expected"
i=0
while [ $i -lt 100 ]; do
	host=$(printf 'host-%03d' $i)
	kept=$("$rehost" "$capture_file" "$work/fleet/perfrec-$host.prf" "$host" $((1 + i % 7))) ||
		fail "rehost $host failed"
	printf '%s\t%s\n' "$host" "$kept" >>"$work/expected"
	i=$((i + 1))
done

# ---- every host its own row, with its own samples ------------------------
report_ok "$work/by-host" --sort host --percent-limit 0 "$work/fleet"
awk '!/^#/ && NF >= 3 { print $3 "\t" $2 }' "$work/by-host" | sort >"$work/got"
sort "$work/expected" >"$work/want"
if ! cmp -s "$work/got" "$work/want"; then
	diff "$work/want" "$work/got" | head -n 20 >&2
	fail "--sort host: the hosts' samples differ from what each copy holds"
fi
check "--sort host: 100 hosts, each with the samples of its own copy"

hosts_line=$(grep '^# hosts: ' "$work/by-host") || fail "no '# hosts:' line in the header"
case $hosts_line in
"# hosts: 100: host-000, host-001, "*", host-099") ;;
*) fail "header hosts line: $(printf '%.120s' "$hosts_line")" ;;
esac
[ "$(printf '%s\n' "$hosts_line" | tr ',' '\n' | wc -l)" -eq 100 ] ||
	fail "the header does not list 100 hosts"
report_ok "$work/json" --json --sort host "$work/fleet"
python3 - "$work/json" <<'EOF' || fail "JSON header: hosts"
import json, sys
d = json.load(open(sys.argv[1]))
hosts = d["header"]["hosts"]
assert hosts == ["host-%03d" % i for i in range(100)], hosts[:5]
assert len({e["host"] for e in d["entries"]}) == 100
EOF
check "the text and JSON headers list the 100 hosts"

# ---- --host ----------------------------------------------------------------
report_ok "$work/two" --sort host --host host-003,host-042 "$work/fleet"
awk '!/^#/ && NF >= 3 { print $3 "\t" $2 }' "$work/two" | sort >"$work/got-two"
grep -E '^host-(003|042)	' "$work/want" >"$work/want-two"
cmp -s "$work/got-two" "$work/want-two" ||
	fail "--host host-003,host-042: $(tr '\n' ' ' <"$work/got-two")"
grep -qx '# hosts: 2: host-003, host-042' "$work/two" ||
	fail "--host: the header lists $(grep '^# hosts' "$work/two")"
status=0
"$report" --host no-such-host "$work/fleet" >"$work/none" 2>"$work/none.err" || status=$?
[ $status -eq 1 ] && grep -q 'no-such-host: no capture of that host' "$work/none.err" ||
	fail "--host no-such-host: status $status, $(cat "$work/none.err")"
check "--host filters by host; an unknown name is said"

report_ok "$work/hot" --sort host,sym --percent-limit 0 "$work/fleet"
[ "$(awk '!/^#/ && $5 == "burn_hot" { print $3 }' "$work/hot" | sort -u | wc -l)" -eq 100 ] ||
	fail "--sort host,sym: burn_hot is not on every host"
check "--sort host,sym: burn_hot on each of the 100 hosts"
note PASS
