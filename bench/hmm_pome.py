#!/usr/bin/python3
"""One Baum-Welch iteration of pbl's package hmm beside pomegranate's HMM,
on the same data and from the same start (issue 32's speed target).

    /usr/bin/python3 bench/hmm_pome.py [DIR]      # from the repository's root

Draws 1,000 sequences of 1,000 steps from a 10-state HMM with univariate
Gaussian emissions (means 0..9, variance 0.25, stay 0.9, else any other
state alike; numpy seed 32) into DIR (default /tmp/hmmbench: x.f64, the
values as float64 little-endian, and start.json, the start: uniform initial
and transition probabilities, means 0.3..9.3, variances 1). Then times one
iteration of pomegranate 0.14's HiddenMarkovModel (Debian bookworm's
python3-pomegranate): summarize (the E-step, on n_jobs threads over n_jobs
batches of sequences, as its fit does) and from_summaries (the M-step),
best of 2, with n_jobs 1 and 2; then runs `go test -bench BaumWelch` in
package hmm on the same files (PBL_HMM_BENCH=DIR), and the command line on
the same data: the values as DIR/x.csv (a row per step, columns sequence
and Y) and the start as the time-indexed model DIR/start.pbl (var H[t],
var Y[t]: real), `pbl learn DIR/start.pbl --data DIR/x.csv --method em
--init model --max-iter 1 --tol 0 --json -o DIR/out.pbl` (pbl built into
DIR), best of 2, the whole process timed (reading the CSV too) beside the
learning alone (its "seconds"). It prints each one's iteration time, the
log-likelihood of the start each computed, and that of the parameters
after the iteration, and whether they agree to 1e-9 relative.
"""
import json
import os
import re
import resource
import subprocess
import sys
import time

import numpy as np
from joblib import Parallel, delayed
from pomegranate import HiddenMarkovModel, NormalDistribution

N, T, K = 1000, 1000, 10


def make_data(d):
    rng = np.random.default_rng(32)
    stay = 0.9
    A = np.full((K, K), (1 - stay) / (K - 1))
    np.fill_diagonal(A, stay)
    cum = np.cumsum(A, axis=1)
    x = np.empty((N, T))
    for i in range(N):
        z = rng.integers(K)
        u = rng.random(T)
        for t in range(T):
            if t > 0:
                z = min(int(np.searchsorted(cum[z], u[t], side='right')), K - 1)
            x[i, t] = z
    x += rng.normal(0, 0.5, (N, T))
    os.makedirs(d, exist_ok=True)
    x.astype('<f8').tofile(os.path.join(d, 'x.f64'))
    start = {'Init': [1 / K] * K, 'Trans': [[1 / K] * K for _ in range(K)],
             'Mean': [i + 0.3 for i in range(K)], 'Var': [1.0] * K}
    with open(os.path.join(d, 'start.json'), 'w') as f:
        json.dump(start, f)
    return x, start


def pome_model(start):
    dists = [NormalDistribution(m, np.sqrt(v)) for m, v in zip(start['Mean'], start['Var'])]
    m = HiddenMarkovModel.from_matrix(np.array(start['Trans']), dists, np.array(start['Init']))
    m.bake()
    return m


def pome_iteration(start, seqs, jobs):
    """Returns (seconds, loglik of the start, loglik after one iteration)."""
    m = pome_model(start)
    batches = [seqs[i::jobs] for i in range(jobs)]
    t0, c0 = time.perf_counter(), time.process_time()
    with Parallel(n_jobs=jobs, backend='threading') as par:
        ll = sum(par(delayed(m.summarize)(b, algorithm='baum-welch') for b in batches))
    m.from_summaries()
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    after = sum(m.log_probability(s) for s in seqs)
    return secs, ll, after, cpu


