#!/usr/bin/python3
"""Independent reference numbers for structure's Gaussian, CLG and BGe
scores and Fisher's z test (gaussian_test.go reads gaussref.txt).

Made by: /usr/bin/python3 structure/testdata/gaussref.py > structure/testdata/gaussref.txt
(numpy 1.24.2, scipy 1.10.1). The data: pbl sample examples/gaussian.pbl
-n 500 --seed 7 (gauss500.csv) and examples/clg.pbl (clg500.csv).

Written from the formulas, not from pbl's code: the regressions by
numpy.linalg.lstsq on the raw rows (with a column of ones), BGe from the
definitions of Kuipers, Moffa and Heckerman (2014), eq. 2-4, with the
normal-Wishart hyper-parameters bnlearn uses by default (nu = the sample
means, iss.mu = 1, iss.w = p + 2, T = t I, t = iss.mu (iss.w - p - 1) /
(iss.mu + 1)), scipy.special.multigammaln, and Fisher's z from the
inverse of the correlation submatrix, with scipy.stats.norm.
"""
import csv, math, sys
import numpy as np
from scipy.special import multigammaln
from scipy.stats import norm

def read(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]

def loglik_real(y, X):
    n = len(y)
    A = np.column_stack([np.ones(n)] + ([X] if X.size else []))
    beta, *_ = np.linalg.lstsq(A, y, rcond=None)
    rss = float(np.sum((y - A @ beta) ** 2))
    return -n / 2 * (math.log(2 * math.pi * rss / n) + 1)

def family(names, cols, disc, child, parents, kind):
    real_ps = [p for p in parents if p not in disc]
    disc_ps = [p for p in parents if p in disc]
    n = len(cols[child])
    y = np.array(cols[child], float)
    X = np.column_stack([np.array(cols[p], float) for p in real_ps]) if real_ps else np.empty((n, 0))
    if disc_ps:
        keys = list(zip(*[cols[p] for p in disc_ps]))
        q = 1
        for p in disc_ps:
            q *= len(set(cols[p]))
        ll = 0.0
        for k in sorted(set(keys)):
            idx = [i for i in range(n) if keys[i] == k]
            ll += loglik_real(y[idx], X[idx] if X.size else np.empty((len(idx), 0)))
    else:
        q = 1
        ll = loglik_real(y, X)
    k = q * (len(real_ps) + 2)
    if kind == "loglik":
        return ll
    if kind == "aic":
        return ll - k
    return ll - k / 2 * math.log(n)

def bge_logp(D, ys):
    # D: n x p data; ys: column indices
    n, p = D.shape
    l = len(ys)
    if l == 0:
        return 0.0
    am, aw = 1.0, p + 2.0
    t = am * (aw - p - 1) / (am + 1)
    xbar = D.mean(axis=0)
    S = (D - xbar).T @ (D - xbar)
    R = t * np.eye(p) + S  # + n am/(n+am) (nu - xbar)(nu - xbar)^T, zero with nu = xbar
    Ry = R[np.ix_(ys, ys)]
    _, logdet = np.linalg.slogdet(Ry)
    return (-l * n / 2 * math.log(math.pi) + l / 2 * math.log(am / (n + am))
            + multigammaln((n + aw - p + l) / 2, l) - multigammaln((aw - p + l) / 2, l)
            + (aw - p + l) / 2 * l * math.log(t) - (n + aw - p + l) / 2 * logdet)

def fisher_z(D, x, y, z):
    C = np.corrcoef(D, rowvar=False)
    vs = [x, y] + z
    P = np.linalg.inv(C[np.ix_(vs, vs)])
    r = -P[0, 1] / math.sqrt(P[0, 0] * P[1, 1])
    n = D.shape[0]
    stat = math.sqrt(n - len(z) - 3) * math.atanh(r)
    return stat, 2 * norm.sf(abs(stat))

def main():
    out = []
    names, rows = read("structure/testdata/gauss500.csv")
    cols = {nm: [float(r[i]) for r in rows] for i, nm in enumerate(names)}
    D = np.array([[float(c) for c in r] for r in rows])
    fams = [("Temp", []), ("Growth", ["Temp", "Rain"]), ("Yield", ["Growth"]),
            ("Price", ["Yield", "Temp"]), ("Rain", ["Price", "Growth", "Temp", "Yield"])]
    for child, ps in fams:
        for kind in ("loglik", "aic", "bic"):
            out.append(("gauss500.csv", kind, child, ps, family(names, cols, set(), child, ps, kind)))
        ci = names.index(child)
        pi = [names.index(p) for p in ps]
        out.append(("gauss500.csv", "bge", child, ps, bge_logp(D, pi + [ci]) - bge_logp(D, pi)))
    for x, y, z in [("Temp", "Rain", []), ("Temp", "Rain", ["Growth"]), ("Temp", "Price", ["Yield"]),
                    ("Growth", "Price", ["Yield", "Rain"])]:
        s, p = fisher_z(D, names.index(x), names.index(y), [names.index(v) for v in z])
        out.append(("gauss500.csv", "zf-stat", x, [y] + z, s))
        out.append(("gauss500.csv", "zf-p", x, [y] + z, p))
    names, rows = read("structure/testdata/clg500.csv")
    disc = {"Smoker"}
    cols = {nm: ([r[i] for r in rows] if nm in disc else [float(r[i]) for r in rows]) for i, nm in enumerate(names)}
    for child, ps in [("Pressure", ["Age", "Dose", "Smoker"]), ("Pressure", ["Smoker"]),
                      ("Pressure", ["Age"]), ("Age", [])]:
        for kind in ("loglik", "aic", "bic"):
            out.append(("clg500.csv", kind, child, ps, family(names, cols, disc, child, ps, kind)))
    for f, kind, child, ps, v in out:
        print(f, kind, child, ",".join(ps) or "-", repr(v))

main()
