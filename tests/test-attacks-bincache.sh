#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd's binary cache (--binary-cache) copies the binaries nobody
# could find later: deleted while mapped, or in another mount namespace.
# Any user can make such binaries, of any size, with build-ids of their
# own (tests/jit-flood.py's "binary").
#  - Six such binaries of 24 MiB, under --binary-cache 128M, evicted all
#    the binaries kept before: each copy made room for itself, least
#    recently seen first.  Now one user's binaries take a quarter of the
#    cap at most, and as much copied within a capture file: the binaries
#    kept before stay, and one line says why the user's others are not.
test_name=test-attacks-bincache
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

needs_nobody
# The attacker: a uid of its own, in nobody's group.
fresh_uid
chmod 755 "$work"
cp "$top_srcdir/tests/jit-flood.py" "$work/jit-flood.py"
chmod 644 "$work/jit-flood.py"
mkdir "$work/attacker"
chown "$attacker" "$work/attacker"
flood_pid=
at_exit 'touch "$work/attacker/stop"; [ -z "$flood_pid" ] || wait "$flood_pid"'

check "a user's six 24 MiB binaries under --binary-cache 128M: the binaries kept before stay"
# Three binaries an earlier run kept, seen an hour ago: the first to go.
mkdir -m 700 "$work/out" "$work/out/.build-id"
kept_before=
for xx in a1 b2 c3; do
	mkdir -m 700 "$work/out/.build-id/$xx"
	entry=$work/out/.build-id/$xx/0123456789abcdef0123456789abcdef012345
	head -c $((16 << 20)) /dev/urandom >"$entry"
	touch -d '1 hour ago' "$entry"
	kept_before="$kept_before $entry"
done
start_daemon "$work/out" --config /dev/null -d 6 --binary-cache 128M
setpriv --reuid="$attacker" --regid="$nobody_group" --clear-groups \
	"$python" "$work/jit-flood.py" --procs 6 --dir "$work/attacker" \
	--ready "$work/attacker/ready" --stop "$work/attacker/stop" binary $((24 << 20)) &
flood_pid=$!
wait_for '[ -e "$work/attacker/ready" ] || ! kill -0 $flood_pid 2>/dev/null' 60 ||
	fail "jit-flood.py did not set up in 60 s"
[ -e "$work/attacker/ready" ] || fail "jit-flood.py failed"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
touch "$work/attacker/stop"
wait "$flood_pid" || :
flood_pid=
theirs=$(find "$work/out/.build-id" -type f -size $((24 << 10))k | wc -l)
note "  $theirs of the user's binaries kept; $(du -sm "$work/out/.build-id" | cut -f1) MiB in the cache"
for entry in $kept_before; do
	[ -e "$entry" ] || fail "$entry, kept before, was removed for the user's binaries"
done
[ "$theirs" -ge 1 ] || fail "none of the user's binaries was kept: the check proves nothing"
[ "$theirs" -le 1 ] || fail "$theirs of the user's 24 MiB binaries kept, over a quarter of 128M"
said=$(grep -c "binary cache: uid $attacker: not keeping its binary" "$work/daemon.err" || :)
[ "$said" -eq 1 ] || fail "the user's share said $said times: $(cat "$work/daemon.err")"
note "  $(grep "binary cache: uid $attacker" "$work/daemon.err")"
note "PASS"
