"""ML(H | D) of examples/line_fit.pbl against a numpy brute force over the same
grid, in one run; prints both times and the ratio (above 1: pbl is faster).

Run from the repository's root (Debian's python3 with numpy):

    go build -o /tmp/pbl ./cmd/pbl
    /usr/bin/python3 hypothesis/testdata/bench_line_fit.py /tmp/pbl [N]

N data points (default 1,000) are drawn from d = 1.3 + 0.7x + N(0, 1), x ~
U(-5, 5), written to a temporary CSV and bound to the model's D with --data.
pbl's time is the whole process (start, parse, read the CSV, evaluate the
1001 x 1001 grid, print), best of 5; numpy's is the grid's evaluation alone
(the data already in memory), best of 3. Both must find the same hypothesis
and log-likelihood.
"""
import json, os, subprocess, sys, tempfile, time
import numpy as np

pbl = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
rng = np.random.default_rng(2026)
x = rng.uniform(-5, 5, size=n)
d = 1.3 + 0.7 * x + rng.normal(size=n)
tmp = tempfile.mkdtemp()
csv = os.path.join(tmp, 'line.csv')
np.savetxt(csv, np.c_[x, d], delimiter=',', header='x,d', comments='', fmt='%.17g')

grid = np.round(np.arange(-500, 501) / 100, 2)  # -5, -4.99, ..., 5


def numpy_ml():
    """Brute force: the log-likelihood of every (w0, w1), in slices of w1."""
    best, arg = -np.inf, None
    chunk = 8
    for j in range(0, grid.size, chunk):
        w1 = grid[j:j + chunk]
        r = d[None, None, :] - grid[:, None, None] - w1[None, :, None] * x[None, None, :]
        ll = -0.5 * n * np.log(2 * np.pi) - 0.5 * np.einsum('ijk,ijk->ij', r, r)
        k = np.unravel_index(np.argmax(ll), ll.shape)
        if ll[k] > best:
            best, arg = ll[k], (grid[k[0]], w1[k[1]])
    return best, arg


def timed(f, reps):
    best, out = np.inf, None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def run_pbl():
    out = subprocess.run([pbl, 'query', 'examples/line_fit.pbl', 'ML(H | D)', '--json', '--data', 'D=' + csv],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


t_np, (ll_np, (w0, w1)) = timed(numpy_ml, 3)
t_pbl, res = timed(run_pbl, 5)
h = res['h']
print(f'numpy brute force: {t_np:.3f} s  w0={w0:g} w1={w1:g} ln P(D|h)={ll_np:.10f}')
print(f'pbl (whole process): {t_pbl:.4f} s  w0={h["w0"]:g} w1={h["w1"]:g} ln P(D|h)={res["log_likelihood"]:.10f}')
if (h['w0'], h['w1']) != (w0, w1) or abs(res['log_likelihood'] - ll_np) > 1e-6 * abs(ll_np):
    sys.exit('the ML hypotheses differ')
print(f'ratio: {t_np / t_pbl:.1f}')
