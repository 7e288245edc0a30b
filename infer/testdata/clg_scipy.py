#!/usr/bin/python3
# Writes clg_scipy.json: a fixed conditional linear Gaussian network and
# the answers to a few queries on it, computed with numpy and
# scipy.stats.multivariate_normal, independently of pbl, for
# TestCLGScipyGolden (clg_test.go). Run from infer/testdata:
#
#     /usr/bin/python3 clg_scipy.py > clg_scipy.json
#
# (made with numpy 1.24.2, scipy 1.10.1). For every assignment of the
# discrete variables the real ones are jointly normal: x = b + W x + e,
# so mean (I-W)^-1 b and covariance (I-W)^-1 D (I-W)^-T; the observed
# values' density is multivariate_normal.logpdf, the targets' posterior
# the conditional normal, and the assignments are weighed by their
# probability times that density.
import itertools, json
import numpy as np
from scipy.stats import multivariate_normal

disc = [
    {"name": "A", "states": 2, "parents": [], "cpt": [0.3, 0.7]},
    {"name": "B", "states": 3, "parents": ["A"], "cpt": [0.2, 0.5, 0.3, 0.6, 0.1, 0.3]},
    {"name": "C", "states": 2, "parents": [], "cpt": [0.45, 0.55]},
]
# Each real variable: discrete parents, real parents, and per
# configuration of the discrete parents (row-major, last fastest) the
# intercept, the coefficients of the real parents and the sd.
real = [
    {"name": "X1", "disc": ["A"], "real": [], "mean": [1.0, -2.0], "coef": [], "sd": [1.0, 2.0]},
    {"name": "X2", "disc": [], "real": ["X1"], "mean": [0.5], "coef": [0.8], "sd": [0.7]},
    {"name": "X3", "disc": ["B"], "real": ["X1", "X2"], "mean": [0.0, 1.0, -1.0],
     "coef": [0.5, -0.3, 1.2, 0.1, -0.4, 0.9], "sd": [1.5, 0.5, 1.0]},
    {"name": "X4", "disc": ["C"], "real": ["X3"], "mean": [2.0, -1.0], "coef": [0.7, -0.6], "sd": [0.9, 1.3]},
    {"name": "X5", "disc": ["A", "C"], "real": ["X2", "X4"], "mean": [0.1, 0.2, 0.3, 0.4],
     "coef": [1.0, 0.5, -1.0, 0.2, 0.3, -0.7, 0.0, 1.1], "sd": [0.6, 0.8, 1.0, 1.2]},
    {"name": "X6", "disc": [], "real": ["X5"], "mean": [3.0], "coef": [-0.25], "sd": [2.0]},
]
queries = [
    {"evidence": {}, "real": {"X4": 1.5, "X6": 2.0}, "targets": ["X1", "X3"]},
    {"evidence": {"B": 1}, "real": {"X2": -0.5}, "targets": ["X5"]},
    {"evidence": {"A": 0, "C": 1}, "real": {"X3": 0.3}, "targets": ["X6", "X2"]},
]

dnames = [d["name"] for d in disc]
rnames = [r["name"] for r in real]
card = {d["name"]: d["states"] for d in disc}


def config(names, a):
    u = 0
    for n in names:
        u = u * card[n] + a[n]
    return u


def prob(a):
    p = 1.0
    for d in disc:
        row = config(d["parents"], a)
        p *= d["cpt"][row * d["states"] + a[d["name"]]]
    return p


def joint(a):
    n = len(real)
    W, b, D = np.zeros((n, n)), np.zeros(n), np.zeros((n, n))
    for i, r in enumerate(real):
        u = config(r["disc"], a)
        b[i] = r["mean"][u]
        D[i, i] = r["sd"][u] ** 2
        for j, p in enumerate(r["real"]):
            W[i, rnames.index(p)] = r["coef"][u * len(r["real"]) + j]
    inv = np.linalg.inv(np.eye(n) - W)
    return inv @ b, inv @ D @ inv.T


out = {"discrete": disc, "real": real, "queries": []}
for q in queries:
    rows = []
    for states in itertools.product(*[range(d["states"]) for d in disc]):
        a = dict(zip(dnames, states))
        if any(a[k] != v for k, v in q["evidence"].items()):
            continue
        mu, S = joint(a)
        o = [rnames.index(k) for k in q["real"]]
        t = [rnames.index(k) for k in q["targets"]]
        x = np.array(list(q["real"].values()))
        logw = np.log(prob(a)) + multivariate_normal(mu[o], S[np.ix_(o, o)]).logpdf(x)
        K = S[np.ix_(t, o)] @ np.linalg.inv(S[np.ix_(o, o)])
        m = mu[t] + K @ (x - mu[o])
        C = S[np.ix_(t, t)] - K @ S[np.ix_(o, t)]
        rows.append((a, logw, m, C))
    lw = np.array([r[1] for r in rows])
    top = lw.max()
    logpe = top + np.log(np.exp(lw - top).sum())
    w = np.exp(lw - logpe)
    mean = sum(wi * r[2] for wi, r in zip(w, rows))
    cov = sum(wi * (r[3] + np.outer(r[2] - mean, r[2] - mean)) for wi, r in zip(w, rows))
    marg = {}
    for d in disc:
        if d["name"] in q["evidence"]:
            continue
        marg[d["name"]] = [float(sum(wi for wi, r in zip(w, rows) if r[0][d["name"]] == s)) for s in range(d["states"])]
    out["queries"].append(dict(q, log_pe=float(logpe), mean=mean.tolist(), cov=cov.tolist(), marginals=marg))
print(json.dumps(out, indent=1))
