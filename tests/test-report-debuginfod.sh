#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Binaries and debug files from a debuginfod server, asked once per
# build-id, and a server that is down or silent costing its timeout once.
#
# Built here with -g: a program (main, spin_main) and two libraries of its
# own (spin_a in liba.so, spin_b in libb.so), each its own build-id.  Each
# is split: objcopy --only-keep-debug into served/NAME.debug, then strip
# --strip-all with a .gnu_debuglink; the stripped files go to served/ too,
# the unstripped ones to ref/.  The stripped program runs from bin/ under
# perfrecd; then bin/ is removed: nothing on this host has those build-ids.
#
#   - a real `debuginfod -F served/` on a free port: perfrec-report with
#     DEBUGINFOD_URLS resolves spin_main, spin_a and spin_b with their
#     lines, frame for frame as eu-addr2line -f -i gives them on ref/'s
#     files (--view=samples --lines); the server saw at most 2 requests
#     per build-id (executable, then the debug file), however many samples;
#   - --no-debuginfod: those frames are [unknown], the server asked nothing;
#   - the server killed, an empty cache: [unknown], exactly one warning
#     naming debuginfod, and quickly (connection refused); the same when
#     libdebuginfod.so.1 cannot be loaded, the warning naming it;
#   - a listener that accepts and never answers, DEBUGINFOD_TIMEOUT=2:
#     [unknown], one warning, one connection in all (three build-ids
#     missing, hundreds of samples), and the report takes ~2 s, under 6.
test_name=test-report-debuginfod
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

cc=${CC:-cc}
for tool in debuginfod "$cc" objcopy strip eu-addr2line python3 curl; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
# Whatever the caller's environment says, only this test's servers.
unset DEBUGINFOD_URLS DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE \
	DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE
DEBUGINFOD_TIMEOUT=5
export DEBUGINFOD_TIMEOUT

# ---- the programs ---------------------------------------------------------

mkdir -p "$work/src" "$work/bin" "$work/served" "$work/ref"
for name in a b; do
	cat >"$work/src/lib$name.c" <<EOF
static inline __attribute__((always_inline)) unsigned step_$name(unsigned x)
{
	return (x ^ (x >> 7)) * 2654435761u + 1;
}

__attribute__((noinline)) unsigned spin_$name(unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = step_$name(x + (unsigned)i);
	return x;
}
EOF
	"$cc" -O2 -g -fno-omit-frame-pointer -fPIC -shared -Wl,--build-id=sha1 \
		-o "$work/ref/lib$name.so" "$work/src/lib$name.c" || fail "cannot build lib$name.so"
done
cat >"$work/src/spin.c" <<'EOF'
#include <stdio.h>
#include <time.h>

unsigned spin_a(unsigned x, long n);
unsigned spin_b(unsigned x, long n);

__attribute__((noinline)) unsigned spin_main(unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 1103515245u + 12345u + (x >> 11);
	return x;
}

int main(void)
{
	struct timespec start, now;
	unsigned x = 1;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		x = spin_main(x, 1000000);
		x = spin_a(x, 1000000);
		x = spin_b(x, 1000000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
		 1500000000L);
	printf("%u\n", x);
	return 0;
}
EOF
"$cc" -O2 -g -fno-omit-frame-pointer -Wl,--build-id=sha1 -Wl,-rpath,'$ORIGIN' \
	-o "$work/ref/spin" "$work/src/spin.c" -L"$work/ref" -la -lb || fail "cannot build spin"

ids=
for name in spin liba.so libb.so; do
	objcopy --only-keep-debug "$work/ref/$name" "$work/served/$name.debug" ||
		fail "objcopy --only-keep-debug $name failed"
	cp "$work/ref/$name" "$work/bin/$name"
	strip --strip-all "$work/bin/$name" || fail "strip $name failed"
	objcopy --add-gnu-debuglink="$work/served/$name.debug" "$work/bin/$name" ||
		fail "objcopy --add-gnu-debuglink $name failed"
	cp "$work/bin/$name" "$work/served/$name"
	id=$(elf_build_id "$work/bin/$name")
	[ -n "$id" ] && [ "$id" = "$(elf_build_id "$work/ref/$name")" ] || fail "$name: build-id changed by strip"
	ids="$ids $id"
