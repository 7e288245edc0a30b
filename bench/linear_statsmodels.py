"""Issue 31's learning-speed criterion, measured side by side: pbl learn
against statsmodels' OLS fitted family by family on the same CSV.

  linear_statsmodels.py gen DIR [--rows N] [--vars V] [--seed S]
      writes, once (skipped when DIR holds the same parameters' files), a
      hidden linear Gaussian network's structure DIR/lg.pbl (placeholder
      densities), its families DIR/families.json, its true parameters
      DIR/truth.json and N rows DIR/lg.csv drawn from it (seeded). Not timed.

  linear_statsmodels.py fit DIR OUT.json
      the statsmodels process that is timed: pd.read_csv, then for every
      family sm.OLS(y, sm.add_constant(X)).fit(); writes the coefficients
      to OUT.json and prints its own split (import, read, fit) on stdout.

  linear_statsmodels.py bench DIR --pbl BIN [--reps R]
      runs, R times each and interleaved, pbl learn (GOMAXPROCS default, and
      pinned to one core with GOMAXPROCS=1) and the statsmodels process (with
      numpy's BLAS as installed, and pinned to one core with one BLAS
      thread), as whole processes; prints wall and CPU (user + system, os.wait4) medians
      and the ratio, and checks that pbl's learned .pbl and statsmodels'
      coefficients agree to 1e-9 relative (exit 1, loudly, if not).

Run by bench/linear_statsmodels.sh, which builds pbl first.
"""

import json
import os
import sys
import time


