#!/usr/bin/python3
"""A reference for hmm's Baum-Welch, written apart from it with numpy.

Run from this directory:  /usr/bin/python3 bw_numpy.py > bw_numpy.json
(numpy 1.24.2, Debian bookworm's python3-numpy).

Two cases, each drawn from a fixed seed: a Gaussian HMM (K = 3, D = 2,
diagonal variances, 12 sequences of 40-80 steps, 10% of values missing as
null) by maximum likelihood with a variance floor of 1e-6, and a
categorical one (K = 3, M = 4, 15 sequences of 30-60 steps, 10% missing as
-1) with Dirichlet pseudo-counts 0.5 (initial), 0.5 (transitions), 0.25
(emissions). For each: the start, then eight EM iterations, each the
log-likelihood of the parameters before it and the parameters after it.
The forward-backward is the textbook scaled one (Rabiner 1989, eqs.
90-93), on the emission densities themselves, with expected counts from
gamma and xi; the M-step uses uncentred moments.
"""
import json
import numpy as np


def densities(case, seq):
    K = case["K"]
    if case["kind"] == "gauss":
        x = np.array([[np.nan if v is None else v for v in row] for row in seq])
        mu, var = np.array(case["mean"]), np.array(case["var"])  # K x D
        T = x.shape[0]
        B = np.ones((T, K))
        for k in range(K):
            d = np.exp(-(x - mu[k]) ** 2 / (2 * var[k])) / np.sqrt(2 * np.pi * var[k])
            d[np.isnan(x)] = 1.0
            B[:, k] = d.prod(axis=1)
        return B
    E = np.array(case["prob"])  # K x M
    s = np.array(seq)
    B = np.ones((len(s), K))
    obs = s >= 0
    B[obs] = E[:, s[obs]].T
    return B


def estep(case, seqs):
    K = case["K"]
    pi, A = np.array(case["init"]), np.array(case["trans"])
    n0, nA = np.zeros(K), np.zeros((K, K))
    gammas, ll = [], 0.0
    for seq in seqs:
        B = densities(case, seq)
        T = B.shape[0]
        alpha, c = np.zeros((T, K)), np.zeros(T)
        a = pi * B[0]
        c[0] = a.sum()
        alpha[0] = a / c[0]
        for t in range(1, T):
            a = (alpha[t - 1] @ A) * B[t]
            c[t] = a.sum()
            alpha[t] = a / c[t]
        beta = np.ones((T, K))
        for t in range(T - 2, -1, -1):
            beta[t] = A @ (B[t + 1] * beta[t + 1]) / c[t + 1]
        g = alpha * beta
        g /= g.sum(axis=1, keepdims=True)
        for t in range(T - 1):
            xi = alpha[t][:, None] * A * (B[t + 1] * beta[t + 1])[None, :] / c[t + 1]
            nA += xi
        n0 += g[0]
        gammas.append(g)
        ll += np.log(c).sum()
    return ll, n0, nA, gammas


def mstep(case, seqs, prior):
    ll, n0, nA, gammas = estep(case, seqs)
    out = dict(case)
    out["init"] = ((n0 + prior["init"]) / (n0 + prior["init"]).sum()).tolist()
    R = nA + prior["trans"]
    out["trans"] = (R / R.sum(axis=1, keepdims=True)).tolist()
    K = case["K"]
    if case["kind"] == "gauss":
        D = case["D"]
        w, sx, sxx = np.zeros((K, D)), np.zeros((K, D)), np.zeros((K, D))
        for seq, g in zip(seqs, gammas):
            x = np.array([[np.nan if v is None else v for v in row] for row in seq])
            obs = ~np.isnan(x)
            x0 = np.where(obs, x, 0.0)
            w += g.T @ obs
            sx += g.T @ x0
            sxx += g.T @ (x0 * x0)
        mean = sx / w
        out["mean"] = mean.tolist()
        out["var"] = np.maximum(sxx / w - mean ** 2, 1e-6).tolist()
    else:
        M = case["M"]
        n = np.zeros((K, M))
        for seq, g in zip(seqs, gammas):
            s = np.array(seq)
            for m in range(M):
                n[:, m] += g[s == m].sum(axis=0)
        n += prior["emit"]
        out["prob"] = (n / n.sum(axis=1, keepdims=True)).tolist()
    return ll, out


def rand_dist(rng, n):
    p = rng.random(n) + 0.2
    return p / p.sum()


def make_case(kind, seed):
    rng = np.random.default_rng(seed)
    K = 3
    case = {"kind": kind, "K": K, "init": rand_dist(rng, K).tolist(),
            "trans": np.array([rand_dist(rng, K) for _ in range(K)]).tolist()}
    seqs = []
    if kind == "gauss":
        D = 2
        case.update(D=D, mean=rng.normal(0, 2, (K, D)).tolist(), var=(0.5 + rng.random((K, D))).tolist())
        centres = rng.normal(0, 2, (K, D))
        for _ in range(12):
            T = int(rng.integers(40, 81))
            z = rng.integers(0, K, T)
            z = np.maximum.accumulate(z) % K  # runs of states
            x = centres[z] + rng.normal(0, 0.8, (T, D))
            seqs.append([[None if rng.random() < 0.1 else float(v) for v in row] for row in x])
        prior = {"init": 0.0, "trans": 0.0, "emit": 0.0}
    else:
        M = 4
        case.update(M=M, prob=np.array([rand_dist(rng, M) for _ in range(K)]).tolist())
        for _ in range(15):
            T = int(rng.integers(30, 61))
            s = rng.integers(0, M, T)
            s[rng.random(T) < 0.1] = -1
            seqs.append(s.tolist())
        prior = {"init": 0.5, "trans": 0.5, "emit": 0.25}
    iters = []
    cur = case
    for _ in range(8):
        ll, cur = mstep(cur, seqs, prior)
        iters.append({"loglik": ll, "after": cur})
    return {"start": case, "seqs": seqs, "prior": prior, "iters": iters}


print(json.dumps({"gauss": make_case("gauss", 11), "cat": make_case("cat", 12)}, indent=None))
