#!/bin/bash
# Two builds of perfrec-report on one capture, run alternately so that a
# machine's load falls on both alike: the best CPU time (user + sys) of R
# runs of each view, its wall time and peak RSS.
#
#   bench/reader-ab.sh BUILD_A BUILD_B CAPTURE [RUNS]
#
# e.g. bench/reader-ab.sh /tmp/base/_build _build /var/tmp/rb/perfrec 5
# after bench/reader.sh --keep /var/tmp/rb made the capture.  VIEWS
# (default "flat tree folded pprof") chooses the views.
set -eu
[ $# -ge 3 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
a=$1 b=$2 capture=$3 runs=${4:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
view_args() {
	case $1 in
	flat) ;;
	tree|folded) echo "--view=$1" ;;
	pprof) echo "-o $out/profile.pb.gz" ;;
	*) echo "reader-ab.sh: unknown view $1" >&2; exit 2 ;;
	esac
}
for view in ${VIEWS:-flat tree folded pprof}; do
	for _ in $(seq "$runs"); do
		for build in "$a" "$b"; do
			# shellcheck disable=SC2046
			/usr/bin/time -f '%U %S %e %M' -o "$out/time" \
				"$build/perfrec-report" $(view_args "$view") "$capture" >/dev/null 2>&1
			read -r user sys wall rss <"$out/time"
			echo "$view $build $user $sys $wall $rss"
		done
	done
done | awk '{ k = $1 " " $2; cpu = $3 + $4
	      if (!(k in best) || cpu < best[k]) { best[k] = cpu; wall[k] = $5; rss[k] = $6 } }
	    END { for (k in best)
			printf "%-8s %-40s cpu %5.2f s  wall %5.2f s  %4d MiB\n", substr(k, 1, index(k, " ") - 1),
				substr(k, index(k, " ") + 1), best[k], wall[k], rss[k] / 1024 }' | sort