done
note "build-ids:$ids"
eu-readelf -S "$work/bin/spin" | grep -qF ' .symtab ' && fail "the stripped spin still has .symtab"

check "perfrecd captures the stripped program (1.5 s); then its files are removed"
# shellcheck disable=SC2086
capture "$work/out" $favour "$work/bin/spin"
rm -rf "$work/bin"

# ---- the server -------------------------------------------------------------

# The number of requests for build-ids (executable, debuginfo) the server got.
server_requests() {
	curl -s "$debuginfod_url/metrics" |
		awk '/^http_requests_total\{type="(executable|debuginfo)"\}/ { n += $NF } END { print n + 0 }'
}

# with_urls URLS CMD [ARGS...]: CMD with DEBUGINFOD_URLS=URLS (functions too).
with_urls() {
	DEBUGINFOD_URLS=$1
	export DEBUGINFOD_URLS
	shift
	"$@"
	unset DEBUGINFOD_URLS
}

check "debuginfod -F serves the three files (scanned within 20 s)"
start_debuginfod "$work/served" "${ids##* }"
before=$(server_requests)

export DEBUGINFOD_CACHE_PATH="$work/cache"
served() {
	with_urls "$debuginfod_url" report_ok "$@"
}

check "with DEBUGINFOD_URLS: spin_main, spin_a and spin_b, with lines"
# spin's samples alone: the capture is of the whole machine, and the
# binaries of tests running beside this one (deleted since, some of them)
# would be asked of the server too.
served "$work/samples" --comm spin --view=samples --lines "$work/out"
for function in spin_main spin_a spin_b; do
	grep -q " $function+0x[0-9a-f]* (" "$work/samples" || fail "no $function frame in the samples view"
done
grep -qE ' step_a \(liba\.so\+0x[0-9a-f]+\) [^ ]*liba\.c:[0-9]+ \(inlined\)' "$work/samples" ||
	fail "no inlined step_a frame with a line of liba.c"
requests=$(( $(server_requests) - before ))
samples=$(grep -c '^spin ' "$work/samples" || true)
note "$samples samples of spin; the server answered $requests requests for 3 build-ids"
[ "$samples" -ge 100 ] || fail "only $samples samples of spin"
[ "$requests" -ge 3 ] && [ "$requests" -le 8 ] ||
	fail "$requests requests to the server, expected 3 to 8 (at most 2 per build-id: ours and the vdso)"
grep "warning: debuginfod" "$work/samples.err" && fail "a warning about debuginfod with the server up"

