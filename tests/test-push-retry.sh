#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What a server's answer may ask of perfrec-push, against
# tests/push-receiver.py on 127.0.0.1 and make-fixture's capture (one
# profile), each with --once (3 tries), the gaps between the tries taken
# from the receiver's clock:
#   - 429 with "Retry-After: 2": each try at least 2 s after the last
#     (before: 0.5 to 1 s, then 1 to 2 s: the backoff alone), not much more;
#   - 503 with Retry-After as an HTTP-date 3 s ahead: the same, by date;
#   - a Retry-After longer than --max-backoff (a day, 30 digits, the year
#     9999): the wait is --max-backoff, and the log says the server's was
#     cut to it;
#   - "Retry-After: 0": the backoff still (no storm of requests);
#   - an 8 MiB response header, in one line, in 100-byte lines or in its
#     status line: said as "response header too large" (before: "Out of
#     memory", or libcurl's own words).
# No test waits as long as the server asks: the waits asked are short,
# or cut by a short --max-backoff.
test_name=test-push-retry
needs_root=no
. "${top_srcdir:-$(dirname "$0")/..}/tests/push-lib.sh"

mkdir "$work/captures"
"$make_fixture" "$work/captures/perfrec-fixture-20231114T221320Z-0001.prf" ||
	fail "make-fixture: status $?"

mkdir "$work/rx"
start_receiver "$work/rx"

# answered MODE MAX-BACKOFF: perfrec-push --once against a receiver
# answering as MODE says (tests/push-receiver.py), each time in a state of
# its own; its status in $status, what it said in $work/push.said, and the
# gaps between its requests, in seconds, in $gaps.
run=0
answered() {
	run=$((run + 1))
	rm -f "$work/rx/"*.json
	echo "$1" >"$work/rx/mode"
	status=0
	timeout 60 "$push" --url "http://127.0.0.1:$port" --once --max-backoff "$2" \
		--state "$work/state$run/state" "$work/captures" 2>"$work/push.err" || status=$?
	grep -v 'older than' "$work/push.err" >"$work/push.said" || true
	gaps=$(python3 - "$work/rx" <<'EOF'
import glob, json, sys
times = sorted(json.load(open(p))["time"] for p in glob.glob(sys.argv[1] + "/*.json"))
print(" ".join("%.2f" % (b - a) for a, b in zip(times, times[1:])))
EOF
)
	note "$1, --max-backoff $2: status $status, gaps $gaps s"
	[ "$status" -eq 1 ] || fail "$1: status $status: $(cat "$work/push.said")"
	[ "$(echo "$gaps" | wc -w)" -eq 2 ] || fail "$1: not 3 tries (gaps: $gaps)"
}
# gaps_within LOW HIGH: every gap from LOW to HIGH seconds.
gaps_within() {
	for gap in $gaps; do
		awk -v g="$gap" -v lo="$1" -v hi="$2" 'BEGIN { exit !(g >= lo && g <= hi) }' ||
			fail "$mode: a gap of $gap s, not from $1 to $2 s: $(cat "$work/push.said")"
	done
}

check "429 with Retry-After: 2: each try 2 s after the last"
mode='429 2'
answered "$mode" 10
gaps_within 1.9 3.5
grep -q 'HTTP 429: slow down; trying again in 2.0 s (the server.s Retry-After)' "$work/push.said" ||
	fail "the Retry-After is not said: $(cat "$work/push.said")"

check "503 with Retry-After as an HTTP-date 3 s ahead: each try 2 to 3 s after the last"
mode='503 +3'
answered "$mode" 10
# The date is whole seconds, and so is the clock it is taken from.
gaps_within 1.9 4.5
grep -q 'HTTP 503: down for maintenance; trying again in [23].0 s (the server.s Retry-After)' \
	"$work/push.said" || fail "the Retry-After is not said: $(cat "$work/push.said")"

for mode in '429 86400' '503 999999999999999999999999999999' '429 Fri, 31 Dec 9999 23:59:59 GMT'; do
	check "$mode: cut to --max-backoff, and said"
	answered "$mode" 1
	gaps_within 0.9 2.5
	grep -q 'trying again in 1.0 s (the server.s Retry-After, [0-9]* s, is longer than --max-backoff)' \
		"$work/push.said" || fail "$mode: the cut is not said: $(cat "$work/push.said")"
done

check "Retry-After: 0 does not make a storm: the backoff still"
mode='429 0'
answered "$mode" 4
gaps_within 0.45 4.5

for mode in big-header many-headers big-status; do
	check "$mode (8 MiB): said as a response header too large"
	answered "$mode" 1
	grep -q 'response header too large' "$work/push.said" ||
		fail "$mode: $(cat "$work/push.said")"
	! grep -qi 'out of memory' "$work/push.said" || fail "$mode: $(cat "$work/push.said")"
done
note PASS
