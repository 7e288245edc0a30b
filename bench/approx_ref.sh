#!/bin/sh
# approx_ref.sh: the references of issue 29's acceptance figures. For each
# network (a .uai with its .uai.evid, from go run ./bench/approxnet), it runs
# libDAI's exact junction tree once (kept in OUT/NAME.exact, reused when
# present), then libDAI's approximate methods at each time limit, and prints
# one line per run: network, method, limit, wall seconds, mean and largest
# Hellinger error of the unobserved variables' marginals, and
# |log10 Z - truth| (nan where the method gives no log Z, as Gibbs).
#
# It builds nothing: $LIBDAI is a built libDAI with the driver daidrv
# (bench/approxref/daidrv.cpp; its first comment says how to build it).
#
#   LIBDAI=/work/ref/libdai bench/approx_ref.sh OUT NET.uai...
#
# Environment: LIMITS (default "10 20", seconds), METHODS (default
# "BP BPD HAK GIBBS TREEEP"). Runs are one at a time; the exact runs may take
# minutes and gigabytes (see docs/performance.md).
set -eu
: "${LIBDAI:?set LIBDAI to a built libDAI (with daidrv)}"
LIMITS=${LIMITS:-"10 20"}
METHODS=${METHODS:-"BP BPD HAK GIBBS TREEEP"}
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: LIBDAI=DIR $0 OUT NET.uai..." >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
printf '%-16s %-7s %5s %8s %10s %10s %10s\n' network method limit seconds hell_mean hell_max dlog10Z
for net in "$@"; do
	name=$(basename "$net" .uai)
	evid=$net.evid
	exact=$out/$name.exact
	if [ ! -s "$exact" ]; then
		"$LIBDAI/daidrv" "$net" "$evid" JTREE 0 "$exact.tmp"
		mv "$exact.tmp" "$exact"
	fi
	secs=$(head -1 "$exact" | awk '{print $4}')
	printf '%-16s %-7s %5s %8s %10s %10s %10s\n' "$name" JTREE - "$secs" 0 0 0
	for t in $LIMITS; do
		for m in $METHODS; do
			ans=$out/$name.$m.$t
			if "$LIBDAI/daidrv" "$net" "$evid" "$m" "$t" "$ans" 2>"$ans.err"; then
				set -- $(/usr/bin/python3 "$here/approx_err.py" "$exact" "$ans" "$evid")
				printf '%-16s %-7s %5s %8s %10s %10s %10s\n' "$name" "$m" "$t" "$4" "$1" "$2" "$3"
			else
				printf '%-16s %-7s %5s %8s %s\n' "$name" "$m" "$t" - "failed: $(head -c 200 "$ans.err")"
			fi
		done
	done
done
