#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Symbol truth: perfrecd captures tests/workload and a driver program built
# here, which spends its time in libc (qsort, snprintf of floats, strtod,
# memcpy) and in shared libraries of the tests' own: libsymbolize-lib.so
# (tests/symbolize.mk's; its inline chain lib_checksum <- step <- rotate)
# and libsymbols-test.so, built here with more code (16 functions with an
# inline chain each).  Every distinct frame address of the samples view
# (perfrec-report --view=samples --lines) in the executable segments of the
# workload, the driver, the libraries and libc (at least 100 in all) is
# looked up again with
#
#   eu-addr2line -a -f -i -C -e FILE VADDR     function, inline chain, line
#   eu-addr2line -a -S -C -e FILE VADDR        symbol+offset (.symtab)
#
# where VADDR is the file offset the report printed, converted through the
# PT_LOAD segment that holds it (vaddr = offset - p_offset + p_vaddr; the
# report prints, for return addresses, the offset of address - 1, which it
# looked up, so both tools get the same one).  libc's DWARF comes from
# libc6-dbg, found by build-id by both.  An address matches when:
#   - the report's frames are as many as eu-addr2line -i's, in the same
#     order: inlined ones first, innermost first, the function last;
#   - each inlined frame has eu-addr2line's name, and every frame its
#     file:line (file compared by its last component: the tools join
#     DWARF's directory and file names differently, "./string/./string/x.c"
#     and "./string/x.c" are the same file);
#   - the function (the last frame) is eu-addr2line -f's name (DWARF's) or
#     -S's (the symbol table's: libc's C names and their aliases differ,
#     __GI__IO_setb / _IO_setb), or another symbol at the same address (an
#     alias: nm), with the symbol offset -S gives;
#   - an address the report leaves [unknown] is one eu-addr2line cannot
#     name either;
#   - so is one the report names after its function's CFI extent,
#     [DSO+0xSTART], and an FDE that readelf --debug-dump=frames lists
#     starts at START (as a vaddr) and holds it.
# All must match.
test_name=test-report-symbols
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build the driver"
command -v eu-addr2line >/dev/null 2>&1 || skip "no eu-addr2line (elfutils)"
command -v readelf >/dev/null 2>&1 || skip "no readelf (binutils)"

# ---- the programs -------------------------------------------------------
#
# The tests' own shared library: libsymbolize-lib.so as tests/symbolize.mk
# builds it, or built here from the same source when that is not built.
lib=$top_builddir/tests/libsymbolize-lib.so
if [ -f "$lib" ]; then
	lib=$(readlink -f "$lib")
	note "the own library: $lib (built by make)"
elif [ -f "$top_srcdir/tests/symbolize-lib.c" ]; then
	lib=$work/libsymbolize-lib.so
	"$cc" -O2 -g -fno-omit-frame-pointer -fPIC -shared -Wl,-soname,libsymbolize-lib.so \
		-o "$lib" "$top_srcdir/tests/symbolize-lib.c" || fail "cannot build $lib"
	note "the own library: $lib (tests/libsymbolize-lib.so is not built: built here from tests/symbolize-lib.c)"
else
	lib=
	note "no tests/symbolize-lib.c: the own-library part is skipped"
fi

# A library of this test's own with more code than that one: 16 functions,
# each with an inline chain two deep (work_N <- middle <- inner), so that
# the samples fall on many addresses and many inlined frames.
cat >"$work/symbols-lib.c" <<'EOF'
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE unsigned inner(unsigned x, unsigned k)
{
	return (x ^ (x >> 7)) * k + 1;
}

ALWAYS_INLINE unsigned middle(unsigned x, unsigned k)
{
	for (unsigned j = 0; j < 8; j++)
		x = inner(x + j, k);
	return x;
}

#define WORK(n)								\
	unsigned work_##n(const unsigned *v, int count);		\
	__attribute__((noinline)) unsigned work_##n(const unsigned *v, int count) \
	{								\
		unsigned s = n;						\
		for (int i = 0; i < count; i++)				\
			s = middle(s ^ v[i], 2654435761u + 2 * n);	\
		return s;						\
	}
