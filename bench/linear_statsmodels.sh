#!/bin/sh
# linear_statsmodels.sh: issue 31's learning-speed criterion, measured side
# by side. It builds pbl, writes once (seeded, not timed) a hidden
# 50-variable linear Gaussian network's structure and ROWS rows of it as CSV
# under DIR, then times REPS times each, interleaved, as whole processes:
# pbl learn (GOMAXPROCS default, and GOMAXPROCS=1 pinned to one core) and
# the statsmodels process (pd.read_csv, then sm.OLS(y, sm.add_constant(X)).fit()
# for every family; with numpy's BLAS threads as installed, and pinned to one
# core with OPENBLAS_NUM_THREADS=1). It prints wall and CPU medians, statsmodels' split
# (import, read, fit) and the ratios, and fails (exit 1) unless every
# learned intercept and coefficient equals statsmodels' to 1e-9 relative.
#
#   bench/linear_statsmodels.sh [DIR]        (default DIR /tmp/pbl-linear-bench)
#
# Environment: PYTHON (default /usr/bin/python3, with numpy, pandas and
# statsmodels), ROWS (default 1000000), VARS (default 50), SEED (default 31),
# REPS (default 3), CORE (default 0: taskset's core for the one-core runs;
# empty for none).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/tmp/pbl-linear-bench}
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p "$dir"
(cd "$here/.." && go build -o "$dir/pbl" ./cmd/pbl)
"$PYTHON" "$here/linear_statsmodels.py" gen "$dir" --rows "${ROWS:-1000000}" --vars "${VARS:-50}" --seed "${SEED:-31}"
uptime
"$PYTHON" "$here/linear_statsmodels.py" bench "$dir" --pbl "$dir/pbl" --reps "${REPS:-3}" --core "${CORE-0}"
uptime
