#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-push's state file decides what is sent again: each way it could
# make perfrec-push send the same captures twice, tried for real against
# tests/push-receiver.py on 127.0.0.1, with three copies of make-fixture's
# capture (a profile each):
#   - run by hand (--once) with a state directory that does not exist (no
#     unit's StateDirectory=): the directory is made 0700, every capture
#     sent once, and a second run sends nothing (before: one capture sent,
#     "cannot be written", exit 1, and the same one again at every run);
#   - a state on a read-only file system (a bind mount in a mount
#     namespace of the test's own), empty or not: nothing sent, one line
#     saying so, exit 1, run after run;
#   - a state cut in a line, cut after a line, with a NUL, with CRLF line
#     ends or with a byte changed: refused with one line naming the file
#     and the cause, exit 1, nothing sent again (before: read in part, and
#     1 to 3 captures sent again with exit 0);
#   - a state of the versions before (format 1, no checksum), intact:
#     nothing sent again, and the file rewritten with its checksum;
#   - a state directory that is a symbolic link or another user's: refused,
#     nothing sent.
test_name=test-push-state-file
. "${top_srcdir:-$(dirname "$0")/..}/tests/push-lib.sh"
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody"

# A read-only file system: a bind mount made read-only in a mount
# namespace of its own, which goes with the command.
mkdir "$work/ro"
read_only() {	# DIR CMD [ARGS...]: CMD with DIR read-only
	ro_dir=$1
	shift
	unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"' \
		sh "$ro_dir" "$@"
}
read_only "$work/ro" sh -c '! touch "$1/probe" 2>/dev/null' sh "$work/ro" 2>/dev/null ||
	skip "no read-only bind mount in a mount namespace here"

mkdir "$work/captures"
"$make_fixture" "$work/fixture.prf" || fail "make-fixture: status $?"
for n in 1 2 3; do
	cp "$work/fixture.prf" "$work/captures/perfrec-fixture-20231114T221320Z-000$n.prf"
done

# ---- the receiver ---------------------------------------------------------------
mkdir "$work/rx"
start_receiver "$work/rx"
sent() {
	ls "$work/rx" | grep -c '\.json$' || true
}

# push STATE [PREFIX...]: PREFIX perfrec-push --once --state STATE; its
# status in $status, what it said in $work/push.said (but the warning
# that make-fixture's capture is old).
push() {
	state=$1
	shift
	status=0
	"$@" timeout 30 "$push" --url "http://127.0.0.1:$port" --once --state "$state" \
		"$work/captures" 2>"$work/push.err" || status=$?
	grep -v 'older than' "$work/push.err" >"$work/push.said" || true
}

# ---- a state directory that is not there ------------------------------------------
check "--once by hand without the state directory: made 0700, every capture sent once"
push "$work/fresh/state"
[ "$status" -eq 0 ] || fail "status $status: $(cat "$work/push.said")"
[ "$(stat -c %a "$work/fresh")" = 700 ] || fail "the state directory is mode $(stat -c %a "$work/fresh")"
[ "$(sent)" -eq 3 ] || fail "$(sent) profiles sent of 3"
push "$work/fresh/state"
[ "$status" -eq 0 ] && [ "$(sent)" -eq 3 ] || fail "a second run: status $status, $(sent) profiles sent in all"
cp "$work/fresh/state" "$work/good-state"

# ---- a read-only state ----------------------------------------------------------------
check "a state on a read-only file system: nothing sent, said, exit 1, run after run"
for run in 1 2; do
	push "$work/ro/state" read_only "$work/ro"
	[ "$status" -eq 1 ] || fail "run $run: status $status: $(cat "$work/push.said")"
	grep -q "^perfrec-push: $work/ro/state: cannot be written: Read-only file system; nothing is sent" \
		"$work/push.said" || fail "run $run: $(cat "$work/push.said")"
	[ "$(wc -l <"$work/push.said")" -eq 1 ] || fail "run $run: more than one line: $(cat "$work/push.said")"
	[ "$(sent)" -eq 3 ] || fail "run $run: $(($(sent) - 3)) profiles sent from a state that cannot be written"
done
# A state that holds captures 1 and 2 (sent from a directory of those
# two), read-only: capture 3 is not sent either.
mkdir "$work/two" "$work/ro2"
cp "$work/captures/"*-0001.prf "$work/captures/"*-0002.prf "$work/two/"
timeout 30 "$push" --url "http://127.0.0.1:$port" --once --state "$work/ro2/state" "$work/two" \
	2>"$work/push.err" || fail "sending two captures: status $?"