def write_cli(d, x, start):
    """Writes the start as a time-indexed model and the values as CSV."""
    names = [f's{i}' for i in range(K)]
    lines = ['var H[t]: {' + ', '.join(names) + '}', 'var Y[t]: real', 'H[t-1] -> H[t]', 'H[t] -> Y[t]',
             'P(H[0]) = [' + ', '.join(repr(p) for p in start['Init']) + ']', 'P(H[t] | H[t-1]) = {']
    lines += [f'    {names[i]}: [' + ', '.join(repr(p) for p in row) + ']' for i, row in enumerate(start['Trans'])]
    lines += ['}', 'P(Y[t] | H[t]) = {']
    lines += [f'    {names[i]}: normal({m!r}, {np.sqrt(v)!r})' for i, (m, v) in enumerate(zip(start['Mean'], start['Var']))]
    lines += ['}']
    with open(os.path.join(d, 'start.pbl'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    with open(os.path.join(d, 'x.csv'), 'w') as f:
        f.write('sequence,Y\n')
        for i in range(N):
            f.write(''.join(f'{i},{v!r}\n' for v in x[i].tolist()))


def cli_iteration(d):
    """Returns (wall seconds, CPU seconds, learning seconds, loglik start, after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([os.path.join(d, 'pbl'), 'learn', os.path.join(d, 'start.pbl'), '--data', os.path.join(d, 'x.csv'),
                          '--method', 'em', '--init', 'model', '--max-iter', '1', '--tol', '0', '--json',
                          '-o', os.path.join(d, 'out.pbl')], capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    o = json.loads(out.splitlines()[0])
    return wall, cpu, o['seconds'], o['trace'][0], o['trace'][1]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else '/tmp/hmmbench'
    print('load average before: %.2f %.2f %.2f' % os.getloadavg(), flush=True)
    x, start = make_data(d)
    seqs = [x[i] for i in range(N)]
    pome = {}
    for jobs in (1, 2):
        runs = [pome_iteration(start, seqs, jobs) for _ in range(2)]
        pome[jobs] = min(runs)
        print(f'pomegranate n_jobs={jobs}: {pome[jobs][0]*1000:.0f} ms (CPU {pome[jobs][3]*1000:.0f} ms), '
              f'loglik start {pome[jobs][1]:.17g}, after {pome[jobs][2]:.17g}', flush=True)
    env = dict(os.environ, PBL_HMM_BENCH=d)
    out = subprocess.run(['go', 'test', '-run', '^$', '-bench', 'BaumWelch', '-benchtime', '3x', '-count', '2', './hmm'],
                         env=env, capture_output=True, text=True, check=True).stdout
    pbl = {}
    for line in out.splitlines():
        m = re.match(r'hmm-bench workers=(\d+) loglik-start (\S+) loglik-after (\S+)', line)
        if m:
            pbl.setdefault(int(m[1]), {})['ll'] = (float(m[2]), float(m[3]))
        m = re.match(r'BenchmarkBaumWelch/workers=(\d+)\S*\s+\d+\s+(\d+) ns/op.*\s(\S+) cpu-ms/iter', line)
        if m:
            w = int(m[1])
            pbl.setdefault(w, {})
            if int(m[2]) / 1e6 < pbl[w].get('ms', 1e18):
                pbl[w]['ms'], pbl[w]['cpu'] = int(m[2]) / 1e6, float(m[3])
    write_cli(d, x, start)
    subprocess.run(['go', 'build', '-o', os.path.join(d, 'pbl'), './cmd/pbl'], check=True)
    cli = min(cli_iteration(d) for _ in range(2))
    print('load average after: %.2f %.2f %.2f' % os.getloadavg())
    for w in sorted(pbl):
        p = pbl[w]
        ref = pome[min(w, 2)]
        agree = all(abs(a - b) <= 1e-9 * abs(b) for a, b in zip(p['ll'], ref[1:]))
        print(f'pbl workers={w}: {p["ms"]:.0f} ms (CPU {p["cpu"]:.0f} ms), loglik start {p["ll"][0]:.17g}, after {p["ll"][1]:.17g}; '
              f'{ref[0]*1000/p["ms"]:.1f}x pomegranate n_jobs={min(w, 2)} (CPU {ref[3]*1000/p["cpu"]:.1f}x); log-likelihoods agree to 1e-9: {agree}')
    ref = pome[2]
    agree = all(abs(a - b) <= 1e-9 * abs(b) for a, b in zip(cli[3:], ref[1:3]))
    print(f'pbl learn (command line, all cores): {cli[0]*1000:.0f} ms wall with reading the CSV (CPU {cli[1]*1000:.0f} ms), '
          f'{cli[2]*1000:.0f} ms learning (E-step of the start, M-step, E-step after), loglik start {cli[3]:.17g}, after {cli[4]:.17g}; '
          f'{ref[0]/cli[0]:.1f}x pomegranate n_jobs=2 by the whole process (CPU {ref[3]/cli[1]:.1f}x); log-likelihoods agree to 1e-9: {agree}')


if __name__ == '__main__':
    main()
