#!/bin/sh
# approx_pbl.sh: pbl's side of issue 29's acceptance figures, in the form of
# approx_ref.sh's table. For each network (a .uai with its .uai.evid, from
# go run ./bench/approxnet) whose exact answer OUT/NAME.exact approx_ref.sh
# has written, and each engine and time limit, it runs pbl uai --task MAR and
# --task PR on one core and prints: network, engine, limit, wall seconds (MAR
# and PR together), mean and largest Hellinger error of the unobserved
# variables' marginals, and |log10 Z - truth|.
#
#   PBL=./pbl ENGINES="auto lbp ijgp gibbs is wmb" bench/approx_pbl.sh OUT NET.uai...
#
# Environment: PBL (default pbl), ENGINES (default "auto"), LIMITS (default
# "10 20", seconds), FLAGS (default "--max-memory 64MiB --time-limit ${t}s":
# the flags of each run, with $t the limit), CORE (default 0: taskset's core;
# empty for none).
set -eu
PBL=${PBL:-pbl}
ENGINES=${ENGINES:-auto}
LIMITS=${LIMITS:-"10 20"}
CORE=${CORE-0}
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: PBL=BIN $0 OUT NET.uai..." >&2; exit 2; }
out=$1
shift
pin=""
[ -n "$CORE" ] && pin="taskset -c $CORE"
printf '%-16s %-7s %5s %8s %10s %10s %10s\n' network engine limit seconds hell_mean hell_max dlog10Z
for net in "$@"; do
	name=$(basename "$net" .uai)
	exact=$out/$name.exact
	[ -s "$exact" ] || { echo "$exact missing: run approx_ref.sh first" >&2; exit 1; }
	for t in $LIMITS; do
		flags=${FLAGS:-"--max-memory 64MiB --time-limit ${t}s"}
		for e in $ENGINES; do
			ans=$out/$name.pbl-$e.$t
			start=$(date +%s.%N)
			# shellcheck disable=SC2086
			if $pin "$PBL" uai --task MAR --engine "$e" $flags "$net" "$net.evid" >"$ans.MAR" 2>"$ans.err" &&
				$pin "$PBL" uai --task PR --engine "$e" $flags "$net" "$net.evid" >"$ans.PR" 2>>"$ans.err"; then
				secs=$(echo "$(date +%s.%N) - $start" | bc)
				set -- $(/usr/bin/python3 "$here/approx_err.py" "$exact" "$ans.MAR" "$net.evid" "$ans.PR")
				printf '%-16s %-7s %5s %8.2f %10s %10s %10s\n' "$name" "$e" "$t" "$secs" "$1" "$2" "$3"
			else
				printf '%-16s %-7s %5s %8s %s\n' "$name" "$e" "$t" - "failed: $(head -c 200 "$ans.err")"
			fi
		done
	done
done
