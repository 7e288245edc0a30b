#!/usr/bin/python3
"""The reference for hmm's TestRestartsPomegranate: the best of 20
pomegranate fits from random starts on data from a hidden HMM.

Run from this directory:  /usr/bin/python3 restarts_pome.py > restarts_pome.json
(pomegranate 0.14.8 and numpy 1.24.2, Debian bookworm's python3-pomegranate).

Three data sets (numpy seeds 101, 102, 103), each 40 sequences of 150 steps
from a random 4-state HMM with univariate Gaussian emissions (means drawn
from N(0, 2^2), standard deviations from U(0.4, 1.2), transition rows from
Dirichlet(1) mixed with 0.5 of staying). On each, pomegranate's
HiddenMarkovModel.from_samples(NormalDistribution, 4, ...) is fitted 20
times (random_state 0..19, its k-means++ initialisation, Baum-Welch to a
gain below 1e-6 or 2,000 iterations) and each fit's log-likelihood, summed
over the sequences by log_probability, is recorded.
"""
import json
import numpy as np
from pomegranate import HiddenMarkovModel, NormalDistribution


def dataset(seed):
    rng = np.random.default_rng(seed)
    K = 4
    mean = rng.normal(0, 2, K)
    std = rng.uniform(0.4, 1.2, K)
    A = 0.5 * np.eye(K) + 0.5 * rng.dirichlet(np.ones(K), K)
    pi = rng.dirichlet(np.ones(K))
    seqs = []
    for _ in range(40):
        z = rng.choice(K, p=pi)
        x = []
        for t in range(150):
            if t > 0:
                z = rng.choice(K, p=A[z])
            x.append(float(rng.normal(mean[z], std[z])))
        seqs.append(x)
    return seqs


out = []
for seed in (101, 102, 103):
    seqs = dataset(seed)
    X = [np.array(s) for s in seqs]
    lls = []
    for r in range(20):
        m = HiddenMarkovModel.from_samples(NormalDistribution, 4, X, random_state=r,
                                           stop_threshold=1e-6, max_iterations=2000)
        lls.append(float(sum(m.log_probability(s) for s in X)))
    out.append({"seed": seed, "seqs": seqs, "pomegranate": lls})
print(json.dumps(out))