check "... as eu-addr2line on the unstripped files: function and source file of each address"
# Per address of spin, liba.so, libb.so: "dso offset function file:line",
# the function its frame that is not inlined, file:line its first
# frame's (the address's own line).  Inlined frames may differ:
# eu-addr2line -i takes the scopes where the address's line row starts,
# the report those holding the address (test-report-symbols compares
# them); the whole report is compared with a local one below.
awk '
function flush() { if (key != "") print key, function_name, first_file; key = "" }
!/^\t/ { flush(); next }
$0 ~ /\((spin|liba\.so|libb\.so)\+0x/ {
	where = $0; sub(/^.*\((spin|liba\.so|libb\.so)\+/, "", where); sub(/\).*$/, "", where)
	dso = $0; sub(/^.* \(/, "", dso); sub(/\+0x.*$/, "", dso)
	if (dso " " where != key) {
		flush()
		key = dso " " where
		# No source line (_init, say, where a sample may land as the
		# library loads): "??", as eu-addr2line says.
		file = $0
		if (file !~ /\) [^ (]/)
			file = "??"
		sub(/^.*\) /, "", file); sub(/ \(inlined\)$/, "", file); sub(/^.*\//, "", file)
		first_file = file
	}
	if ($0 !~ /\(inlined\)$/) { function_name = $2; sub(/\+0x[0-9a-f]+$/, "", function_name) }
	next
}
{ flush() }
END { flush() }' "$work/samples" | sort -u >"$work/frames"
checked=0
same_line=0
for dso in spin liba.so libb.so; do
	# Offsets to vaddrs through the PT_LOAD that holds them.
	elf_load_segments "$work/ref/$dso" >"$work/segments"
	awk -v dso="$dso" '$1 == dso' "$work/frames" | head -n 40 >"$work/addresses"
	while read -r _ offset name file; do
		vaddr=
		while read -r p_offset p_vaddr p_filesz _; do
			if [ $((offset)) -ge $((p_offset)) ] && [ $((offset)) -lt $((p_offset + p_filesz)) ]; then
				vaddr=$(printf '0x%x' $((offset - p_offset + p_vaddr)))
				break
			fi
		done <"$work/segments"
		[ -n "$vaddr" ] || fail "$dso+$offset is in no PT_LOAD"
		# The outermost name of -f -i; the line without -i ("file:line:column").
		want_name=$(eu-addr2line -f -i -e "$work/ref/$dso" "$vaddr" | awk 'NR % 2 { name = $1 } END { print name }')
		want_file=$(eu-addr2line -e "$work/ref/$dso" "$vaddr" | awk '{ f = $1; sub(/^.*\//, "", f); sub(/:[0-9]+$/, "", f); print f }')
		# The line itself may differ where a row starts inside an inlined
		# call (test-report-symbols has the rules): names and files here.
		[ "$name ${file%:*}" = "$want_name ${want_file%:*}" ] ||
			fail "$dso+$offset: the report says $name $file, eu-addr2line $want_name $want_file"
		[ "$file" = "$want_file" ] && same_line=$((same_line + 1))
		checked=$((checked + 1))
	done <"$work/addresses"
done
note "$checked addresses match eu-addr2line's function and file, $same_line its line too"
[ "$checked" -ge 10 ] || fail "only $checked addresses compared"

check "the same report as with the unstripped files at the recorded paths (no debuginfod)"
mkdir "$work/bin"
cp "$work/ref/spin" "$work/ref/liba.so" "$work/ref/libb.so" "$work/bin/"
report_ok "$work/samples-local" --no-debuginfod --comm spin --view=samples --lines "$work/out"
rm -rf "$work/bin"
cmp -s "$work/samples" "$work/samples-local" || {
	diff "$work/samples-local" "$work/samples" | head -n 20 >&2
	fail "the report through debuginfod differs from the one with the files at hand"
}

check "a second run reads libdebuginfod's cache: the same report, no request"
before=$(server_requests)
served "$work/samples2" --comm spin --view=samples --lines "$work/out"
cmp -s "$work/samples" "$work/samples2" || fail "the second report differs"
[ "$(server_requests)" -eq "$before" ] || fail "the second run asked the server again"

check "--no-debuginfod: spin's frames are [unknown], no request"
rm -rf "$DEBUGINFOD_CACHE_PATH"
before=$(server_requests)
served "$work/flat-off" --no-debuginfod "$work/out"
flat_rows "$work/flat-off" | awk -F '\t' '$5 ~ /^(spin|liba\.so|libb\.so)$/ { print $4 }' >"$work/resolved-off"
[ -s "$work/resolved-off" ] && fail "resolved with --no-debuginfod: $(tr '\n' ' ' <"$work/resolved-off")"
grep -q '\[unknown\]' "$work/flat-off" || fail "no [unknown] rows with --no-debuginfod"
[ "$(server_requests)" -eq "$before" ] || fail "--no-debuginfod asked the server"

# ---- the server down ------------------------------------------------------

kill "$debuginfod_pid" 2>/dev/null
wait "$debuginfod_pid" 2>/dev/null || true

# The frames of spin, liba.so, libb.so all [unknown]; one warning naming
# debuginfod; the report's wall time in $elapsed (seconds, decimal).
down_report() {
	name=$1
	shift
	rm -rf "$DEBUGINFOD_CACHE_PATH"
	start=$(date +%s.%N)
	report_ok "$work/$name" "$@" "$work/out"
	elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", e - s }')
	flat_rows "$work/$name" | awk -F '\t' '$5 ~ /^(spin|liba\.so|libb\.so)$/ { print $4 }' >"$work/$name.resolved"
	[ -s "$work/$name.resolved" ] && fail "$name: resolved: $(tr '\n' ' ' <"$work/$name.resolved")"
	grep "warning: debuginfod" "$work/$name.err" >"$work/$name.warnings" || true
	count=$(wc -l <"$work/$name.warnings")
	note "$name: ${elapsed} s; $count warning(s) about debuginfod: $(head -n 1 "$work/$name.warnings")"
	[ "$count" -eq 1 ] || { cat "$work/$name.err" >&2; fail "$name: $count warnings about debuginfod, expected 1"; }
	grep -q '^perfrec-report: warning: debuginfod (' "$work/$name.warnings" ||
		fail "$name: the debuginfod line is not a warning naming the servers"
}

check "the server stopped: [unknown], one warning, at once"
with_urls "$debuginfod_url" down_report flat-refused
grep -q 'connection refused' "$work/flat-refused.warnings" || fail "the warning does not say 'connection refused'"
awk -v t="$elapsed" 'BEGIN { exit !(t < 3) }' || fail "the report took $elapsed s with the server's port closed"

check "-q: no warning"
with_urls "$debuginfod_url" report_ok "$work/flat-quiet" -q "$work/out"
[ -s "$work/flat-quiet.err" ] && fail "-q still prints: $(head -n 2 "$work/flat-quiet.err")"

check "libdebuginfod.so.1 not loadable (it is opened at the first query): one warning naming it"
mkdir -p "$work/no-libdebuginfod"
echo "not an ELF file" >"$work/no-libdebuginfod/libdebuginfod.so.1"
LD_LIBRARY_PATH=$work/no-libdebuginfod${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	with_urls "$debuginfod_url" down_report flat-no-library
grep -q "cannot use libdebuginfod.so.1: .*no-libdebuginfod/libdebuginfod.so.1" \
	"$work/flat-no-library.warnings" || fail "the warning does not name libdebuginfod.so.1 and why"

check "a server that never answers, DEBUGINFOD_TIMEOUT=2: one connection, ~2 s, one warning"
cat >"$work/silent.py" <<'EOF'
# Accepts connections and never answers; one line in the log per connection.
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
kept = []
while True:
    c, _ = s.accept()
    kept.append(c)
    with open(sys.argv[2], "a") as log:
        log.write("connection\n")
EOF
: >"$work/silent.log"
python3 "$work/silent.py" "$work/silent.port" "$work/silent.log" &
silent_pid=$!
at_exit "kill $silent_pid 2>/dev/null; wait $silent_pid 2>/dev/null"
wait_for '[ -s "$work/silent.port" ]' 10 || fail "the silent listener did not start"
silent_port=$(cat "$work/silent.port")
DEBUGINFOD_TIMEOUT=2
with_urls "http://127.0.0.1:$silent_port" down_report flat-silent
connections=$(wc -l <"$work/silent.log")
note "silent server: $connections connection(s), report in $elapsed s (DEBUGINFOD_TIMEOUT=2, 3 build-ids missing)"
[ "$connections" -eq 1 ] || fail "$connections connections to the silent server, expected 1"
awk -v t="$elapsed" 'BEGIN { exit !(t >= 1.5 && t < 6) }' ||
	fail "the report took $elapsed s with a silent server and DEBUGINFOD_TIMEOUT=2 (expected ~2)"
grep -q 'DEBUGINFOD_TIMEOUT' "$work/flat-silent.warnings" || fail "the warning does not name DEBUGINFOD_TIMEOUT"
note "PASS"