WORK(0) WORK(1) WORK(2) WORK(3) WORK(4) WORK(5) WORK(6) WORK(7)
WORK(8) WORK(9) WORK(10) WORK(11) WORK(12) WORK(13) WORK(14) WORK(15)

typedef unsigned work_fn(const unsigned *, int);
work_fn *const work_table[16] = {
	work_0, work_1, work_2, work_3, work_4, work_5, work_6, work_7,
	work_8, work_9, work_10, work_11, work_12, work_13, work_14, work_15,
};
EOF
own=$work/libsymbols-test.so
"$cc" -O2 -g -fno-omit-frame-pointer -fPIC -shared -o "$own" "$work/symbols-lib.c" ||
	fail "cannot build $own"

cat >"$work/driver.c" <<'EOF'
/* Spends its time in libc and in the tests' libraries, for test-report-symbols. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))
#ifdef WITH_LIB
unsigned lib_checksum(const unsigned *values, int count);
#endif
typedef unsigned work_fn(const unsigned *, int);
extern work_fn *const work_table[16];

static unsigned values[8192];
static char text[1 << 16], copy[1 << 16];
volatile double sink;

ALWAYS_INLINE unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
ALWAYS_INLINE int order(unsigned x, unsigned y) { return mix(x) < mix(y) ? -1 : mix(x) > mix(y); }

static int compare(const void *a, const void *b)
{
	return order(*(const unsigned *)a, *(const unsigned *)b);
}

static __attribute__((noinline)) void in_libc(unsigned seed)
{
	char buffer[128];
	double sum = 0;

	for (int i = 0; i < 8192; i++)
		values[i] = seed = seed * 1103515245u + 12345u;
	qsort(values, 8192, sizeof(values[0]), compare);
	for (int i = 0; i < 300; i++) {
		snprintf(buffer, sizeof(buffer), "%.17g %s %x", i * 1.1e-3, "text", i);
		sum += strtod(buffer, NULL) + (double)strlen(buffer);
	}
	memset(text, 'a' + seed % 26, sizeof(text) - 1);
	for (int i = 0; i < 20; i++)
		memcpy(copy, text, sizeof(text));
	sum += (double)strlen(copy);
	sink = sum;
}

static __attribute__((noinline)) void in_libs(void)
{
	unsigned sum = 0;

	for (int i = 0; i < 16; i++)
		sum += work_table[i](values, 2048);
#ifdef WITH_LIB
	for (int i = 0; i < 20; i++)
		sum += lib_checksum(values, 8192);
#endif
	sink = sum;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	struct timespec start, now;
	unsigned seed = 1;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		in_libc(seed++);
		in_libs();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	return 0;
}
EOF
driver=$work/symbols-driver
if [ -n "$lib" ]; then
	"$cc" -O2 -g -fno-omit-frame-pointer -DWITH_LIB -o "$driver" "$work/driver.c" \
		"$own" "$lib" -Wl,-rpath,"$work:$(dirname "$lib")" || fail "cannot build the driver"
else
	"$cc" -O2 -g -fno-omit-frame-pointer -o "$driver" "$work/driver.c" "$own" \
		-Wl,-rpath,"$work" || fail "cannot build the driver"
fi
libc=$(ldd "$driver" | awk '$1 == "libc.so.6" { print $3 }')
[ -n "$libc" ] && [ -f "$libc" ] || fail "ldd $driver shows no libc.so.6"
libc=$(readlink -f "$libc")

# ---- the capture and the report -----------------------------------------

check "perfrecd captures the workload and the driver (3 s, side by side, favoured: see report-lib.sh)"
# shellcheck disable=SC2086
capture "$work/out" $favour sh -c '"$1" --seconds 3 & "$2" 3; wait' sh "$workload" "$driver"
report_ok "$work/samples" --view=samples --lines "$work/out"
note "$(grep -c '^[^	]' "$work/samples") samples in the samples view"

# The frames of one address: a run of "(inlined)" lines, then the function.
# Out: dso TAB offset TAB frames, a frame being "name|file|line" and frames
# joined with "^", innermost first; "[unknown]" for an unresolved address.
# Kernel frames are left out.
awk '
function flush_group(    key) {
	key = dso "\t" off
	if (!(key in seen)) {
		seen[key] = frames
		print key "\t" frames
	}
	frames = ""
}
/^\t/ {
	line = $0
	sub(/^\t */, "", line)
	if (line ~ / \[k\]$/)
		next
	if (!match(line, / \([^ ()]+\+0x[0-9a-f]+\)/)) {
		print "unparsed: " line > "/dev/stderr"
		next
	}
	head = substr(line, 1, RSTART - 1)
	where = substr(line, RSTART + 2, RLENGTH - 3)
	tail = substr(line, RSTART + RLENGTH)
	sub(/^[0-9a-f]+ /, "", head)
	inlined = sub(/ \(inlined\)$/, "", tail)
	sub(/^ /, "", tail)
	plus = index(where, "+0x")
	dso = substr(where, 1, plus - 1)
	off = substr(where, plus + 3)
	if (head == "[unknown]") {
		frame = "[unknown]"
	} else if (!inlined && head ~ /^\[[^]]*\+0x[0-9a-f]+\](\+0x[0-9a-f]+)?$/) {
		# Named after its CFI extent: "[cfi]" and the start offset.
		name = head
		sub(/\](\+0x[0-9a-f]+)?$/, "", name)
		sub(/.*\+0x/, "", name)
		frame = "[cfi]" name
	} else {
		name = head
		if (!inlined)
			sub(/\+0x[0-9a-f]+$/, "", name)
		soff = ""
		if (!inlined && match(head, /\+0x[0-9a-f]+$/))
			soff = substr(head, RSTART + 3)
		file = ""; lineno = ""
		if (tail != "" && match(tail, /:[0-9]+$/)) {
			file = substr(tail, 1, RSTART - 1)
			lineno = substr(tail, RSTART + 1)
		}
		frame = name "|" file "|" lineno (inlined ? "" : "|" soff)
	}
	frames = frames == "" ? frame : frames "^" frame
	if (!inlined)
		flush_group()
}' "$work/samples" >"$work/frames" 2>"$work/frames.err"
[ -s "$work/frames.err" ] && { head -n 5 "$work/frames.err" >&2; fail "samples view lines that do not parse"; }

