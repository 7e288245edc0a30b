#!/usr/bin/env python3
"""P(e) by pbl's default engine beside the bench's numpy VE oracle, in one run.

    /usr/bin/python3 infer/testdata/bench_pe.py ../shared/corpus/bif/munin1.bif [--sets 10] [--observed 5] [--seed 0] [--engine auto]

For each of --sets evidence sets of --observed variables (sampled from the network, so
P(e) > 0), it times pbl's whole process, `pbl query --json NET 'P(e)'` under
/usr/bin/time -v (best of 3 wall times; the largest max RSS), and the oracle's
`log_evidence` (../shared/bench/lib/oracle.py, best of 3), checks pbl's P(e) against
the oracle's to 1e-6 relative (the corpus's rows are rounded), and prints per set and then the medians:

    set 0: pbl 9.1 ms 7.4 MB, oracle 812 ms, ratio 89.2
    ...
    peak RSS: 7.9 MB (max over sets)
    ratio (oracle / pbl, median): 90.1

pbl is $PBL, else built from the current directory into a temporary folder. The
bench directory is $PBL_BENCH (default ../shared/bench). Exit status 1 when an answer
disagrees with the oracle.
"""
import argparse, json, math, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.environ.get('PBL_BENCH', os.path.join(HERE, '..', '..', '..', 'shared', 'bench'))
sys.path.insert(0, os.path.join(BENCH, 'lib'))
import numpy as np  # noqa: E402
import bif, oracle, sample  # noqa: E402


def pbl_binary():
    if os.environ.get('PBL'):
        return os.environ['PBL']
    out = os.path.join(tempfile.mkdtemp(prefix='pbl-pe-'), 'pbl')
    subprocess.run(['go', 'build', '-o', out, './cmd/pbl'], check=True, cwd=os.path.join(HERE, '..', '..'))
    return out


def quote(name):
    return name if re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*', name) else '"%s"' % name


def evidence_sets(net, sets, observed, seed):
    rng = np.random.default_rng(seed)
    _, vals, _ = sample.sample(net, sets, seed + 1)
    out = []
    for i in range(sets):
        chosen = rng.choice(net.order, size=min(observed, len(net.order)), replace=False)
        out.append({v: net.states[v][vals[v][i]] for v in chosen})
    return out


def run_pbl(pbl, args):
    """Wall seconds and max RSS in bytes of one pbl process, and its stdout."""
    t = time.perf_counter()
    p = subprocess.run(['/usr/bin/time', '-v', pbl] + args, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit('pbl failed (%d): %s' % (p.returncode, p.stderr.strip()[:2000]))
    m = re.search(r'Maximum resident set size \(kbytes\): (\d+)', p.stderr)
    return wall, int(m.group(1)) * 1024, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('network')
    ap.add_argument('--sets', type=int, default=10)
    ap.add_argument('--observed', type=int, default=5)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--engine', default='auto')
    a = ap.parse_args()
    pbl = pbl_binary()
    net = bif.load(a.network)
    ratios, rss_all, bad = [], [], 0
    for i, ev in enumerate(evidence_sets(net, a.sets, a.observed, a.seed)):
        q = 'P(%s)' % ', '.join('%s=%s' % (quote(k), quote(v)) for k, v in ev.items())
        args = ['query', '--json', '--engine', a.engine, a.network, q]
        walls, rss, out = [], 0, ''
        for _ in range(3):
            w, r, out = run_pbl(pbl, args)
            walls.append(w)
            rss = max(rss, r)
        got = json.loads(out)['p']
        t_or, want = [], None
        for _ in range(3):
            t = time.perf_counter()
            want = oracle.log_evidence(net, ev)
            t_or.append(time.perf_counter() - t)
        want = math.exp(want)
        # The corpus's rows are rounded and pbl renormalises them (the oracle
        # does not), so the two agree to about 1e-8 relative, not to the last
        # printed digit: compare.py bn checks to 1e-6 for the same reason.
        ok = abs(got - want) <= 1e-6 * abs(want)
        bad += not ok
        r = min(t_or) / min(walls)
        ratios.append(r)
        rss_all.append(rss)
        print('set %d: pbl %.1f ms %.1f MB, oracle %.1f ms, ratio %.1f, P(e) %.9g vs %.9g%s' % (
            i, 1e3 * min(walls), rss / 1e6, 1e3 * min(t_or), r, got, want, '' if ok else '  MISMATCH'))
    print('peak RSS: %.1f MB (max over sets)' % (max(rss_all) / 1e6))
    print('ratio (oracle / pbl, median): %.1f' % float(np.median(ratios)))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
