#!/bin/sh
# approx_pe.sh: P(e) through the command line against the exact reference
# (issue 29's |log10 P(e) - truth| <= 0.1). For each network (a .uai with its
# .uai.evid, from go run ./bench/approxnet) whose reference OUT/NAME.logz
# bench/approxref/logz.py has written, it runs on one core
#
#   - pbl uai --task PR (log10 Z(e): the competition's PR, P(e) of a
#     Bayesian network), and
#   - pbl query --json 'P(e)' (log10 P(e) = log10 Z(e) - log10 Z: for a
#     Markov network the partition function without the evidence too),
#     unless NOQUERY is set (the reference then need not have log Z),
#
# with FLAGS, and prints: network, what was asked, wall seconds, who answered
# (exact, or the engine), |log10 - truth|, the error pbl reported (log10), and
# whether the truth lies within it.
#
#   go run ./bench/approxnet -kind grid -n 20 -seed 1 -observe 0.2 -out DIR
#   /usr/bin/python3 bench/approxref/logz.py DIR/grid-20-s1.uai DIR/grid-20-s1.uai.evid > OUT/grid-20-s1.logz
#   PBL=./pbl bench/approx_pe.sh OUT DIR/grid-20-s1.uai
#
# Environment: PBL (default pbl), FLAGS (default "--max-memory 64MiB
# --time-limit 10s"), CORE (default 0: taskset's core; empty for none),
# NOQUERY (non-empty: PR only).
set -eu
PBL=${PBL:-pbl}
FLAGS=${FLAGS:-"--max-memory 64MiB --time-limit 10s"}
CORE=${CORE-0}
NOQUERY=${NOQUERY:-}
[ $# -ge 2 ] || { echo "usage: PBL=BIN $0 OUT NET.uai..." >&2; exit 2; }
out=$1
shift
pin=""
[ -n "$CORE" ] && pin="taskset -c $CORE"
printf '%-14s %-5s %7s %-8s %10s %10s %s\n' network ask seconds engine dlog10 reported within
for net in "$@"; do
	name=$(basename "$net" .uai)
	ref=$out/$name.logz
	[ -s "$ref" ] || { echo "$ref missing: run bench/approxref/logz.py first" >&2; exit 1; }
	# The evidence as a query: P(X14=0, X25=1, ...) (formats/uai names
	# variable i Xi and its states 0, 1, ...).
	q=$(awk '{ s = "P("; for (i = 2; i < 2 * $1 + 2; i += 2) s = s (i > 2 ? ", " : "") "X" $i "=" $(i + 1); print s ")" }' "$net.evid")
	asks="PR"
	[ -z "$NOQUERY" ] && asks="PR P(e)"
	for ask in $asks; do
		start=$(date +%s.%N)
		if [ "$ask" = PR ]; then
			# shellcheck disable=SC2086
			$pin "$PBL" uai --json --task PR $FLAGS "$net" "$net.evid" >"$out/$name.pe.json" 2>"$out/$name.pe.err" || true
		else
			# shellcheck disable=SC2086
			$pin "$PBL" query --json $FLAGS "$net" "$q" >"$out/$name.pe.json" 2>"$out/$name.pe.err" || true
		fi
		secs=$(echo "$(date +%s.%N) - $start" | bc)
		/usr/bin/python3 - "$ref" "$out/$name.pe.json" "$ask" "$name" "$secs" <<'EOF'
import json, math, sys
ref, ans, ask, name, secs = sys.argv[1:]
tok = open(ref).read().split()
info = dict(zip(tok[0::2], tok[1::2]))
try:
    o = json.loads(open(ans).read().splitlines()[0])
except (IndexError, ValueError):
    print(f"{name:<14} {ask:<5} {float(secs):7.2f} failed: {open(ans[:-5] + '.err').read()[:200]}")
    sys.exit(0)
if ask == "PR":
    truth = float(info["logz_e"]) / math.log(10)
    got, err = o["log10"], o.get("log10_error", 0.0)
else:
    truth = float(info["log10_pe"])
    # An exact answer has no log_p when p is a normal number.
    got = o["log_p"] / math.log(10) if "log_p" in o else math.log10(o["p"])
    err = o.get("log_p_error", 0.0) / math.log(10)
who = o.get("engine", "exact") if o.get("exact", True) is False else "exact"
d = abs(got - truth)
print(f"{name:<14} {ask:<5} {float(secs):7.2f} {who:<8} {d:10.4g} {err:10.4g} {'yes' if d <= err or d < 1e-6 else 'NO'}")
EOF
	done
done
