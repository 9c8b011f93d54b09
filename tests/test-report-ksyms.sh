#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kernel symbols as hit (perfrecd --kernel-symbols=hit, the default): a
# capture of kernel-heavy work (page faults of tests/workload
# --touch-pages, dd through read_zero and the RNG) carries the symbols its
# samples hit and no KALLSYMS.  Read off-host (in a mount namespace where
# /proc/kallsyms is an empty file), its samples view names every kernel
# frame exactly as the same capture does when an --kernel-symbols=all
# capture of this host (a donor, which carries the whole /proc/kallsyms
# and so names the kernel for every file of the host) is read with it:
# the same name and offset for every frame of every sample.  Each file
# of a capture that rotates every second stands alone the same way (the
# symbols are written again in each file), and perfrec-dump's
# KERNEL_SYMBOL lines are lines of /proc/kallsyms.
test_name=test-report-ksyms
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

[ -r /proc/kallsyms ] || skip "no /proc/kallsyms"
awk '$1 ~ /^ffffffff/ && $1 != "ffffffff00000000" && tolower($2) ~ /^[tw]$/ { found = 1; exit } END { exit !found }' /proc/kallsyms ||
	skip "/proc/kallsyms shows no kernel text addresses (kptr_restrict?)"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1)"
unshare -m true 2>/dev/null || skip "unshare -m is not allowed here"

check "perfrecd (kernel symbols as hit) captures page faults and reads of /dev/zero and /dev/urandom"
capture "$work/hit" sh -c "$workload --seconds 2 --touch-pages >/dev/null; dd if=/dev/urandom of=/dev/null bs=64k count=2000 2>/dev/null; dd if=/dev/zero of=/dev/null bs=1M count=3000 2>/dev/null"
hit_file=$capture_file
# Status 1 is a damaged file: MMAP2 records of the kernel's that do not
# decode while another tool's event asks for build-ids (Linux 6.18, see
# build_attr() in daemon/setup.c) are no concern here.
status=0
"$dump" --summary "$hit_file" >"$work/hit.summary" || status=$?
[ "$status" -le 1 ] || fail "perfrec-dump --summary: status $status"
grep -q '^  KALLSYMS:' "$work/hit.summary" && fail "the capture carries a KALLSYMS with --kernel-symbols=hit"
symbols=$(sed -n 's/^  KERNEL_SYMBOL: *\([0-9]*\)$/\1/p' "$work/hit.summary")
note "${symbols:-0} kernel symbols recorded, $(wc -c <"$hit_file") bytes"
[ "${symbols:-0}" -ge 20 ] || fail "only ${symbols:-0} KERNEL_SYMBOL records"

check "a --kernel-symbols=all capture of this host carries the whole kallsyms"
"$perfrecd" -d 120 -F 999 --kernel-symbols=all -o "$work/all" -- sleep 0.2 \
	>/dev/null 2>"$work/daemon.err" || fail "perfrecd --kernel-symbols=all: status $?"
