#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd's log carries paths that others chose.  The user nobody maps a
# jitdump (jit-PID.dump, not one: perfrecd names it in a notice) from a
# directory whose name holds ESC, BEL, CR, BS, a lone 0x9b (C1 CSI to a
# terminal not in UTF-8) and "\n<0>forged", under directories long
# enough that the line is cut at perfrecd's line buffer.  Before: the
# terminal got the raw bytes, and in journal mode (JOURNAL_STREAM set,
# each line "<N>message") the newline began a line of nobody's at
# priority 0, emergency; the cut line had no newline, so the next line
# was glued to it.  Now, in journal mode and at a terminal alike:
#  - no control byte (C0 but the newline, DEL, C1) nor invalid UTF-8;
#  - every line starts with perfrecd's own prefix: "<N>" with a priority
#    perfrecd uses (3 to 7), or "perfrecd: "; none with "<0>";
#  - the name is there, escaped ("?<0>forged"): the attack was tried;
#  - no line holds another line's prefix: the cut line ended in one
#    newline.
test_name=test-daemon-log
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

needs_nobody
chmod 755 "$work"
mkdir "$work/nobody"
chown nobody "$work/nobody"

# The attacker: a directory of that name, 6 levels of 200 bytes below it,
# and there a jitdump of zeros, mapped executable as runtimes announce one.
cat >"$work/evil-jitdump.py" <<'EOF'
import mmap, os, sys, time
path = os.path.join(sys.argv[1].encode(), b"\x1b[31mred\x07bell\rcr\x08bs\x9bcsi\n<0>forged")
for level in range(6):
    path = os.path.join(path, b"%d" % level + b"a" * 199)
os.makedirs(path)
path = os.path.join(path, b"jit-%d.dump" % os.getpid())
fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
os.write(fd, b"\0" * 4096)
dump = mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
time.sleep(1.5)
EOF
chmod 644 "$work/evil-jitdump.py"

# The checks on perfrecd's stderr, in bytes: FILE PREFIX-PATTERN.
cat >"$work/check-log.py" <<'EOF'
import re, sys
data = open(sys.argv[1], "rb").read()
prefix = re.compile(sys.argv[2].encode())
problems = []
if not data.endswith(b"\n"):
    problems.append("the log does not end in a newline")
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    problems.append("invalid UTF-8 at byte %d" % e.start)
    text = data.decode("utf-8", "replace")
for c in sorted(set(text)):
    if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0):
        problems.append("a raw control character U+%04X" % ord(c))
for number, line in enumerate(data.split(b"\n")[:-1], 1):
    if not prefix.match(line):
        problems.append("line %d does not start with perfrecd's prefix: %r" % (number, line[:80]))
    if line.startswith(b"<0>"):
        problems.append("line %d is at priority 0 (emergency): %r" % (number, line[:80]))
    glued = re.search(rb"[^?](<[0-7]>|perfrecd: )", line[1:])
    if glued:
        problems.append("line %d holds another line's prefix at %d: %r" % (number, glued.start(), line[:80]))
if b"?<0>forged" not in data:
    problems.append("the jitdump's path is not in the log, escaped: the attack was not tried")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF

# run NAME PREFIX-PATTERN [ENV...]: perfrecd follows the attacker until it
# exits, its stderr in $work/NAME.err, which the checks read.
run() {
	name=$1
	pattern=$2
	shift 2
	status=0
	env "$@" timeout 60 "$perfrecd" --config /dev/null -F 99 --flush-interval 100ms -o "$work/$name" -- \
		setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
		"$python" "$work/evil-jitdump.py" "$work/nobody/$name" 2>"$work/$name.err" || status=$?
	cp "$work/$name.err" "$work/daemon.err"
	[ "$status" -eq 0 ] || fail "perfrecd: status $status"
	"$python" "$work/check-log.py" "$work/$name.err" "$pattern" >"$work/problems" ||
		fail "$(cat "$work/problems")"
	note "  $(grep -a 'forged' "$work/$name.err" | cut -c1-120 | head -n 1)..."
}

mkdir "$work/nobody/journal" "$work/nobody/terminal"
chown nobody "$work/nobody/journal" "$work/nobody/terminal"

check "journal mode: one record a line, every line at a priority perfrecd chose, no control byte"
run journal '<[3-7]>' JOURNAL_STREAM=8:4242

check "at a terminal: every line starts with 'perfrecd: ', no control byte"
run terminal 'perfrecd: ' -u JOURNAL_STREAM
note "PASS"
