#!/bin/bash
# perfrec-push as its service runs it, following perfrecd's directory
# (run as root): perfrecd at its defaults but --rotate-age 1m, while
# tests/workload keeps both CPUs busy; perfrec-push (not --once) sends each
# completed file to tests/push-receiver.py on 127.0.0.1.  Its CPU ticks
# (utime + stime) are read 90 s after it starts and 360 s later: the
# difference is its steady cost, start-up (the symbolizer's first files)
# left out.  Per host-hour: ticks / CLK_TCK x 3600 / 360.
#
#   bench/push-follow.sh [BUILD_DIR]
set -u
B=${1:-$(cd "$(dirname "$0")/.." && pwd)/_build}
[ "$(id -u)" -eq 0 ] || { echo "push-follow.sh: run as root" >&2; exit 1; }
make -C "$B" perfrecd perfrec-push tests/workload >/dev/null || exit 1
w=$(mktemp -d /tmp/bench-push-follow.XXXXXX); mkdir -p $w/rx $w/out
python3 "$(dirname "$0")/../tests/push-receiver.py" $w/rx 2>/dev/null & rx=$!
sleep 1; port=$(cat $w/rx/port)
$B/perfrecd --config /dev/null --rotate-age 1m -o $w/out 2>$w/d.err & d=$!
$B/tests/workload --threads 2 --seconds 480 >/dev/null 2>&1 & wl=$!
sleep 2
$B/perfrec-push --url http://127.0.0.1:$port --state $w/state $w/out 2>$w/p.err & p=$!
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
sleep 90; t1=$(ticks $p); s1=$(date +%s)
sleep 360; t2=$(ticks $p); s2=$(date +%s)
echo "push CPU ticks at +90 s: $t1, at +450 s: $t2 (CLK_TCK $(getconf CLK_TCK)); over $((s2-s1)) s: $((t2-t1)) ticks"
echo "profiles received: $(ls $w/rx | grep -vc port)"
kill $p $d $wl $rx 2>/dev/null; wait 2>/dev/null
tail -3 $w/p.err
rm -rf "$w"