status=0
"$dump" --summary "$work/all"/*.prf >"$work/all.summary" || status=$?
[ "$status" -le 1 ] || fail "perfrec-dump --summary: status $status"
grep -q '^  KALLSYMS: *1$' "$work/all.summary" || fail "no KALLSYMS in the --kernel-symbols=all capture"
grep -q '^  KERNEL_SYMBOL:' "$work/all.summary" && fail "KERNEL_SYMBOL records with --kernel-symbols=all"

# without_bpf A B: samples views A and B of one capture, each without the
# samples that either names a BPF program or trampoline in.  Their
# symbols live as long as the program (another test's perfrecd --off-cpu
# hooks every syscall exit while it runs), so a donor taken later need
# not have them: they say nothing of the kernel's own symbols.
without_bpf() {
	awk -v other="$2" '
		function block(file,    line, text, n) {
			text = pending[file]; pending[file] = ""
			while ((n = (getline line < file)) > 0) {
				if (line !~ /^\t/ && text != "") { pending[file] = line; return text }
				text = text line "\n"
			}
			return text
		}
		BEGIN {
			a = ARGV[1]; ARGV[1] = ""
			for (;;) {
				x = block(a); y = block(other)
				if (x == "" && y == "") break
				if (x ~ /bpf_prog_|bpf_trampoline_/ || y ~ /bpf_prog_|bpf_trampoline_/) continue
				printf "%s", x > (a ".kept"); printf "%s", y > (other ".kept")
			}
		}' "$1"
	mv "$1.kept" "$1" 2>/dev/null || : >"$1"
	mv "$2.kept" "$2" 2>/dev/null || : >"$2"
}

# offhost FILE OUT: the samples view of FILE alone, /proc/kallsyms empty;
# OUT.named: the same with the donor, without the donor's samples.
offhost() {
	unshare -m sh -c '
		mount --bind "$1" /proc/kallsyms || exit 90
		[ ! -s /proc/kallsyms ] || exit 91
		shift
		exec "$@"' sh "$work/empty" "$report" --view=samples "$1" \
		>"$2" 2>"$2.err" || fail "perfrec-report off-host: status $? ($(head -n 3 "$2.err"))"
	sanitizer_report "$2.err" && fail "perfrec-report off-host: $(head -n 5 "$2.err")"
	report_ok "$2.both" --view=samples "$1" "$work/all"
	# The donor's own samples (sleep's) out; the others stay in time order.
	awk '/^[^\t]/ { keep = $1 != "sleep" } keep' "$2.both" >"$2.named"
	without_bpf "$2" "$2.named"
	if ! cmp -s "$2" "$2.named"; then
		diff "$2.named" "$2" | head -n 20 >&2
		fail "$(basename "$1"): the off-host report differs from the one with the whole kallsyms"
	fi
}

check "off-host (/proc/kallsyms empty), the hit capture's samples view equals the one named by the whole kallsyms"
: >"$work/empty"
offhost "$hit_file" "$work/offhost"
kframes=$(grep -c ' \[k\]$' "$work/offhost" || true)
distinct=$(awk '/ \[k\]$/ { print $1 }' "$work/offhost" | sort -u | wc -l)
unknown=$(grep ' \[k\]$' "$work/offhost" | grep -c '\[unknown\]' || true)
note "$kframes kernel frames ($distinct distinct addresses), $unknown of them [unknown] off-host"
[ "$distinct" -ge 50 ] || fail "only $distinct distinct kernel addresses"
[ $((unknown * 100)) -le "$kframes" ] || fail "$unknown of $kframes kernel frames are [unknown]"

check "perfrec-dump's KERNEL_SYMBOL lines are symbols of /proc/kallsyms"
{ "$dump" "$hit_file" || true; } | sed -n 's/.* KERNEL_SYMBOL start=0x\([0-9a-f]*\) size=0x[0-9a-f]* type=\(.\) name=\([^ ]*\).*/\1 \2 \3/p' |
	grep -v ' bpf_prog_\| bpf_trampoline_' |
	sort >"$work/dumped"
bpf=$({ "$dump" "$hit_file" || true; } | grep -c ' KERNEL_SYMBOL .* name=bpf_prog_\| KERNEL_SYMBOL .* name=bpf_trampoline_' || true)
[ $(($(wc -l <"$work/dumped") + bpf)) -eq "$symbols" ] || fail "$(wc -l <"$work/dumped") KERNEL_SYMBOL lines for $symbols records"
awk '{ print $1, $2, $3 }' /proc/kallsyms | sort >"$work/kallsyms-lines"
missing=$(comm -23 "$work/dumped" "$work/kallsyms-lines" | wc -l)
[ "$missing" -eq 0 ] || fail "$missing KERNEL_SYMBOL lines not in /proc/kallsyms: $(comm -23 "$work/dumped" "$work/kallsyms-lines" | head -n 3)"

check "rotating every second, each file names its own kernel frames off-host"
"$perfrecd" -d 120 -F 999 --rotate-age 1 --flush-interval 200ms -o "$work/rotated" -- \
	"$workload" --seconds 4 --touch-pages >/dev/null 2>"$work/daemon.err" ||
	fail "perfrecd --rotate-age 1: status $?"
files=$(files_in "$work/rotated")
[ "$(echo "$files" | wc -l)" -ge 3 ] || fail "$(echo "$files" | wc -l) files, expected at least 3"
for file in $files; do
	offhost "$file" "$work/rotated.out"
	k=$(grep -c ' \[k\]$' "$work/rotated.out" || true)
	u=$(grep ' \[k\]$' "$work/rotated.out" | grep -c '\[unknown\]' || true)
	n=$({ "$dump" --summary "$file" || true; } | sed -n 's/^  KERNEL_SYMBOL: *//p')
	note "$(basename "$file"): ${n:-0} symbols, $k kernel frames, $u [unknown]"
	[ "$k" -eq 0 ] || [ "${n:-0}" -gt 0 ] || fail "$file: kernel frames but no symbols"
	[ $((u * 100)) -le "$k" ] || fail "$file: $u of $k kernel frames are [unknown]"
done
note "PASS"
