#!/bin/sh
# Sets up a Debian machine, builds perfrec and runs every test.
#   scripts/run-tests.sh               build in _build/ and run make check
#   scripts/run-tests.sh --sanitizers  the same in _build-asan/ under ASan+UBSan
#   scripts/run-tests.sh --no-setup    skip apt-get (packages already there)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=_build
configure_flags="--enable-werror"
setup=yes
for arg in "$@"; do
	case "$arg" in
	--sanitizers) build=_build-asan; configure_flags="$configure_flags --enable-sanitizers" ;;
	--no-setup) setup=no ;;
	*) echo "run-tests.sh: unknown option '$arg'" >&2; exit 2 ;;
	esac
done

cd "$top"
if [ "$setup" = yes ]; then
	"$top/scripts/setup-debian.sh"
fi
[ -x configure ] || ./bootstrap >/dev/null
mkdir -p "$build"
cd "$build"
# shellcheck disable=SC2086
../configure $configure_flags >configure.out || { cat configure.out; exit 1; }
make -j"$(nproc)" >make.out 2>&1 || { cat make.out; exit 1; }

status=0
make -j"$(nproc)" check >check.out 2>&1 || status=$?
# Check's own summary lines, then automake's totals.
grep -h '^[0-9]*%: Checks:' tests/*.log tests/*/*.log 2>/dev/null || true
grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR)' check.out | awk '!seen[$0]++' || true
if [ "$status" -ne 0 ]; then
	cat check.out
	[ -f test-suite.log ] && cat test-suite.log
	exit "$status"
fi
