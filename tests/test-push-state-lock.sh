#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One perfrec-push a state file.  perfrec-push(8) suggests running
# `perfrec-push --url URL --once DIR` by hand with the unit's own state;
# when the unit's perfrec-push is retrying (here: the server answered
# 500) and the server comes back as the one run by hand starts, each
# loaded the state before the other marked anything.  Before: both sent
# every capture (6 profiles taken for 3), and each renamed its own state
# over the other's.  Now the one by hand is refused at once, "in use by
# another perfrec-push (pid N)", exit 1, nothing sent; the first sends
# each capture once; and once it has stopped, a run by hand goes ahead
# (the lock file left behind holds nothing back).
test_name=test-push-state-lock
. "${top_srcdir:-$(dirname "$0")/..}/tests/push-lib.sh"

mkdir "$work/captures" "$work/rx"
"$make_fixture" "$work/fixture.prf" || fail "make-fixture: status $?"
for n in 1 2 3; do
	cp "$work/fixture.prf" "$work/captures/perfrec-fixture-20231114T221320Z-000$n.prf"
done
echo 500 >"$work/rx/mode"
start_receiver "$work/rx"
first_pid=
at_exit '[ -z "$first_pid" ] || kill "$first_pid" 2>/dev/null'
url=http://127.0.0.1:$port
state=$work/state/state

# Profiles the receiver took (200), of all it was sent.
taken() {
	cat "$work/rx/"*.json 2>/dev/null | grep -o '"status": 200' | wc -l
}

check "the unit's perfrec-push retrying, one by hand on its state as the server comes back: refused"
"$push" --url "$url" --state "$state" "$work/captures" 2>"$work/first.err" &
first_pid=$!
wait_for 'ls "$work/rx/" | grep -q "\.json$"' 20 || fail "the first perfrec-push sent nothing"
echo ok >"$work/rx/mode"
status=0
timeout 30 "$push" --url "$url" --once --state "$state" "$work/captures" \
	2>"$work/second.err" || status=$?
wait_for '[ "$(grep -c "^done" "$state" 2>/dev/null)" -eq 3 ]' 20 ||
	fail "the first perfrec-push did not send the 3 captures: $(cat "$work/first.err")"
sleep 1
said=$(grep -v 'older than' "$work/second.err" || true)
note "  by hand: status $status: $said"
[ "$(taken)" -eq 3 ] || fail "$(taken) profiles taken for 3 captures"
[ "$status" -eq 1 ] || fail "by hand: status $status, not 1"
[ "$said" = "perfrec-push: $state: in use by another perfrec-push (pid $first_pid)" ] ||
	fail "by hand said: $said"

check "the first stopped: a run by hand goes ahead and sends nothing again"
kill -TERM "$first_pid"
wait "$first_pid" || true
first_pid=
status=0
timeout 30 "$push" --url "$url" --once --state "$state" "$work/captures" \
	2>"$work/third.err" || status=$?
[ "$status" -eq 0 ] || fail "status $status: $(cat "$work/third.err")"
[ "$(taken)" -eq 3 ] || fail "$(taken) profiles taken for 3 captures"
note PASS