def gen(argv):
    import argparse

    import numpy as np

    ap = argparse.ArgumentParser(prog="linear_statsmodels.py gen")
    ap.add_argument("dir")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--vars", type=int, default=50)
    ap.add_argument("--seed", type=int, default=31)
    a = ap.parse_args(argv)
    os.makedirs(a.dir, exist_ok=True)
    stamp = os.path.join(a.dir, "params.json")
    params = {"rows": a.rows, "vars": a.vars, "seed": a.seed, "format": "%.8g", "version": 1}
    try:
        if json.load(open(stamp)) == params and os.path.exists(os.path.join(a.dir, "lg.csv")):
            print(f"gen: {a.dir} already holds these rows", file=sys.stderr)
            return 0
    except (OSError, ValueError):
        pass
    rng = np.random.default_rng(a.seed)
    V = a.vars
    names = [f"V{i:02d}" for i in range(V)]
    # A random DAG: variable i (in a shuffled topological order) takes 0 to
    # 4 parents among the variables before it.
    order = rng.permutation(V)
    fams = []
    cols = {}
    for pos, i in enumerate(order):
        k = int(min(pos, rng.integers(0, 5)))
        parents = sorted(int(p) for p in rng.choice(order[:pos], size=k, replace=False)) if k else []
        # Means far from 0 for about a third of the variables.
        b = float(rng.choice([rng.uniform(-5, 5), rng.uniform(-1e4, 1e4)], p=[2 / 3, 1 / 3]))
        sd = float(rng.uniform(0.2, 10))
        coef = []
        y = np.full(a.rows, b)
        for p in parents:
            # A coefficient of magnitude 0.3–3 per parent standard
            # deviation, so that no variable's scale runs away down the graph.
            c = float(rng.choice([-1, 1]) * rng.uniform(0.3, 3) / cols[p].std())
            coef.append(c)
            y += c * cols[p]
        y += sd * rng.standard_normal(a.rows)
        cols[int(i)] = y
        fams.append({"child": names[i], "parents": [names[p] for p in parents],
                     "intercept": b, "coef": coef, "sd": sd})
    with open(os.path.join(a.dir, "lg.pbl"), "w") as f:
        f.write(f"// A hidden {V}-variable linear Gaussian network (linear_statsmodels.py gen, seed {a.seed}):\n")
        f.write("// the structure only; pbl learn ignores these placeholder densities.\n")
        f.write("var " + ", ".join(names) + ": real\n")
        for fam in fams:
            given = " | " + ", ".join(fam["parents"]) if fam["parents"] else ""
            f.write(f"P({fam['child']}{given}) = normal(0, 1)\n")
    json.dump([{"child": x["child"], "parents": x["parents"]} for x in fams],
              open(os.path.join(a.dir, "families.json"), "w"))
    json.dump(fams, open(os.path.join(a.dir, "truth.json"), "w"), indent=1)
    t = time.perf_counter()
    m = np.column_stack([cols[i] for i in range(V)])
    tmp = os.path.join(a.dir, "lg.csv.tmp")
    with open(tmp, "w") as f:
        f.write(",".join(names) + "\n")
        step = 20000
        fmt = ",".join(["%.8g"] * V) + "\n"
        for s in range(0, a.rows, step):
            blk = m[s:s + step]
            f.write("".join(fmt % tuple(r) for r in blk.tolist()))
    os.replace(tmp, os.path.join(a.dir, "lg.csv"))
    json.dump(params, open(stamp, "w"))
    print(f"gen: wrote {a.rows} rows of {V} variables to {a.dir}/lg.csv "
          f"({os.path.getsize(os.path.join(a.dir, 'lg.csv')) / 1e6:.0f} MB) in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)
    return 0


def fit(argv):
    """The timed statsmodels process: read the CSV, fit every family."""
    t0 = time.perf_counter()
    import pandas as pd
    import statsmodels.api as sm

    d, out = argv
    fams = json.load(open(os.path.join(d, "families.json")))
    t1 = time.perf_counter()
    df = pd.read_csv(os.path.join(d, "lg.csv"))
    t2 = time.perf_counter()
    res = {}
    for fam in fams:
        y = df[fam["child"]]
        X = sm.add_constant(df[fam["parents"]], has_constant="add")
        r = sm.OLS(y, X).fit()
        p = r.params
        res[fam["child"]] = {"intercept": float(p["const"]),
                             "coef": [float(p[x]) for x in fam["parents"]],
                             "sd": float((r.ssr / r.nobs) ** 0.5)}
    t3 = time.perf_counter()
    json.dump(res, open(out, "w"))
    print(json.dumps({"import": t1 - t0, "read": t2 - t1, "fit": t3 - t2}))
    return 0


def parse_pbl(path):
    """The learned densities of pbl's output .pbl: child -> intercept,
    coefficients by parent name, sd."""
    import re

    num = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
    line = re.compile(r"^P\((\w+)(?: \| ([\w, ]+))?\) = normal\((.*), (" + num + r")\)$")
    term = re.compile(r"([-+]) (" + num + r") \* (\w+)")
    out = {}
    for ln in open(path):
        m = line.match(ln.strip())
        if not m:
            continue
        child, mean, sd = m.group(1), m.group(3), float(m.group(4))
        first = re.match(num, mean)
        if first is None:
            raise SystemExit(f"cannot parse the mean of {child}: {mean!r}")
        coef = {}
        rest = mean[first.end():]
        for t in term.finditer(rest):
            coef[t.group(3)] = float(t.group(2)) * (-1 if t.group(1) == "-" else 1)
        if term.sub("", rest).strip():
            raise SystemExit(f"cannot parse the mean of {child}: {mean!r}")
        out[child] = {"intercept": float(first.group(0)), "coef": coef, "sd": sd}
    return out


def compare(d, pbl_out, sm_out, tol=1e-9):
    """The largest relative difference of every intercept and coefficient
    (and sd), and the list of those over tol."""
    fams = json.load(open(os.path.join(d, "families.json")))
    p = parse_pbl(pbl_out)
    s = json.load(open(sm_out))
    bad, worst, worst_sd = [], 0.0, 0.0

    def rel(a, b):
        return abs(a - b) / max(abs(a), abs(b), 1e-300)

    for fam in fams:
        c = fam["child"]
        if c not in p:
            bad.append(f"{c}: no density in pbl's output")
            continue
        pairs = [("intercept", p[c]["intercept"], s[c]["intercept"])]
        for x, b in zip(fam["parents"], s[c]["coef"]):
            pairs.append((x, p[c]["coef"].get(x, 0.0), b))
        for what, a, b in pairs:
            r = rel(a, b)
            if not r <= tol:  # NaN fails
                bad.append(f"{c} {what}: pbl {a!r} statsmodels {b!r} (relative {r:.3g})")
            worst = max(worst, r) if r == r else float("inf")
        rs = rel(p[c]["sd"], s[c]["sd"])
        worst_sd = max(worst_sd, rs) if rs == rs else float("inf")
    return worst, worst_sd, bad


def run(cmd, env=None):
    """Runs cmd to completion: wall seconds, CPU seconds (user + system of
    the process and its threads), peak RSS in MB, stdout."""
    import subprocess

    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"FAILED: {' '.join(cmd)} exited {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, out


def bench(argv):
    import argparse
    import statistics

    ap = argparse.ArgumentParser(prog="linear_statsmodels.py bench")
    ap.add_argument("dir")
    ap.add_argument("--pbl", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--core", default="0", help="the core of the one-core runs (taskset); empty: not pinned")
    a = ap.parse_args(argv)
    d = a.dir
    model, csv = os.path.join(d, "lg.pbl"), os.path.join(d, "lg.csv")
    env1 = dict(os.environ, GOMAXPROCS="1")
    envn = {k: v for k, v in os.environ.items() if k != "GOMAXPROCS"}
    pin = ["taskset", "-c", a.core] if a.core else []
    pbl_cmd = [a.pbl, "learn", model, "--data", csv, "--json"]
    sm_cmd = [sys.executable, os.path.abspath(__file__), "fit", d]
    runs = {"pbl": [], "pbl1": [], "sm": [], "sm1": []}
    splits, splits1 = [], []
    # numpy's BLAS may be multi-threaded (Debian's alternatives: OpenBLAS
    # with pthreads): the one-core statsmodels run has one thread, pinned.
    sm1env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    print(f"# {os.uname().nodename}, {os.cpu_count()} cores; load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for rep in range(a.reps):
        for key in ("pbl", "pbl1", "sm", "sm1"):
            if key == "pbl":
                out = os.path.join(d, "pbl-out.pbl")
                r = run(pbl_cmd + ["-o", out], env=envn)
            elif key == "pbl1":
                out = os.path.join(d, "pbl1-out.pbl")
                r = run(pin + pbl_cmd + ["-o", out], env=env1)
            elif key == "sm":
                out = os.path.join(d, "sm-out.json")
                r = run(sm_cmd + [out])
                splits.append(json.loads(r[3]))
            else:
                out = os.path.join(d, "sm1-out.json")
                r = run(pin + sm_cmd + [out], env=sm1env)
                splits1.append(json.loads(r[3]))
            runs[key].append(r[:3])
            print(f"rep {rep + 1} {key:5s} wall {r[0]:7.2f} s  cpu {r[1]:7.2f} s  rss {r[2]:6.0f} MB"
                  + (f"  (import {splits[-1]['import']:.2f} read {splits[-1]['read']:.2f} fit {splits[-1]['fit']:.2f})"
                     if key == "sm" else "")
                  + (f"  (import {splits1[-1]['import']:.2f} read {splits1[-1]['read']:.2f} fit {splits1[-1]['fit']:.2f})"
                     if key == "sm1" else ""), flush=True)
            if key != "sm1":
                continue
            for which, smo in (("pbl-out.pbl", "sm-out.json"), ("pbl1-out.pbl", "sm-out.json"), ("pbl1-out.pbl", "sm1-out.json")):
                worst, worst_sd, bad = compare(d, os.path.join(d, which), os.path.join(d, smo))
                if bad:
                    print(f"FAIL: pbl ({which}) and statsmodels ({smo}) disagree beyond 1e-9 relative:", file=sys.stderr)
                    for b in bad[:20]:
                        print("  " + b, file=sys.stderr)
                    return 1
            print(f"agree: intercepts and coefficients to {worst:.2g} relative (sd {worst_sd:.2g})", flush=True)

    def med(key, i):
        return statistics.median(x[i] for x in runs[key])

    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = os.path.getsize(csv)
    print(f"\n{json.load(open(os.path.join(d, 'params.json')))['rows']:,} rows, "
          f"{len(json.load(open(os.path.join(d, 'families.json'))))} families, CSV {rows / 1e6:.0f} MB; "
          f"medians of {a.reps} runs\n")
    print("| process | wall | CPU | peak RSS |")
    print("|---|---|---|---|")
    for key, label in (("pbl", "pbl learn, GOMAXPROCS default (2)"),
                       ("pbl1", "pbl learn, GOMAXPROCS=1, one core (taskset)"),
                       ("sm", "statsmodels 0.13.5 + pandas 1.5.3, whole process (BLAS threads as installed)"),
                       ("sm1", "statsmodels, one BLAS thread, one core (taskset)")):
        print(f"| {label} | {med(key, 0):.2f} s | {med(key, 1):.2f} s | {med(key, 2):.0f} MB |")
    sm_read = statistics.median(s["read"] for s in splits)
    sm_fit = statistics.median(s["fit"] for s in splits)
    sm_imp = statistics.median(s["import"] for s in splits)
    print(f"| of which: import {sm_imp:.2f} s, pd.read_csv {sm_read:.2f} s, 50 OLS fits {sm_fit:.2f} s | | | |")
    print(f"| one thread: import {statistics.median(s['import'] for s in splits1):.2f} s, "
          f"pd.read_csv {statistics.median(s['read'] for s in splits1):.2f} s, "
          f"50 OLS fits {statistics.median(s['fit'] for s in splits1):.2f} s | | | |")
    print()
    for key, sk, label in (("pbl", "sm", "2 cores, statsmodels as installed"),
                           ("pbl1", "sm1", "1 core each")):
        # Also the median of each repetition's ratio: the runs of one
        # repetition follow each other, and share the machine's load.
        paired = statistics.median(s[0] / p[0] for s, p in zip(runs[sk], runs[key]))
        print(f"ratio statsmodels / pbl ({label}): wall {med(sk, 0) / med(key, 0):.1f}x "
              f"(median of the repetitions' ratios {paired:.1f}x), CPU {med(sk, 1) / med(key, 1):.1f}x")
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("gen", "fit", "bench"):
        print(__doc__, file=sys.stderr)
        return 2
    return {"gen": gen, "fit": fit, "bench": bench}[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
