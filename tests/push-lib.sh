# SPDX-License-Identifier: GPL-2.0-or-later
# What the perfrec-push scripts share, after report-lib.sh (lib.sh, and a
# sanitizer's report exits 86, not perfrec-push's expected 1).
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

push=$top_builddir/perfrec-push
make_fixture=$top_builddir/tests/make-fixture
needs_built "$push" "$make_fixture"
command -v python3 >/dev/null 2>&1 || skip "no python3"

# start_receiver DIR: tests/push-receiver.py on 127.0.0.1, answering as
# DIR/mode says, stopped at exit; its port in $port.
start_receiver() {
	python3 "$top_srcdir/tests/push-receiver.py" "$1" 2>"$work/receiver.err" &
	receiver_pid=$!
	at_exit "kill $receiver_pid 2>/dev/null; wait $receiver_pid 2>/dev/null"
	wait_for "[ -s '$1/port' ]" 10 || fail "the receiver did not start"
	port=$(cat "$1/port")
}