# compare NAME FILE: checks the addresses of DSO NAME against FILE.
compared=0
matched=0
compare() {
	name=$1 file=$2
	elf_load_segments "$file" >"$work/$name.loads"
	# The offsets in executable segments, with their vaddrs.
	awk -F '\t' -v dso="$name" '$1 == dso { print $2 "\t" $3 }' "$work/frames" |
	awk -F '\t' -v loads="$work/$name.loads" "$awk_hex"'
	BEGIN {
		while ((getline line < loads) > 0) {
			split(line, f, " ")
			if (f[4] !~ /E/)
				continue
			n++
			lo[n] = hex(f[1]); va[n] = hex(f[2]); hi[n] = lo[n] + hex(f[3])
		}
	}
	{
		o = hex($1)
		for (i = 1; i <= n; i++)
			if (o >= lo[i] && o < hi[i]) {
				printf "0x%x\t%s\t%s\n", o - lo[i] + va[i], $1, $2
				break
			}
	}' >"$work/$name.todo"
	count=$(wc -l <"$work/$name.todo")
	note "$name: $count distinct addresses in its executable segments ($file)"
	[ "$count" -gt 0 ] || return 0
	cut -f 1 "$work/$name.todo" >"$work/$name.addresses"
	# eu-addr2line exits 1 when it cannot name an address ("??"): that is
	# an answer too; an address without an answer is a mismatch below.
	xargs eu-addr2line -a -f -i -C -e "$file" <"$work/$name.addresses" >"$work/$name.a2l" \
		2>"$work/$name.a2l.err" || true
	xargs eu-addr2line -a -S -C -e "$file" <"$work/$name.addresses" >"$work/$name.sym" \
		2>"$work/$name.sym.err" || true
	grep -q '^0x' "$work/$name.a2l" ||
		fail "eu-addr2line -f -i -e $file answered nothing: $(head -n 3 "$work/$name.a2l.err")"
	# The symbols of the file that has the symbol table (libc's is in its
	# debug file), for aliases: "address name".
	symtab=$file
	if ! eu-readelf -S "$file" | grep -q '\.symtab'; then
		id=$(elf_build_id "$file")
		debug=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
		[ -f "$debug" ] && symtab=$debug
	fi
	nm -C --defined-only "$symtab" 2>/dev/null | awk 'NF >= 3 { $2 = ""; print }' >"$work/$name.nm"
	# The FDEs of the file, "start end" (vaddrs), for [DSO+0xSTART] names.
	readelf --debug-dump=frames "$file" 2>/dev/null |
		sed -n 's/.* FDE cie=.* pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\)$/\1 \2/p' >"$work/$name.fdes"
	awk -v todo="$work/$name.todo" -v sym="$work/$name.sym" -v nm="$work/$name.nm" \
		-v fdes="$work/$name.fdes" \
		-v name="$name" -v detail="$work/$name.mismatches" "$awk_hex"'
	function base(path) { sub(/.*\//, "", path); return path }
	# "path:line:column" or "path:line" to "path:line".
	function fileline(s) {
		if (s ~ /:[0-9]+:[0-9]+$/)
			sub(/:[0-9]+$/, "", s)
		return s
	}
	BEGIN {
		while ((getline line < todo) > 0) {
			split(line, f, "\t")
			order[++count] = hex(f[1])
			report[hex(f[1])] = f[3]
			offset_of[hex(f[1])] = f[2]
		}
		# -S: one "name+0xoff" line (or "name", or "??") after each address.
		while ((getline line < sym) > 0) {
			if (line ~ /^0x[0-9a-f]+$/) { at = hex(line); expect = 1; continue }
			if (expect) {
				s = line
				so = "0"
				if (match(s, /\+0x[0-9a-f]+$/)) {
					so = substr(s, RSTART + 3)
					s = substr(s, 1, RSTART - 1)
				}
				# "(section)+0xoff": no symbol covers it.
				if (s ~ /^\(/ || s == "")
					s = "??"
				symname[at] = s
				symoff[at] = hex(so)
				expect = 0
			}
		}
		while ((getline line < fdes) > 0) {
			split(line, f, " ")
			fde_end[hex(f[1])] = hex(f[2])
		}
		while ((getline line < nm) > 0) {
			a = substr(line, 1, index(line, " ") - 1)
			n = substr(line, index(line, " ") + 2)
			names_at[hex(a) SUBSEP n] = 1
		}
	}
	# eu-addr2line -f -i: after each address, (function, file:line) pairs.
	/^0x[0-9a-f]+$/ { at = hex($0); k[at] = 0; pending = 0; next }
	{
		if (!pending) {
			fn = $0
			sub(/ inlined at .*/, "", fn)
			k[at]++
			a2l_name[at, k[at]] = fn
			pending = 1
		} else {
			a2l_line[at, k[at]] = fileline($0)
			pending = 0
		}
	}
	function explain(addr, why) {
		printf "%s+0x%s (vaddr 0x%x): %s\n  report: %s\n  eu-addr2line:", name, offset_of[addr], addr, why, report[addr] > detail
		for (j = 1; j <= k[addr]; j++)
			printf " %s@%s", a2l_name[addr, j], a2l_line[addr, j] > detail
		printf "; -S: %s+0x%x\n", symname[addr], symoff[addr] > detail
		bad++
	}
	END {
		for (c = 1; c <= count; c++) {
			addr = order[c]
			n = split(report[addr], frames, "^")
			# Named after the FDE holding it: one eu-addr2line cannot name.
			if (report[addr] ~ /^\[cfi\]/) {
				start = hex(substr(report[addr], 6)) - hex(offset_of[addr]) + addr
				if (a2l_name[addr, 1] != "??" || symname[addr] != "??")
					explain(addr, "the report named it after its CFI extent")
				else if (!(start in fde_end) || addr >= fde_end[start])
					explain(addr, sprintf("no FDE from 0x%x holds it (readelf --debug-dump=frames)", start))
				else
					good++
				continue
			}
			if (report[addr] == "[unknown]") {
				if (a2l_name[addr, 1] != "??" || symname[addr] != "??")
					explain(addr, "the report left it [unknown]")
				else
					good++
				continue
			}
			if (n != k[addr]) {
				explain(addr, "frame count " n " vs " k[addr])
				continue
			}
			ok = 1
			for (j = 1; j <= n; j++) {
				split(frames[j], p, "|")
				want = a2l_line[addr, j]
				wfile = want; sub(/:[0-9]+$/, "", wfile)
				wline = want; sub(/.*:/, "", wline)
				if (want == "??:0") { wfile = ""; wline = "" }
				if (base(p[2]) != base(wfile) || p[3] != wline) {
					explain(addr, "frame " j ": line " p[2] ":" p[3] " vs " want)
					ok = 0
					break
				}
				if (j < n && p[1] != a2l_name[addr, j]) {
					explain(addr, "inlined frame " j ": " p[1] " vs " a2l_name[addr, j])
					ok = 0
					break
				}
				if (j == n) {
					soff = hex(p[4] == "" ? "0" : p[4])
					alias = names_at[addr - symoff[addr], p[1]]
					if (p[1] != a2l_name[addr, j] && p[1] != symname[addr] && !alias) {
						explain(addr, "function " p[1] " is neither " a2l_name[addr, j] " nor " symname[addr] " (nor an alias)")
						ok = 0
					} else if (symname[addr] != "??" && soff != symoff[addr]) {
						explain(addr, sprintf("symbol offset 0x%x vs 0x%x", soff, symoff[addr]))
						ok = 0
					} else if (p[1] == a2l_name[addr, j]) {
						by_dwarf++
					} else if (p[1] == symname[addr]) {
						by_symtab++
					} else {
						by_alias++
					}
				}
			}
			if (ok) good++
		}
		printf "%d %d %d %d %d\n", count, good + 0, by_dwarf + 0, by_symtab + 0, by_alias + 0
	}' "$work/$name.a2l" >"$work/$name.result"
	set -- $(cat "$work/$name.result")
	note "$name: $2 of $1 addresses match eu-addr2line (function named as -f: $3, as -S: $4, an alias at the same address: $5)"
	if [ "$2" -ne "$1" ] && [ -f "$work/$name.mismatches" ]; then
		sed -n '1,24p' "$work/$name.mismatches" >&2
	fi
	compared=$((compared + $1))
	matched=$((matched + $2))
	eval "count_$(echo "$name" | tr -c 'a-z0-9\n' '_')=$1"
}

check "every distinct address of the workload, the driver, the own library and libc matches eu-addr2line -f -i"
compare workload "$workload"
compare symbols-driver "$driver"
compare libc.so.6 "$libc"
compare libsymbols-test.so "$own"
if [ -n "$lib" ]; then
	compare libsymbolize-lib.so "$lib"
fi
note "in all: $matched of $compared addresses match"

check "at least 100 addresses compared: 5 or more of the workload (its loops are tight), 10 or more of the driver, libc and each library"
[ "$compared" -ge 100 ] || fail "only $compared addresses to compare"
for name in workload:5 symbols_driver:10 libc_so_6:10 libsymbols_test_so:10 ${lib:+libsymbolize_lib_so:1}; do
	eval "n=\${count_${name%:*}:-0}"
	[ "$n" -ge "${name#*:}" ] || fail "only $n addresses in ${name%:*}"
done
check "inlined frames were compared (the library's and the driver's inline chains)"
inlined=$(grep -c '\^' "$work/frames" || true)
note "$inlined addresses with inlined frames"
[ "$inlined" -ge 5 ] || fail "only $inlined addresses with inlined frames"

check "all of them match"
[ "$matched" -eq "$compared" ] || fail "$((compared - matched)) of $compared addresses differ from eu-addr2line"
note "PASS"
