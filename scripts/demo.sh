#!/bin/sh
# Sets up a Debian machine, builds perfrec, profiles the whole machine for
# ten seconds while a demo workload runs, and prints the report.
#   scripts/demo.sh [--no-setup] [SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
setup=yes
seconds=10
for arg in "$@"; do
	case "$arg" in
	--no-setup) setup=no ;;
	[0-9]*) seconds=$arg ;;
	*) echo "demo.sh: unknown option '$arg'" >&2; exit 2 ;;
	esac
done

cd "$top"
[ "$setup" = no ] || "$top/scripts/setup-debian.sh"
[ -x configure ] || ./bootstrap >/dev/null
mkdir -p _build
cd _build
[ -f Makefile ] || ../configure >configure.out || { cat configure.out; exit 1; }
make -j"$(nproc)" perfrecd perfrec-report perfrec-dump tests/workload >make.out 2>&1 || { cat make.out; exit 1; }

out=$(mktemp -d /tmp/perfrec-demo.XXXXXX)
echo "profiling this machine for $seconds s into $out (demo workload: tests/workload)"
./perfrecd --duration "$seconds" -F 499 -o "$out" &
daemon=$!
sleep 1
./tests/workload --seconds $((seconds - 2)) --threads "$(nproc)" >/dev/null
wait "$daemon"
echo
./perfrec-report "$out"
