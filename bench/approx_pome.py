#!/usr/bin/python3
"""pomegranate's loopy belief propagation on a generated Bayesian network
with its evidence, timed, with its errors against the exact answer: the
pomegranate reference of issue 29's acceptance figures.

    /usr/bin/python3 bench/approx_pome.py NET.bif NET.uai.evid EXACT [--iters N]...

NET.bif and NET.uai.evid come from go run ./bench/approxnet (the .bif
declares the variables in the .uai's order, so the evidence's indices count
in declaration order); EXACT is libDAI's junction-tree answer written by
bench/approx_ref.sh (OUT/NAME.exact). The model is built as
../shared/bench/lib/pome.py builds it ($PBL_SHARED_BENCH, default
../shared/bench from the repository root); the build (bake) is timed apart
from predict_proba. For each --iters (pomegranate's max_iterations; default
100, its own default) it prints one line: iterations, build seconds,
predict seconds, mean and largest Hellinger error of the unobserved
variables' marginals (pomegranate gives no log Z).

Set-up: apt-get install -y python3-pomegranate (Debian's /usr/bin/python3).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SHARED = os.environ.get('PBL_SHARED_BENCH', os.path.join(HERE, '..', '..', 'shared', 'bench'))
sys.path.insert(0, os.path.join(SHARED, 'lib'))

import approx_err  # noqa: E402
import bif  # noqa: E402
import pome  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('bif')
    ap.add_argument('evid')
    ap.add_argument('exact')
    ap.add_argument('--iters', type=int, action='append')
    a = ap.parse_args()
    net = bif.load(a.bif)
    evid = approx_err.read_evidence(a.evid)
    _, _, exact = approx_err.read_answer(a.exact)
    names = net.order
    t = time.perf_counter()
    m, _ = pome.build(net)
    t_build = time.perf_counter() - t
    ev = {names[v]: net.states[names[v]][s] for v, s in evid.items()}
    # pomegranate's answer is in the order of the model's states (its own
    # topological order): map back by name.
    idx = {s.name: i for i, s in enumerate(m.states)}
    for iters in a.iters or [100]:
        t = time.perf_counter()
        out = m.predict_proba(ev, max_iterations=iters)
        t_pred = time.perf_counter() - t
        marg = []
        for v, name in enumerate(names):
            d = out[idx[name]]
            if v in evid:
                row = [1.0 if k == evid[v] else 0.0 for k in range(net.card(name))]
            else:
                p = d.parameters[0]
                row = [float(p.get(s, 0.0)) for s in net.states[name]]
            marg.append(row)
        mean, worst, _ = approx_err.errors((0.0, exact), (float('nan'), marg), evid)
        print('%s iters %d build %.2f s predict %.2f s hellinger mean %.3g max %.3g'
              % (os.path.basename(a.bif), iters, t_build, t_pred, mean, worst))


if __name__ == '__main__':
    main()
