#!/usr/bin/env python3
"""Generate fresh data sets and record scikit-learn's best-of-10 fits of them.

This is the experiment behind the acceptance criterion "with --n-init 30 pbl
does at least as well as scikit-learn's best of 10" (mixture/fresh_test.go
runs pbl on the same files). Run it with Debian's python3 (python3-sklearn):

    /usr/bin/python3 mixture/testdata/fresh.py OUT_DIR [--sets 100] [--seed 1] [--procs 2]
    go test ./mixture -run TestFresh -fresh OUT_DIR -v

It writes OUT_DIR/fNNN.csv (a header x0,x1,… and %.6f values) for each data
set and OUT_DIR/fresh.json: per data set its k and scikit-learn's fits with
defaults (tol 1e-3, reg_covar 1e-6, max_iter 100, init_params 'kmeans';
KMeans tol 1e-4, max_iter 300): the mean log-likelihood score(X) of
GaussianMixture(n_init=10) for each covariance type and the inertia_ of
KMeans(n_init=10), random_state differing per data set. Nothing it writes
belongs in the repository: the hard cases worth keeping are copied into
testdata by hand (see sklearn_ref.py).

The data sets are unlike testdata's: d from 2 to 10, k from 2 to 10, n from
300 to 20,000 (log-uniform); clusters of unequal sizes (Dirichlet weights),
unequal scales (×0.3 to ×3), anisotropic (random rotations, axis scales
spread over up to 30:1), from well separated to heavily overlapping, some
with a uniform background of outliers; k is the true number of clusters,
or one more or fewer.
"""
import argparse
import json
import multiprocessing
import os
import time

os.environ.setdefault('OMP_NUM_THREADS', '1')
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from sklearn.mixture import GaussianMixture  # noqa: E402


def dataset(rng):
    d = int(rng.integers(2, 11))
    kt = int(rng.integers(2, 11))
    n = int(round(np.exp(rng.uniform(np.log(300), np.log(20000)))))
    w = rng.dirichlet(np.full(kt, rng.choice([0.5, 1.0, 5.0])))
    sep = float(np.exp(rng.uniform(np.log(0.5), np.log(6.0))))  # distance between means, in cluster scales
    aniso = float(np.exp(rng.uniform(0, np.log(30))))
    means = rng.normal(0, sep, size=(kt, d))
    z = rng.choice(kt, size=n, p=w)
    X = np.empty((n, d))
    for c in range(kt):
        q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        axes = np.exp(rng.uniform(-np.log(aniso) / 2, np.log(aniso) / 2, size=d))
        scale = float(np.exp(rng.uniform(np.log(0.3), np.log(3.0))))
        idx = np.where(z == c)[0]
        X[idx] = means[c] + (rng.normal(size=(len(idx), d)) * axes * scale) @ q.T
    if rng.random() < 0.2:  # a uniform background: 1-5% of the rows
        m = max(1, int(n * rng.uniform(0.01, 0.05)))
        lo, hi = X.min(0), X.max(0)
        X[rng.choice(n, size=m, replace=False)] = rng.uniform(lo, hi, size=(m, d))
    X *= float(np.exp(rng.uniform(np.log(0.5), np.log(20))))
    k = int(min(10, max(2, kt + rng.choice([-1, 0, 0, 1]))))
    return X, k, {'n': n, 'd': d, 'k_true': kt, 'sep': sep, 'aniso': aniso}


def fit(job):
    name, path, k, rs = job
    X = np.loadtxt(path, delimiter=',', skiprows=1)  # the numbers as written
    t = time.perf_counter()
    out = {'name': name, 'k': k, 'random_state': rs, 'gmm': {}}
    for cov in ['full', 'diag', 'spherical', 'tied']:
        try:
            m = GaussianMixture(n_components=k, covariance_type=cov, n_init=10, random_state=rs).fit(X)
            out['gmm'][cov] = float(m.score(X))
        except ValueError as e:  # an ill-defined covariance
            out['gmm'][cov] = None
            out.setdefault('errors', {})[cov] = str(e)[:200]
    km = KMeans(n_clusters=k, n_init=10, random_state=rs).fit(X)
    out['kmeans'] = float(km.inertia_)
    out['seconds'] = time.perf_counter() - t
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--sets', type=int, default=100)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--procs', type=int, default=2)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng([a.seed, 20240611])
    jobs, info = [], {}
    for i in range(a.sets):
        X, k, meta = dataset(rng)
        name = 'f%03d' % i
        path = os.path.join(a.out, name + '.csv')
        np.savetxt(path, X, delimiter=',', fmt='%.6f',
                   header=','.join('x%d' % j for j in range(X.shape[1])), comments='')
        jobs.append((name, path, k, 1000 * a.seed + i))
        info[name] = meta
    with multiprocessing.Pool(a.procs) as pool:
        res = pool.map(fit, jobs, chunksize=1)
    for r in res:
        r.update(info[r['name']])
    with open(os.path.join(a.out, 'fresh.json'), 'w') as fh:
        json.dump({'sklearn': sklearn.__version__, 'seed': a.seed, 'sets': res}, fh, indent=1)
        fh.write('\n')


if __name__ == '__main__':
    main()
