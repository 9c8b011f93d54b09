#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --format=perf.data read by KDAB hotspot (Debian's package), which parses
# perf.data with its own reader, perfparser, not perf's code.  A capture of
# tests/workload (burn_hot 60 % of its time) written as perf.data:
#
#   - perfparser reads it whole (--print-stats: as many samples as
#     perfrec-report wrote) and converts it with status 0, saying nothing
#     that is an error; what it says of perf's own files too is allowed:
#     "feature not properly read" of sections it has no reader for
#     (SAMPLE_TIME, CLOCKID: it says so of perf record's files as well)
#     and its notes on buffering.  The conversion names burn_hot, resolved
#     with the MMAP2s written;
#   - report-hostile's captures (chains with -1, guest contexts, markers
#     everywhere) are converted without an error either;
#   - hotspot itself opens it under Xvfb and is still running 10 s later;
#     its window is grabbed (python3-pil's XCB support) into a PNG that is
#     not blank.  PERFREC_SCREENSHOT=FILE keeps it, to look at.
#
# Skips (77) without hotspot's perfparser; the GUI part skips alone
# without hotspot, xvfb-run or python3-pil.
test_name=test-report-perfdata-hotspot
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

perfparser=
for p in /usr/lib/*/libexec/hotspot-perfparser /usr/libexec/hotspot-perfparser; do
	[ -x "$p" ] && perfparser=$p && break
done
[ -n "$perfparser" ] || skip "no hotspot-perfparser (apt-get install hotspot)"

check "a capture of the workload, written as perf.data"
capture "$work/cap" "$workload" --seconds 2
data=$work/w.data
report_ok "$work/write" --format=perf.data -o "$data" "$work/cap"
report_ok "$work/flat" "$work/cap"
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/flat")

check "perfparser reads every sample and converts the file without an error"
"$perfparser" --input "$data" --kallsyms "$data.kallsyms" --print-stats >"$work/stats" 2>"$work/stats.err" ||
	fail "perfparser --print-stats: status $?: $(head -n 5 "$work/stats.err")"
parsed=$(sed -n 's/^samples: \([0-9]*\)$/\1/p' "$work/stats")
note "perfparser: ${parsed:-no} samples, perfrec-report $samples"
[ "${parsed:-0}" -eq "$samples" ] || fail "perfparser read ${parsed:-no} samples of $samples: $(cat "$work/stats")"
status=0
"$perfparser" --input "$data" --kallsyms "$data.kallsyms" --output "$work/w.b2qt" 2>"$work/parse.err" ||
	status=$?
[ "$status" -eq 0 ] || fail "perfparser: status $status: $(head -n 5 "$work/parse.err")"
grep -v -e '^feature not properly read PerfHeader::\(SAMPLE_TIME\|CLOCKID\) ' \
	-e '^FINISHED_ROUND detected' -e '^Linux version .* detected' \
	"$work/parse.err" >"$work/parse.said" || true
[ ! -s "$work/parse.said" ] || fail "perfparser said: $(head -n 5 "$work/parse.said")"
grep -aq burn_hot "$work/w.b2qt" || fail "perfparser's output names no burn_hot"

# What perf takes silently (a chain with a value past PERF_CONTEXT_MAX
# that is no host context, dropped whole) perfparser fails on: a user
# stack's garbage in one sample of a machine's capture did it in CI.
check "report-hostile's captures (-1 and guest contexts in chains): converted without an error"
"$top_builddir/tests/report-hostile" "$work/hostile" >/dev/null || fail "report-hostile failed"
for f in "$work"/hostile/*.prf; do
	h=$work/h.data
	rm -rf "$h" "$h.kallsyms" "$h.jit"
	report_ok "$work/h.out" -q --format=perf.data -o "$h" "$f"
	status=0
	"$perfparser" --input "$h" --output "$work/h.b2qt" 2>"$work/h.err" || status=$?
	[ "$status" -eq 0 ] || fail "$(basename "$f"): perfparser: status $status: $(head -n 5 "$work/h.err")"
	# Their programs are not on this host: that note is expected.
	grep -v -e '^feature not properly read PerfHeader::\(SAMPLE_TIME\|CLOCKID\) ' \
		-e '^FINISHED_ROUND detected' -e '^PerfUnwind::MissingElfFile: ' \
		"$work/h.err" >"$work/h.said" || true
	[ ! -s "$work/h.said" ] || fail "$(basename "$f"): perfparser said: $(head -n 5 "$work/h.said")"
done

python=/usr/bin/python3
if ! command -v hotspot >/dev/null 2>&1 || ! command -v xvfb-run >/dev/null 2>&1 ||
	! "$python" -c 'import PIL.features, sys; sys.exit(not PIL.features.check("xcb"))' 2>/dev/null; then
	note "SKIP hotspot under Xvfb: needs hotspot, xvfb-run and python3-pil with XCB"
	note "ok"
	exit 0
fi

check "hotspot opens it under Xvfb, still running 10 s on; its window grabbed"
cat >"$work/gui.sh" <<EOF
#!/bin/sh
hotspot --kallsyms "$data.kallsyms" "$data" >"$work/hotspot.log" 2>&1 &
gui=\$!
sleep 10
kill -0 \$gui 2>/dev/null || { echo "hotspot exited"; exit 1; }
$python -c '
import os, sys
from PIL import ImageGrab
image = ImageGrab.grab(xdisplay=os.environ["DISPLAY"])
image.save(sys.argv[1])
sys.exit(len(image.getcolors(1 << 24) or [0, 0]) < 8)
' "$work/hotspot.png" || { echo "the screen is blank"; kill \$gui; exit 1; }
kill \$gui
EOF
chmod +x "$work/gui.sh"
XDG_RUNTIME_DIR=$work timeout 120 xvfb-run -a -s "-screen 0 1400x900x24" "$work/gui.sh" >"$work/gui.out" 2>&1 ||
	fail "hotspot under Xvfb: $(cat "$work/gui.out"; tail -n 5 "$work/hotspot.log")"
if [ -n "${PERFREC_SCREENSHOT:-}" ]; then
	cp "$work/hotspot.png" "$PERFREC_SCREENSHOT"
	note "the screenshot: $PERFREC_SCREENSHOT"
fi
note "ok"
