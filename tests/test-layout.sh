#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The build's shape, as doc/HACKING.md describes it:
#  - every source file of the product is compiled once: no two objects
#    in one folder of common/, format/, daemon/, reader/ or push/ come
#    from one source (automake names them TARGET-SOURCE.o, beside the
#    source);
#  - the layers below format/ include none of its headers: every
#    library sees common/ and format/ (AM_CPPFLAGS), but common/ depends on
#    libc alone and the symbolizer and interned strings know nothing of
#    captures;
#  - every external function of the product is called from another
#    object (of the product, a test or a benchmark): one that only its
#    own file calls is static, one that nothing calls is dead;
#  - the tests link the libraries: no object of the product's folders
#    is made for a test program;
#  - perfrec-archive, which runs on production hosts and never asks a
#    server, does not carry the debuginfod source (libperfrec-debuginfod.a);
#  - neither it nor perfrec-report links libdebuginfod or libcurl: the
#    report dlopen()s libdebuginfod at its first query, so a run that asks
#    no server does not load 30 libraries; perfrec-push does link libcurl
#    (so this test sees what ldd says at all).
set -eu
top_builddir=${top_builddir:-.}
status=0

say() { printf '%s\n' "$*"; }
fail() { say "FAIL: $*"; status=1; }

product="common format daemon reader push"
# shellcheck disable=SC2086
objects=$(cd "$top_builddir" && find $product -name '*.o' 2>/dev/null | sort)
if [ -z "$objects" ]; then
	say "ERROR: no objects under $top_builddir/{common,format,daemon,reader,push}: build first"
	exit 99
fi
say "$(printf '%s\n' "$objects" | wc -l) objects in the product's folders"

# TARGET-SOURCE.o: canonical target names have no '-', so the source is
# what follows the first one.
twice=$(printf '%s\n' "$objects" |
	awk '{ n = split($0, p, "/"); base = p[n]; dir = substr($0, 1, length($0) - length(base))
	       source = dir substr(base, index(base, "-") + 1)
	       count[source]++; names[source] = names[source] " " $0 }
	     END { for (s in count) if (count[s] > 1) print s ":" names[s] }')
if [ -n "$twice" ]; then
	fail "sources compiled more than once:"
	say "$twice"
fi
for_tests=$(printf '%s\n' "$objects" | grep -E '/tests_[^/]*-' || true)
if [ -n "$for_tests" ]; then
	fail "product sources compiled again for a test program:"
	say "$for_tests"
fi

# AM_CPPFLAGS lets every library include format/'s headers; these must not.
top_srcdir=${top_srcdir:-$(dirname "$0")/..}
format_headers=$(cd "$top_srcdir/format" && ls ./*.h | sed 's|^\./||' | tr '\n' '|' | sed 's/|$//')
below_format=$(cd "$top_srcdir" && grep -nE "#include \"($format_headers)\"" \
	common/*.[ch] reader/intern/*.[ch] reader/symbolize/*.[ch] 2>/dev/null || true)
if [ -n "$below_format" ]; then
	fail "a layer below format/ includes its headers:"
	say "$below_format"
fi
common_includes=$(cd "$top_srcdir" && grep -n '#include "' common/*.[ch] | grep -v '#include "common.h"' || true)
if [ -n "$common_includes" ]; then
	fail "common/ includes another folder's header (it depends on libc alone):"
	say "$common_includes"
fi

# Functions defined in one object of the product and named by no other
# object of the build (a program's main, a test, a benchmark, a fuzzer).
# The product's objects are read from its libraries, so that objects a
# reorganized tree left behind in a build directory do not count.
if command -v nm >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	libraries=$(cd "$top_builddir" && find $product -name '*.a' | sort)
	others=$(cd "$top_builddir" && find . -name '*.o' ! -path './_*' | grep -vE '/lib[a-z_]+_a-' | sort)
	uncalled=$(cd "$top_builddir" && { for a in $libraries; do nm -A "$a"; done
			for o in $others; do nm -A "$o"; done; } |
		awk '# FILE[:MEMBER]:ADDRESS TYPE NAME, the address blank for U
		     { where = $1; sub(/:[0-9a-f]*$/, "", where) }
		     $2 == "U" { used[$3] = used[$3] " " where }
		     $2 == "T" && where ~ /\.a:/ { defined[$3] = where }
		     END {
			for (f in defined) {
				n = split(used[f], users, " "); other = 0
				for (i = 1; i <= n; i++) if (users[i] != defined[f]) other = 1
				if (!other) print "  " f " (" defined[f] ")"
			}
		     }' | sort)
	if [ -n "$uncalled" ]; then
		fail "external functions that no other object calls (make them static, or remove them):"
		say "$uncalled"
	fi
fi

if ! command -v ldd >/dev/null 2>&1; then
	say "SKIP: no ldd here to list the programs' libraries"
	exit 77
fi
archive_libs=$(ldd "$top_builddir/perfrec-archive")
report_libs=$(ldd "$top_builddir/perfrec-report")
push_libs=$(ldd "$top_builddir/perfrec-push")
say "perfrec-archive links $(printf '%s\n' "$archive_libs" | wc -l) libraries, perfrec-report $(printf '%s\n' "$report_libs" | wc -l)"
if printf '%s\n' "$archive_libs" "$report_libs" | grep -E 'libdebuginfod|libcurl'; then
	fail "perfrec-archive or perfrec-report links libdebuginfod or libcurl"
fi
if ! printf '%s\n' "$push_libs" | grep -q 'libcurl'; then
	fail "perfrec-push does not link libcurl: is ldd telling the truth?"
fi
if command -v nm >/dev/null 2>&1 && nm "$top_builddir/perfrec-archive" | grep -q 'debuginfod_source_new'; then
	fail "perfrec-archive carries the debuginfod source"
fi
[ "$status" -eq 0 ] && say "PASS: each source compiled once; every external function called from elsewhere; no libdebuginfod nor libcurl linked by the readers"
exit "$status"
