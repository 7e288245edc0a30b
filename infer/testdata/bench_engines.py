#!/usr/bin/env python3
"""One query by pbl's default engine beside each engine chosen by hand, whole process.

    /usr/bin/python3 infer/testdata/bench_engines.py ../shared/corpus/bif/*.bif* [--observed 5] [--seed 0]

For each network, two single queries with --observed variables observed (sampled from the
network, so possible): P(e), and P(X | e) for a random unobserved X. Each is run as
`pbl query NET Q` with the default engine, with --engine ve and with --engine jt
(--max-memory 2GiB: a tree over that is refused, and counts as not available), in
--rounds rounds that run each engine once in turn (so that a burst of load on a shared
machine hits them alike), the best wall time of each, and the line gives the times and default / best-by-hand (the target is
at most 2). The last line is the worst ratio. pbl is $PBL, else built from the current
directory; the bench directory is $PBL_BENCH (default ../shared/bench).
"""
import argparse, os, re, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_pe  # noqa: E402
import numpy as np  # noqa: E402
import bif  # noqa: E402


def wall(pbl, args):
    """Wall seconds of one pbl process, or None if it fails (a refusal)."""
    t = time.perf_counter()
    p = subprocess.run([pbl] + args, capture_output=True, text=True)
    w = time.perf_counter() - t
    return w if p.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('networks', nargs='+')
    ap.add_argument('--observed', type=int, default=5)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--rounds', type=int, default=7)
    a = ap.parse_args()
    pbl = bench_pe.pbl_binary()
    worst = 0.0
    rng = np.random.default_rng(a.seed)
    for path in a.networks:
        net = bif.load(path)
        ev = bench_pe.evidence_sets(net, 1, min(a.observed, len(net.order) - 1), a.seed)[0]
        evs = ', '.join('%s=%s' % (bench_pe.quote(k), bench_pe.quote(v)) for k, v in ev.items())
        free = [v for v in net.order if v not in ev]
        x = free[rng.integers(len(free))]
        for name, q in (('P(e)', 'P(%s)' % evs), ('P(X | e)', 'P(%s | %s)' % (bench_pe.quote(x), evs))):
            times = {}
            engines = (('auto', []), ('ve', ['--engine', 've']), ('jt', ['--engine', 'jt', '--max-memory', '2GiB']))
            for r in range(a.rounds):
                for eng, extra in engines:
                    if r > 0 and times[eng] is None:
                        continue  # refused
                    w = wall(pbl, ['query'] + extra + [path, q])
                    times[eng] = w if r == 0 or w is None else min(w, times[eng])
            hand = min(t for e, t in times.items() if e != 'auto' and t is not None)
            r = times['auto'] / hand
            worst = max(worst, r)
            fmt = lambda t: '%8.1f ms' % (1e3 * t) if t is not None else '   refused'
            print('%-22s %-9s auto %s  ve %s  jt %s  auto/best %.2f' % (
                os.path.basename(path), name, fmt(times['auto']), fmt(times['ve']), fmt(times['jt']), r), flush=True)
    print('worst auto / best by hand: %.2f' % worst)


if __name__ == '__main__':
    main()