before=$(sent)
push "$work/ro2/state" read_only "$work/ro2"
[ "$status" -eq 1 ] && [ "$(sent)" -eq "$before" ] ||
	fail "a read-only state of two captures: status $status, $(($(sent) - before)) sent"

# ---- a damaged state --------------------------------------------------------------------
# damage HOW IN OUT: the state IN damaged as HOW, into OUT.  Line by line,
# so that it does the same to a file of either format.
damage() {
	python3 - "$@" <<'EOF'
import sys
how, text = sys.argv[1], open(sys.argv[2], 'rb').read()
lines = text.split(b'\n')[:-1]
last_done = max(i for i, l in enumerate(lines) if l.startswith(b'done'))
if how == 'cut-in-a-line':
    # The file ends in the middle of its last "done" line.
    text = b''.join(l + b'\n' for l in lines[:last_done]) + lines[last_done][:12]
elif how == 'cut-after-a-line':
    text = b''.join(l + b'\n' for l in lines[:2])
elif how == 'nul':
    line = lines[2]
    lines[2] = line[:len(line) // 2] + b'\0' + line[len(line) // 2 + 1:]
    text = b''.join(l + b'\n' for l in lines)
elif how == 'crlf':
    text = text.replace(b'\n', b'\r\n')
elif how == 'altered':
    text = text.replace(b'0002.prf', b'0007.prf')
open(sys.argv[3], 'wb').write(text)
EOF
}
for how in cut-in-a-line:'its last line (4) is cut' cut-after-a-line:'cut after line 2 (no end line)' \
	nul:'line 3 holds a NUL byte' crlf:'line 1 holds a carriage return' \
	altered:'its checksum does not match its lines'; do
	cause=${how#*:}
	how=${how%%:*}
	check "a state $how: refused naming the file and the cause, nothing sent again"
	mkdir -p "$work/$how"
	damage "$how" "$work/good-state" "$work/$how/state"
	chmod 600 "$work/$how/state"
	cp "$work/$how/state" "$work/$how/as-it-was"
	before=$(sent)
	push "$work/$how/state"
	[ "$status" -eq 1 ] || fail "status $status: $(cat "$work/push.said")"
	[ "$(sent)" -eq "$before" ] || fail "$(($(sent) - before)) profiles sent again"
	grep -qF "perfrec-push: $work/$how/state: $cause" "$work/push.said" &&
		grep -qF 'nothing is sent (remove the file to send every capture again)' "$work/push.said" ||
		fail "not said as \"$cause\": $(cat "$work/push.said")"
	[ "$(wc -l <"$work/push.said")" -eq 1 ] || fail "more than one line: $(cat "$work/push.said")"
	cmp -s "$work/$how/state" "$work/$how/as-it-was" || fail "the damaged state was rewritten"
done

# ---- a state of the versions before ----------------------------------------------------
check "a state of format 1 (no checksum), intact: nothing sent again, rewritten with its checksum"
mkdir "$work/old"
{
	echo 'perfrec-push state 1'
	for n in 1 2 3; do
		printf 'done\tperfrec-fixture-20231114T221320Z-000%s.prf\n' "$n"
	done
} >"$work/old/state"
chmod 600 "$work/old/state"
before=$(sent)
push "$work/old/state"
[ "$status" -eq 0 ] && [ "$(sent)" -eq "$before" ] ||
	fail "an old state: status $status, $(($(sent) - before)) sent: $(cat "$work/push.said")"
[ "$(head -n 1 "$work/old/state")" = 'perfrec-push state 2' ] &&
	tail -n 1 "$work/old/state" | grep -q "^end$(printf '\t')[0-9a-f]\{8\}\$" &&
	cmp -s "$work/old/state" "$work/good-state" ||
	fail "the old state is not rewritten as the current one: $(cat "$work/old/state")"

# ---- a state that is not ours ------------------------------------------------------------
check "a state directory that is a symbolic link, or another user's: refused, nothing sent"
mkdir "$work/real" "$work/theirs"
ln -s real "$work/link"
chown nobody "$work/theirs"
before=$(sent)
push "$work/link/state"
[ "$status" -eq 1 ] && grep -q "its directory $work/link is a symbolic link" "$work/push.said" ||
	fail "a symlinked directory: status $status: $(cat "$work/push.said")"
push "$work/theirs/state"
[ "$status" -eq 1 ] && grep -q "its directory $work/theirs is owned by uid $(id -u nobody)" "$work/push.said" ||
	fail "another user's directory: status $status: $(cat "$work/push.said")"
[ "$(sent)" -eq "$before" ] || fail "$(($(sent) - before)) profiles sent through a state not ours"
[ ! -e "$work/real/state" ] && [ ! -e "$work/theirs/state" ] || fail "a state written where it must not be"
note PASS
