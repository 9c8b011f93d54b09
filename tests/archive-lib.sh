# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers of the perfrec-archive tests, on top of tests/report-lib.sh:
#
#   $archive         perfrec-archive (PERFREC_ARCHIVE overrides it)
#   build_workload DIR [CFLAGS...]
#                    builds DIR/archive-workload with DIR/libarchive-lib.so
#                    (hot) and DIR/libarchive-idle.so (mapped, never
#                    called), -g -O1, with build-ids, rpath DIR
#   build_id_name FILE [SUFFIX]
#                    .build-id/xx/rest[SUFFIX] of FILE's build-id
#   members TAR      the sorted member names of TAR (tar -t)
test_name=${test_name:?}
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

archive=${PERFREC_ARCHIVE:-$top_builddir/perfrec-archive}
[ -x "$archive" ] || { echo "$test_name: $archive not built" >&2; exit 99; }
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build the workload"
command -v tar >/dev/null 2>&1 || skip "no tar"
command -v eu-readelf >/dev/null 2>&1 || skip "no eu-readelf (elfutils)"

build_workload() {
	dir=$1
	shift
	mkdir -p "$dir"
	"$cc" -g -O1 -fPIC -shared -Wl,--build-id=sha1 "$@" -o "$dir/libarchive-lib.so" \
		"$top_srcdir/tests/archive-lib.c" || fail "cannot build $dir/libarchive-lib.so"
	"$cc" -g -O1 -fPIC -shared -DIDLE -Wl,--build-id=sha1 -o "$dir/libarchive-idle.so" \
		"$top_srcdir/tests/archive-lib.c" || fail "cannot build $dir/libarchive-idle.so"
	"$cc" -g -O1 -fno-omit-frame-pointer -Wl,--build-id=sha1 -Wl,--no-as-needed \
		-o "$dir/archive-workload" "$top_srcdir/tests/archive-workload.c" \
		-L"$dir" -larchive-lib -larchive-idle -Wl,-rpath,"$dir" ||
		fail "cannot build $dir/archive-workload"
}

build_id_name() {
	id=$(elf_build_id "$1")
	[ -n "$id" ] || fail "$1 has no build-id"
	echo ".build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)${2:-}"
}

members() {
	tar -tf "$1" | LC_ALL=C sort
}
