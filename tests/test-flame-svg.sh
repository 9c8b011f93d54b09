#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report --format=svg, the static flame graph:
#   - well-formed XML (xmllint --noout), for a capture of tests/workload,
#     inverted (--callee), hostile names (report-hostile --markup) and a
#     tree of 160,000 nodes (report-hostile --big);
#   - every frame is a <g class="frame"> with a <title> and a <rect>, and
#     no rect but the background stands outside one;
#   - burn_hot's frames (the topmost of each stack) are as wide, as a
#     share of the root's width, as the flat view's share of burn_hot
#     (--children's Total%: stacks through burn_hot, each counted once)
#     within 0.5 points; inverted, burn_hot is right under the process,
#     as wide as its self share within 0.5 points;
#   - hostile names: no element of theirs (script, img, b, style), their
#     literal text in the titles;
#   - every odd capture of report-hostile (8000-frame stacks, names with
#     escapes, absurd numbers, ...), in SVG and HTML: exit 0 (CI runs this
#     under ASan and UBSan too), well-formed SVG, two script elements.
test_name=test-flame-svg
needs_root=yes
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
[ -x "$hostile" ] || { echo "$test_name: $hostile not built" >&2; exit 99; }
command -v xmllint >/dev/null 2>&1 || skip "no xmllint (apt-get install libxml2-utils)"
command -v python3 >/dev/null 2>&1 || skip "no python3 (apt-get install python3)"

# svg_check FILE [NAME]: the structure; with NAME on stdout: the share of
# the width of NAME's topmost frames, the depth of its widest, the number
# of frames, and the share of NAME's frames 2 deep (right above or under
# the processes).
svg_check() {
	svg_structure "${2:-}" "$1"
}

# svg_structure NAME FILE...: svg_check's structure checks on each FILE
# (one xmllint and one python3 for all: the odd captures make a hundred),
# and with NAME, the measures of NAME in the one FILE.
svg_structure() {
	svg_name=$1
	shift
	xmllint --noout "$@" 2>"$work/xmllint.err" ||
		{ head -n 5 "$work/xmllint.err" >&2; fail "$* not well-formed XML"; }
	python3 - "$svg_name" "$@" <<'PY' || fail "$*: see above"
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
failed = False
for path in sys.argv[2:]:
    root = ET.parse(path).getroot()
    frames = [g for g in root.iter(ns + "g") if g.get("class") == "frame"]
    problems = []
    inside = set()
    for g in frames:
        if g.find(ns + "title") is None or not (g.find(ns + "title").text or "").strip():
            problems.append("a frame without a title")
        rect = g.find(ns + "rect")
        if rect is None:
            problems.append("a frame without a rect")
        else:
            inside.add(id(rect))
    for rect in root.iter(ns + "rect"):
        if id(rect) not in inside and rect.get("class") != "background":
            problems.append("a rect outside any frame")
    for tag in ("script", "img", "b", "i", "style", "foreignObject"):
        n = len(list(root.iter(ns + tag)))
        if n > (1 if tag == "style" else 0):
            problems.append("%d %s elements" % (n, tag))
    if problems:
        print(path + ": " + "; ".join(sorted(set(problems))), file=sys.stderr)
        failed = True
if failed:
    sys.exit(1)
wanted = sys.argv[1]
if wanted:
    # Rows by y; a frame's stack goes through the frames above or below
    # it that overlap it: the topmost name frames count, not the ones
    # they hold (recursion), so a sample counts once.
    def box(g):
        r = g.find(ns + "rect")
        return float(r.get("x")), float(r.get("y")), float(r.get("width"))
    def name(g):
        return g.find(ns + "title").text.split("\n")[0]
    root_frame = max(frames, key=lambda g: box(g)[2])
    rows = sorted({box(g)[1] for g in frames})
    named = [g for g in frames if name(g) in (wanted, wanted + " [kernel]")]
    width = 0.0
    second = 0.0
    depths = []
    for g in named:
        x, y, w = box(g)
        outer = [h for h in named if h is not g and box(h)[0] <= x + 1e-6 and
                 box(h)[0] + box(h)[2] >= x + w - 1e-6 and
                 abs(box(h)[1] - box(root_frame)[1]) < abs(y - box(root_frame)[1])]
        depth = round(abs(y - box(root_frame)[1]) / 16)
        if depth == 2:
            second += w
        if not outer:
            width += w
            depths.append((w, depth))
    total = box(root_frame)[2]
    print("%.2f %d %d %.2f" % (100 * width / total, max(depths)[1] if depths else -1, len(frames),
                               100 * second / total))
PY
}

check "a capture of the workload; the flat view of it"
capture "$work/capture" $favour "$workload" --seconds 3 --threads 2
report_ok "$work/flat" "$work/capture"
self=$(flat_percent "$work/flat" burn_hot workload)
report_ok "$work/children" --children "$work/capture"
total=$(flat_total "$work/children" burn_hot workload)
[ -n "$total" ] || fail "no burn_hot row in the flat view"
note "flat view: burn_hot self $self%, with callees $total%"

check "perfrec-report -o FILE.svg: well-formed, a title on every frame, burn_hot as wide as its share"
report_ok "$work/out" -o "$work/workload.svg" "$work/capture"
result=$(svg_check "$work/workload.svg" burn_hot) || exit 1
set -- $result
note "burn_hot: $1% of the width ($3 frames, $(wc -c <"$work/workload.svg") bytes); flat view: self $self%, with callees $total%"
within "$1" "$total" 0.5 || fail "burn_hot is $1% of the width, the flat view says $total% with callees"

check "--callee: inverted, burn_hot right under the process"
report_ok "$work/out" --format=svg --callee -o "$work/inverted.svg" "$work/capture"
result=$(svg_check "$work/inverted.svg" burn_hot) || exit 1
set -- $result
note "inverted: burn_hot $1% of the width, its widest frame $2 levels from the root; right under the processes $4%"
[ "$2" -eq 2 ] || fail "inverted: burn_hot's widest frame is $2 levels from the root, not 2"
within "$4" "$self" 0.5 || fail "inverted: burn_hot right under the processes is $4% of the width, its self share $self%"
within "$1" "$total" 0.5 || fail "inverted: burn_hot is $1% of the width, the flat view says $total% with callees"

check "hostile names: escaped, their text in the titles, no element of theirs"
"$hostile" --markup "$work/markup.prf" || fail "report-hostile --markup failed"
report_ok "$work/out" --format=svg -o "$work/markup.svg" "$work/markup.prf"
svg_check "$work/markup.svg" >/dev/null || exit 1
python3 - "$work/markup.svg" <<'PY' || fail "the hostile names are not shown as text"
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text or "" for t in ET.parse(sys.argv[1]).getroot().iter(ns + "title")]
for want in ("</script><script>alert(1)</script>", "<img/src=x/onerror=alert(2)>",
             "a&b<c>\"d'e&amp;", "]]><!--x-->", "bad\ufffd\ufffdutf8"):
    if not any(want in t for t in titles):
        print("no title holds %r" % want, file=sys.stderr)
        sys.exit(1)
PY
grep -q '<b>host' "$work/markup.svg" && fail "the host name's markup is in the SVG as markup"

check "every odd capture of report-hostile, as SVG and HTML: exit 0, well-formed, no markup of theirs"
"$hostile" "$work/odd" || fail "report-hostile failed"
mkdir "$work/odd-svg"
n=0
for file in "$work/odd"/*.prf; do
	for options in "" "--callee" "--lines --no-inline" "--percent-limit 1"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		report_ok "$work/odd-svg/$n.svg" --format=svg $options "$file"
		echo "$n.svg: $file --format=svg $options" >>"$work/odd-svg/index"
		# shellcheck disable=SC2086
		report_ok "$work/odd.html" --format=html $options "$file"
		scripts=$(grep -o -i '<script' "$work/odd.html" | wc -l)
		closes=$(grep -o -i '</script' "$work/odd.html" | wc -l)
		[ "$scripts" -eq 2 ] && [ "$closes" -eq 2 ] ||
			fail "$file --format=html $options: $scripts '<script' and $closes '</script', expected 2 and 2"
	done
done
svg_structure "" "$work/odd-svg"/*.svg >/dev/null ||
	{ cat "$work/odd-svg/index" >&2; fail "the odd captures as SVG: see above (which file is which)"; }
note "$(ls "$work/odd"/*.prf | wc -l) files, 4 option sets each"

check "a tree of 160,000 nodes: narrow frames left out, the file stays small"
"$hostile" --big "$work/big.prf" || fail "report-hostile --big failed"
report_ok "$work/out" -o "$work/big.svg" "$work/big.prf"
result=$(svg_check "$work/big.svg" fn_0000) || exit 1
set -- $result
note "big tree: $3 frames, $(wc -c <"$work/big.svg") bytes"
[ "$(wc -c <"$work/big.svg")" -lt 20000000 ] || fail "the SVG of the big tree is over 20 MB"
note "PASS"
